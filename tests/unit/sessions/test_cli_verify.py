"""``rulelens verify`` as a user runs it: a real process, a fake home; the JSON's exact
shape and the exit codes (0 match/unknown, 1 differs, 2 usage)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from .conftest import Workspace
from .formats import codex_rollout, codex_text

RULELENS = str(Path(sys.executable).with_name("rulelens"))
UUID = "0199a1b2-0000-7000-8000-00000000c0d1"


def run(ws: Workspace, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([RULELENS, "verify", *args], env=ws.env, capture_output=True,
                          text=True, timeout=120, check=False, cwd=ws.base)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def as_json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_json_shape_and_exit_codes(ws: Workspace) -> None:
    ws.write("AGENTS.md", "Use pytest.\n")
    cwd = str(ws.repo)
    path = codex_rollout(ws.home / ".codex", cwd, "2026-09-01T10-00-00", UUID,
                         codex_text(cwd, None, ["Use pytest.\n"]))
    done = run(ws, "--agent", "codex", "--cwd", cwd, "--json")
    assert done.returncode == 0 and done.stderr == ""
    result = as_json(done)
    assert list(result) == ["agent", "session", "verdict", "reason", "observed",
                            "differences"]
    assert list(result["session"]) == ["id", "path", "started", "cwd", "agent_version"]
    assert result["session"]["path"] == str(path)
    assert result["observed"] == [{"path": str(ws.repo / "AGENTS.md"), "when": "start",
                                   "matches_disk": True}]
    ws.write("sub/AGENTS.md", "Added after the session.\n")
    os.makedirs(ws.repo / "sub", exist_ok=True)
    codex_rollout(ws.home / ".codex", str(ws.repo / "sub"), "2026-09-01T11-00-00",
                  "0199a1b2-0000-7000-8000-00000000c0d2",
                  codex_text(str(ws.repo / "sub"), None, ["Use pytest.\n"]))
    done = run(ws, str(ws.repo / "sub"), "--agent", "codex", "--json")
    assert done.returncode == 1
    assert as_json(done)["differences"] == [{"path": str(ws.repo / "sub" / "AGENTS.md"),
                                             "predicted": "start", "observed": "absent"}]
    text = run(ws, str(ws.repo / "sub"), "--agent", "codex")
    assert text.returncode == 1 and "codex: differs" in text.stdout


def test_unknown_exits_zero_and_usage_errors_exit_two(ws: Workspace) -> None:
    done = run(ws, "--agent", "cursor", "--cwd", str(ws.repo), "--json")
    assert done.returncode == 0 and as_json(done)["verdict"] == "unknown"
    for args, words in ((["--cwd", str(ws.repo)], "verify needs --agent"),
                        (["--agent", "nope", "--cwd", str(ws.repo)], "unknown agent"),
                        (["--agent", "codex,claude", "--cwd", str(ws.repo)], "one agent"),
                        (["--agent", "codex", "--cwd", str(ws.base / "missing")],
                         "no such file"),
                        (["--agent", "codex", "--cwd", str(ws.repo), "--session",
                          "0199dead"], "no codex session with id"),
                        (["--agent", "codex", "--cwd", str(ws.repo), "--session",
                          str(ws.base / "none.jsonl")], "no such session file")):
        done = run(ws, *args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert words in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_session_file_is_read_only_and_nothing_is_written_next_to_it(ws: Workspace) -> None:
    ws.write("AGENTS.md", "Use pytest.\n")
    cwd = str(ws.repo)
    path = codex_rollout(ws.home / ".codex", cwd, "2026-09-01T10-00-00", UUID,
                         codex_text(cwd, None, ["Use pytest.\n"]))
    before = {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in ws.home.rglob("*")}
    path.chmod(0o400)
    done = run(ws, "--agent", "codex", "--cwd", cwd, "--session", str(path), "--json")
    assert done.returncode == 0 and as_json(done)["session"]["id"] == UUID
    after = {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in ws.home.rglob("*")}
    assert after == before


def test_agents_lists_the_newest_version_seen_in_sessions(ws: Workspace) -> None:
    from .formats import claude_transcript

    claude_transcript(ws.home, str(ws.repo), "5b0e8f7a-0000-4000-8000-000000000001",
                      "2026-09-01T10:00:00.000Z", [], version="2.1.240")
    claude_transcript(ws.home, str(ws.base), "5b0e8f7a-0000-4000-8000-000000000002",
                      "2026-09-02T10:00:00.000Z", [], version="2.3.1")
    codex_rollout(ws.home / ".codex", str(ws.repo), "2026-09-01T10-00-00", UUID, None,
                  version="0.63.0")
    done = subprocess.run([RULELENS, "agents", "--json"], env=ws.env, capture_output=True,
                          text=True, timeout=120, check=True)
    rows = {r["id"].split("@")[0]: r for r in json.loads(done.stdout)}
    assert (rows["claude"]["newest_seen"], rows["claude"]["newer_than_modelled"]) == (
        "2.3.1", True)
    assert rows["codex"]["newest_seen"] == "0.63.0"
    assert rows["cursor"]["newest_seen"] is None
    text = subprocess.run([RULELENS, "agents"], env=ws.env, capture_output=True, text=True,
                          timeout=120, check=True).stdout
    assert ("sessions on this machine: newest Claude Code 2.3.1 — newer than this profile"
            " models") in text


def test_chain_json_grades_what_the_last_session_loaded_observed(ws: Workspace) -> None:
    """``rulelens chain --json``: the file the newest Codex rollout in this directory shows
    injected is ``evidence: "observed"``, its source naming the session; edited since, the
    source says so; a file the session did not carry keeps its ``code`` grade."""
    ws.write("AGENTS.md", "Use pytest.\n")
    ws.write("src/app.py", "x = 1\n")
    ws.write("src/AGENTS.md", "Nested.\n")
    cwd = str(ws.repo)

    def chain() -> dict[str, tuple[str, str]]:
        done = subprocess.run([RULELENS, "chain", str(ws.repo / "src" / "app.py"), "--agent",
                               "codex", "--cwd", cwd, "--json"], env=ws.env,
                              capture_output=True, text=True, timeout=120, check=True)
        return {f["path"]: (f["evidence"], f["evidence_source"])
                for f in json.loads(done.stdout)["files"]}

    top, nested = str(ws.repo / "AGENTS.md"), str(ws.repo / "src" / "AGENTS.md")
    before = chain()
    assert before[top][0] == "code" and before[nested][0] == "code", before
    path = codex_rollout(ws.home / ".codex", cwd, "2026-09-01T10-00-00", UUID,
                         codex_text(cwd, None, ["Use pytest.\n"]))
    after = chain()
    assert after[top] == ("observed", f"your codex session {UUID} of 2026-09-01T10:00:00Z"
                                      f" ({path})"), after
    assert after[nested][0] == "code", after  # may pull in: not in the session
    ws.write("AGENTS.md", "Use pytest -q.\n")
    assert chain()[top][1].endswith("; edited since")
