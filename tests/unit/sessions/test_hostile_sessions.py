"""Session directories others control: a FIFO, a link to /dev/zero and a link out of the
sessions directory named like rollouts are skipped without blocking; a rollout whose
AGENTS.md block has no tags is ``unknown`` with the reason."""

from __future__ import annotations

import os

from .conftest import Workspace
from .formats import codex_rollout, codex_text

UUID = "0199a1b2-0000-7000-8000-00000000c0d1"


def test_fifo_and_links_named_like_rollouts_are_skipped(ws: Workspace) -> None:
    ws.write("AGENTS.md", "Use pytest.\n")
    cwd = str(ws.repo)
    good = codex_rollout(ws.home / ".codex", cwd, "2026-09-01T10-00-00", UUID,
                         codex_text(cwd, None, ["Use pytest.\n"]))
    day = good.parent
    os.mkfifo(day / "rollout-2026-09-01T11-00-00-0199a1b2-0000-7000-8000-0000000f1f0f.jsonl")
    (day / "rollout-2026-09-01T12-00-00-0199a1b2-0000-7000-8000-000000000ze0.jsonl"
     ).symlink_to("/dev/zero")
    outside = ws.base / "elsewhere.jsonl"
    outside.write_bytes(good.read_bytes().replace(UUID.encode(), b"outside-session"))
    (day / "rollout-2026-09-01T13-00-00-0199a1b2-0000-7000-8000-0000000out0.jsonl"
     ).symlink_to(outside)
    result = ws.verify("codex", ws.repo)  # would block on the FIFO or never end on /dev/zero
    assert result["session"]["id"] == UUID
    assert result["verdict"] == "match"


def test_block_without_tags_is_an_unknown_format(ws: Workspace) -> None:
    ws.write("AGENTS.md", "Use pytest.\n")
    cwd = str(ws.repo)
    codex_rollout(ws.home / ".codex", cwd, "2026-09-01T10-00-00", UUID,
                  f"# AGENTS.md instructions for {cwd}\n\nUse pytest.\n")
    result = ws.verify("codex", ws.repo)
    assert result["verdict"] == "unknown"
    assert "layout RuleLens does not know" in result["reason"]
