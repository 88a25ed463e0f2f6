"""Hostile files through the real language server over stdio (pytest-lsp): FIFOs and
endless devices under instruction-file names, a 200,000-deep ``config.toml``, a
catastrophic ``.gitignore`` and a file name that is not UTF-8. Every request has a timeout:
a server stuck in ``open()`` or a backtracking regex fails the test."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from adversarial import hostile
from adversarial.hostile import Tree, make_tree
from helpers.waiting import quiet_period
from lsp.conftest import hover, lenses, open_doc, request, start_client, stop_client, watching
from rulelens.lsp import protocol

TIMEOUT_S = 30
SPEC = "visual-studio-code"


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    t = make_tree(tmp_path)
    (t.repo / "src").mkdir()
    (t.repo / "src" / "main.py").write_text("print('hi')\n")
    return t


@pytest_asyncio.fixture
async def serve(tree: Tree) -> AsyncIterator[LanguageClient]:
    """The server on ``tree`` (started lazily, by the test, after the files exist)."""
    clients: list[LanguageClient] = []

    async def start() -> LanguageClient:
        client = await asyncio.wait_for(start_client(tree.env, [tree.repo], SPEC), TIMEOUT_S)
        clients.append(client)
        return client

    yield start  # type: ignore[misc]
    for client in clients:
        await stop_client(client)


async def _lens_title(client: LanguageClient, uri: str) -> str:
    got = await asyncio.wait_for(lenses(client, uri), TIMEOUT_S)
    assert got and got[0].command is not None, got
    return got[0].command.title


async def _eventually_titled(client: LanguageClient, uri: str, prefix: str) -> str:
    """The lens title once it starts with ``prefix`` (the watcher is asynchronous), or
    the last title seen after :data:`TIMEOUT_S`."""
    title = ""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT_S
    while loop.time() < deadline:
        got = await asyncio.wait_for(lenses(client, uri), TIMEOUT_S)
        title = got[0].command.title if got and got[0].command else ""
        if title.startswith(prefix):
            break
        await asyncio.sleep(0.1)
    return title


async def test_fifos_and_devices_never_block_a_request(tree: Tree, serve) -> None:  # type: ignore[no-untyped-def]
    hostile.make(tree.repo / "AGENTS.md", "fifo")
    hostile.make(tree.repo / "CLAUDE.md", "socket")   # distinct from the rules' devices
    for kind in hostile.kinds():
        hostile.make(tree.rules(f"{kind}-x.md"), kind)
    hostile.make(tree.repo / "src" / "AGENTS.md", "fifo-link")
    (tree.repo / "src" / "CLAUDE.md").write_text("Good rule.\n")
    client = await serve()
    uri = (tree.repo / "src" / "main.py").as_uri()
    open_doc(client, uri)
    # Sessions start in the workspace folder: src/CLAUDE.md is Claude's on read, below Grok's
    # start; every hostile file is refused, none blocks.
    # (Claude's file is added on read: nothing at start, 0 tokens)
    assert await _lens_title(client, uri) == "Grok 0 · 0 tok · Claude 1 · 0 tok · Codex 0 · 0 tok"
    chain = await asyncio.wait_for(request(client, protocol.CHAIN, {"uri": uri}), TIMEOUT_S)
    assert [os.path.basename(f["path"]) for f in chain["files"]] == ["CLAUDE.md"]
    refused = {os.path.relpath(s["path"], tree.repo): s["detail"] for s in chain["skipped"]
               if s["reason"] == "not-a-file"}
    assert "AGENTS.md" in refused and "a FIFO" in refused["AGENTS.md"]
    assert "a socket" in refused["CLAUDE.md"]
    assert "a FIFO" in refused["src/AGENTS.md"]
    for kind in hostile.kinds():
        assert hostile.KINDS[kind] in refused[f".grok/rules/{kind}-x.md"]
    shown = await asyncio.wait_for(hover(client, uri), TIMEOUT_S)
    assert shown is not None
    assert isinstance(shown.contents, types.MarkupContent)
    text = shown.contents.value
    assert len(refused) == 10
    for rel in refused:  # each refused file is a row of the per-agent table, not loaded
        assert re.search(rf"^\| {re.escape(rel)} \|.* (no|below|dup|off|scope|trust) \|",
                         text, re.M), text
    # A hostile rule file opened in the editor: its own lens answers too.
    fifo_uri = (tree.repo / "AGENTS.md").as_uri()
    open_doc(client, fifo_uri, text="")
    assert "read by no enabled agent" in await _lens_title(client, fifo_uri)


@pytest.mark.parametrize("kind", ["deep-arrays", "fifo"])
async def test_bad_config_toml_keeps_the_server_serving(tree: Tree, serve, kind: str) -> None:  # type: ignore[no-untyped-def]
    config = tree.grok_home / "config.toml"
    if kind == "deep-arrays":
        config.write_text(hostile.deep_toml())
    else:
        hostile.make(config, "fifo")
    (tree.repo / "AGENTS.md").write_text("rules\n")
    client = await serve()
    uri = (tree.repo / "src" / "main.py").as_uri()
    open_doc(client, uri)
    # Answered (no chain without a config: no lens), not dead.
    assert await asyncio.wait_for(lenses(client, uri), TIMEOUT_S) in (None, [])
    status = await asyncio.wait_for(request(client, protocol.SERVER_STATUS, {}), TIMEOUT_S)
    assert status is not None
    for _ in range(100):
        if client.messages:
            break
        await asyncio.sleep(0.05)
    warnings = [m.message for m in client.messages]
    assert any("config.toml" in m for m in warnings), warnings
    expected = "nested too deeply" if kind == "deep-arrays" else "a FIFO"
    assert any(expected in m for m in warnings), warnings
    # The user fixes the file: the server picks it up without a restart.
    config.unlink()
    config.write_text("")
    assert (await _eventually_titled(client, uri, "Grok 1")).startswith("Grok 1")


async def test_catastrophic_gitignore_does_not_stall_the_lens(tree: Tree, serve) -> None:  # type: ignore[no-untyped-def]
    (tree.rules("a" * 200 + ".md")).write_text("x\n")
    (tree.rules("kept.md")).write_text("kept\n")
    lines = [hostile.catastrophic_pattern(30)] * 20 + ["a*" * 20 + ".md"]
    (tree.repo / ".gitignore").write_text("\n".join(lines) + "\n")
    client = await serve()
    uri = (tree.repo / "src" / "main.py").as_uri()
    open_doc(client, uri)
    assert (await _lens_title(client, uri)).startswith("Grok 1")


async def test_watcher_survives_a_name_that_is_not_utf8(tree: Tree, serve) -> None:  # type: ignore[no-untyped-def]
    (tree.rules("first.md")).write_text("first\n")
    client = await serve()
    uri = (tree.repo / "src" / "main.py").as_uri()
    open_doc(client, uri)
    assert (await _lens_title(client, uri)).startswith("Grok 1")
    await watching(client, tree.repo)
    tree.rules(hostile.NON_UTF8_NAME).write_text("badly named\n")
    await quiet_period(1.0, "the watcher meets the bad name before the next file")
    (tree.rules("second.md")).write_text("second\n")       # seen only if watching goes on
    title = await _eventually_titled(client, uri, "Grok 3")
    assert title.startswith("Grok 3"), title
    chain = await asyncio.wait_for(request(client, protocol.CHAIN, {"uri": uri}), TIMEOUT_S)
    names = sorted(os.path.basename(f["path"]) for f in chain["files"])
    assert names == ["\\xff\\xfe.md", "first.md", "second.md"], names   # readable escapes


@pytest.mark.parametrize("kind", ["deep-arrays", "fifo"])
def test_bad_config_toml_is_one_warning_line_not_a_traceback(tree: Tree, kind: str,
                                                             tmp_path: Path) -> None:
    """The server's stderr (read after a clean exit): the bad file is named in plain
    lines, never an ERROR traceback; and the server still answers and exits 0."""
    from adversarial.rawlsp import raw_server

    config = tree.grok_home / "config.toml"
    if kind == "deep-arrays":
        config.write_text(hostile.deep_toml())
    else:
        hostile.make(config, "fifo")
    log = tmp_path / "stderr.log"
    with open(log, "wb") as err, raw_server(tree.env, stderr=err) as server:
        server.initialize(tree.repo)
        uri = server.open(tree.repo / "src" / "main.py")
        assert "result" in server.call("textDocument/codeLens",
                                       {"textDocument": {"uri": uri}}, timeout=TIMEOUT_S)
        assert server.shutdown_and_exit(timeout=TIMEOUT_S) == 0
    text = log.read_text("utf-8")
    assert "Traceback" not in text, text
    assert "config.toml" in text, text
