"""``chain --json``'s ``tokens`` object per agent and the CLI table's token row: a real
process on a real repository, a fake home (Claude Code's auto memory where it keeps it)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

RULELENS = str(Path(sys.executable).with_name("rulelens"))


def run(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([RULELENS, "chain", *args], env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout


def test_tokens_per_agent_with_each_agents_estimate(tmp_path: Path) -> None:
    base = Path(os.path.realpath(tmp_path))
    home, repo = base / "home", base / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "sub").mkdir()
    (repo / "sub" / "x.py").write_text("x = 1\n")
    claude_md = "é" * 10 + "\n"           # 11 characters, 21 UTF-8 bytes
    (repo / "CLAUDE.md").write_text(claude_md)
    (repo / "sub" / "CLAUDE.md").write_text("Sub rules here.\n")   # 16 characters
    (repo / "AGENTS.md").write_text(claude_md)
    memory = home / ".claude" / "projects" / re.sub(r"[^a-zA-Z0-9]", "-", str(repo)) / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- remember the ledger\n")       # 22 characters
    (home / ".grok").mkdir()
    (home / ".grok" / "trusted_folders.toml").write_text(
        f'[folders."{repo}"]\ntrusted = true\n')
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    out: dict[str, Any] = json.loads(run(env, str(repo / "sub" / "x.py"), "--agent",
                                         "grok,claude,cursor", "--cwd", str(repo), "--json"))
    got = {a["agent"].split("@")[0]: a["tokens"] for a in out["agents"]}
    # Grok: its own approxTokens, UTF-8 bytes // 4 (AGENTS.md and CLAUDE.md at start).
    assert got["grok"]["start"] == 21 // 4 + 21 // 4
    assert "approxTokens" in got["grok"]["estimate"]
    assert got["grok"]["memory_start"] is None
    # Claude Code: no published estimate, characters / 4 rounded up; nested file on read;
    # its auto memory's MEMORY.md at start.
    assert got["claude"] == {"start": (11 + 3) // 4, "on_read": (16 + 3) // 4,
                             "memory_start": (22 + 3) // 4,
                             "estimate": got["claude"]["estimate"]}
    assert got["claude"]["estimate"].startswith("characters / 4")
    # Cursor: no memory RuleLens models at start.
    assert got["cursor"]["memory_start"] is None
    table = run(env, str(repo / "sub" / "x.py"), "--agent", "grok,claude", "--cwd",
                str(repo))
    row = next(line for line in table.splitlines() if line.startswith("~tokens"))
    assert row.split()[1:] == ["10", "3", "+4", "m6"]
