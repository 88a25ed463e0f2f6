"""``rulelens verify --agent codex``: rollouts in Codex's exact format and place (origins in
``formats.py``: openai/codex@03932b81 rollout/tests.rs ``write_session_file``,
user_instructions.rs ``test_user_instructions``)."""

from __future__ import annotations

from .conftest import Workspace, by_path, diffs
from .formats import codex_rollout, codex_text

UUID1 = "0199a1b2-0000-7000-8000-00000000c0d1"
UUID2 = "0199a1b2-0000-7000-8000-00000000c0d2"


def _setup(ws: Workspace) -> tuple[str, str]:
    root = "Root rules.\nUse pytest.\n"
    sub = "Sub rules.\n\nTwo paragraphs.\n"
    ws.write("AGENTS.md", root)
    ws.write("sub/AGENTS.md", sub)
    return root, sub


def test_observed_set_and_when_by_content_and_order(ws: Workspace) -> None:
    root, sub = _setup(ws)
    cwd = str(ws.repo / "sub")
    path = codex_rollout(ws.home / ".codex", cwd, "2026-09-01T10-00-00", UUID1,
                         codex_text(cwd, None, [root, sub]))
    result = ws.verify("codex", ws.repo / "sub")
    assert result["verdict"] == "match", result["reason"]
    assert result["session"] == {"id": UUID1, "path": str(path),
                                 "started": "2026-09-01T10:00:00Z", "cwd": cwd,
                                 "agent_version": "0.63.0"}
    assert [o["path"] for o in result["observed"]] == [str(ws.repo / "AGENTS.md"),
                                                        str(ws.repo / "sub" / "AGENTS.md")]
    assert set(by_path(result).values()) == {("start", True)}
    assert result["differences"] == []


def test_global_file_before_the_project_doc_separator(ws: Workspace) -> None:
    root, _sub = _setup(ws)
    (ws.home / ".codex").mkdir()
    (ws.home / ".codex" / "AGENTS.md").write_text("Global.\n")
    cwd = str(ws.repo)
    codex_rollout(ws.home / ".codex", cwd, "2026-09-01T10-00-00", UUID1,
                  codex_text(cwd, "Global.", [root]))
    result = ws.verify("codex", ws.repo)
    assert by_path(result) == {str(ws.home / ".codex" / "AGENTS.md"): ("start", True),
                               str(ws.repo / "AGENTS.md"): ("start", True)}
    assert result["verdict"] == "match"


def test_file_added_after_the_session_differs(ws: Workspace) -> None:
    root, _sub = _setup(ws)
    cwd = str(ws.repo / "sub")
    codex_rollout(ws.home / ".codex", cwd, "2026-09-01T10-00-00", UUID1,
                  codex_text(cwd, None, [root]))  # sub/AGENTS.md did not exist yet
    result = ws.verify("codex", ws.repo / "sub")
    assert result["verdict"] == "differs"
    assert diffs(result) == {(str(ws.repo / "sub" / "AGENTS.md"), "start", "absent")}
    assert "sub/AGENTS.md predicted start, absent in the session" in result["reason"]


def test_override_added_later_names_the_shadowed_file_observed(ws: Workspace) -> None:
    root, sub = _setup(ws)
    cwd = str(ws.repo / "sub")
    codex_rollout(ws.home / ".codex", cwd, "2026-09-01T10-00-00", UUID1,
                  codex_text(cwd, None, [root, sub]))
    ws.write("sub/AGENTS.override.md", "Override.\n")
    result = ws.verify("codex", ws.repo / "sub")
    assert diffs(result) == {(str(ws.repo / "sub" / "AGENTS.md"), "no", "start"),
                             (str(ws.repo / "sub" / "AGENTS.override.md"), "start", "absent")}


def test_file_edited_since_does_not_match_disk(ws: Workspace) -> None:
    root, sub = _setup(ws)
    cwd = str(ws.repo / "sub")
    codex_rollout(ws.home / ".codex", cwd, "2026-09-01T10-00-00", UUID1,
                  codex_text(cwd, None, [root, sub]))
    ws.write("AGENTS.md", "Root rules, changed.\n")
    result = ws.verify("codex", ws.repo / "sub")
    assert by_path(result) == {str(ws.repo / "AGENTS.md"): ("start", False),
                               str(ws.repo / "sub" / "AGENTS.md"): ("start", True)}
    assert result["verdict"] == "match"
    assert "Edited since the session: AGENTS.md" in result["reason"]


def test_sessions_of_another_directory_are_ignored(ws: Workspace) -> None:
    root, sub = _setup(ws)
    sub_cwd, root_cwd = str(ws.repo / "sub"), str(ws.repo)
    codex_rollout(ws.home / ".codex", sub_cwd, "2026-09-01T10-00-00", UUID1,
                  codex_text(sub_cwd, None, [root, sub]))
    codex_rollout(ws.home / ".codex", root_cwd, "2026-09-02T10-00-00", UUID2,
                  codex_text(root_cwd, None, [root]))  # newer, but started elsewhere
    assert ws.verify("codex", ws.repo / "sub")["session"]["id"] == UUID1
    assert ws.verify("codex", ws.repo)["session"]["id"] == UUID2
    assert ws.verify("codex", ws.base)["verdict"] == "unknown"


def test_latest_is_the_newest_and_an_id_picks_another(ws: Workspace) -> None:
    root, sub = _setup(ws)
    cwd = str(ws.repo / "sub")
    codex_rollout(ws.home / ".codex", cwd, "2026-09-01T10-00-00", UUID1,
                  codex_text(cwd, None, [root]))
    codex_rollout(ws.home / ".codex", cwd, "2026-09-03T08-00-00", UUID2,
                  codex_text(cwd, None, [root, sub]))
    latest = ws.verify("codex", ws.repo / "sub")
    assert latest["session"]["id"] == UUID2 and latest["verdict"] == "match"
    older = ws.verify("codex", ws.repo / "sub", session=UUID1)
    assert older["session"]["id"] == UUID1 and older["verdict"] == "differs"


def test_malformed_and_truncated_lines_are_skipped_and_counted(ws: Workspace) -> None:
    root, sub = _setup(ws)
    cwd = str(ws.repo / "sub")
    path = codex_rollout(ws.home / ".codex", cwd, "2026-09-01T10-00-00", UUID1,
                         codex_text(cwd, None, [root, sub]))
    with path.open("a") as f:
        f.write('{"timestamp":"2026-09-01T10:00:02.000Z","type":"response_item","payl\n')
        f.write("not json at all\n")
        f.write('{"type":"response_item","payload":{"type":"message","role":"user","content":'
                '[{"type":"input_text","text":"# AGENTS.md instructions for')  # torn tail
    result = ws.verify("codex", ws.repo / "sub")
    assert result["verdict"] == "match"
    assert "2 malformed lines and a truncated last line skipped" in result["reason"]


def test_no_instruction_message_means_nothing_was_injected(ws: Workspace) -> None:
    """research fact 14: the message is only built when there is AGENTS.md text."""
    _setup(ws)
    cwd = str(ws.repo)
    codex_rollout(ws.home / ".codex", cwd, "2026-09-01T10-00-00", UUID1, None)
    result = ws.verify("codex", ws.repo)
    assert result["observed"] == []
    assert diffs(result) == {(str(ws.repo / "AGENTS.md"), "start", "absent")}


def test_no_session_here_is_unknown_with_what_to_do(ws: Workspace) -> None:
    _setup(ws)
    result = ws.verify("codex", ws.repo)
    assert result["verdict"] == "unknown" and result["session"] is None
    assert "No Codex CLI session recorded in" in result["reason"]
    assert "start Codex CLI there" in result["reason"]
