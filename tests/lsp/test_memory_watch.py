"""The memory watcher: a note written or deleted on disk is (un)indexed by the server on
its own, announced with ``rulelens/memoryIndexed``, with no search or reindex request.

The status request does not index, so "fresh in the status before any search" proves the
watcher did the work (a search would also sync, and could hide a dead watcher).
"""

from __future__ import annotations

import asyncio
import pathlib
import shutil
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from pytest_lsp import LanguageClient

from rulelens.lsp import protocol

from .conftest import plain, request, start_client, stop_client, waiter, watching
from .memory_fixtures import MemDemo, make_memdemo, search

#: Generous for a loaded 2-core CI machine; the debounce is 200 ms (bench measures latency).
WAIT_S = 10.0
NOTE = "## Airship maintenance\n\nThe zeppelin hangar doors open only at dawn.\n"


@pytest_asyncio.fixture
async def client(md: MemDemo) -> AsyncIterator[LanguageClient]:
    c = await start_client(md.env, [md.repo], "visual-studio-code")
    await search(c, md, "warm up")          # first index, so later batches are increments
    await watching(c, memory=True)
    yield c
    await stop_client(c)


async def indexed(client: LanguageClient, expect: str, key: str) -> dict[str, Any]:
    """Wait for a memoryIndexed notification whose ``key`` list names ``expect``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while True:
        fut = waiter(client, protocol.MEMORY_INDEXED)
        note = plain(await asyncio.wait_for(fut, max(0.1, deadline - loop.time())))
        if expect in note[key]:
            return note  # type: ignore[no-any-return]


async def status_files(client: LanguageClient, md: MemDemo) -> dict[str, dict[str, Any]]:
    st = await request(client, protocol.MEMORY_STATUS, {"workspaceUri": md.ws})
    return {f["path"]: f for f in st["files"]}


async def test_new_note_is_indexed_without_a_request_and_delete_removes_it(
        client: LanguageClient, md: MemDemo) -> None:
    note = md.workspace_dir / "sessions" / "2026-12-01-airships-0193ffff.md"
    assert (await search(client, md, "zeppelin hangar"))["results"] == []
    fut = asyncio.ensure_future(indexed(client, str(note), "reindexed"))
    await asyncio.sleep(0)
    note.write_text(NOTE)
    got = await fut
    assert got["workspaceUri"] == md.ws
    files = await status_files(client, md)
    assert files[str(note)]["indexed"] and files[str(note)]["fresh"], "indexed by the watcher"
    found = await search(client, md, "zeppelin hangar")
    assert [r["path"] for r in found["results"]] == [str(note)]

    fut = asyncio.ensure_future(indexed(client, str(note), "removed"))
    await asyncio.sleep(0)
    note.unlink()
    await fut
    assert str(note) not in await status_files(client, md)
    assert (await search(client, md, "zeppelin hangar"))["results"] == []


async def test_an_edit_is_reindexed_and_other_workspaces_are_ignored(
        client: LanguageClient, md: MemDemo) -> None:
    target = md.workspace_dir / "MEMORY.md"
    # Another workspace's directory changes: not this workspace's memory, nothing announced.
    other = md.memory / "other-project-0badc0de"
    other.mkdir()
    fut = waiter(client, protocol.MEMORY_INDEXED)
    (other / "MEMORY.md").write_text(NOTE)
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(asyncio.shield(fut), 1.5)
    fut = asyncio.ensure_future(indexed(client, str(target), "reindexed"))
    await asyncio.sleep(0)
    target.write_text(target.read_text() + "\n## Airships\n\nZeppelin hangar doors at dawn.\n")
    await fut
    assert (await status_files(client, md))[str(target)]["fresh"]
    found = await search(client, md, "zeppelin hangar")
    assert [r["path"] for r in found["results"]] == [str(target)]


async def test_memory_dir_created_after_start_is_watched(tmp_path: pathlib.Path) -> None:
    md = make_memdemo(tmp_path)
    saved = tmp_path / "saved-memory"
    shutil.move(str(md.memory), saved)        # the agent has not written memory yet
    c = await start_client(md.env, [md.repo], "neovim")
    try:
        assert (await search(c, md, "stripe"))["results"] == []
        await watching(c)  # the memory directory is gone: its nearest parent is watched
        session = md.workspace_dir / "sessions" / "2026-11-27-upgrade-stripe-sdk-0193e6f7.md"
        fut = asyncio.ensure_future(indexed(c, str(session), "reindexed"))
        await asyncio.sleep(0)
        shutil.copytree(saved, md.memory)      # the memory directory appears with its files
        await fut
        assert (await status_files(c, md))[str(session)]["fresh"]
        # Then it is removed wholesale (``grok memory clear --all``-like): entries leave.
        fut = asyncio.ensure_future(indexed(c, str(session), "removed"))
        await asyncio.sleep(0)
        shutil.rmtree(md.memory)
        await fut
        assert (await search(c, md, "stripe"))["results"] == []
    finally:
        await stop_client(c)
