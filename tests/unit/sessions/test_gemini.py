"""``rulelens verify --agent gemini``: chat recordings in Gemini CLI's exact format and place
(origins in ``formats.py``: google-gemini/gemini-cli@5411f113 chatRecordingService.ts
``initialize``, projectRegistry.ts, jit-context.ts, memoryDiscovery.ts
``concatenateInstructions``; the chatRecordingService.test.ts name pattern
``^session-.*-test-ses\\.jsonl$``)."""

from __future__ import annotations

import json
import re

from .conftest import Workspace, by_path, diffs
from .formats import gemini_session

SID1 = "6f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f"
SID2 = "7a2b3c4d-4b5a-4c6d-8e9f-0a1b2c3d4e5f"


def _setup(ws: Workspace) -> tuple[str, str]:
    (ws.home / ".gemini").mkdir()
    (ws.home / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(ws.repo): "TRUST_FOLDER"}))
    ws.write("GEMINI.md", "Root gemini.\n")
    ws.write("app/GEMINI.md", "Sub gemini rules.\n")
    ws.write("app/x.ts", "export const x = 1;\n")
    return str(ws.repo / "app" / "x.ts"), str(ws.repo / "app" / "GEMINI.md")


def test_on_read_file_observed_and_start_not_recorded(ws: Workspace) -> None:
    target, sub = _setup(ws)
    path = gemini_session(ws.home, str(ws.repo), SID1, "2026-09-01T10:00:00.000Z",
                          [(target, [(sub, "Sub gemini rules.\n")])])
    assert re.fullmatch(r"session-2026-09-01T10-00-6f1c2d3e\.jsonl", path.name)
    result = ws.verify("gemini", ws.repo, ws.repo / "app" / "x.ts")
    assert result["verdict"] == "match", result["reason"]
    assert result["session"]["cwd"] == str(ws.repo)
    assert result["session"]["agent_version"] is None
    assert by_path(result) == {sub: ("on-read", True)}
    # The root GEMINI.md (predicted at start) is neither observed nor absent.
    assert result["differences"] == []
    assert "does not record the GEMINI.md files it loads at start" in result["reason"]


def test_nothing_comparable_is_unknown(ws: Workspace) -> None:
    _setup(ws)
    gemini_session(ws.home, str(ws.repo), SID1, "2026-09-01T10:00:00.000Z", [])
    result = ws.verify("gemini", ws.repo)
    assert result["verdict"] == "unknown" and result["session"]["id"] == SID1
    assert "does not record" in result["reason"]


def test_file_added_after_the_session_differs(ws: Workspace) -> None:
    """The session worked on app/x.ts (its read_file call) before app/GEMINI.md existed,
    so nothing was announced; today that file is predicted on read for app/x.ts."""
    target, sub = _setup(ws)
    (ws.repo / "app" / "GEMINI.md").unlink()
    gemini_session(ws.home, str(ws.repo), SID1, "2026-09-01T10:00:00.000Z", [(target, [])])
    ws.write("app/GEMINI.md", "Added later.\n")
    result = ws.verify("gemini", ws.repo, ws.repo / "app" / "x.ts")
    assert result["verdict"] == "differs"
    assert diffs(result) == {(sub, "on-read", "absent")}
    # A file the session never worked on: its on-read prediction is not contradicted.
    ws.write("app/y.ts", "y\n")
    assert ws.verify("gemini", ws.repo, ws.repo / "app" / "y.ts")["verdict"] == "unknown"


def test_start_file_observed_on_read_differs(ws: Workspace) -> None:
    target, _sub = _setup(ws)
    root_file = str(ws.repo / "GEMINI.md")
    gemini_session(ws.home, str(ws.repo), SID1, "2026-09-01T10:00:00.000Z",
                   [(target, [(root_file, "Root gemini.\n")])])
    result = ws.verify("gemini", ws.repo, ws.repo / "app" / "x.ts")
    assert result["verdict"] == "differs"
    assert diffs(result) == {(root_file, "start", "on-read"),
                             (str(ws.repo / "app" / "GEMINI.md"), "on-read", "absent")}


def test_file_edited_since_does_not_match_disk(ws: Workspace) -> None:
    target, sub = _setup(ws)
    gemini_session(ws.home, str(ws.repo), SID1, "2026-09-01T10:00:00.000Z",
                   [(target, [(sub, "Sub gemini rules.\n")])])
    ws.write("app/GEMINI.md", "Sub gemini rules, edited.\n")
    assert by_path(ws.verify("gemini", ws.repo, ws.repo / "app" / "x.ts")) == {
        sub: ("on-read", False)}


def test_other_directory_ignored_latest_newest_and_rewind(ws: Workspace) -> None:
    target, sub = _setup(ws)
    other = ws.base / "other"
    other.mkdir()
    gemini_session(ws.home, str(ws.repo), SID1, "2026-09-01T10:00:00.000Z", [])
    gemini_session(ws.home, str(other), "99999999-0000-4000-8000-000000000000",
                   "2026-09-09T10:00:00.000Z", [(target, [(sub, "Sub gemini rules.\n")])])
    # Newest for the repo; its read was rewound away ({"$rewindTo": <message id>}).
    gemini_session(ws.home, str(ws.repo), SID2, "2026-09-02T10:00:00.000Z",
                   [(target, [(sub, "Sub gemini rules.\n")])], tail=[{"$rewindTo": "g0"}])
    result = ws.verify("gemini", ws.repo, ws.repo / "app" / "x.ts")
    assert result["session"]["id"] == SID2
    assert result["observed"] == [] and result["verdict"] == "unknown"


def test_malformed_lines_are_skipped_and_counted(ws: Workspace) -> None:
    target, sub = _setup(ws)
    path = gemini_session(ws.home, str(ws.repo), SID1, "2026-09-01T10:00:00.000Z",
                          [(target, [(sub, "Sub gemini rules.\n")])])
    with path.open("a") as f:
        f.write('{"id":"m9","timestamp":"2026-09-01T10:00:09.000Z","type":"gem\n')
    result = ws.verify("gemini", ws.repo, ws.repo / "app" / "x.ts")
    assert result["verdict"] == "match"
    assert "1 malformed line skipped" in result["reason"]
