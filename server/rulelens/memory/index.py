"""RuleLens' own memory index: the agent's schema, in OUR cache directory.

Why a copy and not the agent's ``index.sqlite``: we must never write to the agent's files,
and the agent's index is only as fresh as its last session. We keep the agent's schema
(``chunks``, contentless ``chunks_fts``, ``chunks_vec``, ``meta``; spec §7.4) so that the
same SQL gives the same BM25 ranks, plus one bookkeeping table of our own (``rl_files``:
the size and mtime each file had when indexed, so an unchanged file costs one ``stat``).

Differences from the agent, on purpose:

* deleted memory files leave our index (the agent keeps orphans until its watcher or
  maintenance path runs; :func:`agent_orphans` reports them);
* when the agent's own index exists we read it without creating or changing anything next
  to it (``immutable=1``, or a copy in our cache while it has WAL content: even a read-only
  open would create ``-shm``) and carry over ``created_at``, ``access_count``,
  ``last_accessed`` and ``source`` by chunk id, so decay, the access boost and the ``dream``
  label match what the agent computes;
* memory files are read only beneath the memory root (:mod:`rulelens.memory.beneath`);
* when the disk cannot hold our index (a directory, FIFO or link at its path, read-only,
  full) :class:`IndexUnavailable` is raised and the service searches an in-memory index;
* a corrupted or truncated index file is moved aside and rebuilt (it is only a cache);
* searches never record access (that would make our ranking drift from the agent's);
* no index on ``chunks.hash`` (we never look a chunk up by hash; it cost ~15 % of indexing
  time), and FTS5 ``automerge`` is 16 instead of 4 and its ``hashsize`` 8 MB instead of
  1 MB (less merge work while indexing; BM25 ranks do not depend on the segment layout,
  so scores are unchanged);
* 64 KB pages instead of 4 KB (a first index spends less time in b-tree bookkeeping;
  searches and one-file reindexes measured the same);
* new rows get explicit rowids (the value AUTOINCREMENT would choose) so their FTS rows
  go in as single-row inserts (see :meth:`MemoryIndex._apply`).

Concurrency: WAL with a 5 s busy timeout, one ``BEGIN IMMEDIATE`` transaction per file, so
two editor windows can share an index and ``kill -9`` at any point leaves a consistent
database that the next :meth:`MemoryIndex.sync` completes. A :class:`MemoryIndex` may be
used from any thread; its methods take an internal lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import importlib.util
import math
import os
import shutil
import stat
import struct
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import quote

import apsw

from rulelens.memory.beneath import (
    Refused,
    SkippedFile,
    kind_of,
    lstat_beneath,
    open_beneath,
    read_regular,
)
from rulelens.memory.chunker import Chunk, chunk_hashes, chunk_markdown
from rulelens.memory.settings import IndexSettings
from rulelens.memory.workspace import MemoryFile, MemoryLocation

#: Bumped when our own tables change shape; a mismatch rebuilds the cache.
SCHEMA_VERSION = "rulelens-1"
BUSY_TIMEOUT_MS = 5000
#: Run ``PRAGMA quick_check`` on open below this size (it reads every page).
QUICK_CHECK_MAX_BYTES = 32 * 1024 * 1024
#: A bulk sync commits after this many changed rows or this long, whichever comes first.
BATCH_ROWS = 20000
BATCH_SECONDS = 1.0
#: Page size of a new cache file. Each chunk row carries its id, path and text (about
#: 1 KB) and two indexes on long path strings; larger pages cut b-tree splitting and
#: overflow handling during a first index (50k chunks, SQL only, best of 5 CPU seconds:
#: 4 KB pages 0.95 s, 16 KB 0.82 s, 64 KB 0.76 s; raw FTS5 of the same texts 0.89 s).
PAGE_SIZE = 65536
#: FTS5 pending-terms buffer (default 1 MB): fewer, larger level-0 segments, so less
#: merge work; BM25 does not depend on the segment layout.
FTS_HASHSIZE = 8 * 1024 * 1024

Progress = Callable[[int, int, str], None]
#: Reads one memory file: (content, fstat), or raises ``Refused`` (``OSError``).
Reader = Callable[[str], tuple[bytes, os.stat_result]]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO meta(key, value) VALUES ('reindex_claim', '');
CREATE TABLE IF NOT EXISTS chunks(
  rowid INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT UNIQUE NOT NULL,
  path TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  text TEXT NOT NULL,
  hash TEXT NOT NULL,
  source TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  access_count INTEGER DEFAULT 0,
  last_accessed INTEGER
);
CREATE INDEX IF NOT EXISTS idx_chunks_path ON chunks(path);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(text, content='');
CREATE TABLE IF NOT EXISTS rl_files(
  path TEXT PRIMARY KEY,
  mtime_ns INTEGER NOT NULL,
  size INTEGER NOT NULL,
  source TEXT NOT NULL,
  indexed_at INTEGER NOT NULL
);
"""


class _Embedder(Protocol):
    name: str
    dimensions: int

    def embed(self, texts: list[str]) -> list[list[float]]: ...


def cache_root(env: Mapping[str, str] | None = None) -> str:
    """Our cache directory: ``$RULELENS_CACHE_DIR`` (tests) or the platform user cache."""
    environ = os.environ if env is None else env
    override = environ.get("RULELENS_CACHE_DIR")
    if override:
        return override
    import platformdirs

    return platformdirs.user_cache_dir("rulelens", appauthor=False)


def index_path_for(location: MemoryLocation, env: Mapping[str, str] | None = None) -> str:
    """One index per workspace directory name, under our cache root."""
    return os.path.join(cache_root(env), "memory", location.workspace.name, "index.sqlite")


@dataclass(frozen=True)
class IndexedChunk:
    id: str
    path: str
    start_line: int
    end_line: int
    text: str
    hash: str
    source: str
    created_at: int
    updated_at: int
    access_count: int
    last_accessed: int | None


_CHUNK_COLUMNS = ("id, path, start_line, end_line, text, hash, source, created_at, updated_at,"
                  " access_count, last_accessed")


@dataclass(frozen=True)
class FileChange:
    added: int = 0
    updated: int = 0
    removed: int = 0


@dataclass(frozen=True)
class _Prepared:
    path: str
    stat: os.stat_result
    chunks: list[tuple[Chunk, str]]


@dataclass(frozen=True)
class SyncReport:
    """What one :meth:`MemoryIndex.sync` did; ``rebuilt`` says why the cache was rebuilt."""

    files: int = 0
    reindexed: tuple[str, ...] = ()
    added: int = 0
    updated: int = 0
    removed: int = 0
    deleted_paths: tuple[str, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()
    carried_over: int = 0
    rebuilt: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class AgentRow:
    created_at: int
    access_count: int
    last_accessed: int | None
    source: str


@dataclass
class AgentIndex:
    """The agent's own ``index.sqlite``, opened read-only; never written."""

    path: str
    conn: apsw.Connection | None = None
    error: str | None = None
    _cache: dict[str, dict[str, AgentRow]] = field(default_factory=dict)
    #: A temporary directory holding our copy, removed on :meth:`close`.
    _tmpdir: str | None = None
    #: The locked descriptor of the shared copy's directory, released on :meth:`close`.
    _scratch_lock: int | None = None

    @classmethod
    def open(cls, path: str, root: str | None = None, scratch: str | None = None
             ) -> AgentIndex:
        """Open the agent's index so that nothing can be created or changed next to it.

        ``root`` is the memory root the file must lie beneath (links out are refused).
        Without WAL content the file is opened ``immutable=1`` (SQLite then creates no
        ``-wal``/``-shm`` and takes no lock). With WAL content (the agent is running, or
        crashed and left ``-wal`` without ``-shm``) even a read-only open would create or
        write ``-shm``, so the database and its WAL are copied into ``scratch`` (our cache;
        a temporary directory when None) and the copy is opened instead.
        """
        root = os.path.dirname(path) if root is None else root
        try:
            st = lstat_beneath(root, path)
            if not stat.S_ISREG(st.st_mode):   # a FIFO there would block SQLite's open
                raise Refused(path, "not-a-file", kind_of(st.st_mode))
            wal = _wal_bytes(root, path)
        except Refused as exc:
            return cls(path, None, None if exc.code == "missing" else
                       f"the agent's index is not read: {exc}")
        copy = cls(path)
        try:
            if wal:
                return _open_copy(copy, root, scratch)
            uri = "file:" + quote(os.path.abspath(path)) + "?mode=ro&immutable=1"
            conn = apsw.Connection(uri, flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
                                   | apsw.SQLITE_OPEN_NOFOLLOW)
            conn.execute("SELECT count(*) FROM chunks").fetchall()
            return cls(path, conn, None)
        except (apsw.Error, OSError) as exc:
            copy.close()
            return cls(path, None, f"cannot read the agent's index: {exc}")

    def rows_for(self, path: str) -> dict[str, AgentRow]:
        if self.conn is None:
            return {}
        if path not in self._cache:
            try:
                self._cache[path] = {
                    r[0]: AgentRow(int(r[1]), int(r[2] or 0), r[3], str(r[4]))
                    for r in self.conn.execute(
                        "SELECT id, created_at, access_count, last_accessed, source"
                        " FROM chunks WHERE path = ?", (path,))}
            except apsw.Error:
                self._cache[path] = {}
        return self._cache[path]

    def all_rows(self) -> Iterator[tuple[str, AgentRow]]:
        if self.conn is None:
            return
        try:
            for r in self.conn.execute(
                    "SELECT id, created_at, access_count, last_accessed, source FROM chunks"):
                yield r[0], AgentRow(int(r[1]), int(r[2] or 0), r[3], str(r[4]))
        except apsw.Error:
            return

    def paths(self) -> set[str]:
        if self.conn is None:
            return set()
        try:
            return {r[0] for r in self.conn.execute("SELECT DISTINCT path FROM chunks")}
        except apsw.Error:
            return set()

    def signature(self) -> str:
        parts = []
        for suffix in ("", "-wal"):
            try:
                st = os.stat(self.path + suffix)
                parts.append(f"{st.st_mtime_ns}:{st.st_size}")
            except OSError:
                parts.append("-")
        return "/".join(parts)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None
        if self._scratch_lock is not None:
            os.close(self._scratch_lock)   # releases the flock
            self._scratch_lock = None


def _wal_bytes(root: str, path: str) -> int:
    """Size of the agent's ``-wal`` (0 when missing); a non-file ``-wal`` is refused."""
    try:
        st = lstat_beneath(root, path + "-wal")
    except Refused as exc:
        if exc.code == "missing":
            return 0
        raise
    if not stat.S_ISREG(st.st_mode):
        raise Refused(path + "-wal", "not-a-file", kind_of(st.st_mode))
    return st.st_size


def _copy_beneath(root: str, path: str, dest: str) -> str:
    """Copy a regular file beneath ``root`` to ``dest``; returns its ``mtime:size``."""
    with open_beneath(root, path) as (fd, st), open(dest, "wb") as out:
        while block := os.read(fd, 1 << 20):
            out.write(block)
        return f"{st.st_mtime_ns}:{st.st_size}"


def _lock_scratch(scratch: str) -> int | None:
    """An exclusive ``flock`` on ``scratch`` (made if missing) held while its copy is in
    use, so two windows never replace a copy the other has open; None when it cannot be
    made or is held for longer than the busy timeout (the caller copies privately)."""
    try:
        os.makedirs(scratch, exist_ok=True)
        fd = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                return None
            time.sleep(0.01)


def _open_copy(agent: AgentIndex, root: str, scratch: str | None) -> AgentIndex:
    """Open a copy of the agent's database and WAL (kept in ``scratch`` and reused while
    the agent's files keep their size and mtime)."""
    agent._scratch_lock = _lock_scratch(scratch) if scratch is not None else None
    if agent._scratch_lock is None:
        scratch = agent._tmpdir = tempfile.mkdtemp(prefix="rulelens-agent-index-")
    assert scratch is not None
    dest = os.path.join(scratch, "agent-index.sqlite")
    sig_file = dest + ".signature"
    signature = agent.signature()  # before copying: a change during the copy recopies
    try:
        with open(sig_file) as fh:
            reusable = fh.read() == signature
    except OSError:
        reusable = False
    if not reusable or not os.path.isfile(dest):
        for suffix in ("", "-wal", "-shm", ".signature"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(dest + suffix)
        _copy_beneath(root, agent.path, dest)
        _copy_beneath(root, agent.path + "-wal", dest + "-wal")
        with open(sig_file, "w") as fh:
            fh.write(signature)
    conn = apsw.Connection(dest, flags=apsw.SQLITE_OPEN_READWRITE)
    conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    conn.execute("SELECT count(*) FROM chunks").fetchall()
    agent.conn = conn
    return agent


def agent_orphans(location: MemoryLocation, scratch: str | None = None) -> list[str]:
    """Paths the agent's index still holds although the file is gone (the agent keeps them)."""
    agent = AgentIndex.open(location.agent_index, location.global_dir, scratch)
    try:
        return sorted(p for p in agent.paths() if not os.path.exists(p))
    finally:
        agent.close()


def _header_problem(path: str) -> str | None:
    """Cheap structural check: magic string and a file at least as long as its header says."""
    try:
        size = os.path.getsize(path)
        if size == 0:
            return None
        with open(path, "rb") as fh:
            header = fh.read(100)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
        return "not an SQLite database"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    valid_for = int.from_bytes(header[92:96], "big")
    change = int.from_bytes(header[24:28], "big")
    if pages and valid_for == change and size < pages * page_size:
        return f"truncated: {size} bytes, header says {pages * page_size}"
    return None


#: Errors that mean the cache file itself is damaged or foreign (rebuild it).
_DAMAGE = (apsw.CorruptError, apsw.NotADBError, apsw.SchemaChangeError)
#: Errors that mean the disk cannot hold our index right now (read-only, full, not a
#: file, busy for longer than the timeout): search falls back to an in-memory index.
_UNAVAILABLE = (apsw.CantOpenError, apsw.ReadOnlyError, apsw.FullError, apsw.IOError,
                apsw.PermissionsError, apsw.BusyError, apsw.LockedError, OSError)


class IndexUnavailable(Exception):
    """Our index file cannot be used now; ``str(exc)`` is the reason, for the user."""


def unavailable_reason(exc: BaseException) -> str:
    """A one-line reason for an index fault (no apsw class names, no traceback)."""
    if isinstance(exc, apsw.FullError):
        return "the disk is full"
    if isinstance(exc, apsw.ReadOnlyError):
        return "the index is read-only"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc).split(": ", 1)[-1] if ": " in str(exc) else str(exc)


def _check_index_path(path: str) -> None:
    """Refuse an index path (or its -wal/-shm/-journal) that is not a regular file: a FIFO
    would block SQLite's open, a link to ``/dev/null`` would swallow every write."""
    for name in (path, path + "-wal", path + "-shm", path + "-journal"):
        try:
            st = os.lstat(name)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise IndexUnavailable(f"{name}: {exc.strerror or exc}") from exc
        if stat.S_ISLNK(st.st_mode):
            raise IndexUnavailable(f"{name} is a symbolic link (to {os.readlink(name)})")
        if not stat.S_ISREG(st.st_mode):
            raise IndexUnavailable(f"{name} is {kind_of(st.st_mode)}")


def _rollback(conn: apsw.Connection) -> None:
    """ROLLBACK if a transaction is still open: after a full disk SQLite has already rolled
    back, and a second ROLLBACK would fail with "no transaction is active"."""
    if conn.in_transaction:
        with contextlib.suppress(apsw.Error):
            conn.execute("ROLLBACK")


@contextlib.contextmanager
def _pause_gc() -> Iterator[None]:
    """No cyclic garbage collection during a bulk sync.

    Indexing allocates hundreds of thousands of tuples and strings that never form
    cycles; the collector kept walking them (about 4 % of a first index). Restored
    afterwards, and left alone if the process had turned it off itself.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _vec_extension_path() -> str:
    """``sqlite_vec.loadable_path()`` without importing ``sqlite_vec``.

    Importing it imports numpy (for type hints), which costs ~0.1 s and starts OpenBLAS
    threads in every process that opens an index.
    """
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.origin:
        raise ImportError("sqlite_vec is not installed")
    return os.path.join(os.path.dirname(spec.origin), "vec0")


def _vec_blob(vector: Sequence[float], dims: int) -> bytes:
    if len(vector) != dims:
        raise ValueError(f"embedder returned {len(vector)} dimensions, expected {dims}")
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return struct.pack(f"<{dims}f", *(x / norm for x in vector))


class MemoryIndex:
    """Our index file for one workspace. Open with :meth:`open`; close when done."""

    def __init__(self, path: str, chunking: IndexSettings | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.chunking = chunking or IndexSettings()
        self.clock = clock
        self.rebuilt: str | None = None
        #: Why the file in our cache could not be used (set by the service on an in-memory
        #: stand-in); None for a working index.
        self.unavailable: str | None = None
        self.vec_loaded = False
        self._lock = threading.RLock()
        self._source_rows: dict[tuple[str, ...], dict[int, str]] = {}
        self._source_rows_version = -1
        #: Every vector of the index in one array, for one generation of it (owned here,
        #: dropped on close or on any write; :meth:`_matrix`).
        self._vectors: _Vectors | None = None
        self._vectors_seen: tuple[int, int] | None = None
        #: Rows this connection changed that leave the vectors as they were (the minutely
        #: ``rl_last_sync`` of an unchanged sync): not a new generation.
        self._quiet_changes = 0
        self._in_batch = False
        self._batch_rows = 0
        self._batch_since = 0.0
        self.conn = self._open()

    @property
    def agent_scratch(self) -> str | None:
        """Where a copy of the agent's index goes when it has WAL content (None: a
        temporary directory per sync, for an index that is not a file of ours)."""
        if self.path == ":memory:":
            return None
        return os.path.join(os.path.dirname(self.path), "agent-copy")

    # -- opening, integrity, rebuild -------------------------------------------------
    @classmethod
    def open(cls, path: str, chunking: IndexSettings | None = None,
             clock: Callable[[], float] = time.time) -> MemoryIndex:
        return cls(path, chunking, clock)

    def _connect(self) -> apsw.Connection:
        if self.path != ":memory:":
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            _check_index_path(self.path)
        conn = apsw.Connection(self.path, flags=apsw.SQLITE_OPEN_READWRITE
                               | apsw.SQLITE_OPEN_CREATE | apsw.SQLITE_OPEN_NOFOLLOW)
        conn.set_busy_timeout(BUSY_TIMEOUT_MS)
        try:
            conn.enable_load_extension(True)
            try:
                conn.load_extension(_vec_extension_path())
            except apsw.Error:
                import sqlite_vec  # the package's own answer, if its layout ever changes

                conn.load_extension(sqlite_vec.loadable_path())
            conn.enable_load_extension(False)
            self.vec_loaded = True
        except (ImportError, apsw.Error, AttributeError):
            self.vec_loaded = False
        conn.execute(f"PRAGMA page_size={PAGE_SIZE}")  # only a new, empty file takes it
        conn.execute("PRAGMA journal_mode=WAL").fetchall()
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _check(self, conn: apsw.Connection) -> None:
        problem = _header_problem(self.path)
        if problem:
            raise apsw.CorruptError(problem)
        if os.path.exists(self.path) and os.path.getsize(self.path) <= QUICK_CHECK_MAX_BYTES:
            result = [r[0] for r in conn.execute("PRAGMA quick_check")]
            if result != ["ok"]:
                raise apsw.CorruptError("quick_check: " + "; ".join(map(str, result[:3])))
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        if "meta" in tables:
            row = conn.execute("SELECT value FROM meta WHERE key='rl_schema'").fetchone()
            if row is None or row[0] != SCHEMA_VERSION:
                raise apsw.SchemaChangeError(f"schema {row[0] if row else 'unknown'!r}")

    def _open(self) -> apsw.Connection:
        """Open, check, create; :class:`IndexUnavailable` when the disk cannot hold it."""
        try:
            return self._open_checked()
        except IndexUnavailable:
            raise
        except _UNAVAILABLE as exc:
            raise IndexUnavailable(f"{self.path}: {unavailable_reason(exc)}") from exc

    def _open_checked(self) -> apsw.Connection:
        """Only real damage moves the file aside: a busy or locked database (another
        window writing) must never lose its -wal under a live peer."""
        try:
            conn = self._connect()
        except _DAMAGE as exc:
            self._quarantine(f"{type(exc).__name__}: {exc}")
            conn = self._connect()
        try:
            self._check(conn)
            self._create(conn)
        except _DAMAGE as exc:
            conn.close()
            self._quarantine(f"{type(exc).__name__}: {exc}")
            conn = self._connect()
            self._create(conn)
        return conn

    def _quarantine(self, reason: str) -> None:
        """Move a broken cache aside (kept once, for a bug report) and start afresh."""
        self.rebuilt = reason
        for suffix in ("-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(self.path + suffix)
        with contextlib.suppress(FileNotFoundError):
            os.replace(self.path, self.path + ".corrupt")

    def _create(self, conn: apsw.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")  # not a deferred upgrade: no busy error mid-way
        try:
            fresh = conn.execute("SELECT 1 FROM sqlite_master WHERE name='chunks_fts'"
                                 ).fetchone() is None
            conn.execute(_SCHEMA)
            if fresh:
                conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', 16)")
                conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES('hashsize', ?)",
                             (FTS_HASHSIZE,))
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('rl_schema', ?)",
                         (SCHEMA_VERSION,))
            want = f"{self.chunking.max_chunk_chars}/{self.chunking.chunk_overlap_chars}"
            row = conn.execute("SELECT value FROM meta WHERE key='rl_chunking'").fetchone()
            if row is None or row[0] != want:
                conn.execute("DELETE FROM rl_files")  # re-chunk every file on next sync
                conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('rl_chunking', ?)",
                             (want,))
        except BaseException:
            _rollback(conn)
            raise
        conn.execute("COMMIT")

    def rebuild(self, reason: str) -> None:
        with self._lock:
            self._source_rows.clear()
            self.conn.close()
            self._quarantine(reason)
            self.conn = self._connect()
            self._create(self.conn)

    def close(self) -> None:
        with self._lock:
            self._vectors = None
            self.conn.close()

    def __enter__(self) -> MemoryIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[apsw.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``: one writer at a time, across processes.

        Inside :meth:`_batch` this joins the open batch transaction instead.
        """
        conn = self.conn
        if self._in_batch:
            yield conn
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            _rollback(conn)
            raise
        conn.execute("COMMIT")

    @contextlib.contextmanager
    def _batch(self) -> Iterator[None]:
        """Group many small file transactions into few commits during a bulk sync.

        Each file's rows and its ``rl_files`` row still commit together, so a ``kill -9``
        loses at most the current batch and the next sync redoes exactly those files.
        """
        # No WAL checkpoint per commit while bulk indexing: one at the end instead.
        self.conn.execute("PRAGMA wal_autocheckpoint=0")
        self.conn.execute("BEGIN IMMEDIATE")
        self._in_batch, self._batch_rows, self._batch_since = True, 0, time.perf_counter()
        try:
            yield
        except BaseException:
            self._in_batch = False
            _rollback(self.conn)
            raise
        finally:
            with contextlib.suppress(apsw.Error):
                self.conn.execute("PRAGMA wal_autocheckpoint=1000")
        self._in_batch = False
        self.conn.execute("COMMIT")

    def _batch_checkpoint(self, rows: int) -> None:
        self._batch_rows += rows
        if self._in_batch and (self._batch_rows >= BATCH_ROWS
                               or time.perf_counter() - self._batch_since > BATCH_SECONDS):
            self.conn.execute("COMMIT")
            self.conn.execute("BEGIN IMMEDIATE")
            self._batch_rows, self._batch_since = 0, time.perf_counter()

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, conn: apsw.Connection, key: str, value: str) -> None:
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    # -- indexing ------------------------------------------------------------------
    def sync(self, location: MemoryLocation, progress: Progress | None = None,
             files: Sequence[MemoryFile] | None = None) -> SyncReport:
        """Bring the index up to date with the memory files; repairs a corrupt cache once.

        Raises :class:`IndexUnavailable` when the disk refuses (full, read-only): every
        transaction was rolled back, so the next sync that can write completes the index.
        """
        try:
            try:
                return self._sync(location, progress, files)
            except (apsw.CorruptError, apsw.NotADBError) as exc:
                self.rebuild(f"{type(exc).__name__}: {exc}")
                return self._sync(location, progress, files)
        except _UNAVAILABLE as exc:
            raise IndexUnavailable(f"{self.path}: {unavailable_reason(exc)}") from exc

    def _sync(self, location: MemoryLocation, progress: Progress | None,
              files: Sequence[MemoryFile] | None) -> SyncReport:
        started = time.perf_counter()
        with self._lock:
            if files is None:
                scan = location.scan()
                listed, skipped = list(scan.files), list(scan.skipped)
            else:
                listed, skipped = list(files), []
            agent = AgentIndex.open(location.agent_index, location.global_dir,
                                    self.agent_scratch)
            try:
                known = {r[0]: (r[1], r[2], r[3]) for r in self.conn.execute(
                    "SELECT path, mtime_ns, size, source FROM rl_files")}
                first_index = not known and self.conn.execute(
                    "SELECT 1 FROM chunks LIMIT 1").fetchone() is None
                reindexed: list[str] = []
                added = updated = removed = 0
                changed: list[MemoryFile] = []
                for mf in listed:
                    try:
                        st = os.stat(mf.path)  # a hint only: the read itself is checked
                    except OSError as exc:
                        skipped.append(SkippedFile(mf.path, f"cannot stat: {exc.strerror}"))
                        continue
                    if known.get(mf.path) != (st.st_mtime_ns, st.st_size, mf.source):
                        changed.append(mf)
                # Reading and chunking (Python) overlaps with SQLite writing (GIL released).
                with contextlib.ExitStack() as stack:  # unwinds: batch, pool, gc
                    if len(changed) > 1:
                        stack.enter_context(_pause_gc())
                    pool = ThreadPoolExecutor(max_workers=1) if len(changed) > 1 else None
                    if pool:
                        stack.callback(pool.shutdown, wait=True, cancel_futures=True)
                    def prepare(mf: MemoryFile) -> _Prepared | SkippedFile:
                        return self._prepare(mf.path, location.read_file)

                    prepared: Iterator[_Prepared | SkippedFile] = (
                        pool.map(prepare, changed) if pool else map(prepare, changed))
                    stack.enter_context(self._batch())
                    for n, (mf, prep) in enumerate(zip(changed, prepared, strict=True)):
                        if progress:
                            progress(n, len(changed), os.path.basename(mf.path))
                        if isinstance(prep, SkippedFile):
                            skipped.append(prep)
                            continue
                        result = self._apply(prep, mf.source, agent)
                        reindexed.append(mf.path)
                        added += result.added
                        updated += result.updated
                        removed += result.removed
                        self._batch_checkpoint(result.added + result.updated + result.removed + 1)
                wanted = {mf.path for mf in listed}
                indexed = {r[0] for r in self.conn.execute("SELECT DISTINCT path FROM chunks")}
                gone = sorted((indexed | set(known)) - wanted)
                for path in gone:
                    removed += self.delete_path(path)
                carried = self._carry_over(agent, all_rows_new=first_index)
                if progress:
                    progress(len(changed), len(changed), "done")
            finally:
                agent.close()
            now = int(self.clock())
            last = self.meta("rl_last_sync")
            if reindexed or gone or carried or not last or now - int(last) >= 60:
                before = self.conn.total_changes()
                with self._write() as conn:
                    self._set_meta(conn, "rl_last_sync", str(now))
                if not (reindexed or gone or carried):  # the vectors did not change
                    self._quiet_changes += self.conn.total_changes() - before
            return SyncReport(len(listed), tuple(reindexed), added, updated, removed,
                              tuple(gone), tuple(skipped), carried, self.rebuilt,
                              time.perf_counter() - started)

    def reindex_file(self, path: str, source: str, agent: AgentIndex | None = None,
                     reader: Reader = read_regular) -> FileChange | SkippedFile:
        """``reindex_file(path, source)`` (spec §7.6) plus our bookkeeping row; ``reader``
        is how the file is read (a location's :meth:`~MemoryLocation.read_file` keeps the
        read beneath the memory root)."""
        with self._lock:
            prepared = self._prepare(path, reader)
            if isinstance(prepared, SkippedFile):
                return prepared
            return self._apply(prepared, source, agent)

    def _prepare(self, path: str, reader: Reader) -> _Prepared | SkippedFile:
        """Read, decode, chunk and hash one file: no database access, safe in a thread."""
        try:
            raw, st = reader(path)
        except Refused as exc:
            return exc.skipped()
        except OSError as exc:
            return SkippedFile(path, f"cannot read: {exc.strerror or exc}")
        try:
            content = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            # The agent logs and changes nothing; existing rows stay. So do we.
            return SkippedFile(path, f"not UTF-8 (invalid byte at offset {exc.start});"
                                     " the agent skips it too")
        chunks = chunk_markdown(content, self.chunking.max_chunk_chars,
                                self.chunking.chunk_overlap_chars)
        return _Prepared(path, st, list(zip(chunks, chunk_hashes([c.text for c in chunks]),
                                            strict=True)))

    def _apply(self, prepared: _Prepared, source: str, agent: AgentIndex | None) -> FileChange:
        path, st = prepared.path, prepared.stat
        now = int(self.clock())
        self._source_rows.clear()
        carried = agent.rows_for(path) if agent is not None else {}
        with self._write() as conn:
            row = conn.execute("SELECT mtime_ns, size, source FROM rl_files WHERE path=?",
                               (path,)).fetchone()
            if row is not None and tuple(row) == (st.st_mtime_ns, st.st_size, source):
                return FileChange()  # another window indexed it meanwhile
            existing = {r[0]: (r[1], r[2], r[3]) for r in conn.execute(
                "SELECT id, rowid, hash, text FROM chunks WHERE path=?", (path,))}
            inserts: list[tuple[object, ...]] = []
            updates: list[tuple[object, ...]] = []
            fts_delete: list[tuple[int, str]] = []
            vec_delete: list[tuple[str]] = []
            fts_insert: list[tuple[int, str]] = []
            # Explicit rowids (what AUTOINCREMENT would pick: above every rowid ever used)
            # so the FTS rows go in as single-row VALUES inserts. An ``INSERT … SELECT``
            # into FTS5 opens a statement savepoint, and FTS5 flushes its pending terms to
            # a new segment at every savepoint: one tiny segment per file and merge work
            # that doubled the indexing time.
            rowid = self._next_rowid(conn)
            if not existing and not carried:  # a new file: nothing to compare against
                inserts = [(rowid + i, f"{path}:{i}", path, chunk.start_line, chunk.end_line,
                            chunk.text, digest, source, now, now, 0, None)
                           for i, (chunk, digest) in enumerate(prepared.chunks)]
            elif not existing:  # new to us, known to the agent: its dates and counts
                inserts = [(rowid + i, cid, path, chunk.start_line, chunk.end_line, chunk.text,
                            digest, a.source if a else source, a.created_at if a else now, now,
                            a.access_count if a else 0, a.last_accessed if a else None)
                           for i, (chunk, digest) in enumerate(prepared.chunks)
                           for cid in [f"{path}:{i}"] for a in [carried.get(cid)]]
            else:
                for i, (chunk, digest) in enumerate(prepared.chunks):
                    cid = f"{path}:{i}"
                    old = existing.get(cid)
                    if old is None:
                        a = carried.get(cid)
                        inserts.append((rowid, cid, path, chunk.start_line, chunk.end_line,
                                        chunk.text, digest, a.source if a else source,
                                        a.created_at if a else now, now,
                                        a.access_count if a else 0,
                                        a.last_accessed if a else None))
                        rowid += 1
                    elif old[1] != digest:
                        updates.append((chunk.text, digest, chunk.start_line, chunk.end_line,
                                        now, cid))
                        fts_insert.append((old[0], chunk.text))
                        fts_delete.append((old[0], old[2]))
                        vec_delete.append((cid,))
            seen = {f"{path}:{i}" for i in range(len(prepared.chunks))} if existing else set()
            gone = [(cid, v[0], v[2]) for cid, v in existing.items() if cid not in seen]
            fts_delete.extend((old_rowid, text) for _, old_rowid, text in gone)
            vec_delete.extend((cid,) for cid, _, _ in gone)
            if fts_delete:
                conn.executemany("INSERT INTO chunks_fts(chunks_fts, rowid, text)"
                                 " VALUES('delete', ?, ?)", fts_delete)
            if vec_delete and self._has_vec_table(conn):
                conn.executemany("DELETE FROM chunks_vec WHERE chunk_id=?", vec_delete)
            if gone:
                conn.executemany("DELETE FROM chunks WHERE id=?", [(g[0],) for g in gone])
            if updates:
                conn.executemany("UPDATE chunks SET text=?, hash=?, start_line=?, end_line=?,"
                                 " updated_at=? WHERE id=?", updates)
                conn.executemany("INSERT INTO chunks_fts(rowid, text) VALUES (?, ?)", fts_insert)
            if inserts:
                conn.executemany(f"INSERT INTO chunks(rowid, {_CHUNK_COLUMNS}) VALUES"
                                 " (?,?,?,?,?,?,?,?,?,?,?,?)", inserts)
                conn.executemany("INSERT INTO chunks_fts(rowid, text) VALUES (?, ?)",
                                 [(row[0], row[5]) for row in inserts])
            conn.execute("INSERT OR REPLACE INTO rl_files(path, mtime_ns, size, source, indexed_at)"
                         " VALUES (?,?,?,?,?)", (path, st.st_mtime_ns, st.st_size, source, now))
        return FileChange(len(inserts), len(updates), len(gone))

    def delete_path(self, path: str) -> int:
        """``delete_path``: every row for that path string; idempotent."""
        with self._lock, self._write() as conn:
            self._source_rows.clear()
            rows = list(conn.execute("SELECT rowid, id, text FROM chunks WHERE path=?", (path,)))
            if rows:
                conn.executemany("INSERT INTO chunks_fts(chunks_fts, rowid, text)"
                                 " VALUES('delete', ?, ?)", [(r[0], r[2]) for r in rows])
                if self._has_vec_table(conn):
                    conn.executemany("DELETE FROM chunks_vec WHERE chunk_id=?",
                                     [(r[1],) for r in rows])
                conn.execute("DELETE FROM chunks WHERE path=?", (path,))
            conn.execute("DELETE FROM rl_files WHERE path=?", (path,))
            return len(rows)

    def _carry_over(self, agent: AgentIndex, all_rows_new: bool = False) -> int:
        """Copy the agent's created_at/access counts/source onto our rows, when it changed.

        ``all_rows_new``: every row was inserted by this sync, which already took these
        values from the agent's index (:meth:`_apply`), so only the signature is stored;
        the full pass would read the agent's whole table again to change nothing.
        """
        if agent.conn is None:
            return 0
        signature = agent.signature()
        if self.meta("rl_agent_sig") == signature:
            return 0
        if all_rows_new:
            with self._write() as conn:
                self._set_meta(conn, "rl_agent_sig", signature)
            return 0
        rows = [(a.created_at, a.access_count, a.last_accessed, a.source, cid,
                 a.created_at, a.access_count, a.last_accessed, a.source)
                for cid, a in agent.all_rows()]
        self._source_rows.clear()
        with self._write() as conn:
            before = conn.total_changes()
            conn.executemany(
                "UPDATE chunks SET created_at=?, access_count=?, last_accessed=?, source=?"
                " WHERE id=? AND (created_at IS NOT ? OR access_count IS NOT ?"
                " OR last_accessed IS NOT ? OR source IS NOT ?)", rows)
            changed = conn.total_changes() - before
            self._set_meta(conn, "rl_agent_sig", signature)
        return max(0, changed)

    # -- reading -------------------------------------------------------------------
    def search_fts(self, match: str, limit: int, sources: Iterable[str] | None = None
                   ) -> list[tuple[str, float]]:
        """(chunk id, bm25 rank) best first; any FTS error counts as no rows (like the agent)."""
        if not match or limit <= 0:
            return []
        with self._lock:
            try:
                if sources is None:
                    hits = list(self.conn.execute(
                        "SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ?"
                        " ORDER BY rank LIMIT ?", (match, limit)))
                    if not hits:
                        return []
                    ids = dict(self.conn.execute(
                        "SELECT rowid, id FROM chunks WHERE rowid IN (SELECT value FROM"
                        " json_each(?))", ("[" + ",".join(str(h[0]) for h in hits) + "]",)))
                    return [(ids[r], float(rank)) for r, rank in hits if r in ids]
                wanted = self._rowids_of_sources(tuple(sorted(set(sources))))
                if not wanted:
                    return []
                # Same rows and ranks as joining chunks on source (the agent's query), but
                # reading ``source`` behind each row's large ``text`` was 5x the FTS cost.
                out: list[tuple[str, float]] = []
                for rowid, rank in self.conn.execute(
                        "SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ?"
                        " AND rowid BETWEEN ? AND ? ORDER BY rank",
                        (match, min(wanted), max(wanted))):
                    if rowid in wanted:
                        out.append((wanted[rowid], float(rank)))
                        if len(out) >= limit:
                            break
                return out
            except apsw.SQLError:
                return []

    def fts_document_count(self, term: str) -> int:
        """How many chunks hold ``term`` (one FTS5 bareword); 0 on any FTS error.

        The document frequency behind ``--rank best``'s IDF-weighted keyword coverage.
        """
        with self._lock:
            try:
                return int(str(self.conn.execute(
                    "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?",
                    ('"' + term.replace('"', '""') + '"',)).fetchall()[0][0]))
            except apsw.SQLError:
                return 0

    def _rowids_of_sources(self, sources: tuple[str, ...]) -> dict[int, str]:
        """rowid -> id of the chunks with these sources, cached until the next write.

        Found through the files we classified as global/workspace, then checked against
        the row's own label (which may be the agent's ``dream``).
        """
        version = self.conn.execute("PRAGMA data_version").fetchall()[0][0]
        if self._source_rows_version != version:  # another connection committed
            self._source_rows.clear()
            self._source_rows_version = int(str(version))
        cached = self._source_rows.get(sources)
        if cached is not None:
            return cached
        rows = {r[0]: r[1] for r in self.conn.execute(
            "SELECT rowid, id, source FROM chunks WHERE path IN"
            " (SELECT path FROM rl_files WHERE source IN ('global', 'workspace'))"
            " OR path NOT IN (SELECT path FROM rl_files)") if r[2] in sources}
        self._source_rows[sources] = rows
        return rows

    def get_chunks(self, ids: Iterable[str]) -> dict[str, IndexedChunk]:
        wanted = list(ids)
        if not wanted:
            return {}
        with self._lock:
            rows = self.conn.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE id IN (SELECT value FROM json_each(?))",
                (_json_list(wanted),))
            return {r[0]: IndexedChunk(*r) for r in rows}

    def chunks_for_path(self, path: str) -> list[IndexedChunk]:
        with self._lock:
            return [IndexedChunk(*r) for r in self.conn.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE path=? ORDER BY start_line, rowid",
                (path,))]

    def stats(self) -> dict[str, object]:
        with self._lock:
            chunks = self.conn.execute("SELECT count(*) FROM chunks").fetchall()[0][0]
            files = self.conn.execute("SELECT count(*) FROM rl_files").fetchall()[0][0]
            vectors = (self.conn.execute("SELECT count(*) FROM chunks_vec_rowids").fetchall()[0][0]
                       if self._has_vec_table(self.conn) else 0)
            last = self.meta("rl_last_sync")
            return {"path": self.path, "chunks": chunks, "files": files, "vectors": vectors,
                    "embedder": self.meta("rl_embedder"),
                    "last_sync": int(last) if last else None}

    def file_states(self) -> dict[str, tuple[int, int, str]]:
        with self._lock:
            return {r[0]: (r[1], r[2], r[3]) for r in self.conn.execute(
                "SELECT path, mtime_ns, size, source FROM rl_files")}

    # -- vectors -------------------------------------------------------------------
    @staticmethod
    def _next_rowid(conn: apsw.Connection) -> int:
        """The rowid AUTOINCREMENT would give the next row: above any rowid ever used."""
        row = conn.execute(
            "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name='chunks'), 0),"
            " coalesce((SELECT max(rowid) FROM chunks), 0))").fetchall()[0][0]
        assert isinstance(row, int)
        return row + 1

    @staticmethod
    def _has_vec_table(conn: apsw.Connection) -> bool:
        return conn.execute("SELECT 1 FROM sqlite_master WHERE name='chunks_vec'"
                            ).fetchone() is not None

    def vec_available(self, embedder_name: str | None = None) -> bool:
        """sqlite-vec loaded and ``chunks_vec`` built by this embedder."""
        with self._lock:
            if not self.vec_loaded or not self._has_vec_table(self.conn):
                return False
            return embedder_name is None or self.meta("rl_embedder") == embedder_name

    def ensure_vectors(self, embedder_name: str, dimensions: int) -> bool:
        """Create ``chunks_vec`` for this embedder; another embedder's vectors are dropped."""
        if not self.vec_loaded:
            return False
        with self._lock, self._write() as conn:
            same = (self.meta("rl_embedder") == embedder_name
                    and self.meta("embedding_dimensions") == str(dimensions)
                    and self._has_vec_table(conn))
            if not same:
                conn.execute("DROP TABLE IF EXISTS chunks_vec")
                conn.execute("CREATE VIRTUAL TABLE chunks_vec USING vec0(chunk_id TEXT"
                             f" PRIMARY KEY, embedding FLOAT[{int(dimensions)}])")
                self._set_meta(conn, "embedding_dimensions", str(dimensions))
                self._set_meta(conn, "rl_embedder", embedder_name)
        return True

    def missing_embeddings(self, limit: int | None = None) -> list[tuple[str, str]]:
        with self._lock:
            sql = ("SELECT c.id, c.text FROM chunks c LEFT JOIN chunks_vec_rowids r ON r.id = c.id"
                   " WHERE r.id IS NULL ORDER BY c.rowid")
            if limit is not None:
                sql += f" LIMIT {int(limit)}"
            return [(r[0], r[1]) for r in self.conn.execute(sql)]

    def embed_missing(self, embedder: _Embedder, batch_size: int = 8,
                      progress: Progress | None = None,
                      cancelled: Callable[[], bool] | None = None) -> int:
        """Embed chunks without a vector, committing each batch (kill-safe, resumable).

        Exceptions from the embedder propagate; vectors already stored stay.
        """
        if not self.ensure_vectors(embedder.name, embedder.dimensions):
            return 0
        todo = self.missing_embeddings()
        done = 0
        for start in range(0, len(todo), max(1, batch_size)):
            if cancelled and cancelled():
                break
            batch = todo[start:start + max(1, batch_size)]
            vectors = embedder.embed([text for _, text in batch])
            if len(vectors) != len(batch):
                raise ValueError(f"embedder returned {len(vectors)} vectors for {len(batch)} texts")
            blobs = [(cid, _vec_blob(v, embedder.dimensions))
                     for (cid, _), v in zip(batch, vectors, strict=True)]
            with self._lock, self._write() as conn:
                live = {r[0] for r in conn.execute(
                    "SELECT id FROM chunks WHERE id IN (SELECT value FROM json_each(?))",
                    (_json_list([b[0] for b in blobs]),))}
                conn.executemany("DELETE FROM chunks_vec WHERE chunk_id=?",
                                 [(b[0],) for b in blobs if b[0] in live])
                conn.executemany("INSERT INTO chunks_vec(chunk_id, embedding) VALUES (?, ?)",
                                 [b for b in blobs if b[0] in live])
            done += len(batch)
            if progress:
                progress(done, len(todo), "embedding")
        return done

    def vectors_for(self, ids: Iterable[str]) -> dict[str, list[float]]:
        """The stored vectors of these chunks (those that have one); ``{}`` without vectors.

        ``--rank best`` compares its top results with each other to find near-duplicates.
        """
        wanted = list(ids)
        with self._lock:
            if not wanted or not self.vec_available():
                return {}
            matrix = self._matrix(build=False)
            if matrix is not None:
                return {c: matrix.array[matrix.row[c]].tolist() for c in wanted
                        if c in matrix.row}
            dims = int(self.meta("embedding_dimensions") or 0)
            out: dict[str, list[float]] = {}
            # One prepared statement run per id: vec0 answers ``chunk_id = ?`` from its
            # primary key, while ``IN (…)`` scans every vector (80 ids at 50,000 chunks:
            # 4 ms against 115 ms; without it (and the array) bench/memory_ablate.py's
            # --agent all hybrid p50 goes from 85 to 208 ms, --rank best from 82 to 198).
            for cid, blob in self.conn.executemany(
                    "SELECT chunk_id, embedding FROM chunks_vec WHERE chunk_id = ?",
                    [(c,) for c in dict.fromkeys(wanted)]):
                if isinstance(blob, bytes) and dims and len(blob) == 4 * dims:
                    out[str(cid)] = list(struct.unpack(f"<{dims}f", blob))
            return out

    def vector_search(self, embedding: Sequence[float], k: int) -> list[tuple[str, float]]:
        """(chunk id, L2 distance) nearest first. Raises ``apsw.Error`` on failure."""
        with self._lock:
            dims = int(self.meta("embedding_dimensions") or len(embedding))
            matrix = self._matrix()
            if matrix is not None:
                return matrix.nearest(embedding, k)
            return [(r[0], float(r[1])) for r in self.conn.execute(
                "SELECT chunk_id, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ?"
                " ORDER BY distance", (_vec_blob(embedding, dims), int(k)))]


    def _generation(self) -> tuple[int, int]:
        """Changes whenever anything is written: by another connection (``data_version``)
        or by this one (``total_changes``), except an unchanged sync's timestamp."""
        version = self.conn.execute("PRAGMA data_version").fetchall()[0][0]
        return int(str(version)), self.conn.total_changes() - self._quiet_changes

    def _matrix(self, build: bool = True) -> _Vectors | None:
        """(under the lock) The vectors of this generation as one array, or None: the first
        vector search of a generation is answered by sqlite-vec, and the second builds the
        array (one scan), so a one-shot CLI search never pays for it. Needs numpy (the
        ``local`` extra). Brute-force KNN over 50,000 x 384 in numpy: 36 ms against 219 ms
        for sqlite-vec (load 19). Without it (bench/memory_ablate.py, 50,000 chunks, load 12)
        --agent all hybrid p50 goes from 85 to 186 ms, one-index --rank best from 82 to 104."""
        gen = self._generation()
        if self._vectors is not None and self._vectors.generation == gen:
            return self._vectors
        self._vectors = None
        if not build:
            return None
        if self._vectors_seen != gen:
            self._vectors_seen = gen
            return None
        try:
            import numpy as np
        except ImportError:
            return None
        dims = int(self.meta("embedding_dimensions") or 0)
        try:
            rows = self.conn.execute("SELECT chunk_id, embedding FROM chunks_vec").fetchall()
        except apsw.Error:
            return None
        array = np.empty((len(rows), dims), dtype="<f4")
        ids: list[str] = []
        for cid, blob in rows:
            if isinstance(blob, bytes) and dims and len(blob) == 4 * dims:
                array[len(ids)] = np.frombuffer(blob, dtype="<f4")
                ids.append(str(cid))
        self._vectors = _Vectors(gen, ids, array[:len(ids)])
        return self._vectors


class _Vectors:
    """The unit vectors of one index generation, row ``i`` belonging to chunk ``ids[i]``."""

    def __init__(self, generation: tuple[int, int], ids: list[str], array: Any) -> None:
        self.generation = generation
        self.ids = ids
        self.row = {c: i for i, c in enumerate(ids)}
        self.array = array

    def nearest(self, embedding: Sequence[float], k: int) -> list[tuple[str, float]]:
        """(chunk id, L2 distance) of the ``k`` nearest, as sqlite-vec answers."""
        import numpy as np

        if not self.ids or k <= 0:
            return []
        if len(embedding) != self.array.shape[1]:
            raise ValueError(f"embedder returned {len(embedding)} dimensions, expected"
                             f" {self.array.shape[1]}")
        q = np.asarray(embedding, dtype="<f4")
        norm = float(np.linalg.norm(q)) or 1.0
        sims = self.array @ (q / norm)
        k = min(k, len(self.ids))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        dist = np.sqrt(np.maximum(0.0, 2.0 - 2.0 * sims[top]))
        return [(self.ids[i], float(d)) for i, d in zip(top.tolist(), dist.tolist(),
                                                        strict=True)]


def _json_list(items: Sequence[str]) -> str:
    import json

    return json.dumps(list(items), ensure_ascii=False)
