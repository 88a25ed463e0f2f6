"""Issue 24 over LSP: ``agent`` on memory search/status and ``rulelens.remember`` answers
the CLI's JSON for the demo's Claude Code and Gemini CLI memory (real server over stdio)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from rulelens.lsp import protocol

from .conftest import Demo, hover, open_doc, request


def _cli(demo: Demo, *args: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-m", "rulelens", "memory", *args, "--json"],
                         cwd=demo.repo, env=demo.env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


async def test_search_all_agents_and_status(client: LanguageClient, demo: Demo) -> None:
    ws = demo.repo.as_uri()
    got = await request(client, protocol.MEMORY_SEARCH, {
        "query": "stripe webhook retries", "workspaceUri": ws, "agent": "all"})
    cli = _cli(demo, "search", "stripe webhook retries", "--agent", "all")
    assert got["results"] == cli["results"]
    assert {r["agent"] for r in got["results"]} == {"claude", "gemini"}
    assert {r["injected"] for r in got["results"]} == {"start", "on-demand"}
    status = await request(client, protocol.MEMORY_STATUS, {"workspaceUri": ws,
                                                            "agent": "claude"})
    assert status == _cli(demo, "status", "--agent", "claude")
    every = await request(client, protocol.MEMORY_STATUS, {"workspaceUri": ws, "agent": "all"})
    assert {"claude", "gemini"} <= set(every["present"])
    assert every["present"] == [a for a in every["names"] if a in every["present"]]  # in order
    assert every["remember_scopes"]["claude"] == ["workspace"]
    assert every["remember_scopes"]["codex"] == []
    with pytest.raises(Exception, match="unknown agent"):
        await client.protocol.send_request_async(
            protocol.MEMORY_SEARCH, {"query": "x", "workspaceUri": ws, "agent": "cursor"})


async def test_remember_into_claude_memory(client: LanguageClient, demo: Demo) -> None:
    ws = demo.repo.as_uri()
    status = await request(client, protocol.MEMORY_STATUS, {"workspaceUri": ws,
                                                            "agent": "claude"})
    index = next(f["path"] for f in status["files"] if f["path"].endswith("MEMORY.md"))
    with open(index, "rb") as fh:
        before = fh.read()
    plan = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=protocol.REMEMBER, arguments=[{"text": "ship on Tuesdays", "agent": "claude",
                                               "workspaceUri": ws, "dryRun": True}]))
    assert plan["text"] == "- ship on Tuesdays\n" and plan["path"] == index
    with open(index, "rb") as fh:
        assert fh.read() == before
    done = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=protocol.REMEMBER, arguments=[{"text": "ship on Tuesdays", "agent": "claude",
                                               "workspaceUri": ws}]))
    assert done["written"] is True
    with open(index, "rb") as fh:
        assert fh.read() == before + b"- ship on Tuesdays\n"
    with pytest.raises(Exception, match="Codex"):
        await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command=protocol.REMEMBER, arguments=[{"text": "x", "agent": "codex",
                                                   "workspaceUri": ws}]))
    assert os.path.exists(index)


async def test_hover_on_a_memory_file_shows_the_cut(client: LanguageClient, demo: Demo) -> None:
    status = await request(client, protocol.MEMORY_STATUS, {"workspaceUri": demo.repo.as_uri(),
                                                            "agent": "claude"})
    index = pathlib.Path(next(f["path"] for f in status["files"]
                              if f["path"].endswith("MEMORY.md")))
    index.write_text("".join(f"- [Entry {i}](e{i}.md) — note {i}\n" for i in range(1, 251)))
    uri = index.as_uri()
    open_doc(client, uri)
    got = await hover(client, uri)
    assert got is not None
    text = got.contents.value  # type: ignore[union-attr]
    assert text.startswith("**Claude Code memory** (workspace, index): lines 1–200 are injected")
    assert "**the cut falls after line 200**" in text and "250 lines" in text
    assert "third-party" in text
    topic = index.parent / "user_role.md"
    open_doc(client, topic.as_uri())
    got = await hover(client, topic.as_uri())
    assert got is not None and "reads it on demand" in got.contents.value  # type: ignore[union-attr]
