"""Nothing outside the memory roots, ever (issue 11 item 5).

A hostile memory directory links out of the roots: a session log to a secret file, the
global MEMORY.md to another, a workspace directory to a foreign tree, a FIFO and a
directory named like memory files. The index, search, status and chunks (CLI and server)
never show outside content; status lists each link as skipped with the reason; and a
directory swapped for a link thousands of times while requests run never makes a read
land outside.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import shutil
import sys
import threading
from collections.abc import Iterator

import pytest

from rulelens.memory.service import MemoryError_, MemoryService

from .memsafe import MemDemo, cli, cli_json, make_memdemo, request, server

SECRET = "zanzibar-exfiltrated-credential"


@pytest.fixture
def md(tmp_path: pathlib.Path) -> MemDemo:
    return make_memdemo(tmp_path)


@pytest.fixture
def outside(tmp_path: pathlib.Path) -> pathlib.Path:
    """A directory outside every memory root holding markdown with the secret."""
    out = tmp_path / "outside"
    out.mkdir()
    for name in ("secret.md", "MEMORY.md"):
        (out / name).write_text(f"## Secret\n\n{SECRET} lives here, outside the roots\n")
    return out


def hostile(md: MemDemo, outside: pathlib.Path) -> dict[str, pathlib.Path]:
    sessions = md.workspace_dir / "sessions"
    links = {"session-link": sessions / "2026-12-01-link-aaaaaaaa.md",
             "dir-link": md.memory / "other-ws"}
    links["session-link"].symlink_to(outside / "secret.md")
    links["dir-link"].symlink_to(outside, target_is_directory=True)
    os.mkfifo(sessions / "2026-12-02-fifo-bbbbbbbb.md")     # reading it would block
    (sessions / "2026-12-03-dir-cccccccc.md").mkdir()
    # A link that stays inside the roots is followed (its target is memory too).
    (sessions / "2026-12-04-alias-dddddddd.md").symlink_to(md.memory / "MEMORY.md")
    return links


def no_secret(payload: object) -> bool:
    return SECRET not in repr(payload)


def test_cli_index_search_status_never_read_outside(md: MemDemo,
                                                     outside: pathlib.Path) -> None:
    links = hostile(md, outside)
    index = cli_json(md, "index")
    reasons = {k["path"]: k["reason"] for k in index["skipped"]}
    assert reasons[str(links["session-link"])].startswith("outside-roots: a link to")
    assert "the agent follows the link" in reasons[str(links["session-link"])]
    fifo = next(p for p in reasons if "fifo" in p)
    assert reasons[fifo] == "not-a-file: a FIFO"
    assert any(r == "not-a-file: a directory" for r in reasons.values())
    search = cli_json(md, "search", f"{SECRET} secret outside roots", "--all")
    assert no_secret(search["results"])
    # Said faithfully: the agent's own search would draw on the linked file.
    assert "1 memory file(s) are links out of the memory root: the agent indexes" in (
        search["note"] or "")
    # The inside alias is read (and found by the global MEMORY.md's words).
    status = cli_json(md, "status")
    assert no_secret(status)
    skipped = {k["path"]: k["reason"] for k in status["skipped"]}
    assert set(skipped) == set(reasons)
    assert str(md.workspace_dir / "sessions" / "2026-12-04-alias-dddddddd.md") in {
        f["path"] for f in status["files"]}
    text = cli(md, "status")
    assert text.returncode == 0 and "skipped" in text.stdout and "outside-roots" in text.stdout


def test_linked_global_memory_and_workspace_dir_are_skipped(md: MemDemo,
                                                            outside: pathlib.Path) -> None:
    global_md = md.memory / "MEMORY.md"
    global_md.unlink()
    global_md.symlink_to(outside / "MEMORY.md")
    real_ws = md.workspace_dir.with_name("moved-away")
    md.workspace_dir.rename(real_ws)
    shutil.copytree(real_ws, outside / "ws")
    (outside / "ws" / "MEMORY.md").write_text(f"## Project\n\n{SECRET} in the workspace\n")
    md.workspace_dir.symlink_to(outside / "ws", target_is_directory=True)
    status = cli_json(md, "status")
    assert status["files"] == []
    skipped = {k["path"]: k["reason"] for k in status["skipped"]}
    assert skipped[str(global_md)].startswith(f"outside-roots: a link to {outside}")
    assert skipped[str(md.workspace_dir / "MEMORY.md")].startswith("outside-roots:")
    assert skipped[str(md.workspace_dir / "sessions")].startswith("outside-roots:")
    assert no_secret(cli_json(md, "search", f"{SECRET} workspace project", "--all")["results"])


async def test_server_search_status_chunks_never_read_outside(
        md: MemDemo, outside: pathlib.Path) -> None:
    links = hostile(md, outside)
    async with server(md) as client:
        found = await asyncio.wait_for(request(client, "rulelens/memorySearch", {
            "query": f"{SECRET} secret outside", "workspaceUri": md.ws, "all": True}), 60)
        assert no_secret(found["results"])
        status = await asyncio.wait_for(request(client, "rulelens/memoryStatus",
                                                {"workspaceUri": md.ws}), 60)
        assert str(links["session-link"]) in {k["path"] for k in status["skipped"]}
        for path in (links["session-link"], links["dir-link"] / "secret.md"):
            with pytest.raises(Exception, match="outside the memory roots"):
                await asyncio.wait_for(request(client, "rulelens/memoryChunks", {
                    "path": str(path), "workspaceUri": md.ws}), 60)


def test_a_file_that_becomes_a_link_leaves_the_index(md: MemDemo,
                                                     outside: pathlib.Path) -> None:
    session = next((md.workspace_dir / "sessions").iterdir())
    before = cli_json(md, "index")
    assert str(session) in before["reindexed"]
    session.unlink()
    session.symlink_to(outside / "secret.md")
    after = cli_json(md, "index")
    assert str(session) in after["deleted_paths"]
    assert str(session) in {k["path"] for k in after["skipped"]}
    assert no_secret(cli_json(md, "search", f"{SECRET} secret", "--all")["results"])


class Swapper:
    """A background thread turning ``target`` (a real directory) into a link to ``out``
    and back, as fast as it can, until stopped."""

    def __init__(self, target: pathlib.Path, out: pathlib.Path) -> None:
        self.target, self.out = target, out
        self.stash = target.with_name(target.name + ".stash")
        self.swaps = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while not self.stop.is_set():
            os.rename(self.target, self.stash)
            os.symlink(self.out, self.target)
            os.unlink(self.target)
            os.rename(self.stash, self.target)
            self.swaps += 1

    def __enter__(self) -> Swapper:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(10)


@pytest.fixture
def raced(md: MemDemo, outside: pathlib.Path) -> Iterator[tuple[pathlib.Path, Swapper]]:
    """The sessions directory raced against a link to ``outside`` (which holds a file of
    the same name with the secret)."""
    sessions = md.workspace_dir / "sessions"
    victim = next(sessions.iterdir())
    (outside / victim.name).write_text(f"## Leak\n\n{SECRET}\n")
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)   # interleave the two threads finely: more races per second
    try:
        with Swapper(sessions, outside) as swapper:
            yield victim, swapper
    finally:
        sys.setswitchinterval(switch)


def test_swapping_a_directory_for_a_link_never_reads_outside(
        md: MemDemo, raced: tuple[pathlib.Path, Swapper]) -> None:
    victim, swapper = raced
    inside: bytes | None = None
    svc = MemoryService(md.env)
    results = {"inside": 0, "refused": 0}
    try:
        for _ in range(3000):
            try:
                content = svc.read_memory_path(str(md.repo), str(victim))
            except MemoryError_:
                results["refused"] += 1
                continue
            assert SECRET.encode() not in content
            inside = inside or content
            results["inside"] += 1
    finally:
        svc.close()
    assert swapper.swaps > 100, swapper.swaps       # the race really ran
    assert results["inside"] > 0 and inside          # and reads still succeed between swaps


def test_indexing_while_swapping_never_indexes_outside(
        md: MemDemo, raced: tuple[pathlib.Path, Swapper]) -> None:
    _, swapper = raced
    svc = MemoryService(md.env)
    try:
        for _ in range(60):
            svc.index(str(md.repo))
            found = svc.search(str(md.repo), f"{SECRET} leak", wide=True)
            assert no_secret(found.to_json()["results"])
    finally:
        svc.close()
    assert swapper.swaps > 100


async def test_server_chunks_while_swapping_never_reads_outside(
        md: MemDemo, raced: tuple[pathlib.Path, Swapper]) -> None:
    victim, swapper = raced
    served = 0
    async with server(md, "visual-studio-code") as client:
        for _ in range(1000):
            try:
                got = await asyncio.wait_for(request(client, "rulelens/memoryChunks", {
                    "path": str(victim), "workspaceUri": md.ws}), 30)
            except TimeoutError:
                raise
            except Exception as exc:           # refused between swaps: fine, never outside
                assert any(w in str(exc) for w in ("outside", "not a memory file",
                                                   "cannot read")), exc
                continue
            assert no_secret(got)
            served += 1
    assert served > 0 and swapper.swaps > 100
