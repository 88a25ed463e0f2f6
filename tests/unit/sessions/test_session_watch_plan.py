"""Which directories the LSP watches for new sessions (``lsp/sessionwatch.plan_for``): the
folder each agent writes its next session of the start directory into, found from real
session files in the agents' exact formats and places (``formats.py``), and nothing of the
busy rest of an agent's home."""

from __future__ import annotations

import os
import urllib.parse
from datetime import UTC, datetime
from pathlib import Path

from rulelens.lsp.sessionwatch import plan_for

from . import formats
from .conftest import Workspace

NOW = datetime(2026, 9, 1, 23, 30, tzinfo=UTC)


def test_each_agents_next_session_lands_in_a_watched_folder(ws: Workspace) -> None:
    cwd = str(ws.repo)
    other = str(ws.base / "elsewhere")
    sessions = {
        "codex": formats.codex_rollout(ws.home / ".codex", cwd, "2026-09-01T23-00-00",
                                       "0199a1b2-0000-7000-8000-000000000001", None),
        "claude": formats.claude_transcript(ws.home, cwd, "5b0e8f7a-0000-4000-8000-000000000001",
                                            "2026-09-01T23:00:00.000Z", []),
        "gemini": formats.gemini_session(ws.home, cwd, "1f2e3d4c-0000-4000-8000-000000000001",
                                         "2026-09-01T23:00:00.000Z", []),
        "grok": formats.grok_session(ws.home / ".grok", cwd, "019a0000-0000-7000-8000-0000000000a1",
                                     "2026-09-01T23:00:00Z", []),
    }
    plan = plan_for(["codex", "claude", "gemini", "grok@1.0.45", "cursor"], [cwd], ws.env,
                    now=NOW)
    for agent, path in sessions.items():
        found = path if path.is_file() else next(p for p in path.iterdir() if p.is_file())
        assert plan.agent_of(str(found)) == agent, (agent, found, plan)
        # The next session: a new file beside it (Grok: a new session folder in its group).
        sibling = found.parent.parent / "new-id" if agent == "grok" else found.parent / "x"
        assert plan.agent_of(str(sibling)) == agent, (agent, sibling)
    flat = set(plan.flat)
    assert str(sessions["claude"].parent) in flat and str(sessions["codex"].parent) in flat
    assert str(sessions["gemini"].parent) in flat
    group = ws.home / ".grok" / "sessions" / urllib.parse.quote(cwd, safe="")
    assert list(plan.deep) == [str(group)], plan.deep  # Grok: one folder per session
    # Noise in the agents' homes and another start directory's sessions are not watched.
    for noise in (ws.home / ".claude" / "settings.json", ws.home / ".claude" / "todos" / "x",
                  ws.home / ".codex" / "config.toml", ws.home / ".codex" / "log" / "x",
                  ws.home / ".claude" / "projects" / formats.claude_slug(other) / "s.jsonl",
                  ws.home / ".grok" / "memory" / "x.md"):
        assert plan.agent_of(str(noise)) is None, noise
    assert "cursor" not in set(plan.flat.values()) | set(plan.deep.values())  # records nothing


def test_codex_watches_today_and_the_folders_a_new_day_appears_in(ws: Workspace) -> None:
    plan = plan_for(["codex"], [str(ws.repo)], ws.env, now=NOW)
    sessions = ws.home / ".codex" / "sessions"
    assert str(sessions / "2026" / "09" / "01") in plan.flat
    # A new day's (or month's) folder is seen: the watch is armed again with it.
    assert plan.agent_of(str(sessions / "2026" / "09" / "02")) == "codex"
    assert plan.agent_of(str(sessions / "2026" / "10")) == "codex"
    assert plan.agent_of(str(ws.home / ".codex" / "sessions")) == "codex"
    assert all(not os.path.relpath(d, sessions).startswith("..")
               or d in (str(ws.home / ".codex"), str(ws.home)) for d in [*plan.flat, *plan.steps])


def test_a_first_session_here_is_seen_before_its_folder_exists(tmp_path: Path) -> None:
    """No Claude Code session in this directory yet (not even ``~/.claude``): the home and
    each folder down are watched for the next one to appear (then the watch is re-armed)."""
    home = tmp_path / "home"
    home.mkdir()
    cwd = str(tmp_path / "repo")
    plan = plan_for(["claude"], [cwd], {"HOME": str(home)})
    folder = home / ".claude" / "projects" / formats.claude_slug(cwd)
    assert str(home) in plan.steps and str(home / ".claude" / "projects") in plan.steps
    for path in (home / ".claude", home / ".claude" / "projects", folder):
        assert plan.agent_of(str(path)) == "claude", path
    assert plan.agent_of(str(home / ".claude" / "projects" / "-other")) is None
    assert plan.agent_of(str(home / ".bashrc")) is None
