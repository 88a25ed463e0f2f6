"""The side-by-side table tells "not loaded" apart by why, each mark in the legend
(issue 20: "—" no longer stands for files an agent does look for)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

RULELENS = str(Path(sys.executable).with_name("rulelens"))


def _table(tmp_path: Path, *files: str) -> str:
    home = tmp_path / "home"
    home.mkdir()
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for rel in files:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("# rules\n")
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "XDG_CONFIG_HOME": str(home / ".config"), "LANG": "C.UTF-8"}
    done = subprocess.run([RULELENS, "chain", str(repo / "src" / "x.py"), "--agent",
                           "grok,codex", "--cwd", str(repo)], env=env, capture_output=True,
                          text=True, timeout=60, check=True)
    return done.stdout


def _cells(table: str, name: str) -> list[str]:
    line = next(x for x in table.splitlines() if x.split()[:1] == [name])
    return line.split()[1:]


def test_withheld_and_below_start_have_their_own_marks(tmp_path: Path) -> None:
    table = _table(tmp_path, "AGENTS.md", "src/AGENTS.md", "src/x.py")
    assert _cells(table, "AGENTS.md")[0] == "trust"       # Grok: folder not trusted
    assert _cells(table, "src/AGENTS.md")[0] == "below"   # Grok: below the start directory
    assert "trust = withheld until the folder is trusted" in table
    assert "below = below the start directory" in table
    assert "— = the agent does not look for it" in table
