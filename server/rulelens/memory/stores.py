"""Which memory the agent uses (legacy or v2, by agent version and config), and the
searches, blocks and writes that depend on it.

:class:`AgentMemory` sits over :class:`~rulelens.memory.service.MemoryService` (the legacy
store's index, settings and embedders) and owns what is new: the v2 index, the transcript
index, ``--rank best`` and ``--explain``. ``--rank agent`` in the legacy store is
:meth:`MemoryService.search` unchanged, so the agent's view stays byte for byte what it was.

Memory v2 search is lexical (each v2 scope keeps an FTS-only ``index.sqlite``, §A7.3):
the agent's pipeline without vectors over the v2 files in ``list_memory_files`` order.
UNCONFIRMED (§A7.4): that v2 ``memory_search`` runs that same ``hybrid_search``, and over
one combined list rather than per scope; :data:`V2_SEARCH_MODELS` lets a caller say
``"none"`` (treat the agent as returning nothing it was not shown in the manifest).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from rulelens.agents.compat import read_config
from rulelens.agents.safeio import printable
from rulelens.memory.best import BestOutcome, BestSettings, best_search
from rulelens.memory.context import ContextBlock, first_turn_block, post_compaction_block
from rulelens.memory.explain import AgentExplanation, agent_explanations, not_a_candidate
from rulelens.memory.index import IndexUnavailable, MemoryIndex, cache_root
from rulelens.memory.remember import RememberError
from rulelens.memory.search import SearchOutcome, explain_search, format_memory_search
from rulelens.memory.service import (
    MemoryError_,
    MemoryService,
    open_or_stand_in,
    stand_in,
    unindexed_note,
)
from rulelens.memory.transcripts import TranscriptHit, TranscriptIndex, TranscriptSync
from rulelens.memory.v2 import (
    Enablement,
    ManifestBudget,
    MemoryFeatures,
    V2Location,
    V2Note,
    features_for,
    format_v2_memory_context,
    list_v2_files,
    locate_v2,
    plan_v2_note,
    render_manifest,
    resolve_enablement,
    save_remember_note,
)
from rulelens.memory.workspace import MemoryFile, MemoryLocation

Rank = Literal["agent", "best"]
Scope = Literal["global", "workspace"]
RANKS: tuple[Rank, ...] = ("agent", "best")
SOURCES = ("memory", "transcript")
V2_SEARCH_MODELS = ("fts", "none")


@dataclass(frozen=True)
class SearchReport:
    """One search, in the agent's view (``outcome``) and/or ranked for people (``best``)."""

    query: str
    rank: Rank
    mode: str  # "legacy" or "v2": the store searched
    outcome: SearchOutcome | None
    best: BestOutcome | None
    explanations: Mapping[str, AgentExplanation] = field(default_factory=dict)
    transcripts: list[TranscriptHit] = field(default_factory=list)
    stale_files: int = 0
    missing_vectors: int = 0
    notes: list[str] = field(default_factory=list)

    def warnings(self) -> list[str]:
        out: list[str] = []
        if self.stale_files:
            out.append(f"the index was stale: {self.stale_files} file(s) changed since the last"
                       " index; they were re-indexed for this search")
        if self.missing_vectors:
            out.append(f"{self.missing_vectors} chunk(s) have no vector yet and are found by"
                       " keywords only; run `rulelens memory index`")
        return out + self.notes

    def why_not(self, chunk_id: str) -> str | None:
        e = self.explanations.get(chunk_id)
        if e is not None:
            return e.why_not
        with_vectors = bool(self.outcome and self.outcome.mode == "hybrid")
        return not_a_candidate(self.query, 6, with_vectors)

    def to_json(self, explain: bool = False) -> dict[str, object]:
        if self.rank == "agent" and self.outcome is not None:
            out = self.outcome.to_json()
            if explain:
                for r, j in zip(self.outcome.results, out["results"], strict=True):  # type: ignore[call-overload]
                    e = self.explanations.get(r.chunk_id)
                    j["explain"] = e.to_json() if e else {"why_not": self.why_not(r.chunk_id)}
        else:
            assert self.best is not None
            out = {"query": self.query, "keywords": self.best.keywords,
                   "mode": "best-hybrid" if self.best.vectors else "best-fts", "note": None,
                   "results": [self._best_json(r, explain) for r in self.best.results]}
        # The agent's view with nothing asked beyond it keeps the CLI's JSON byte for byte.
        if self.rank != "agent" or self.mode != "legacy" or self.transcripts or explain:
            out["rank"] = self.rank
            out["store"] = self.mode
            out["warnings"] = self.warnings()
        if self.transcripts:
            out["transcripts"] = [t.to_json() for t in self.transcripts]
        return out

    def _best_json(self, r: Any, explain: bool) -> dict[str, object]:
        start = r.start_line + 1
        agent = self.explanations.get(r.chunk_id)
        j: dict[str, object] = {
            "path": r.path, "start_line": start, "end_line": max(r.end_line, start),
            "snippet": r.snippet, "score": r.score, "source": r.source,
            "agent_returns": bool(agent and agent.agent_returns),
            "superseded_by": r.explanation.superseded_by}
        if explain:
            j["explain"] = {**r.explanation.to_json(),
                            "agent": agent.to_json() if agent else None,
                            "why_not": self.why_not(r.chunk_id)}
        return j


class AgentMemory:
    """The memory of one agent version, over a :class:`MemoryService` it does not own."""

    def __init__(self, service: MemoryService, agent: str | None = None,
                 v2_search: str = "fts", best: BestSettings | None = None) -> None:
        self.service = service
        self.features: MemoryFeatures = features_for(agent)
        if v2_search not in V2_SEARCH_MODELS:
            raise ValueError(f"v2 search model must be one of {', '.join(V2_SEARCH_MODELS)}")
        self.v2_search = v2_search
        self.best_settings = best or BestSettings()
        self._lock = threading.RLock()
        self._v2_indexes: dict[str, MemoryIndex] = {}
        self._transcripts: TranscriptIndex | None = None

    def close(self) -> None:
        with self._lock:
            for idx in self._v2_indexes.values():
                idx.close()
            self._v2_indexes.clear()
            if self._transcripts is not None:
                self._transcripts.close()
                self._transcripts = None

    # -- which store ------------------------------------------------------------------
    @property
    def grok_home(self) -> str:
        from rulelens.agents.environment import AgentEnvironment

        return AgentEnvironment.from_env(self.service.env).grok_home

    def enablement(self) -> Enablement:
        config, path = read_config(self.grok_home)
        return resolve_enablement(config, self.service.env, self.features, config_path=path)

    def v2_location(self, cwd: str) -> V2Location:
        self.service.locate(cwd)  # the same checks (a directory) as the legacy store
        return locate_v2(os.path.abspath(cwd), self.grok_home)

    def _v2_index(self, v2: V2Location
                  ) -> tuple[MemoryIndex, MemoryLocation, list[MemoryFile], str]:
        """Our index of the v2 files (our file or, while the disk cannot hold it, an
        in-memory stand-in), the location/file list it is synced with, and its path."""
        g, w = v2.scopes()
        location = MemoryLocation(v2.cwd, self.grok_home, g.dir, w.dir, v2.workspace,
                                  v2.ephemeral)
        files = [MemoryFile(f.path, f.source) for f in list_v2_files(v2)]
        path = os.path.join(cache_root(self.service.env), "memory-v2", v2.workspace.name,
                            "index.sqlite")
        settings = self.service.settings()
        with self._lock:
            idx = self._v2_indexes.get(path)
            if idx is None or idx.unavailable is not None or idx.chunking != settings.index:
                idx = open_or_stand_in(path, settings.index, idx)
                self._v2_indexes[path] = idx
        return idx, location, files, path

    def _v2_synced(self, v2: V2Location, progress: Any) -> tuple[MemoryIndex, int]:
        """:meth:`_v2_index` brought up to date, and how many files were stale; a disk
        that fails mid-sync switches to the in-memory stand-in, as the legacy store does."""
        idx, location, files, path = self._v2_index(v2)
        stale = _stale(idx, files)
        try:
            idx.sync(location, progress, files=files)
        except IndexUnavailable as exc:
            with self._lock:
                idx.close()
                idx = stand_in(self.service.settings().index, str(exc))
                self._v2_indexes[path] = idx
            idx.sync(location, progress, files=files)
        return idx, stale

    # -- search -----------------------------------------------------------------------
    def search(self, cwd: str, query: str, *, rank: Rank = "agent", explain: bool = False,
               sources: tuple[str, ...] = ("memory",), wide: bool = False,
               max_results: int | None = None, min_score: float | None = None,
               progress: Any = None) -> SearchReport:
        if rank not in RANKS:
            raise MemoryError_(f"rank must be one of {', '.join(RANKS)}, not {rank!r}")
        unknown = [s for s in sources if s not in SOURCES]
        if unknown:
            raise MemoryError_(f"unknown source {unknown[0]!r}; sources: {', '.join(SOURCES)}")
        mode = self.enablement().mode
        notes: list[str] = []
        settings = self.service.settings()
        if mode == "v2":
            idx, stale = self._v2_synced(self.v2_location(cwd), progress)
            embedder = None
            if self.v2_search == "none":
                notes.append("v2 search model 'none': the agent's results are not modelled")
            else:
                notes.append("memory v2: lexical search over the v2 scopes, the agent's pipeline"
                             " without vectors (UNCONFIRMED: §A7.4)")
            outcome = explain_search(idx, query, settings, max_results=max_results,
                                     min_score=min_score, wide=wide or self.v2_search == "none")
            if self.v2_search == "none":
                outcome = SearchOutcome(outcome.query, outcome.keywords, outcome.mode,
                                        [replace(r, agent_returns=False)
                                         for r in outcome.results], [], outcome.note)
            if idx.unavailable:
                outcome = replace(outcome, note=unindexed_note(idx.unavailable, outcome.note))
        else:
            location = self.service.locate(cwd)
            idx = self.service.index_for(location, settings)
            stale = _stale(idx, location.memory_files())
            outcome = self.service.search(cwd, query, wide=wide, max_results=max_results,
                                          min_score=min_score, progress=progress)
            # The search may have switched to the in-memory stand-in (our disk failed).
            idx = self.service.index_for(location, settings)
            embedder = self.service.embedder(settings)[0] if outcome.mode == "hybrid" else None
        qvec = embedder.embed([query])[0] if embedder is not None else None
        explanations: dict[str, AgentExplanation] = {}
        if explain or rank == "best":
            explanations = agent_explanations(idx, query, settings, query_vector=qvec,
                                              max_results=max_results, min_score=min_score)
        best = None
        if rank == "best":
            best = best_search(idx, query, query_vector=qvec, settings=self.best_settings,
                               max_results=max_results)
        missing = len(idx.missing_embeddings()) if embedder is not None else 0
        hits: list[TranscriptHit] = []
        if "transcript" in sources:
            synced = self._sync_transcripts(cwd)
            notes += [f"transcript skipped {printable(k.path)}: {k.reason}"
                      for k in synced.skipped]
            hits = self.transcript_index().search(query)
        return SearchReport(query, rank, mode, outcome, best, explanations, hits, stale,
                            missing, notes)

    def agent_text(self, report: SearchReport) -> str:
        """Byte for byte what the agent's ``memory_search`` returns for the report's query."""
        assert report.outcome is not None
        return format_memory_search(report.outcome.agent_results)

    # -- transcripts ------------------------------------------------------------------
    def transcript_index(self) -> TranscriptIndex:
        with self._lock:
            if self._transcripts is None:
                self._transcripts = TranscriptIndex(os.path.join(
                    cache_root(self.service.env), "transcripts", "index.sqlite"))
            return self._transcripts

    def _sync_transcripts(self, cwd: str) -> TranscriptSync:
        return self.transcript_index().sync(self.grok_home, os.path.abspath(cwd))

    # -- first turn, manifests ----------------------------------------------------------
    def context(self, cwd: str, query: str, post_compaction: bool = False) -> ContextBlock:
        e = self.enablement()
        if e.mode == "v2":
            v2 = self.v2_location(cwd)
            text = format_v2_memory_context(v2, self.manifest_budget())
            return ContextBlock(query, text, 0, "memory v2 injects both scopes' manifests once"
                                " per session (§A7.6); whether the legacy first-turn search"
                                " also runs is UNCONFIRMED")
        settings = self.service.settings()
        location = self.service.locate(cwd)
        idx = self.service.index_for(location, settings)
        idx.sync(location)
        embedder, _ = self.service.embedder(settings)
        if embedder is not None and not idx.vec_available(embedder.name):
            embedder = None
        framing = self.features.framing_sentence
        block = (post_compaction_block(idx, query, settings, framing=framing, embedder=embedder)
                 if post_compaction else
                 first_turn_block(idx, query, settings, framing=framing, embedder=embedder))
        if not e.enabled:
            return ContextBlock(block.query, "", 0, e.reason + "; nothing is injected")
        return block

    def manifest_budget(self) -> ManifestBudget:
        config, _ = read_config(self.grok_home)
        table = config.get("memory_v2")
        compact = isinstance(table, dict) and table.get("compact_index_enabled") is True
        return ManifestBudget.compact_budget() if compact else ManifestBudget()

    def manifests(self, cwd: str) -> list[tuple[str, str, str]]:
        """(scope, scope dir, manifest text) for global and workspace."""
        v2 = self.v2_location(cwd)
        budget = self.manifest_budget()
        return [(s.kind, s.dir, render_manifest(s, budget)) for s in v2.scopes()]

    # -- remember ---------------------------------------------------------------------
    def plan_remember(self, cwd: str, text: str, scope: Scope = "global"
                      ) -> tuple[str, str, str]:
        """(store, target path, exact text written) without writing. In v2 a note is always
        a new observation in the global inbox (§A7.17), whatever ``scope`` says."""
        if self.enablement().mode == "v2":
            v2 = self.v2_location(cwd)
            return "v2", os.path.join(v2.global_scope.inbox, "remember-<id>.md"), plan_v2_note(text)
        plan = self.service.plan_remember(cwd, text, scope)
        return "legacy", plan.path, plan.text

    def remember(self, cwd: str, text: str, scope: Scope = "global") -> tuple[str, str]:
        """(path, text written): v2's inbox or the legacy ``scope`` MEMORY.md (the agent's
        own /remember writes the global one)."""
        if self.enablement().mode == "v2":
            note: V2Note = save_remember_note(self.v2_location(cwd), text)
            return note.path, note.text
        done = self.service.remember(cwd, text, scope)
        return done.path, done.text


def _stale(idx: MemoryIndex, files: list[MemoryFile]) -> int:
    states = idx.file_states()
    if not states:
        return 0  # a first index, not a stale one
    n = 0
    for f in files:
        try:
            st = os.stat(f.path)
        except OSError:
            continue
        if states.get(f.path) != (st.st_mtime_ns, st.st_size, f.source):
            n += 1
    return n


__all__ = ["AgentMemory", "RememberError", "SearchReport"]
