"""``remember`` never writes outside the memory roots and never replaces a link (issue 11
item 6): a symlinked MEMORY.md (out of the roots, inside them, or dangling), a symlinked
workspace directory and a FIFO named MEMORY.md are refused with a clear message, by the
dry run and by the write, over the real server; the link and its target stay untouched.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp.conftest import plain
from rulelens.lsp import protocol

from .memsafe import TIMEOUT_S, MemDemo, fingerprint, make_memdemo, server


@pytest.fixture
def md(tmp_path: pathlib.Path) -> MemDemo:
    return make_memdemo(tmp_path)


async def remember(client: LanguageClient, **arg: Any) -> Any:
    return plain(await asyncio.wait_for(client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=protocol.REMEMBER, arguments=[arg])), TIMEOUT_S))


def link_global(md: MemDemo, target: pathlib.Path) -> pathlib.Path:
    path = md.memory / "MEMORY.md"
    path.unlink()
    path.symlink_to(target)
    return path


@pytest.mark.parametrize("where", ["outside", "inside", "dangling"])
async def test_a_symlinked_memory_md_is_refused_and_left_alone(
        md: MemDemo, tmp_path: pathlib.Path, where: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    targets = {"outside": outside / "outside.md",
               "inside": md.workspace_dir / "MEMORY.md",
               "dangling": outside / "nowhere" / "x.md"}
    target = targets[where]
    if where == "outside":
        target.write_text("# someone else's file\n")
    link = link_global(md, target)
    before = fingerprint(md.memory), fingerprint(outside)
    async with server(md) as client:
        for extra in ({"dryRun": True}, {}, {"expectedSha256": ""}):
            with pytest.raises(Exception, match=r"is a symbolic link .*does not write through"):
                await remember(client, text="Deploys\nnever on Fridays", scope="global",
                               workspaceUri=md.ws, **extra)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert (fingerprint(md.memory), fingerprint(outside)) == before   # nothing changed
    assert not (outside / "nowhere").exists()


async def test_a_symlinked_workspace_dir_is_refused(md: MemDemo,
                                                    tmp_path: pathlib.Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    md.workspace_dir.rename(elsewhere)
    md.workspace_dir.symlink_to(elsewhere, target_is_directory=True)
    before = fingerprint(elsewhere)
    async with server(md) as client:
        for extra in ({"dryRun": True}, {}):
            with pytest.raises(Exception, match="symbolic link"):
                await remember(client, text="Builds\nuse the cache", scope="workspace",
                               workspaceUri=md.ws, **extra)
        # The global scope is unaffected and still works.
        done = await remember(client, text="Global\nstill writable", scope="global",
                              workspaceUri=md.ws)
        assert done["path"] == str(md.memory / "MEMORY.md")
    assert fingerprint(elsewhere) == before
    assert md.workspace_dir.is_symlink()


async def test_a_fifo_memory_md_is_refused_without_blocking(md: MemDemo) -> None:
    path = md.memory / "MEMORY.md"
    path.unlink()
    os.mkfifo(path)
    async with server(md) as client:
        for extra in ({"dryRun": True}, {}):
            with pytest.raises(Exception, match="FIFO"):
                await remember(client, text="x\ny", scope="global", workspaceUri=md.ws,
                               **extra)
    assert path.is_fifo()
