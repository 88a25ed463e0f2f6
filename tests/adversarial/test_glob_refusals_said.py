"""A scope glob RuleLens refuses to match (over 4,096 characters, braces nested over 32
deep) is said in every agent's view that meets it, not silently unmatched (issue 19)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HUGE = "src/" + "a*" * 2100 + ".py"
NESTED = "{" * 40 + "a" + "}" * 40


def _chain(tmp_path: Path, agent: str, files: dict[str, str]) -> dict[str, object]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    (repo / "src").mkdir(exist_ok=True)
    (repo / "src" / "x.py").write_text("x = 1\n")
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "LANG": "C.UTF-8"}
    done = subprocess.run([sys.executable, "-m", "rulelens", "chain", str(repo / "src" / "x.py"),
                           "--agent", agent, "--cwd", str(repo), "--json"], env=env,
                          capture_output=True, text=True, timeout=30, check=True)
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize(("agent", "rel", "text"), [
    ("cursor", ".cursor/rules/x.mdc", f'---\nglobs: "{HUGE}"\n---\nRule.\n'),
    ("copilot", ".github/instructions/x.instructions.md", f'---\napplyTo: "{NESTED}"\n---\nR.\n'),
    ("copilot", ".claude/rules/x.md", f'---\npaths:\n  - "{HUGE}"\n---\nRule.\n'),
])
def test_a_refused_glob_is_said_in_the_view(tmp_path: Path, agent: str, rel: str,
                                            text: str) -> None:
    view = _chain(tmp_path, agent, {rel: text})
    notes = " ".join(str(n) for n in view.get("notes", []))  # type: ignore[union-attr]
    assert "is not matched" in notes or "are not matched" in notes, view.get("notes")
    assert rel in notes
