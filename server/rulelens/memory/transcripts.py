"""Grok session transcripts as a search source (``transcript``), opt-in.

Grok's memory tools do **not** search these files (its separate session search is not
modelled), so every hit is labelled :data:`LABEL`. Layout and record format:
``../shared/research/grok-sessions.md`` and spec §8:
``$GROK_HOME/sessions/<encoded-cwd>/<session-id>/updates.jsonl`` (ACP session updates, one
JSON object per line) with ``summary.json`` beside it and an optional ``.cwd`` file in the
``<encoded-cwd>`` directory.

Every file here is opened beneath ``$GROK_HOME/sessions`` (:mod:`rulelens.memory.beneath`:
no link leaves it, the check and the open are one operation) and read through the
descriptor-level helpers of :mod:`rulelens.agents.safeio` (regular files only, never
blocking): a FIFO or a link to ``/dev/zero`` or out of the sessions directory named
``updates.jsonl``, ``summary.json`` or ``.cwd`` is skipped with the reason
(:attr:`TranscriptSync.skipped`), never read. A line longer than :data:`MAX_LINE` is
counted but not held (it cannot be a message chunk RuleLens shows), and a turn holding
more than :data:`MAX_TURN` characters is let go as it grows and listed as skipped; a line
nested deeper than :data:`rulelens.agents.bounded.MAX_DEPTH` is never parsed.

Reading is streaming: lines are read one at a time, lines that are not message chunks are
turned away by a byte search before any JSON decoding (tool updates can be megabytes), and
only the turn being joined is held in memory. Consecutive ``agent_message_chunk`` lines with
one ``promptId`` form one assistant turn; consecutive ``user_message_chunk`` lines with one
``promptIndex`` one user turn.

The index (our own SQLite file, FTS5) is incremental per transcript: it keeps how many
bytes it has read and a SHA-256 of those bytes. An intact prefix means only the new bytes
are read (from the start of the last turn, which may continue); a shrunk file or a moved
prefix (a rewind truncated it and it grew again) means the transcript is parsed again.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import stat
import threading
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

import apsw

from rulelens.agents import bounded, safeio
from rulelens.memory.beneath import Refused, SkippedFile, lstat_beneath, open_beneath, read_beneath
from rulelens.memory.best import coverage
from rulelens.memory.search import extract_keywords, fts_match
from rulelens.memory.words import split_words
from rulelens.sessions.jsonl import bounded_lines

SOURCE = "transcript"
LABEL = "not searched by the agent's memory tools"
Role = Literal["user", "assistant"]
_KINDS: dict[str, Role] = {"user_message_chunk": "user", "agent_message_chunk": "assistant"}
_NEEDLE = b"_message_chunk"
_HASH_BLOCK = 1 << 20
#: A longer ``updates.jsonl`` line (a tool update) is skipped without being held.
MAX_LINE = 16 << 20
#: The most text one turn may hold; a longer turn (its chunks joined) is counted as
#: skipped (:attr:`TranscriptSync.skipped`), and nothing more of it is held once past this.
MAX_TURN = 8 << 20
#: ``summary.json`` and ``.cwd`` are read up to these sizes; a larger one is skipped.
SUMMARY_LIMIT = 1 << 20
CWD_LIMIT = 64 * 1024


@dataclass(frozen=True)
class SessionInfo:
    id: str
    dir: str
    cwd: str | None
    title: str | None
    created_at: str | None
    updated_at: str | None
    kind: str | None
    #: The transcript file when it is not Grok's ``<dir>/updates.jsonl`` (Codex, Claude).
    file: str | None = None

    @property
    def updates(self) -> str:
        return self.file or os.path.join(self.dir, "updates.jsonl")


@dataclass(frozen=True)
class Turn:
    role: Role
    key: str | None  # promptId (assistant) or promptIndex (user)
    line: int  # 1-based line of the turn's first chunk in updates.jsonl
    offset: int  # byte offset of that line
    timestamp: float | None  # Unix seconds
    text: str
    #: Characters of text let go because the turn held more than :data:`MAX_TURN`
    #: (then ``text`` is empty and the turn is not indexed).
    dropped: int = 0


def sessions_root(grok_home: str) -> str:
    return os.path.join(grok_home, "sessions")


def _read_small(root: str, path: str, limit: int,
                skipped: list[SkippedFile] | None) -> bytes | None:
    """A small side file beneath ``root``, or None (missing: silently; refused: listed)."""
    try:
        return read_beneath(root, path, limit)[0]
    except Refused as exc:
        if exc.code != "missing" and skipped is not None:
            skipped.append(exc.skipped())
        return None


def _load_json(root: str, path: str, skipped: list[SkippedFile] | None) -> Any:
    data = _read_small(root, path, SUMMARY_LIMIT, skipped)
    try:
        return None if data is None else bounded.json_loads(data)
    except ValueError:  # not JSON, or nested too deeply to parse
        return None


def read_session(session_dir: str, root: str | None = None,
                 skipped: list[SkippedFile] | None = None) -> SessionInfo:
    """``summary.json`` first; without it the directory id, the group's ``.cwd`` file, then
    the decoded group name (observed names are not always encoded consistently). Both are
    read beneath ``root`` (default: the sessions directory two levels up); refusals are
    appended to ``skipped``."""
    sid = os.path.basename(session_dir.rstrip(os.sep))
    group = os.path.dirname(session_dir.rstrip(os.sep))
    root = root if root is not None else os.path.dirname(group)
    summary = _load_json(root, os.path.join(session_dir, "summary.json"), skipped)
    info = summary.get("info") if isinstance(summary, dict) else None
    s: dict[str, Any] = summary if isinstance(summary, dict) else {}
    cwd = info.get("cwd") if isinstance(info, dict) else None
    if not isinstance(cwd, str) or not cwd:
        cwd = None
        raw = _read_small(root, os.path.join(group, ".cwd"), CWD_LIMIT, skipped)
        with contextlib.suppress(UnicodeDecodeError):
            cwd = (raw or b"").decode("utf-8").strip() or None
        if cwd is None:
            decoded = urllib.parse.unquote(os.path.basename(group))
            cwd = decoded if decoded.startswith("/") else None
    if isinstance(info, dict) and isinstance(info.get("id"), str) and info["id"]:
        sid = info["id"]

    def text(key: str) -> str | None:
        v = s.get(key)
        return v if isinstance(v, str) and v.strip() else None

    title = text("generated_title") or text("session_summary")
    return SessionInfo(sid, session_dir, cwd, title, text("created_at"), text("updated_at"),
                       text("session_kind"))


def list_sessions(grok_home: str, skipped: list[SkippedFile] | None = None
                  ) -> Iterator[SessionInfo]:
    """The sessions with an ``updates.jsonl`` that is a regular file beneath the sessions
    directory (links followed while they stay beneath); the others go to ``skipped``."""
    root = sessions_root(grok_home)
    try:
        groups = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return
    for group in groups:
        if not group.is_dir(follow_symlinks=False):
            continue
        try:
            entries = sorted(os.scandir(group.path), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False):
                continue
            updates = os.path.join(entry.path, "updates.jsonl")
            try:
                mode = lstat_beneath(root, updates).st_mode
            except Refused as exc:
                if exc.code != "missing" and skipped is not None:
                    skipped.append(exc.skipped())
                continue
            if not stat.S_ISREG(mode):
                if skipped is not None:
                    skipped.append(SkippedFile(updates, f"not-a-file: {safeio.kind_of(mode)}"))
                continue
            yield read_session(entry.path, root, skipped)


def _seconds(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) / 1000.0 if value > 100_000_000_000 else float(value)


def _content_text(content: object) -> str:
    if isinstance(content, dict):
        if content.get("type", "text") == "text" and isinstance(content.get("text"), str):
            return str(content["text"])
        return ""
    if isinstance(content, list):
        return "".join(_content_text(part) for part in content)
    return ""


def _meta(record: Mapping[str, Any], params: Mapping[str, Any],
          update: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for holder in (record, params, update):
        m = holder.get("_meta")
        if isinstance(m, dict):
            out.update(m)
    return out


def _chunk(line: bytes) -> tuple[Role, str | None, float | None, str] | None:
    """(role, join key, timestamp, text) of a message-chunk line, else None."""
    if _NEEDLE not in line:
        return None  # tool calls, plans, usage: never decoded
    try:
        record = bounded.json_loads(line)
    except ValueError:
        return None  # a torn line, or one nested too deeply to be a message chunk
    if not isinstance(record, dict):
        return None
    params = record.get("params")
    update = params.get("update") if isinstance(params, dict) else None
    if not isinstance(params, dict) or not isinstance(update, dict):
        return None
    role = _KINDS.get(str(update.get("sessionUpdate")))
    if role is None:
        return None
    meta = _meta(record, params, update)
    key_name = "promptId" if role == "assistant" else "promptIndex"
    key = meta.get(key_name, meta.get("promptId"))
    ts = _seconds(record.get("timestamp"))
    if ts is None:
        ms = meta.get("agentTimestampMs")
        ts = None if isinstance(ms, bool) or not isinstance(ms, int | float) else ms / 1000.0
    return role, None if key is None else str(key), ts, _content_text(update.get("content"))


def _lines(chunks: Iterable[bytes]) -> Iterator[tuple[int, bytes | None]]:
    """(length, line) of each complete line (its ``\\n`` included); the line is None when
    it is longer than :data:`MAX_LINE` (counted, not held). A torn last line is dropped.
    The splitter every session reader shares (:mod:`rulelens.sessions.jsonl`)."""
    return bounded_lines(chunks, MAX_LINE)


def parse_updates(chunks: Iterable[bytes], offset: int = 0, line_no: int = 0
                  ) -> Iterator[Turn | tuple[int, int]]:
    """Turns from ``chunks`` (the file's bytes from byte ``offset``, which is line
    ``line_no`` lines in), and last a ``(consumed bytes, consumed lines)`` pair: the end of
    the last complete line (a torn last line is left for the next read)."""
    return group_turns(chunks, offset, line_no, lambda raw, _n: _chunk(raw), "")


#: A line's message: (role, key, timestamp, text); True ends the current turn without
#: starting one; None or False: neither.
LineMessage = tuple[Role, str | None, float | None, str] | bool | None


def group_turns(chunks: Iterable[bytes], offset: int, line_no: int,
                message: Callable[[bytes, int], LineMessage], sep: str
                ) -> Iterator[Turn | tuple[int, int]]:
    """The one turn grouping every transcript reader shares: consecutive messages with one
    role and key are one turn, their texts joined with ``sep``; a turn past MAX_TURN is
    counted (``dropped``), not held. Last comes ``(consumed bytes, consumed lines)``."""
    pos, n = offset, line_no
    current: list[str] = []
    held = dropped = 0  # characters in ``current``; let go past MAX_TURN
    head: tuple[Role, str | None, int, int, float | None] | None = None

    def turn() -> Turn:
        assert head is not None
        if dropped:
            return Turn(head[0], head[1], head[2], head[3], head[4], "", held + dropped)
        return Turn(head[0], head[1], head[2], head[3], head[4], sep.join(current))

    for size, raw in _lines(chunks):
        start = pos
        pos += size
        n += 1
        found = None if raw is None else message(raw, n)
        if found is True and head is not None:
            yield turn()
            head, current, held, dropped = None, [], 0, 0
        if not isinstance(found, tuple):
            continue
        role, key, ts, text = found
        if head is not None and (head[0] != role or head[1] != key):
            yield turn()
            head, current, held, dropped = None, [], 0, 0
        if head is None:
            head = (role, key, n, start, ts)
        if dropped or held + len(text) > MAX_TURN:
            # Over the bound: what was held is let go; the rest is only counted.
            dropped += len(text) + held
            current, held = [], 0
        else:
            current.append(text)
            held += len(text)
    if head is not None:
        yield turn()
    yield (pos, n)


def prefix_sha256(fd: int, st: os.stat_result, path: str, length: int) -> str:
    """SHA-256 of the first ``length`` bytes of an open transcript."""
    h = hashlib.sha256()
    left = length
    for block in safeio.iter_opened(fd, st, path, chunk=_HASH_BLOCK):
        h.update(block[:left])
        left -= len(block)
        if left <= 0:
            break
    return h.hexdigest()


_SCHEMA = """
CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, session_id TEXT, title TEXT, cwd TEXT,
  created_at TEXT, updated_at TEXT, size INTEGER, mtime_ns INTEGER, consumed INTEGER,
  consumed_lines INTEGER, prefix_sha TEXT, resume_offset INTEGER, resume_line INTEGER,
  next_turn INTEGER);
CREATE TABLE IF NOT EXISTS turns(id INTEGER PRIMARY KEY, path TEXT, turn INTEGER, role TEXT,
  prompt_key TEXT, line INTEGER, offset INTEGER, ts REAL, text TEXT);
CREATE INDEX IF NOT EXISTS turns_path ON turns(path, offset);
CREATE VIRTUAL TABLE IF NOT EXISTS turns_fts USING fts5(text, content='turns', content_rowid='id');
CREATE TRIGGER IF NOT EXISTS turns_ai AFTER INSERT ON turns BEGIN
  INSERT INTO turns_fts(rowid, text) VALUES (new.id, new.text); END;
CREATE TRIGGER IF NOT EXISTS turns_ad AFTER DELETE ON turns BEGIN
  INSERT INTO turns_fts(turns_fts, rowid, text) VALUES ('delete', old.id, old.text); END;
"""


@dataclass(frozen=True)
class TranscriptSync:
    sessions: int
    parsed: tuple[str, ...]  # transcripts read from the start
    appended: tuple[str, ...]  # transcripts read from where the last sync stopped
    turns_added: int
    removed: tuple[str, ...]
    #: Transcript files not read (a FIFO, a device, a link out of the sessions directory).
    skipped: tuple[SkippedFile, ...] = ()


@dataclass(frozen=True)
class TranscriptHit:
    path: str  # updates.jsonl
    session_id: str
    title: str | None
    turn: int
    role: Role
    line: int  # 1-based line in updates.jsonl (where the editor opens it)
    timestamp: float | None
    text: str
    score: float
    bm25: float
    coverage: float
    matched: tuple[str, ...]
    source: str = SOURCE
    label: str = LABEL
    agent: str = "grok"

    def to_json(self) -> dict[str, object]:
        return {"agent": self.agent, "path": self.path, "session_id": self.session_id,
                "title": self.title, "turn": self.turn, "role": self.role, "start_line": self.line,
                "end_line": self.line, "timestamp": self.timestamp, "snippet": self.text,
                "score": self.score, "bm25": self.bm25, "coverage": self.coverage,
                "matched": list(self.matched), "source": self.source, "label": self.label,
                "agent_returns": False}


def _under(path: str | None, root: str) -> bool:
    if not path:
        return False
    p, r = os.path.realpath(path), os.path.realpath(root)
    return p == r or p.startswith(r.rstrip(os.sep) + os.sep)


class TranscriptIndex:
    """Our transcript index: one SQLite file, owned by whoever opened it (close it)."""

    #: The agent whose transcripts this index holds, and the parser of its files
    #: (:mod:`rulelens.memory.agent_transcripts` sets both for Codex and Claude Code).
    agent = "grok"
    parse = staticmethod(parse_updates)

    def __init__(self, path: str) -> None:
        self.path = path
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.conn = apsw.Connection(path)
        self.conn.setbusytimeout(5000)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute(_SCHEMA)
        self._lock = threading.RLock()

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    def __enter__(self) -> TranscriptIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- sync ------------------------------------------------------------------------
    def sync(self, grok_home: str, cwd: str | None = None) -> TranscriptSync:
        """Index the sessions started in ``cwd`` (or under it); every session when None."""
        with self._lock:
            skipped: list[SkippedFile] = []
            sessions = [s for s in list_sessions(grok_home, skipped)
                        if cwd is None or _under(s.cwd, cwd)]
            return self.sync_listed(sessions_root(grok_home), sessions, skipped)

    def sync_listed(self, root: str, sessions: list[SessionInfo], skipped: list[SkippedFile]
                    ) -> TranscriptSync:
        """Index these sessions' transcripts (opened beneath ``root``) and drop the ones
        indexed before that are no longer listed."""
        with self._lock:
            known = {r[0] for r in self.conn.execute("SELECT path FROM files")}
            parsed: list[str] = []
            appended: list[str] = []
            added = 0
            for s in sessions:
                how, n = self._sync_one(s, root, skipped)
                added += n
                if how == "parsed":
                    parsed.append(s.updates)
                elif how == "appended":
                    appended.append(s.updates)
            gone = sorted(known - {s.updates for s in sessions if s.updates not in
                                   {k.path for k in skipped}})
            with self.conn:
                for path in gone:
                    self.conn.execute("DELETE FROM turns WHERE path=?", (path,))
                    self.conn.execute("DELETE FROM files WHERE path=?", (path,))
            return TranscriptSync(len(sessions), tuple(parsed), tuple(appended), added,
                                  tuple(gone), tuple(skipped))

    def _sync_one(self, s: SessionInfo, root: str, skipped: list[SkippedFile]
                  ) -> tuple[str, int]:
        """Index one transcript through one descriptor, opened beneath the sessions
        directory: its ``fstat`` decides "unchanged", its bytes are hashed and parsed."""
        try:
            with open_beneath(root, s.updates) as (fd, st):
                safeio.check_opened(st, s.updates)
                return self._sync_opened(s, fd, st, skipped)
        except safeio.NotAFileError as exc:
            skipped.append(SkippedFile(s.updates, f"not-a-file: {exc.kind}"))
        except Refused as exc:
            if exc.code != "missing":
                skipped.append(exc.skipped())
        return "skipped", 0

    def _sync_opened(self, s: SessionInfo, fd: int, st: os.stat_result,
                     skipped: list[SkippedFile]) -> tuple[str, int]:
        path = s.updates
        row = self.conn.execute(
            "SELECT size, mtime_ns, consumed, consumed_lines, prefix_sha, resume_offset,"
            " resume_line, next_turn FROM files WHERE path=?", (path,)).fetchone()
        if row is not None and (row[0], row[1]) == (st.st_size, st.st_mtime_ns):
            return "unchanged", 0
        resume = 0
        resume_line = 0
        turn = 0
        how = "parsed"
        if row is not None:
            _, _, consumed, _, sha, r_off, r_line, next_turn = row
            if st.st_size >= consumed and prefix_sha256(fd, st, path, consumed) == sha:
                resume, resume_line, how = r_off, r_line, "appended"
                last = self.conn.execute("SELECT min(turn) FROM turns WHERE path=? AND"
                                         " offset>=?", (path, r_off)).fetchall()[0][0]
                turn = int(str(last if last is not None else next_turn))
        with self.conn:
            if how == "parsed":
                self.conn.execute("DELETE FROM turns WHERE path=?", (path,))
            else:
                self.conn.execute("DELETE FROM turns WHERE path=? AND offset>=?", (path, resume))
            added = 0
            last_turn: Turn | None = None
            consumed_at, lines_at = resume, resume_line
            chunks = safeio.iter_opened(fd, st, path, resume)
            for item in self.parse(chunks, resume, resume_line):
                if isinstance(item, tuple):
                    consumed_at, lines_at = item
                    continue
                if item.dropped:
                    skipped.append(SkippedFile(path, f"turn at line {item.line}: more than"
                                               f" {MAX_TURN} characters of text ({item.dropped});"
                                               " not indexed"))
                    continue
                if not item.text.strip():
                    continue
                self.conn.execute(
                    "INSERT INTO turns(path, turn, role, prompt_key, line, offset, ts, text)"
                    " VALUES (?,?,?,?,?,?,?,?)", (path, turn, item.role, item.key, item.line,
                                                  item.offset, item.timestamp, item.text))
                last_turn = item
                turn += 1
                added += 1
            # The last turn may continue in lines not written yet: the next read starts there.
            r_off = last_turn.offset if last_turn else consumed_at
            r_line = last_turn.line - 1 if last_turn else lines_at
            next_turn = turn - 1 if last_turn else turn
            self.conn.execute(
                "INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (path, s.id, s.title, s.cwd, s.created_at, s.updated_at, st.st_size,
                 st.st_mtime_ns, consumed_at, lines_at, prefix_sha256(fd, st, path, consumed_at),
                 r_off, r_line, next_turn))
        return how, added

    # -- reading -----------------------------------------------------------------------
    def turns(self, path: str) -> list[tuple[int, str, int, float | None, str]]:
        """(turn, role, line, timestamp, text) of one transcript, in order."""
        with self._lock:
            return [(int(r[0]), str(r[1]), int(r[2]), r[3], str(r[4])) for r in self.conn.execute(
                "SELECT turn, role, line, ts, text FROM turns WHERE path=? ORDER BY offset",
                (path,))]

    def count(self) -> int:
        with self._lock:
            return int(str(self.conn.execute("SELECT count(*) FROM turns").fetchall()[0][0]))

    def search(self, query: str, limit: int = 10, min_coverage: float = 0.5
               ) -> list[TranscriptHit]:
        """BM25 over the keywords (OR), re-scored like ``--rank best`` without vectors:
        IDF-weighted keyword coverage and BM25 relative to the best hit; hits covering
        less than ``min_coverage`` of the query are dropped (the weak-match cut-off)."""
        keywords = extract_keywords(query)
        if not keywords:
            return []
        with self._lock:
            total = self.count() or 1
            weights: dict[str, float] = {}
            for k in keywords:
                df = self.conn.execute("SELECT count(*) FROM turns_fts WHERE turns_fts MATCH ?",
                                       ('"' + k.replace('"', '""') + '"',)).fetchall()[0][0]
                weights[k] = math.log1p(total / max(1, int(str(df))))
            try:
                rows = list(self.conn.execute(
                    "SELECT t.path, f.session_id, f.title, t.turn, t.role, t.line, t.ts, t.text,"
                    " turns_fts.rank FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid"
                    " JOIN files f ON f.path = t.path WHERE turns_fts MATCH ?"
                    " ORDER BY turns_fts.rank LIMIT ?", (fts_match(keywords), limit * 4)))
            except apsw.SQLError:
                return []
        best = min((float(r[8]) for r in rows), default=0.0)
        hits: list[TranscriptHit] = []
        for r in rows:
            cov, matched = coverage(frozenset(split_words(str(r[7]).lower())), weights)
            if cov < min_coverage:
                continue
            rel = float(r[8]) / best if best < 0 else 0.0
            hits.append(TranscriptHit(r[0], r[1], r[2], int(r[3]), r[4], int(r[5]), r[6],
                                      str(r[7]), 0.6 * cov + 0.4 * rel, float(r[8]), cov,
                                      matched, agent=self.agent))
        hits.sort(key=lambda h: -h.score)
        return hits[:limit]


def when(ts: float | None) -> str:
    """A turn's time for people (UTC), or ``""``."""
    if ts is None:
        return ""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M")

