"""Zed's own rules-file test, ported, plus the loader's code facts it does not cover.

Origin: zed-industries/zed@0023f768c3d8071a634e34528e35d57de1b9a52e:crates/agent/src/agent.rs
— ``internal_tests::test_maintaining_project_context`` (a worktree ``/a`` without a rules
file has ``rules_file: None``; creating an empty ``/a/.rules`` gives ``rules_file`` ``.rules``
with text ``""``) and ``load_worktree_rules_file`` (first name whose worktree entry
``is_file()``; text trimmed). Zed's FakeFs becomes a real tree here; the assertions are the
same. These lines are graded "code".
"""

from __future__ import annotations

import os
from pathlib import Path

from rulelens.agents import zed


def _env(home: Path) -> dict[str, str]:
    return {"HOME": str(home)}


def test_maintaining_project_context(tmp_path: Path) -> None:
    """Ported: no rules file, then an empty ``.rules`` becomes the worktree's rules file."""
    root = Path(os.path.realpath(tmp_path))
    a = root / "a"
    a.mkdir()
    home = root / "home"
    home.mkdir()
    assert zed.view(str(a), None, _env(home)).files == ()
    (a / ".rules").write_bytes(b"")
    v = zed.view(str(a), None, _env(home))
    assert [(f.path, f.content) for f in v.files] == [(str(a / ".rules"), "")]
    assert v.basis == "code" and "0023f768" in v.basis_label


def test_a_directory_with_a_rules_name_is_passed_over(tmp_path: Path) -> None:
    """From ``load_worktree_rules_file``: ``.filter(|entry| entry.is_file())`` — a
    ``.clinerules/`` folder is skipped and the next name is used (the source comment: Cline's
    directory form is not supported)."""
    root = Path(os.path.realpath(tmp_path))
    (root / ".clinerules").mkdir()
    (root / ".clinerules" / "a.md").write_text("cline")
    (root / "AGENTS.md").write_text("  agents\n\n")
    v = zed.view(str(root), None, _env(root))
    assert [(f.path, f.content) for f in v.files] == [(str(root / "AGENTS.md"), "agents")]
    skip = v.find(str(root / ".clinerules"))
    assert skip is not None and getattr(skip, "reason", "") == "not-a-file"
