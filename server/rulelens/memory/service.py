"""One entry point per user action, shared by the CLI and the language server.

Each method is blocking and thread-safe, meant to be called from a worker thread (the LSP
runs them in an executor and passes a ``progress`` callback for ``$/progress``). The
service keeps one open :class:`MemoryIndex` per workspace and one embedder per settings,
so repeated searches cost one ``stat`` per memory file plus the query.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from rulelens.agents.environment import AgentEnvironment
from rulelens.memory.beneath import Refused, read_regular
from rulelens.memory.chunker import Chunk, chunk_markdown
from rulelens.memory.index import (
    IndexUnavailable,
    MemoryIndex,
    Progress,
    SyncReport,
    index_path_for,
)
from rulelens.memory.remember import (
    FileSnapshot,
    NotePlan,
    Remembered,
    append_note,
    plan_note,
    sha256_hex,
)
from rulelens.memory.search import SearchOutcome, explain_search
from rulelens.memory.settings import (
    EmbedderKind,
    IndexSettings,
    MemorySettings,
    load_settings,
    with_client_settings,
    with_embedder_kind,
)
from rulelens.memory.status import MemoryStatus, memory_status
from rulelens.memory.workspace import MemoryLocation, locate

#: Search embeds at most this many un-embedded chunks inline; ``index`` does the rest.
INLINE_EMBED_LIMIT = 64


#: Hex SHA-256 of a file's bytes; ``""`` for a missing file (what ``remember`` compares).
content_sha256 = sha256_hex


class MemoryError_(Exception):
    """A user-facing failure (bad path, unreadable file); the message is for the user."""


def unindexed_note(reason: str, other: str | None) -> str:
    """The label of results served from an in-memory index (ours could not be used)."""
    note = f"index unavailable: {reason}; showing unindexed results"
    return note + (f"; {other}" if other else "")


def open_or_stand_in(path: str, chunking: IndexSettings,
                     current: MemoryIndex | None) -> MemoryIndex:
    """Our index file at ``path`` or, while the disk cannot hold it (a directory or FIFO in
    its place, read-only, full), an in-memory stand-in whose ``unavailable`` says why.
    ``current`` (the index in use, or None) is returned while the fault lasts when it is
    already a stand-in with these settings (its rows are kept); otherwise it is closed."""
    try:
        fresh = MemoryIndex.open(path, chunking)
    except IndexUnavailable as exc:
        if current is not None and current.chunking == chunking:
            current.unavailable = str(exc)
            return current
        fresh = stand_in(chunking, str(exc))
    if current is not None:
        current.close()
    return fresh


def stand_in(chunking: IndexSettings, reason: str) -> MemoryIndex:
    """An empty in-memory index labelled with why our file could not be used."""
    idx = MemoryIndex.open(":memory:", chunking)
    idx.unavailable = reason
    return idx


@dataclass(frozen=True)
class IndexOutcome:
    sync: SyncReport
    embedded: int
    embedder: str
    embedder_error: str | None
    #: Why our index file could not be used (the sync went to an in-memory index).
    index_unavailable: str | None = None

    def to_json(self) -> dict[str, object]:
        s = self.sync
        return {"files": s.files, "reindexed": list(s.reindexed), "added": s.added,
                "updated": s.updated, "removed": s.removed, "deleted_paths": list(s.deleted_paths),
                "skipped": [{"path": k.path, "reason": k.reason} for k in s.skipped],
                "carried_over": s.carried_over, "rebuilt": s.rebuilt, "embedded": self.embedded,
                "embedder": self.embedder, "embedder_error": self.embedder_error,
                "index_unavailable": self.index_unavailable}


def _make_embedder(settings: MemorySettings, env: Mapping[str, str]
                   ) -> tuple[Any | None, str | None]:
    """(embedder or None, error message). ``none`` is not an error."""
    if settings.embedding.kind == "none":
        return None, None
    try:
        from rulelens.memory import embedders
    except ImportError as exc:
        return None, f"embedders are not available: {exc}"
    try:
        return embedders.make_embedder(settings.embedding, env=env), None
    except Exception as exc:  # EmbedderError carries a message for users
        return None, str(exc)


class MemoryService:
    def __init__(self, env: Mapping[str, str] | None = None,
                 client: Mapping[str, object] | None = None,
                 embedder_kind: EmbedderKind | None = None) -> None:
        self.env = dict(os.environ if env is None else env)
        self.client = dict(client or {})
        self.embedder_kind = embedder_kind
        self._lock = threading.RLock()
        self._indexes: dict[str, MemoryIndex] = {}
        self._embedders: dict[object, tuple[Any | None, str | None]] = {}

    def set_client(self, client: Mapping[str, object] | None) -> None:
        """New editor settings (``rulelens.memory``); they apply from the next call on."""
        self.client = dict(client or {})

    # -- context ---------------------------------------------------------------------
    def settings(self) -> MemorySettings:
        agent = AgentEnvironment.from_env(self.env)
        s = load_settings(agent.grok_home, self.env)
        if self.client:
            s = with_client_settings(s, self.client)
        return with_embedder_kind(s, self.embedder_kind)

    def locate(self, cwd: str) -> MemoryLocation:
        if not os.path.isdir(cwd):
            raise MemoryError_(f"{cwd}: not a directory")
        agent = AgentEnvironment.from_env(self.env)
        return locate(os.path.abspath(cwd), agent.grok_home)

    def index_for(self, location: MemoryLocation, settings: MemorySettings) -> MemoryIndex:
        """Our index for this workspace: the file in our cache or, while the disk cannot
        hold it (a directory or FIFO in its place, read-only, full), an in-memory stand-in
        whose ``unavailable`` says why. A stand-in is replaced as soon as the file opens
        again, so the fault going away is the repair."""
        path = index_path_for(location, self.env)
        with self._lock:
            idx = self._indexes.get(path)
            if idx is not None and idx.chunking == settings.index and idx.unavailable is None:
                return idx
            fresh = open_or_stand_in(path, settings.index, idx)
            self._indexes[path] = fresh
            return fresh

    def synced_index(self, location: MemoryLocation, settings: MemorySettings,
                     progress: Progress | None = None) -> tuple[MemoryIndex, SyncReport]:
        """:meth:`index_for`, brought up to date; a disk that fails mid-sync (full,
        read-only) switches to the in-memory stand-in for this call."""
        idx = self.index_for(location, settings)
        try:
            return idx, idx.sync(location, progress)
        except IndexUnavailable as exc:
            path = index_path_for(location, self.env)
            with self._lock:
                idx.close()
                idx = stand_in(settings.index, str(exc))
                self._indexes[path] = idx
            return idx, idx.sync(location, progress)

    def embedder(self, settings: MemorySettings) -> tuple[Any | None, str | None]:
        key = settings.embedding
        with self._lock:
            if key not in self._embedders:
                self._embedders[key] = _make_embedder(settings, self.env)
            return self._embedders[key]

    def close(self) -> None:
        with self._lock:
            for idx in self._indexes.values():
                idx.close()
            self._indexes.clear()

    # -- actions -----------------------------------------------------------------------
    def index(self, cwd: str, progress: Progress | None = None,
              cancelled: Callable[[], bool] | None = None) -> IndexOutcome:
        settings = self.settings()
        location = self.locate(cwd)
        idx, report = self.synced_index(location, settings, progress)
        embedder, error = self.embedder(settings)
        embedded = 0
        if embedder is not None:
            try:
                embedded = idx.embed_missing(embedder, settings.embedding.batch_size, progress,
                                             cancelled)
            except Exception as exc:
                error = f"embedding stopped: {exc}"
        return IndexOutcome(report, embedded, settings.embedding.kind, error, idx.unavailable)

    def search(self, cwd: str, query: str, *, wide: bool = False,
               max_results: int | None = None, min_score: float | None = None,
               progress: Progress | None = None) -> SearchOutcome:
        settings = self.settings()
        location = self.locate(cwd)
        idx, report = self.synced_index(location, settings, progress)
        embedder, error = self.embedder(settings)
        if embedder is not None:
            try:
                # A small backlog (or a small memory never embedded) is embedded inline, so a
                # dead endpoint is noticed here and said in the result; a large one is left
                # to ``index`` (the editor runs it in the background with progress).
                if idx.vec_available(embedder.name):
                    backlog = len(idx.missing_embeddings(INLINE_EMBED_LIMIT + 1))
                else:
                    backlog = int(str(idx.stats()["chunks"]))
                if backlog <= INLINE_EMBED_LIMIT:
                    idx.embed_missing(embedder, settings.embedding.batch_size)
            except Exception as exc:
                error = f"embedding failed, FTS only: {exc}"
                embedder = None
        outcome = explain_search(idx, query, settings, embedder=embedder,
                                 max_results=max_results, min_score=min_score, wide=wide)
        if error and embedder is None and settings.embedding.kind != "none":
            outcome = replace(outcome, mode="fts-fallback", note=error)
        if idx.unavailable:
            outcome = replace(outcome, note=unindexed_note(idx.unavailable, outcome.note))
        links = sum(k.reason.startswith("outside-roots") for k in report.skipped)
        if links:
            said = (f"{links} memory file(s) are links out of the memory root: the agent"
                    " indexes their targets, RuleLens does not read them (memory status)")
            outcome = replace(outcome, note=f"{outcome.note}; {said}" if outcome.note else said)
        return outcome

    def status(self, cwd: str) -> MemoryStatus:
        settings = self.settings()
        location = self.locate(cwd)
        path = index_path_for(location, self.env)
        idx = self.index_for(location, settings) if os.path.lexists(path) else None
        if idx is not None and idx.unavailable:
            st = memory_status(location, settings, None, settings.embedding.kind)
            st.notes.append(unindexed_note(idx.unavailable, None))
            return st
        return memory_status(location, settings, idx, settings.embedding.kind)

    def memory_file(self, cwd: str, scope: Literal["global", "workspace"]) -> tuple[str, str]:
        """(path, source label) of the MEMORY.md a note for ``scope`` goes to."""
        location = self.locate(cwd)
        path = location.global_memory if scope == "global" else location.workspace_memory
        return path, location.classify_source(path)

    def plan_remember(self, cwd: str, text: str,
                      scope: Literal["global", "workspace"] = "global") -> NotePlan:
        """The dry run of :meth:`remember`: what would be appended, and whether the agent's
        search could find it (chunked with the configured ``[memory.index]`` limits, as the
        agent's session-start reindex does). Writes nothing."""
        path, source = self.memory_file(cwd, scope)
        chunking = self.settings().index
        return plan_note(path, text, source, chunking.max_chunk_chars,
                         chunking.chunk_overlap_chars, root=self.locate(cwd).global_dir)

    def remember(self, cwd: str, text: str, scope: Literal["global", "workspace"] = "global",
                 seen: bytes | None = None, expected_sha256: str | None = None) -> Remembered:
        """Append a note; ``seen`` is the file content the user saw (None: read it now).

        ``expected_sha256`` is the hex SHA-256 of the bytes the caller last saw (``""``: the
        file did not exist); when the file differs now, nothing is written. Both are checked
        under the file's lock, against the file as it is then (:func:`append_note`).
        """
        path, _ = self.memory_file(cwd, scope)
        snapshot = FileSnapshot(path, seen) if seen is not None else None
        return append_note(path, text, snapshot, expected_sha256=expected_sha256,
                           root=self.locate(cwd).global_dir)

    def read_memory_path(self, cwd: str, path: object) -> bytes:
        """The content of a client-supplied memory file, refused outside the memory roots.

        The path is walked beneath the memory root's descriptor, each component opened
        without following links and links resolved by hand, so the check and the open are
        one operation: neither ``..``, nor a link, nor a directory swapped for a link while
        the request runs can make it read another file.
        """
        if not isinstance(path, str) or not os.path.isabs(path) or "\x00" in path:
            raise MemoryError_(f"{path!r}: expected an absolute path")
        location = self.locate(cwd)
        try:
            return location.read_file(path)[0]
        except Refused as exc:
            if exc.code == "outside-roots":
                raise MemoryError_(f"{path}: outside the memory roots ({location.global_dir});"
                                   f" refused ({exc.detail})") from exc
            if exc.code in ("missing", "not-a-file"):
                raise MemoryError_(f"{path}: not a memory file ({exc.detail})") from exc
            raise MemoryError_(f"{path}: {exc}") from exc

    def chunks(self, path: str, max_chars: int | None = None, overlap: int | None = None,
               content: bytes | None = None) -> list[Chunk]:
        """How the agent chunks ``path`` (read without blocking, regular files only), or
        ``content`` when the caller already read it (:meth:`read_memory_path`)."""
        settings = self.settings()
        if content is None:
            try:
                content = read_regular(path)[0]
            except OSError as exc:
                raise MemoryError_(f"{path}: cannot read ({exc})") from exc
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MemoryError_(f"{path}: not UTF-8 (invalid byte at offset {exc.start});"
                               " the agent does not index it") from exc
        return chunk_markdown(text,
                              settings.index.max_chunk_chars if max_chars is None else max_chars,
                              settings.index.chunk_overlap_chars if overlap is None else overlap)
