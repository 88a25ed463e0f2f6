"""A search box never errors, and a killed indexer leaves a repairable index."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import apsw
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhome import MemHome

from rulelens.memory.chunker import chunk_markdown
from rulelens.memory.index import MemoryIndex, index_path_for
from rulelens.memory.search import explain_search, extract_keywords, fts_match
from rulelens.memory.settings import MemorySettings

FTS_SYNTAX = ['"', "*", "NEAR(", "NEAR", "AND", "OR", "NOT", "-", "+", "c++", "(", ")", "^",
              ":", "{", "}", "col:", "'", "\\", "..", "__", "my_function", "é", "😀", "\x00",
              "\u0301", "foo-bar", "what's", "sqlite3.connect()", "1e10", "\n", " "]

query_text = st.lists(st.one_of(st.sampled_from(FTS_SYNTAX), st.text(max_size=12)),
                      max_size=20).map(" ".join)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=query_text)
def test_fts5_syntax_queries_never_error(memhome: MemHome, query: str) -> None:
    idx = _shared_index(memhome)
    outcome = explain_search(idx, query, MemorySettings(), wide=True)
    assert outcome.mode == "fts"
    for r in outcome.results:
        assert 0.0 <= r.score <= 1.0
    # Every keyword is a bareword: the MATCH string itself must be valid FTS5.
    match = fts_match(extract_keywords(query))
    if match:
        idx.conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?",
                         (match,)).fetchall()


_INDEXES: dict[str, MemoryIndex] = {}


def _shared_index(memhome: MemHome) -> MemoryIndex:
    key = memhome.root
    if key not in _INDEXES:
        memhome.write("MEMORY.md", "# G\n\n## C++ notes\n\nuse c++20, NEAR and NOT are words\n")
        memhome.write("ws/sessions/2026-01-01-e.md", "## Emoji 😀\n\nmy_function é café\n")
        idx = MemoryIndex.open(index_path_for(memhome.location()))
        idx.sync(memhome.location())
        _INDEXES[key] = idx
    return _INDEXES[key]


def test_huge_and_odd_queries(memhome: MemHome) -> None:
    idx = _shared_index(memhome)
    for q in ["x" * 10_000, "c++ " * 2500, '"' * 5000, "NEAR(" * 2000, "😀" * 3000,
              "(((", "))) AND (", "-", "*", ""]:
        explain_search(idx, q, MemorySettings(), wide=True)
    assert idx.search_fts('"unbalanced', 5) == []  # raw FTS errors count as no rows
    assert explain_search(idx, "c++ notes", MemorySettings()).results


FILES = 500

INDEXER = r"""
import sys
from rulelens.memory.index import MemoryIndex
from rulelens.memory.workspace import locate
loc = locate(sys.argv[1], sys.argv[2])
idx = MemoryIndex.open(sys.argv[3])
def progress(done, total, message):
    if done == 5:
        print("started", flush=True)
idx.sync(loc, progress)
print("finished", flush=True)
"""


def test_kill_9_mid_index_leaves_a_repairable_index(memhome: MemHome) -> None:
    body = "".join(f"## Section {i}\n\n" + f"word{i} " * 60 + "\n\n" for i in range(60))
    for i in range(FILES):
        memhome.write(f"ws/sessions/2026-02-{i:03d}-s.md", f"# Session {i}\n\n" + body)
    path = index_path_for(memhome.location())
    proc = subprocess.Popen([sys.executable, "-c", INDEXER, memhome.repo, memhome.grok_home, path],
                            stdout=subprocess.PIPE, text=True, env=memhome.env)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "started"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # kill right after the first batch commits
        try:
            probe = apsw.Connection(path, flags=apsw.SQLITE_OPEN_READONLY)
            probe.set_busy_timeout(1000)
            committed = probe.execute("SELECT count(*) FROM chunks").fetchall()[0][0]
            probe.close()
        except apsw.Error:
            committed = 0
        if committed:
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    conn = apsw.Connection(path)  # opens; integrity holds
    assert [r[0] for r in conn.execute("PRAGMA integrity_check")] == ["ok"]
    partial = conn.execute("SELECT count(*) FROM chunks").fetchall()[0][0]
    conn.close()
    per_file = len(chunk_markdown("# Session 0\n\n" + body))
    assert 0 < partial < FILES * per_file, "kill landed outside the indexing run"
    with MemoryIndex.open(path) as idx:
        report = idx.sync(memhome.location())
        assert idx.rebuilt is None and report.reindexed
        assert idx.stats()["chunks"] == FILES * per_file
        fts = idx.conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'word7'"
                               ).fetchall()[0][0]
        assert fts == FILES
        assert idx.sync(memhome.location()).reindexed == ()
