"""Never create or change a file next to the agent's own ``index.sqlite`` (issue 11 item 7).

The agent's index is built by a real SQLite writer in a child process, in three states:
clean (closed, checkpointed), crashed (killed with committed rows only in ``-wal``, ``-shm``
left behind) and crashed without ``-shm`` (what a reboot leaves). After a full CLI session
and a full server session, every entry of the agent's memory directory has the same bytes,
size and mtime, and no file appeared; the rows that live only in the WAL are still read
(the agent's ``dream`` label shows in the results).
"""

from __future__ import annotations

import asyncio
import pathlib
import subprocess
import sys
import time

import apsw
import pytest
from lsprotocol import types

from .memsafe import TIMEOUT_S, MemDemo, cli, cli_json, fingerprint, make_memdemo, request, server

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE chunks(rowid INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL,
  path TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, text TEXT NOT NULL,
  hash TEXT NOT NULL, source TEXT NOT NULL, created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL, access_count INTEGER DEFAULT 0, last_accessed INTEGER);
CREATE INDEX idx_chunks_path ON chunks(path);
CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='');
"""

#: The agent's writer: schema + one row, closed cleanly; then (``crash``) a second
#: connection commits the ``dream`` rows with checkpoints off and dies without closing.
WRITER = r"""
import apsw, os, sys
path, state, ws_md, schema = sys.argv[1:5]
now = int(sys.argv[5])
row = ("INSERT OR REPLACE INTO chunks(id, path, start_line, end_line, text, hash, source,"
       " created_at, updated_at, access_count) VALUES (?,?,?,?,?,?,?,?,?,?)")
conn = apsw.Connection(path)
conn.execute("PRAGMA journal_mode=WAL").fetchall()
conn.execute(schema)
conn.execute(row, (ws_md + ":0", ws_md, 0, 1, "t", "h", "workspace", now, now, 0))
def dream(conn):
    for i in range(10):
        conn.execute(row, (f"{ws_md}:{i}", ws_md, 0, 1, "t", "h", "dream", now - 864000,
                           now - 864000, 9))
if state == "clean":
    dream(conn)
    conn.close()
    sys.exit(0)
conn.close()
conn = apsw.Connection(path)
conn.execute("PRAGMA wal_autocheckpoint=0")
dream(conn)
os._exit(0)
"""


def build_agent_index(md: MemDemo, state: str) -> pathlib.Path:
    path = md.workspace_dir / "index.sqlite"
    ws_md = str(md.workspace_dir / "MEMORY.md")
    subprocess.run([sys.executable, "-c", WRITER, str(path), state, ws_md, SCHEMA,
                    str(int(time.time()))], check=True, timeout=TIMEOUT_S)
    wal, shm = pathlib.Path(f"{path}-wal"), pathlib.Path(f"{path}-shm")
    if state == "clean":
        assert not wal.exists()
    else:
        assert wal.stat().st_size > 0 and shm.exists()
    if state == "crashed-no-shm":
        shm.unlink()
    return path


@pytest.fixture(params=["clean", "crashed", "crashed-no-shm"])
def state(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def md(state: str, tmp_path: pathlib.Path) -> MemDemo:
    md = make_memdemo(tmp_path)
    build_agent_index(md, state)
    time.sleep(0.02)   # so any later write would show in mtime_ns
    return md


def dream_label(results: list[dict[str, object]], md: MemDemo) -> set[object]:
    return {r["source"] for r in results if r["path"] == str(md.workspace_dir / "MEMORY.md")}


def test_cli_session_changes_nothing_in_the_agents_directory(md: MemDemo) -> None:
    before = fingerprint(md.memory)
    assert cli_json(md, "index")["files"] >= 3
    found = cli_json(md, "search", "webhooks idempotent", "--all")
    assert dream_label(found["results"], md) == {"dream"}   # the WAL-only row was read
    status = cli_json(md, "status")
    assert status["agent_index"] == str(md.workspace_dir / "index.sqlite")
    assert cli(md, "status").returncode == 0
    assert cli_json(md, "chunks", str(md.workspace_dir / "MEMORY.md"))
    assert cli(md, "search", "stripe refunds").returncode == 0
    assert fingerprint(md.memory) == before


async def test_server_session_changes_nothing_in_the_agents_directory(md: MemDemo,
                                                                      state: str) -> None:
    before = fingerprint(md.memory)
    async with server(md) as client:
        found = await asyncio.wait_for(request(client, "rulelens/memorySearch", {
            "query": "webhooks idempotent", "workspaceUri": md.ws, "all": True}), TIMEOUT_S)
        assert dream_label(found["results"], md) == {"dream"}
        await asyncio.wait_for(request(client, "rulelens/memoryStatus",
                                       {"workspaceUri": md.ws}), TIMEOUT_S)
        await asyncio.wait_for(request(client, "rulelens/memoryChunks", {
            "path": str(md.workspace_dir / "MEMORY.md"), "workspaceUri": md.ws}), TIMEOUT_S)
        await asyncio.wait_for(client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="rulelens.reindexMemory",
                                       arguments=[{"workspaceUri": md.ws}])), TIMEOUT_S)
    assert fingerprint(md.memory) == before
    # Our copy of the agent's index lives in our cache, not next to the agent's.
    copies = list(md.cache.rglob("agent-index.sqlite*"))
    assert (copies != []) == (state != "clean")


@pytest.mark.parametrize("crash", ["crashed", "crashed-no-shm"])
def test_fingerprint_sees_what_a_plain_read_only_open_does(tmp_path: pathlib.Path,
                                                           crash: str) -> None:
    """The check itself can fail: the old read-only open (``mode=ro`` without
    ``immutable``) of a database with WAL content creates or writes ``-shm``."""
    md = make_memdemo(tmp_path)
    path = build_agent_index(md, crash)
    time.sleep(0.02)
    before = fingerprint(md.memory)
    conn = apsw.Connection(f"file:{path}?mode=ro",
                           flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    conn.execute("SELECT count(*) FROM chunks").fetchall()
    conn.close()
    assert fingerprint(md.memory) != before
