"""``rulelens verify --agent grok``: session folders in Grok Build's exact layout (origins in
``formats.py``: xai-org/grok-build@19d42e3 ``struct Summary``, ``project_instructions``,
``render_agents_md``, ``PromptContext``), found by the transcript reader memory search uses."""

from __future__ import annotations

from .conftest import Workspace, by_path, diffs
from .formats import grok_session

SID1 = "0199a1b2-1111-7000-8000-0000000060a1"
SID2 = "0199a1b2-1111-7000-8000-0000000060a2"


def _setup(ws: Workspace) -> list[tuple[str, str]]:
    """A trusted folder (Grok >= 1.0.45 loads project files only there)."""
    (ws.home / ".grok").mkdir()
    (ws.home / ".grok" / "trusted_folders.toml").write_text(
        f'[folders."{ws.repo}"]\ntrusted = true\n')
    ws.write("AGENTS.md", "Project rules.\n")
    ws.write("app/AGENTS.md", "App rules.\n")
    return [(str(ws.repo / "AGENTS.md"), "Project rules.\n"),
            (str(ws.repo / "app" / "AGENTS.md"), "App rules.\n")]


def test_observed_set_from_prompt_context(ws: Workspace) -> None:
    files = _setup(ws)
    cwd = str(ws.repo / "app")
    folder = grok_session(ws.home / ".grok", cwd, SID1, "2026-09-01T10:00:00.000000Z", files)
    result = ws.verify("grok", ws.repo / "app")
    assert result["verdict"] == "match", result["reason"]
    assert result["session"] == {"id": SID1, "path": str(folder),
                                 "started": "2026-09-01T10:00:00Z", "cwd": cwd,
                                 "agent_version": None}
    assert by_path(result) == {p: ("start", True) for p, _ in files}


def test_chat_history_reminder_when_prompt_context_is_missing(ws: Workspace) -> None:
    files = _setup(ws)
    cwd = str(ws.repo / "app")
    grok_session(ws.home / ".grok", cwd, SID1, "2026-09-01T10:00:00Z", files,
                 prompt_context=False)
    assert by_path(ws.verify("grok", ws.repo / "app")) == {p: ("start", True)
                                                           for p, _ in files}


def test_legacy_untagged_reminder_is_recognised(ws: Workspace) -> None:
    """prompt_build.rs ``is_project_instructions``: the reminder's first words."""
    files = _setup(ws)
    cwd = str(ws.repo / "app")
    grok_session(ws.home / ".grok", cwd, SID1, "2026-09-01T10:00:00Z", files,
                 prompt_context=False, tagged=False)
    assert ws.verify("grok", ws.repo / "app")["verdict"] == "match"


def test_file_added_after_the_session_differs(ws: Workspace) -> None:
    files = _setup(ws)
    cwd = str(ws.repo / "app")
    grok_session(ws.home / ".grok", cwd, SID1, "2026-09-01T10:00:00Z", files[:1])
    result = ws.verify("grok", ws.repo / "app")
    assert result["verdict"] == "differs"
    assert diffs(result) == {(files[1][0], "start", "absent")}


def test_file_edited_since_does_not_match_disk(ws: Workspace) -> None:
    files = _setup(ws)
    cwd = str(ws.repo / "app")
    grok_session(ws.home / ".grok", cwd, SID1, "2026-09-01T10:00:00Z", files)
    ws.write("app/AGENTS.md", "App rules, edited.\n")
    result = ws.verify("grok", ws.repo / "app")
    assert by_path(result)[files[1][0]] == ("start", False)
    assert by_path(result)[files[0][0]] == ("start", True)


def test_other_directory_ignored_and_latest_is_newest(ws: Workspace) -> None:
    files = _setup(ws)
    app, root = str(ws.repo / "app"), str(ws.repo)
    grok_session(ws.home / ".grok", app, SID1, "2026-09-01T10:00:00Z", files)
    grok_session(ws.home / ".grok", app, SID2, "2026-09-02T10:00:00Z", files)
    grok_session(ws.home / ".grok", root, "0199a1b2-1111-7000-8000-0000000060a3",
                 "2026-09-05T10:00:00Z", files[:1])
    assert ws.verify("grok", ws.repo / "app")["session"]["id"] == SID2
    assert ws.verify("grok", ws.repo)["session"]["id"].endswith("60a3")


def test_malformed_history_lines_are_skipped(ws: Workspace) -> None:
    files = _setup(ws)
    cwd = str(ws.repo / "app")
    grok_session(ws.home / ".grok", cwd, SID1, "2026-09-01T10:00:00Z", files,
                 prompt_context=False, history_tail='{"type":"user","content":[{"ty\n')
    result = ws.verify("grok", ws.repo / "app")
    assert result["verdict"] == "match"
