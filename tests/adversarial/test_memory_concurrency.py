"""No lost notes under concurrency (issue 11 item 8).

Many writers ``remember`` into one ``MEMORY.md`` at once, from threads of one service,
from several processes and from several real ``rulelens serve`` servers, while an outside
appender (the agent's own ``/remember``: ``O_APPEND``, no lock) appends to the same file.
Every acknowledged note is in the file exactly once and its acknowledged sha256 is the
file as it was right after that note; every refused note is absent; every outside note is
there once. Each scenario runs 20 rounds.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import threading
from dataclasses import dataclass, field

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp.conftest import plain
from rulelens.lsp import protocol
from rulelens.memory.remember import RememberBusy, RememberError, append_note
from rulelens.memory.service import MemoryService, content_sha256

from .memsafe import TIMEOUT_S, MemDemo, make_memdemo, server
from .remember_worker import agent_append, note

ROUNDS = 20
WORKER = str(pathlib.Path(__file__).with_name("remember_worker.py"))


@dataclass
class Tally:
    acked: dict[str, str] = field(default_factory=dict)     # marker -> sha256
    refused: set[str] = field(default_factory=set)
    outside: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def ack(self, marker: str, sha: str) -> None:
        with self.lock:
            self.acked[marker] = sha

    def refuse(self, marker: str) -> None:
        with self.lock:
            self.refused.add(marker)

    def verify(self, path: pathlib.Path) -> None:
        final = path.read_bytes()
        assert self.acked, "nothing was acknowledged: the test proves nothing"
        for marker, sha in self.acked.items():
            m = marker.encode()
            assert final.count(m) == 1, f"acknowledged {marker!r} appears {final.count(m)}x"
            end = final.index(m) + len(m)
            # The acknowledged hash is the file right after that note, unless the outside
            # appender wrote in between (its bytes then follow the note directly).
            if hashlib.sha256(final[:end]).hexdigest() != sha:
                after = final[end:end + 12]
                assert self.outside and after.startswith((b"\n\n## Agent ", b"## Agent ")), (
                    f"the sha256 acknowledged for {marker!r} is not the file after it")
        for marker in self.refused:
            assert marker.encode() not in final, f"refused {marker!r} was written"
        for marker in self.outside:
            assert final.count(marker.encode()) == 1, f"outside {marker!r} lost or doubled"


class OutsideAppender:
    """The agent appending to the same file without our lock, in a thread."""

    def __init__(self, path: pathlib.Path, prefix: str, count: int, tally: Tally) -> None:
        self.path, self.prefix, self.count, self.tally = path, prefix, count, tally
        self.thread = threading.Thread(target=self.run)

    def run(self) -> None:
        for i in range(self.count):
            agent_append(str(self.path), f"## Agent {self.prefix}-{i}\n\n"
                                         f"{note(self.prefix, i)[1]}")
            self.tally.outside.add(note(self.prefix, i)[1])

    def __enter__(self) -> OutsideAppender:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.thread.join(TIMEOUT_S)


@pytest.fixture(scope="module")
def md(tmp_path_factory: pytest.TempPathFactory) -> MemDemo:
    return make_memdemo(tmp_path_factory.mktemp("concurrency"))


def target(md: MemDemo) -> pathlib.Path:
    return md.memory / "MEMORY.md"


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_threads_lose_no_note(md: MemDemo, round_: int) -> None:
    path = target(md)
    tally = Tally()
    svc = MemoryService(md.env)
    stale = content_sha256(path.read_bytes())

    def writer(w: int) -> None:
        for i in range(6):
            text, marker = note(f"t{round_}w{w}", i)
            try:
                done = svc.remember(str(md.repo), text, "global",
                                    expected_sha256=stale if i % 3 == 2 else None)
                tally.ack(marker, done.sha256)
            except RememberError:
                tally.refuse(marker)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
    with OutsideAppender(path, f"a{round_}", 30, tally):
        for t in threads:
            t.start()
        for t in threads:
            t.join(TIMEOUT_S)
    svc.close()
    assert len(tally.acked) == 8 * 4 and len(tally.refused) == 8 * 2
    tally.verify(path)


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_processes_lose_no_note(md: MemDemo, round_: int) -> None:
    path = target(md)
    tally = Tally()
    procs = [subprocess.Popen([sys.executable, WORKER, "remember", str(md.repo),
                               f"p{round_}w{w}", "8"], env=md.env, stdout=subprocess.PIPE,
                              text=True) for w in range(4)]
    agent = subprocess.Popen([sys.executable, WORKER, "agent", str(path), f"q{round_}", "40"])
    for p in procs:
        out, _ = p.communicate(timeout=TIMEOUT_S)
        assert p.returncode == 0
        for line in out.splitlines():
            row = json.loads(line)
            if "sha256" in row:
                tally.ack(row["marker"], row["sha256"])
            else:
                tally.refuse(row["marker"])
    assert agent.wait(TIMEOUT_S) == 0
    tally.outside = {note(f"q{round_}", i)[1] for i in range(40)}
    # The stale half is refused (each worker's own earlier note changed the file).
    assert len(tally.acked) == 4 * 4 and len(tally.refused) == 4 * 4
    tally.verify(path)


async def send_note(client: LanguageClient, md: MemDemo, tally: Tally, prefix: str, i: int,
                    stale: str) -> None:
    """One ``rulelens.remember`` command; odd ``i`` passes the stale ``expectedSha256``."""
    text, marker = note(prefix, i)
    arg: dict[str, object] = {"text": text, "scope": "global", "workspaceUri": md.ws}
    if i % 2:
        arg["expectedSha256"] = stale
    try:
        got = await asyncio.wait_for(client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=protocol.REMEMBER, arguments=[arg])), TIMEOUT_S)
        tally.ack(marker, plain(got)["sha256"])
    except TimeoutError:
        raise
    except Exception as exc:
        assert "changed since it was read" in str(exc), exc
        tally.refuse(marker)


async def test_servers_lose_no_note(md: MemDemo) -> None:
    """Three real servers, 20 rounds of 12 concurrent ``rulelens.remember`` commands each
    (half with a stale ``expectedSha256``), with the agent appending meanwhile."""
    path = target(md)
    async with server(md, "neovim") as a, server(md, "visual-studio-code") as b, \
            server(md, "neovim") as c:
        for round_ in range(ROUNDS):
            tally = Tally()
            stale = content_sha256(path.read_bytes())
            with OutsideAppender(path, f"o{round_}", 20, tally):
                await asyncio.gather(*(send_note(client, md, tally, f"s{round_}w{w}", i, stale)
                                       for w, client in enumerate((a, b, c))
                                       for i in range(4)))
            assert len(tally.acked) >= 6
            tally.verify(path)


def test_a_held_lock_gives_a_clear_busy_answer(md: MemDemo) -> None:
    """Another writer holding the lock past the timeout: "busy", and nothing written."""
    path = target(md)
    before = path.read_bytes()
    fd = os.open(md.memory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(RememberBusy, match="is busy: another RuleLens"):
            append_note(str(path), "Busy\nnot written", root=str(md.memory), timeout_s=0.3)
        assert path.read_bytes() == before
    finally:
        os.close(fd)
    done = append_note(str(path), "Free\nwritten now", root=str(md.memory), timeout_s=0.3)
    assert path.read_bytes().endswith(b"## Free\n\nwritten now")
    assert done.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
