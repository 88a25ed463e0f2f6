"""Issue 21 item 3: every line says how sure it is (``evidence``) and where that comes from
(``evidence_source``; ``source`` stays Grok's InstructionSource in chain JSON), and the
version-gated bugs the research lists show on the lines they affect.

Facts named: agent-profiles.md change notes, 2026-12-01 — Claude Code "several `paths:`
entries silently never loaded" (anthropics/claude-code#33581) and "`paths:` rules under
~/.claude/rules/ never loaded" (#21858); Cursor "`globs: a, b` silently matches nothing"
(nefarius/BthPS3#143); JetBrains Copilot 1.12.1 "Local mode ignores applyTo"
(microsoft/copilot-intellij-feedback#1624).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agenttree import env_for, git_init, write

from rulelens.agents import claude, copilot, cursor
from rulelens.agents.registry import BY_ID
from rulelens.multichain import view_json
from rulelens.rules.perfile import with_source


def _json(view: object) -> dict[str, object]:
    return view_json(with_source(view))  # type: ignore[arg-type]


def _line(payload: dict[str, object], path: Path) -> dict[str, object]:
    for group in ("files", "skipped"):
        for entry in payload[group]:  # type: ignore[attr-defined]
            if entry["path"] == str(path):
                return entry  # type: ignore[no-any-return]
    raise AssertionError(f"{path} not in the view")


def test_every_line_of_every_agent_carries_evidence_and_source(base: Path, home: Path) -> None:
    """``rulelens chain --agent all --json`` on a tree every agent has files in."""
    repo = git_init(base / "repo")
    for rel in ("AGENTS.md", "CLAUDE.md", "GEMINI.md", ".cursor/rules/a.mdc",
                ".github/copilot-instructions.md", ".ai/rules/a.md", ".grok/rules/a.md",
                "src/app.py"):
        write(repo / rel, "# rules\n")
    env = {**os.environ, **env_for(home)}
    out = subprocess.run([sys.executable, "-m", "rulelens", "chain", str(repo / "src/app.py"),
                          "--agent", "all", "--cwd", str(repo), "--json", "--trust",
                          "trusted"],
                         env=env, capture_output=True, text=True, check=True)
    views = json.loads(out.stdout)["agents"]
    assert [v["agent"].split("@")[0] for v in views] == list(BY_ID)
    lines = 0
    for v in views:
        record = BY_ID[v["agent"].split("@")[0]]
        assert v["evidence_source"], v["agent"]
        for entry in v["files"] + v["skipped"]:
            lines += 1
            assert entry["evidence"] in ("code", "docs", "observed"), (v["agent"], entry)
            assert entry["evidence_source"], (v["agent"], entry["path"])
            if record.evidence == "docs":
                assert entry["evidence"] != "code", (v["agent"], entry["path"])
    assert lines > len(views)
    grok = next(v for v in views if v["agent"].startswith("grok"))
    assert grok["files"]  # trusted (--trust trusted): Grok loads the project files
    for entry in grok["files"]:  # Grok's own "source" (home/configured/project) is kept
        assert entry["source"] in ("home", "configured", "project")
    by_agent = {v["agent"].split("@")[0]: v for v in views}
    claude_md = _line(by_agent["claude"], repo / "CLAUDE.md")
    assert claude_md["evidence"] == "docs"
    assert claude_md["evidence_source"].startswith("https://code.claude.com/")  # type: ignore[union-attr]
    agents_md = _line(by_agent["codex"], repo / "AGENTS.md")
    assert agents_md["evidence"] == "code"
    assert agents_md["evidence_source"].startswith("openai/codex@")  # type: ignore[union-attr]


def test_claude_rule_with_several_paths_carries_the_33581_note(base: Path, home: Path) -> None:
    repo = git_init(base / "repo")
    many = write(repo / ".claude/rules/many.md", "---\npaths:\n  - src/**\n  - lib/**\n---\nx\n")
    one = write(repo / ".claude/rules/one.md", "---\npaths:\n  - src/**\n---\nx\n")
    user = write(home / ".claude/rules/mine.md", "---\npaths:\n  - src/**\n---\nx\n")
    file = write(repo / "src/app.py")
    payload = _json(claude.view(str(repo), str(file), env_for(home)))
    assert _line(payload, many)["notes"] == [claude.MULTI_PATHS_BUG]
    assert "33581" in claude.MULTI_PATHS_BUG
    assert "notes" not in _line(payload, one)
    assert _line(payload, user)["notes"] == [claude.USER_PATHS_BUG]
    # The note does not change what the line says: the rule still loads on read.
    assert _line(payload, many)["when"] == "on-read"


def test_cursor_comma_space_globs_carry_a_note(base: Path, home: Path) -> None:
    repo = git_init(base / "repo")
    spaced = write(repo / ".cursor/rules/spaced.mdc", "---\nglobs: src/*.py, lib/*.py\n---\nx\n")
    tight = write(repo / ".cursor/rules/tight.mdc", "---\nglobs: src/*.py,lib/*.py\n---\nx\n")
    file = write(repo / "src/app.py")
    payload = _json(cursor.view(str(repo), str(file), env_for(home)))
    assert _line(payload, spaced)["notes"] == [cursor.COMMA_SPACE_BUG]
    assert "notes" not in _line(payload, tight)


def test_copilot_applyto_files_carry_the_jetbrains_local_note(base: Path, home: Path) -> None:
    repo = git_init(base / "repo")
    hit = write(repo / ".github/instructions/py.instructions.md",
                "---\napplyTo: 'src/**'\n---\nx\n")
    miss = write(repo / ".github/instructions/md.instructions.md",
                 "---\napplyTo: 'docs/**'\n---\nx\n")
    file = write(repo / "src/app.py")
    payload = _json(copilot.view(str(repo), str(file), env_for(home)))
    assert _line(payload, hit)["notes"] == [copilot.JETBRAINS_LOCAL_BUG]
    assert _line(payload, miss)["notes"] == [copilot.JETBRAINS_LOCAL_BUG]
    assert _line(payload, hit)["evidence"] == "docs"
