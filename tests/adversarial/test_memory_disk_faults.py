"""Our own index survives what disks do (issue 11 item 9).

The index path is a directory, a FIFO, a link to ``/dev/null``; the cache directory or the
index is read-only (to an unprivileged user: root ignores permissions); the disk is full
(a small tmpfs, else a file-size rlimit). Search still answers from the memory files,
labelled ``index unavailable: <reason>; showing unindexed results``, nothing prints a
traceback, ``memory index`` exits 1 with one line, and once the fault is gone the next
run repairs the index. The server does the same and repairs without a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pathlib
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest

from helpers.unprivileged import NOBODY, world_readable_tmp

from .memsafe import TIMEOUT_S, WORKSPACE_DIR, MemDemo, make_memdemo, request, server

UNINDEXED = "showing unindexed results"


def index_path(md: MemDemo) -> pathlib.Path:
    return md.cache / "memory" / WORKSPACE_DIR / "index.sqlite"


def run(md: MemDemo, *args: str, prefix: tuple[str, ...] = (),
        preexec: Callable[[], None] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([*prefix, sys.executable, "-m", "rulelens", "memory", *args],
                          cwd=md.repo, env=md.env, capture_output=True, text=True,
                          timeout=TIMEOUT_S, check=False, preexec_fn=preexec)
    assert "Traceback" not in proc.stderr and "apsw" not in proc.stderr, proc.stderr
    assert "PermissionError" not in proc.stderr, proc.stderr
    return proc


Preexec = Callable[[], None] | None


def search(md: MemDemo, prefix: tuple[str, ...] = (), preexec: Preexec = None
           ) -> dict[str, object]:
    proc = run(md, "search", "stripe webhooks", "--all", "--json", prefix=prefix,
               preexec=preexec)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, object] = json.loads(proc.stdout)
    assert out["results"], "search must still answer from the memory files"
    return out


def assert_unavailable(md: MemDemo, reason: str, prefix: tuple[str, ...] = (),
                       preexec: Preexec = None) -> None:
    found = search(md, prefix, preexec)
    note = str(found["note"])
    assert note.startswith("index unavailable:") and UNINDEXED in note, note
    assert reason in note, note
    status = run(md, "status", "--json", prefix=prefix, preexec=preexec)
    assert status.returncode == 0
    st = json.loads(status.stdout)
    # Status does not sync: an index that opens but filled the disk mid-sync shows as
    # stale files; one that cannot open at all says so in a note.
    assert any(UNINDEXED in n for n in st["notes"]) or st["stale_files"], st
    index = run(md, "index", prefix=prefix, preexec=preexec)
    assert index.returncode == 1
    said = [line for line in index.stderr.splitlines()
            if not line.startswith(("rulelens: indexing", "rulelens: embedding"))]
    assert len(said) == 1 and said[0].startswith("rulelens: index unavailable:"), said


def assert_repaired(md: MemDemo, prefix: tuple[str, ...] = ()) -> None:
    found = search(md, prefix)
    assert found["note"] is None, found["note"]
    status = json.loads(run(md, "status", "--json", prefix=prefix).stdout)
    assert status["chunks"] > 0 and status["stale_files"] == []
    assert index_path(md).is_file() and not index_path(md).is_symlink()


@pytest.fixture
def md(tmp_path: pathlib.Path) -> MemDemo:
    return make_memdemo(tmp_path)


FAULTS: dict[str, tuple[Callable[[pathlib.Path], None], str]] = {
    "directory": (lambda p: p.mkdir(), "is a directory"),
    "fifo": (lambda p: os.mkfifo(p), "is a FIFO"),
    "dev-null": (lambda p: p.symlink_to("/dev/null"), "symbolic link (to /dev/null)"),
}


def clear(path: pathlib.Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("before", ["no index yet", "after an index"])
def test_index_path_is_not_a_file(md: MemDemo, fault: str, before: str) -> None:
    path = index_path(md)
    if before == "after an index":
        assert run(md, "index").returncode == 0
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(f"{path}{suffix}")
    path.parent.mkdir(parents=True, exist_ok=True)
    make, reason = FAULTS[fault]
    make(path)
    assert_unavailable(md, reason)
    clear(path)
    assert_repaired(md)


async def test_server_answers_unindexed_then_repairs_without_restart(md: MemDemo) -> None:
    path = index_path(md)
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    async with server(md) as client:
        found = await asyncio.wait_for(request(client, "rulelens/memorySearch", {
            "query": "stripe webhooks", "workspaceUri": md.ws}), TIMEOUT_S)
        assert found["results"] and UNINDEXED in found["note"] and "FIFO" in found["note"]
        outcome = await asyncio.wait_for(request(client, "rulelens/memoryStatus",
                                                 {"workspaceUri": md.ws}), TIMEOUT_S)
        assert any(UNINDEXED in n for n in outcome["notes"])
        path.unlink()
        again = await asyncio.wait_for(request(client, "rulelens/memorySearch", {
            "query": "stripe webhooks", "workspaceUri": md.ws}), TIMEOUT_S)
        assert again["note"] is None
        assert [r["path"] for r in again["results"]] == [r["path"] for r in found["results"]]
        assert path.is_file()


@pytest.fixture
def shared_md() -> Iterator[MemDemo]:
    """The demo in a world-readable directory, so the unprivileged user can read it."""
    with world_readable_tmp("rulelens-memsafe-") as base:
        yield make_memdemo(base)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to switch to another uid")
@pytest.mark.parametrize("what", ["cache dir", "index file"])
def test_read_only_cache_or_index(shared_md: MemDemo, what: str) -> None:
    md = shared_md
    path = index_path(md)
    assert run(md, "index").returncode == 0          # built by root: 0644 / 0755
    if what == "cache dir":
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(f"{path}{suffix}")
        os.chmod(path, 0o666)                          # the file itself would be writable
    else:
        os.chmod(path.parent, 0o777)                   # the directory would be writable
    assert_unavailable(md, "", prefix=tuple(NOBODY))
    for p in [md.cache, *md.cache.rglob("*")]:
        os.chown(p, 65534, 65534)                      # the fault goes away
    assert_repaired(md, prefix=tuple(NOBODY))


@contextlib.contextmanager
def small_disk(where: pathlib.Path, size: str, method: str
               ) -> Iterator[Callable[[], None] | None]:
    """A ``size`` tmpfs mounted on ``where`` (yields None), or a ``preexec_fn`` that caps
    file sizes in the child (RLIMIT_FSIZE, SIGXFSZ ignored: writes fail with EFBIG)."""
    where.mkdir(parents=True, exist_ok=True)
    if method == "tmpfs":
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                                  str(where)], capture_output=True, check=False)
        if mounted.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.strip()!r});"
                        " the rlimit variant covers a full disk")
        try:
            yield None
        finally:
            subprocess.run(["umount", "-l", str(where)], check=False)
        return
    limit = int(size.rstrip("k")) * 1024

    def cap() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    yield cap


@pytest.mark.parametrize("method", ["tmpfs", "rlimit"])
@pytest.mark.parametrize("size", ["256k", "1024k"])
def test_disk_full(md: MemDemo, size: str, method: str) -> None:
    """256k: not even the empty index fits; 1024k: the index starts and fills up mid-sync
    (a 3 MB session log)."""
    big = md.workspace_dir / "sessions" / "2026-12-05-big-eeeeeeee.md"
    big.write_text("".join(f"## Topic {i}\n\nstripe webhooks fact {i} " + "word " * 200
                           + "\n\n" for i in range(3000)))
    with small_disk(md.cache / "memory", size, method) as cap:
        # A tmpfs says ENOSPC (SQLITE_FULL); the rlimit says EFBIG (an I/O error).
        assert_unavailable(md, "disk is full" if cap is None else "", preexec=cap)
    assert_repaired(md)
