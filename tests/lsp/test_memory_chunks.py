"""``rulelens/memoryChunks``: the server reads a client-supplied memory path only when it
lies under the memory roots, after resolving ``..`` and symlinks; anything else is a clear
error and is never opened (a FIFO outside the roots would hang a read).
"""

from __future__ import annotations

import asyncio
import os
import pathlib
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from pytest_lsp import LanguageClient

from rulelens.lsp import protocol

from .conftest import request, start_client, stop_client
from .memory_fixtures import WORKSPACE_DIR, MemDemo, cli_json


@pytest_asyncio.fixture
async def client(md: MemDemo) -> AsyncIterator[LanguageClient]:
    c = await start_client(md.env, [md.repo], "visual-studio-code")
    yield c
    await stop_client(c)


async def chunks(client: LanguageClient, md: MemDemo, path: object) -> object:
    return await asyncio.wait_for(request(client, protocol.MEMORY_CHUNKS,
                                          {"path": path, "workspaceUri": md.ws}), 20)


async def test_a_memory_file_is_chunked_like_the_cli(client: LanguageClient, md: MemDemo) -> None:
    for path in (md.memory / "MEMORY.md", md.workspace_dir / "MEMORY.md",
                 next((md.workspace_dir / "sessions").iterdir())):
        got = await chunks(client, md, str(path))
        assert got and got == cli_json(md, "chunks", str(path))


async def test_paths_outside_the_roots_are_refused_without_reading(
        client: LanguageClient, md: MemDemo, tmp_path: pathlib.Path) -> None:
    fifo = tmp_path / "outside.md"
    os.mkfifo(fifo)                                   # reading this would block forever
    secret = md.demo.grok_home / "config.toml"
    link = md.memory / "link.md"
    link.symlink_to(fifo)
    dir_link = md.memory / "escape"
    dir_link.symlink_to(tmp_path, target_is_directory=True)
    for path in (str(fifo), str(link), str(dir_link / "outside.md"),
                 str(md.memory / ".." / "config.toml"), str(secret),
                 str(md.memory / WORKSPACE_DIR / ".." / ".." / "config.toml")):
        with pytest.raises(Exception, match="outside the memory roots"):
            await chunks(client, md, path)
    for path, message in (("MEMORY.md", "absolute path"), (5, "absolute path"),
                          (str(md.memory / "nope.md"), "not a memory file"),
                          (str(md.workspace_dir), "not a memory file")):
        with pytest.raises(Exception, match=message):
            await chunks(client, md, path)
    with pytest.raises(Exception, match="workspace folder"):
        await request(client, protocol.MEMORY_CHUNKS,
                      {"path": str(md.memory / "MEMORY.md"), "workspaceUri": "file:///"})
    # Still serving, and a symlink that stays inside the roots is fine.
    inside = md.memory / "alias.md"
    inside.symlink_to(md.memory / "MEMORY.md")
    assert await chunks(client, md, str(inside)) == cli_json(md, "chunks",
                                                             str(md.memory / "MEMORY.md"))
