"""``rulelens verify --agent claude``: transcripts in Claude Code's format and place
(``~/.claude/projects/<slug>/<uuid>.jsonl``; closed source, the record shapes are [3p]:
research §4, facts 40-44, from parsers' fixtures and a write-up against 2.1.2xx)."""

from __future__ import annotations

from .conftest import Workspace, by_path, diffs
from .formats import claude_transcript

SID1 = "5b0e8f7a-0000-4000-8000-000000000001"
SID2 = "5b0e8f7a-0000-4000-8000-000000000002"


def _setup(ws: Workspace) -> tuple[str, str, str]:
    ws.write("CLAUDE.md", "Project rules.\n")
    ws.write("sub/CLAUDE.md", "Sub rules.\n")
    ws.write("sub/x.py", "x = 1\n")
    return (str(ws.repo / "CLAUDE.md"), str(ws.repo / "sub" / "CLAUDE.md"),
            str(ws.repo / "sub" / "x.py"))


def test_start_and_nested_memory_observed(ws: Workspace) -> None:
    top, sub, _x = _setup(ws)
    path = claude_transcript(ws.home, str(ws.repo), SID1, "2026-09-01T10:00:00.000Z",
                             [(top, "Project", "Project rules.\n")],
                             [(sub, "Sub rules.\n")])
    assert path.parent.name == str(ws.repo).replace("/", "-").replace("_", "-").replace(
        ".", "-")
    result = ws.verify("claude", ws.repo, ws.repo / "sub" / "x.py")
    assert result["verdict"] == "match", result["reason"]
    assert result["session"]["agent_version"] == "2.1.240"
    assert by_path(result) == {top: ("start", True), sub: ("on-read", True)}


def test_file_added_after_the_session_differs(ws: Workspace) -> None:
    top, _sub, _x = _setup(ws)
    claude_transcript(ws.home, str(ws.repo), SID1, "2026-09-01T10:00:00.000Z",
                      [(top, "Project", "Project rules.\n")])
    ws.write(".claude/rules/style.md", "Style.\n")
    result = ws.verify("claude", ws.repo)
    assert result["verdict"] == "differs"
    assert diffs(result) == {(str(ws.repo / ".claude" / "rules" / "style.md"), "start",
                              "absent")}


def test_file_edited_since_does_not_match_disk(ws: Workspace) -> None:
    top, _sub, _x = _setup(ws)
    claude_transcript(ws.home, str(ws.repo), SID1, "2026-09-01T10:00:00.000Z",
                      [(top, "Project", "Old project rules.\n")])
    assert by_path(ws.verify("claude", ws.repo)) == {top: ("start", False)}


def test_old_transcript_without_instructions_record_is_not_absent(ws: Workspace) -> None:
    _setup(ws)
    claude_transcript(ws.home, str(ws.repo), SID1, "2026-09-01T10:00:00.000Z", None,
                      version="2.0.14")
    result = ws.verify("claude", ws.repo)
    assert result["verdict"] == "unknown"
    assert "no 'instructions' record" in result["reason"]


def test_other_directory_ignored_latest_newest_drift(ws: Workspace) -> None:
    top, _sub, _x = _setup(ws)
    claude_transcript(ws.home, str(ws.repo), SID1, "2026-09-01T10:00:00.000Z",
                      [(top, "Project", "Project rules.\n")])
    claude_transcript(ws.home, str(ws.repo), SID2, "2026-09-03T10:00:00.000Z",
                      [(top, "Project", "Project rules.\n")], version="2.2.3")
    claude_transcript(ws.home, str(ws.repo / "sub"), "5b0e8f7a-0000-4000-8000-00000000000f",
                      "2026-09-09T10:00:00.000Z", [])
    result = ws.verify("claude", ws.repo)
    assert result["session"]["id"] == SID2
    assert "Drift: the session is Claude Code 2.2.3, newer than the 2.1" in result["reason"]


def test_malformed_lines_skipped(ws: Workspace) -> None:
    top, _sub, _x = _setup(ws)
    claude_transcript(ws.home, str(ws.repo), SID1, "2026-09-01T10:00:00.000Z",
                      [(top, "Project", "Project rules.\n")],
                      tail='{"type":"attachment","attachment":{"type":"nested_mem\n')
    result = ws.verify("claude", ws.repo)
    assert result["verdict"] == "match"
    assert "1 malformed line skipped" in result["reason"]


def test_agents_that_record_nothing_are_unknown_with_a_reason(ws: Workspace) -> None:
    _setup(ws)
    for agent, words in (("cursor", "Cursor records nothing"),
                         ("copilot", "GitHub Copilot records nothing"),
                         ("boost", "not an agent")):
        result = ws.verify(agent, ws.repo)
        assert result == {"agent": agent, "session": None, "verdict": "unknown",
                          "reason": result["reason"], "observed": [], "differences": []}
        assert words in result["reason"]
