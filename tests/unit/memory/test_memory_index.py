"""Our index on real files: incremental reindex, deletions, bad input, corruption, the
agent's index read-only, and the promise that memory files are never written."""

from __future__ import annotations

import hashlib
import math
import os
import threading
import time

import apsw
import pytest
from memhome import MemHome

from rulelens.memory.chunker import chunk_markdown
from rulelens.memory.index import MemoryIndex, SkippedFile, index_path_for
from rulelens.memory.search import explain_search
from rulelens.memory.settings import MemorySettings

SECTIONS = "".join(f"## Topic {i}\n\nfact number {i} about widget{i}\n\n" for i in range(40))


def open_index(mh: MemHome) -> MemoryIndex:
    return MemoryIndex.open(index_path_for(mh.location()))


def fts_rows(idx: MemoryIndex, word: str) -> list[str]:
    return [cid for cid, _ in idx.search_fts(word, 100)]


def snapshot(root: str) -> dict[str, str]:
    out = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            with open(p, "rb") as fh:
                out[p] = hashlib.sha256(fh.read()).hexdigest()
    return out


def test_first_index_then_incremental(memhome: MemHome) -> None:
    path = memhome.write("ws/sessions/2026-01-01-a.md", SECTIONS)
    memhome.write("MEMORY.md", "# Global\n\n## Prefs\n\nuse pytest\n")
    with open_index(memhome) as idx:
        first = idx.sync(memhome.location())
        n = len(chunk_markdown(SECTIONS))
        assert n > 10
        assert first.added == n + 1 and len(first.reindexed) == 2
        assert idx.sync(memhome.location()).reindexed == ()  # unchanged: one stat each
        before = {c.id: c for c in idx.chunks_for_path(path)}
        memhome.write("ws/sessions/2026-01-01-a.md", SECTIONS.replace("widget7\n", "gadget7\n"))
        second = idx.sync(memhome.location())
        assert (second.added, second.updated, second.removed) == (0, 1, 0)
        after = {c.id: c for c in idx.chunks_for_path(path)}
        changed = [cid for cid in after if after[cid].hash != before[cid].hash]
        assert len(changed) == 1
        assert after[changed[0]].created_at == before[changed[0]].created_at
        assert fts_rows(idx, "gadget7") == changed and fts_rows(idx, "widget7") == []
        memhome.write("ws/sessions/2026-01-01-a.md", "## Only\n\nshort now\n")
        third = idx.sync(memhome.location())
        assert third.removed == n - 1 and fts_rows(idx, "widget3") == []


def test_deleted_files_leave_the_index(memhome: MemHome) -> None:
    gone = memhome.write("ws/sessions/2026-01-01-gone.md", "## Zebra\n\nstripes\n")
    with open_index(memhome) as idx:
        idx.sync(memhome.location())
        assert fts_rows(idx, "zebra")
        os.remove(gone)
        report = idx.sync(memhome.location())
        assert report.deleted_paths == (gone,)
        assert fts_rows(idx, "zebra") == [] and idx.stats()["chunks"] == 0


def test_non_utf8_file_is_skipped_with_a_reason_and_keeps_old_rows(memhome: MemHome) -> None:
    path = memhome.write("ws/sessions/2026-01-01-bin.md", "## Ok\n\nvalid text\n")
    with open_index(memhome) as idx:
        idx.sync(memhome.location())
        memhome.write("ws/sessions/2026-01-01-bin.md", b"## Bad\n\n\xff\xfe latin1 \xe9\n")
        report = idx.sync(memhome.location())
        assert [s.path for s in report.skipped] == [path]
        assert "not UTF-8" in report.skipped[0].reason and "offset 8" in report.skipped[0].reason
        assert fts_rows(idx, "valid")  # the agent keeps existing rows too
        result = idx.reindex_file(path, "session")
        assert isinstance(result, SkippedFile)


@pytest.mark.parametrize("damage", ["garbage", "truncate", "zero-pages"])
def test_corrupted_index_is_detected_and_rebuilt(memhome: MemHome, damage: str) -> None:
    memhome.write("ws/sessions/2026-01-01-a.md", SECTIONS * 3)
    path = index_path_for(memhome.location())
    with open_index(memhome) as idx:
        idx.sync(memhome.location())
        idx.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = os.path.getsize(path)
    with open(path, "r+b") as fh:
        if damage == "garbage":
            fh.write(b"this is not a database" * 10)
        elif damage == "truncate":
            fh.truncate(size // 2)
        else:
            fh.seek(4096)
            fh.write(b"\x00" * (size - 8192))
    with open_index(memhome) as idx:
        report = idx.sync(memhome.location())
        assert idx.rebuilt or report.rebuilt
        assert fts_rows(idx, "widget5")
        assert os.path.exists(path + ".corrupt")
        assert [r[0] for r in idx.conn.execute("PRAGMA quick_check")] == ["ok"]


TEN_DAYS_AGO = int(time.time()) - 10 * 86400

AGENT_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE chunks(rowid INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL,
  path TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, text TEXT NOT NULL,
  hash TEXT NOT NULL, source TEXT NOT NULL, created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL, access_count INTEGER DEFAULT 0, last_accessed INTEGER);
CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='');
"""


@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_agent_index_is_read_only_and_carried_over(memhome: MemHome, journal: str) -> None:
    ws = memhome.write("ws/MEMORY.md", "## Deploy\n\nship on tags\n")
    gone = os.path.join(memhome.location().sessions_dir, "2026-01-01-old.md")
    agent_path = os.path.join(memhome.location().workspace_dir, "index.sqlite")
    conn = apsw.Connection(agent_path)
    conn.execute(f"PRAGMA journal_mode={journal}")
    conn.execute(AGENT_SCHEMA)
    conn.execute("INSERT INTO chunks(id, path, start_line, end_line, text, hash, source,"
                 " created_at, updated_at, access_count) VALUES (?,?,?,?,?,?,?,?,?,?)",
                 (f"{ws}:0", ws, 0, 3, "old text", "h", "dream", TEN_DAYS_AGO, TEN_DAYS_AGO, 9))
    conn.execute("INSERT INTO chunks(id, path, start_line, end_line, text, hash, source,"
                 " created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)",
                 (f"{gone}:0", gone, 0, 1, "orphan", "h", "session", 1, 1))
    conn.close()
    before = snapshot(memhome.location().global_dir)
    with open_index(memhome) as idx:
        report = idx.sync(memhome.location())
        (chunk,) = idx.chunks_for_path(ws)
        assert (chunk.created_at, chunk.access_count, chunk.source) == (TEN_DAYS_AGO, 9, "dream")
        assert report.carried_over == 0  # taken at insert time, nothing left to update
        # "dream" rows decay like sessions: 2^(-10/30) * boost(9) stays above 0.7, stale note.
        outcome = explain_search(idx, "deploy tags", MemorySettings())
        assert outcome.results and outcome.results[0].staleness.startswith("**Stale (1 week")
        assert outcome.results[0].score == pytest.approx(
            2 ** (-10 / 30) * (1 + math.log(10) * 0.05), abs=1e-3)
    from rulelens.memory.index import agent_orphans
    assert agent_orphans(memhome.location()) == [gone]
    assert snapshot(memhome.location().global_dir) == before


def test_agent_access_counts_refresh_when_its_index_changes(memhome: MemHome) -> None:
    ws = memhome.write("ws/MEMORY.md", "## Deploy\n\nship on tags\n")
    agent_path = os.path.join(memhome.location().workspace_dir, "index.sqlite")
    conn = apsw.Connection(agent_path)
    conn.execute(AGENT_SCHEMA)
    conn.execute("INSERT INTO chunks(id, path, start_line, end_line, text, hash, source,"
                 " created_at, updated_at, access_count) VALUES (?,?,?,?,?,?,?,?,?,?)",
                 (f"{ws}:0", ws, 0, 3, "t", "h", "workspace", 5, 5, 1))
    with open_index(memhome) as idx:
        idx.sync(memhome.location())
        conn.execute("UPDATE chunks SET access_count = 4")
        report = idx.sync(memhome.location())
        assert report.carried_over == 1
        assert idx.chunks_for_path(ws)[0].access_count == 4
    conn.close()


def test_memory_files_are_never_modified(memhome: MemHome) -> None:
    memhome.write("MEMORY.md", "# Global\n\n## A\n\nalpha\n")
    memhome.write("ws/MEMORY.md", "# P\n\n## B\n\nbeta alpha\n")
    memhome.write("ws/sessions/2026-01-01-x.md", SECTIONS)
    root = memhome.location().global_dir
    before = snapshot(root)
    mtimes = {p: os.stat(p).st_mtime_ns for p in before}
    from rulelens.memory.service import MemoryService
    svc = MemoryService(memhome.env)
    svc.index(memhome.repo)
    svc.search(memhome.repo, "alpha widget3", wide=True)
    svc.status(memhome.repo)
    svc.chunks(os.path.join(root, "MEMORY.md"))
    svc.close()
    assert snapshot(root) == before
    assert {p: os.stat(p).st_mtime_ns for p in before} == mtimes


def test_two_windows_share_one_index(memhome: MemHome) -> None:
    for i in range(30):
        memhome.write(f"ws/sessions/2026-01-{i:02d}-s.md", SECTIONS)
    errors: list[BaseException] = []

    def window() -> None:
        try:
            with open_index(memhome) as idx:
                idx.sync(memhome.location())
                idx.search_fts("widget3", 10)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=window) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with open_index(memhome) as idx:
        assert idx.stats()["chunks"] == 30 * len(chunk_markdown(SECTIONS))
        assert len(fts_rows(idx, "widget3")) == 30


def test_chunk_settings_change_rechunks(memhome: MemHome) -> None:
    from rulelens.memory.settings import IndexSettings
    memhome.write("ws/sessions/2026-01-01-a.md", SECTIONS)
    path = index_path_for(memhome.location())
    with MemoryIndex.open(path) as idx:
        idx.sync(memhome.location())
        n = idx.stats()["chunks"]
    with MemoryIndex.open(path, IndexSettings(100_000, 0)) as idx:
        report = idx.sync(memhome.location())
        assert report.reindexed and idx.stats()["chunks"] != n


def test_evergreen_supplement_matches_the_agents_join(memhome: MemHome) -> None:
    memhome.write("MEMORY.md", "# G\n\n" + "".join(f"## G{i}\n\nalpha beta {i}\n\n"
                                                  for i in range(80)))
    memhome.write("ws/MEMORY.md", "## W\n\nalpha gamma\n")
    for i in range(20):
        memhome.write(f"ws/sessions/2026-01-{i:02d}-s.md", "## S\n\nalpha alpha beta\n")
    with open_index(memhome) as idx, open_index(memhome) as other:
        idx.sync(memhome.location())

        def join(match: str) -> list[tuple[str, float]]:
            return [(r[0], float(r[1])) for r in idx.conn.execute(
                "SELECT c.id, f.rank FROM chunks_fts f JOIN chunks c ON c.rowid = f.rowid"
                " WHERE chunks_fts MATCH ? AND c.source IN ('global', 'workspace')"
                " ORDER BY f.rank LIMIT 18", (match,))]

        for match in ("alpha", "beta", "gamma OR beta", "alpha OR nothing"):
            assert idx.search_fts(match, 18, ("global", "workspace")) == join(match)
        # Another window rewrites the workspace file: our cached rowids must not go stale.
        memhome.write("ws/MEMORY.md", "## W2\n\nalpha delta\n")
        other.sync(memhome.location())
        assert [c for c, _ in idx.search_fts("delta", 18, ("global", "workspace"))] == [
            f"{memhome.location().workspace_memory}:0"]
