"""Search and remember across every agent's memory (``--agent claude|codex|gemini|qwen|all``).

The files come from :mod:`rulelens.memory.agentfiles` (and Grok's legacy store for
``all``); they are indexed in RuleLens's cache (``<cache>/memory-agents/<agent>/<key>/``),
never next to the agent's files, and read beneath each file's own memory root. A file the
agent cuts is chunked on each side of the cut, so a result never spans it: the result
holding a line carries that line's label (``start`` / ``on-demand`` / ``no``). Ranking is
the project's ranking for people (:func:`~rulelens.memory.best.best_search`) over one index,
so hits of different agents compare; a hit past a cut is found and labelled, never hidden.

``remember`` appends in the agent's own format, in place under the lock of
:func:`~rulelens.memory.remember.append_in_place` (a concurrent plain ``O_APPEND`` writer
loses nothing), or refuses in one line where the agent has no writable format.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from blake3 import blake3

from rulelens.agents.environment import AgentEnvironment
from rulelens.agents.registry import family
from rulelens.memory import agent_transcripts
from rulelens.memory.agent_transcripts import TRANSCRIPTS, AgentTranscriptIndex
from rulelens.memory.agentfiles import (
    _JS_SPACE,
    ALL_LINES,
    STORES,
    Segment,
    StoreFile,
    StoreView,
    claude_memory_dir,
    display_name,
    gemini_context_names,
    gemini_home,
    gemini_project_id,
    memory_agents,
)
from rulelens.memory.beneath import Refused, SkippedFile, read_beneath, relative_to
from rulelens.memory.best import BestSettings, best_search
from rulelens.memory.chunker import Chunk, chunk_hashes, chunk_markdown
from rulelens.memory.index import (
    IndexUnavailable,
    MemoryIndex,
    Reader,
    SyncReport,
    _Prepared,
    cache_root,
)
from rulelens.memory.remember import RememberError, append_in_place
from rulelens.memory.service import INLINE_EMBED_LIMIT, MemoryError_, MemoryService
from rulelens.memory.transcripts import TranscriptHit, TranscriptIndex
from rulelens.memory.workspace import MemoryFile, MemoryLocation, WorkspaceName

ALL = "all"
#: How long a listing and sync of the agents' files is reused (:meth:`AgentStores.fresh`).
#: Without it (bench/memory_ablate.py, 50,000 chunks, load 12) --agent all hybrid p50 goes
#: from 85 to 152 ms.
FRESH_SECONDS = 2.0


def memory_agent(agent: str | None) -> str | None:
    """The store id for ``--agent`` (``claude``, ``all``…), or None for Grok's own store."""
    if agent is None:
        return None
    if agent == ALL:
        return ALL
    fam = family(agent)
    if fam == "grok":
        return None
    if fam not in memory_agents():
        raise MemoryError_(f"unknown agent {agent!r}; memory agents: "
                           f"{', '.join(memory_agents())}, all")
    return fam


# -- the index ------------------------------------------------------------------------------

def chunk_with_cuts(content: str, cuts: Sequence[int], max_bytes: int, overlap: int
                    ) -> list[Chunk]:
    """The chunker run on each side of every cut (0-based line numbers), line numbers kept,
    so no chunk holds lines on both sides of a cut."""
    if not cuts:
        return chunk_markdown(content, max_bytes, overlap)
    parts = content.split("\n")
    out: list[Chunk] = []
    bounds = [0, *[c for c in cuts if 0 < c < len(parts)], len(parts)]
    for start, end in itertools.pairwise(bounds):
        piece = "\n".join(parts[start:end])
        if end < len(parts):
            piece += "\n"
        out += [Chunk(c.start_line + start, c.end_line + start, c.text)
                for c in chunk_markdown(piece, max_bytes, overlap)]
    return out


class CutIndex(MemoryIndex):
    """A :class:`MemoryIndex` whose files are chunked on each side of their cuts."""

    #: path -> 0-based lines where a new segment starts; set before each sync.
    cuts: dict[str, list[int]] = {}  # noqa: RUF012 (replaced per instance, never mutated)

    def _prepare(self, path: str, reader: Reader) -> _Prepared | SkippedFile:
        cuts = self.cuts.get(path)
        if not cuts:
            return super()._prepare(path, reader)
        content: list[str] = []

        def keep(p: str) -> tuple[bytes, os.stat_result]:
            raw, st = reader(p)
            content.append(raw.decode("utf-8", errors="replace"))
            return raw, st
        prepared = super()._prepare(path, keep)  # the one read, its refusals and UTF-8 check
        if not isinstance(prepared, _Prepared):
            return prepared
        chunks = chunk_with_cuts(content[0], cuts, self.chunking.max_chunk_chars,
                                 self.chunking.chunk_overlap_chars)
        return _Prepared(path, prepared.stat, list(zip(
            chunks, chunk_hashes([c.text for c in chunks]), strict=True)))


@dataclass(frozen=True)
class StoreLocation(MemoryLocation):
    """The files of several agents as one location: each read beneath its own root."""

    file_roots: Mapping[str, str] = field(default_factory=dict)

    @property
    def agent_index(self) -> str:
        return os.path.join(self.workspace_dir, "no-agent-index")  # never an agent's file

    def read_file(self, path: str) -> tuple[bytes, os.stat_result]:
        root = self.file_roots.get(path)
        if root is None:
            raise Refused(path, "outside-roots", "not a memory file of this search")
        return read_beneath(root, path)


# -- search ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class AgentHit:
    agent: str
    path: str
    start_line: int  # 1-based
    end_line: int
    snippet: str
    injected: str
    scope: str
    score: float

    def to_json(self) -> dict[str, object]:
        return {"agent": self.agent, "path": self.path, "start_line": self.start_line,
                "end_line": self.end_line, "snippet": self.snippet, "injected": self.injected,
                "scope": self.scope, "score": self.score}


@dataclass
class AgentSearch:
    query: str
    keywords: list[str]
    agents: list[str]
    hits: list[AgentHit]
    notes: list[str]
    vectors: bool
    #: Session transcripts (``--sources …,transcript``), each with its ``agent``; None
    #: when transcripts were not asked for.
    transcripts: list[TranscriptHit] | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "query": self.query, "keywords": self.keywords, "agents": self.agents,
            "names": {a: display_name(a) for a in self.agents}, "rank": "best",
            "mode": "best-hybrid" if self.vectors else "best-fts",
            "results": [h.to_json() for h in self.hits], "notes": self.notes}
        if self.transcripts is not None:
            out["transcripts"] = [t.to_json() for t in self.transcripts]
        return out


def grok_view(service: MemoryService, cwd: str, agent: str | None = None) -> StoreView:
    """Grok's memory as a :class:`StoreView`: nothing is injected whole (the first turn
    gets only snippets scoring 0.9 or more); files are reached by ``memory_search``."""
    from rulelens.memory.stores import AgentMemory

    memory = AgentMemory(service, agent)
    try:
        e = memory.enablement()
        if e.mode == "v2":
            from rulelens.memory.v2 import list_v2_files

            v2 = memory.v2_location(cwd)
            g, w = v2.scopes()
            files = [(f.path, f.source, g.dir if f.source == "global" else w.dir)
                     for f in list_v2_files(v2)]
            note = ("Grok memory v2: the generated MEMORY.md manifests are injected once per"
                    " session (8 KiB budget, not modelled here); files are labelled on demand")
        else:
            location = service.locate(cwd)
            files = [(f.path, f.source, location.global_dir) for f in location.memory_files()]
            note = ("Grok injects no memory file whole: first-turn snippets scoring 0.9 or more"
                    " only; the files are reached through memory_search (on demand)")
    finally:
        memory.close()
    view = StoreView("grok", cwd, e.enabled, None, {}, notes=[note])
    if not e.enabled:
        view.notes = [f"Grok memory: {e.reason}"]
        return view
    for path, source, root in files:
        try:
            size = os.stat(path).st_size
        except OSError:
            continue
        scope = "global" if source == "global" else "workspace"
        view.files.append(StoreFile(path, root, scope, "on-demand", None, None, size, None,
                                    source, (Segment(0, ALL_LINES, "on-demand"),)))
    return view


def store_view(service: MemoryService, agent: str, cwd: str) -> StoreView:
    """One agent's memory for ``cwd`` (``agent``: one of :func:`memory_agents`)."""
    if agent == "grok":
        return grok_view(service, cwd)
    return STORES[agent](os.path.abspath(cwd), service.env)


class AgentStores:
    """Search over the memory of several agents, with one cache index per agent set."""

    def __init__(self, service: MemoryService, best: BestSettings | None = None) -> None:
        self.service = service
        self.best = best or BestSettings()
        self._lock = threading.RLock()
        self._indexes: dict[str, CutIndex] = {}
        self._transcripts: dict[str, TranscriptIndex] = {}
        #: (agent, cwd) -> (monotonic time, views, index, files, sync report) of the last
        #: listing and sync, reused for FRESH_SECONDS (see :meth:`fresh`).
        self._fresh: dict[tuple[str, str], tuple[float, list[StoreView], CutIndex,
                                                 dict[str, tuple[str, StoreFile]],
                                                 SyncReport | None]] = {}
        #: What the last :meth:`synced` did (its skipped files become search notes).
        self.last_sync: SyncReport | None = None

    def close(self) -> None:
        with self._lock:
            for idx in self._indexes.values():
                idx.close()
            self._indexes.clear()
            for t in self._transcripts.values():
                t.close()
            self._transcripts.clear()
            self._fresh.clear()

    def invalidate(self) -> None:
        """Forget the last listings: the next search lists and syncs again (after a write)."""
        with self._lock:
            self._fresh.clear()

    def fresh(self, agent: str, cwd: str
              ) -> tuple[list[StoreView], CutIndex, dict[str, tuple[str, StoreFile]]]:
        """The views and the synced index of ``agent`` for ``cwd``. Listing every agent's
        files and statting them for the sync is most of a search when the query is cheap,
        so the result is reused for :data:`FRESH_SECONDS` (a search typed key by key lists
        once); a change on disk shows up at most that late, a remember through
        :meth:`invalidate` at once."""
        key = (agent, os.path.abspath(cwd))
        now = time.monotonic()
        with self._lock:
            hit = self._fresh.get(key)
            if hit is not None and now - hit[0] < FRESH_SECONDS and hit[2].unavailable is None \
                    and self._indexes.get(hit[2].path) is hit[2]:
                self.last_sync = hit[4]
                return hit[1], hit[2], hit[3]
        views = self.views(agent, cwd)
        idx, by_path = self.synced(agent, cwd, views)
        with self._lock:
            self._fresh[key] = (now, views, idx, by_path, self.last_sync)
        return views, idx, by_path

    def views(self, agent: str, cwd: str) -> list[StoreView]:
        if not os.path.isdir(cwd):
            raise MemoryError_(f"{cwd}: not a directory")
        agents = list(memory_agents()) if agent == ALL else [agent]
        return [store_view(self.service, a, cwd) for a in agents]

    def index_path(self, agent: str, cwd: str) -> str:
        key = blake3(os.path.abspath(cwd).encode("utf-8", "surrogateescape")).hexdigest()[:16]
        return os.path.join(cache_root(self.service.env), "memory-agents", agent, key,
                            "index.sqlite")

    def _index(self, path: str) -> CutIndex:
        """Our index at ``path`` or, while the disk cannot hold it, an in-memory one whose
        ``unavailable`` says why (replaced as soon as the file opens again)."""
        chunking = self.service.settings().index
        with self._lock:
            old = self._indexes.get(path)
            if old is not None and old.unavailable is None and old.chunking == chunking:
                return old
            if old is not None:
                old.close()
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                idx = CutIndex(path, chunking)
            except (OSError, IndexUnavailable) as exc:
                idx = CutIndex(":memory:", chunking)
                idx.unavailable = str(exc)
            self._indexes[path] = idx
            return idx

    def synced(self, agent: str, cwd: str, views: list[StoreView]
               ) -> tuple[CutIndex, dict[str, tuple[str, StoreFile]]]:
        """The index of these views' files, up to date; path -> (agent, file)."""
        path = self.index_path(agent, cwd)
        idx = self._index(path)
        by_path: dict[str, tuple[str, StoreFile]] = {}
        files: list[MemoryFile] = []
        cuts: dict[str, list[int]] = {}
        for view in views:
            for f in view.files:
                if f.path in by_path:
                    continue
                by_path[f.path] = (view.agent, f)
                c = f.cuts()
                cuts[f.path] = c
                files.append(MemoryFile(f.path, f"{view.agent}:{f.scope}"
                                        + (":cut" + ",".join(map(str, c)) if c else "")))
        idx.cuts = cuts
        here = os.path.dirname(path) if path != ":memory:" else self.service.env.get("HOME", "/")
        location = StoreLocation(os.path.abspath(cwd), "", here, here,
                                 WorkspaceName(agent, agent, "", cwd, None, None), False,
                                 {p: f.root for p, (_, f) in by_path.items()})
        self.last_sync = idx.sync(location, files=files)
        return idx, by_path

    def transcripts(self, agent: str, cwd: str, query: str, notes: list[str]
                    ) -> list[TranscriptHit]:
        """Transcript hits of ``agent`` (or of every agent with readable transcripts for
        ``all``), best first; what a sync skipped goes to ``notes``."""
        agents = [a for a in (memory_agents() if agent == ALL else [agent])
                  if a == "grok" or a in TRANSCRIPTS]
        hits: list[TranscriptHit] = []
        cwd = os.path.abspath(cwd)
        for a in agents:
            with self._lock:
                idx = self._transcripts.get(a)
                if idx is None:
                    path = (os.path.join(cache_root(self.service.env), "transcripts",
                                         "index.sqlite") if a == "grok"
                            else agent_transcripts.index_path(self.service.env, a, cwd))
                    idx = (TranscriptIndex if a == "grok" else TRANSCRIPTS[a])(path)
                    self._transcripts[a] = idx
            if isinstance(idx, AgentTranscriptIndex):
                synced = idx.sync_agent(self.service.env, cwd)
            else:
                synced = idx.sync(AgentEnvironment.from_env(self.service.env).grok_home, cwd)
            notes += [f"{a}: transcript skipped {k.path}: {k.reason}" for k in synced.skipped]
            hits += idx.search(query)
        hits.sort(key=lambda h: -h.score)
        return hits[:10]

    def search(self, agent: str, cwd: str, query: str, max_results: int | None = None,
               sources: Sequence[str] = ("memory",)) -> AgentSearch:
        views, idx, by_path = self.fresh(agent, cwd)
        notes: list[str] = []
        for k in self.last_sync.skipped if self.last_sync else ():
            who = by_path[k.path][0] if k.path in by_path else agent
            reason = k.reason if who == "grok" else k.reason.replace("; the agent skips it too",
                                                                     "")  # Grok's indexer only
            notes.append(f"{who}: skipped {k.path}: {reason}")
        for view in views:
            if not view.files:
                notes += [f"{view.agent}: {n}" for n in view.notes] or [f"{view.agent}: no memory"]
            notes += [f"{view.agent}: skipped {k.path}: {k.reason}" for k in view.skipped]
        settings = self.service.settings()
        embedder, error = self.service.embedder(settings)
        qvec = None
        if embedder is not None:
            try:
                # A small backlog is embedded inline (as Grok's search does); a large one is
                # left to `memory index`, and its chunks are found by keywords meanwhile.
                stats = idx.stats()  # two counts: cheaper than listing what has no vector
                backlog = int(str(stats["chunks"])) - (int(str(stats["vectors"]))
                                                       if idx.vec_available(embedder.name) else 0)
                if 0 < backlog <= INLINE_EMBED_LIMIT:
                    idx.embed_missing(embedder, settings.embedding.batch_size)
                elif not idx.vec_available(embedder.name):
                    notes.append(f"{backlog} chunk(s) have no vector yet: keywords only; run"
                                 " `rulelens memory index`")
                qvec = embedder.embed([query])[0] if idx.vec_available(embedder.name) else None
            except Exception as exc:
                notes.append(f"embedding failed, keywords only: {exc}")
        elif error:
            notes.append(f"embedder: {error}; keywords only")
        if idx.unavailable:
            notes.append(f"index unavailable: {idx.unavailable}; showing unindexed results")
        best = best_search(idx, query, query_vector=qvec, settings=self.best,
                           max_results=max_results)
        hits: list[AgentHit] = []
        for r in best.results:
            owner = by_path.get(r.path)
            if owner is None:
                continue
            who, f = owner
            start = r.start_line + 1
            hits.append(AgentHit(who, r.path, start, max(r.end_line, start), r.snippet,
                                 f.label_for(r.start_line), f.scope, r.score))
        found = AgentSearch(query, list(best.keywords), [v.agent for v in views], hits, notes,
                            qvec is not None)
        if "transcript" in sources:
            found.transcripts = self.transcripts(agent, cwd, query, notes)
        return found


# -- remember -------------------------------------------------------------------------------

@dataclass(frozen=True)
class RememberPlan:
    """Where a note goes and how: ``root`` is the directory nothing below may be a link,
    ``suffix_for`` turns the file as it is under the lock into the exact bytes appended."""

    agent: str
    path: str
    root: str
    scope: str
    suffix_for: Callable[[bytes | None], bytes]
    format: str


def _one_line(text: str) -> str:
    return " ".join(text.replace("\r", " ").replace("\n", " ").split())


def claude_suffix(text: str) -> Callable[[bytes | None], bytes]:
    """``- TEXT`` as a new line of MEMORY.md, the missing final newline added first."""
    line = f"- {_one_line(text)}\n".encode()

    def suffix(current: bytes | None) -> bytes:
        return (b"\n" if current and not current.endswith(b"\n") else b"") + line
    return suffix


def gemini_fact(text: str) -> str:
    """``save_memory``'s sanitizeFact (gemini-cli@41599ce2): newlines to spaces, trim, strip
    leading dashes, ``<``/``>`` to spaces."""
    fact = text.replace("\r", " ").replace("\n", " ").strip()
    while fact.startswith("-"):
        fact = fact.lstrip("-").lstrip()
    return fact.strip().replace("<", " ").replace(">", " ")


def gemini_global_content(current: str, fact: str, heading: str) -> str:
    """The whole file after ``save_memory`` adds ``fact`` (computeGlobalMemoryContent,
    gemini-cli@41599ce2:packages/core/src/tools/memoryTool.ts)."""
    item = f"- {fact}"
    at = current.find(heading)
    if at < 0:
        if not current or current.endswith("\n\n"):
            sep = ""
        elif current.endswith("\n"):
            sep = "\n"
        else:
            sep = "\n\n"
        return current + sep + heading + "\n" + item + "\n"
    body_start = at + len(heading)
    body_end = current.find("\n## ", body_start)
    body_end = len(current) if body_end < 0 else body_end
    head = current[:body_start].rstrip(_JS_SPACE)
    section = current[body_start:body_end].rstrip(_JS_SPACE) + "\n" + item
    tail = current[body_end:]
    return (head + "\n" + section.lstrip(_JS_SPACE) + "\n" + tail).rstrip(_JS_SPACE) + "\n"


def gemini_suffix(text: str, scope: str, heading: str) -> Callable[[bytes | None], bytes]:
    fact = gemini_fact(text)
    if not fact:
        raise RememberError("the note is empty after Gemini's sanitising; nothing was written")

    def suffix(current: bytes | None) -> bytes:
        old = (current or b"").decode("utf-8")
        if scope == "workspace":
            sep = "" if not old or old.endswith("\n") else "\n"
            return (sep + f"- {fact}\n").encode()
        new = gemini_global_content(old, fact, heading)
        if not new.startswith(old):
            raise RememberError(
                f"adding to the {heading!r} section means rewriting the file (it is not at"
                " the end), and RuleLens only appends; add the note there by hand")
        return new[len(old):].encode()
    return suffix


#: The scopes ``remember`` writes per agent, default first (``[]``: not writable).
REMEMBER_SCOPES: dict[str, tuple[str, ...]] = {
    "grok": ("global", "workspace"), "claude": ("workspace",),
    "gemini": ("global", "workspace"), "qwen": ("global",), "codex": (),
}


def plan_remember(service: MemoryService, agent: str, cwd: str, text: str,
                  scope: str | None) -> RememberPlan:
    """Where and how ``agent`` keeps a note, or :class:`RememberError` in one line."""
    env = service.env
    if not text.strip():
        raise RememberError("the note is empty; nothing was written")
    if agent == "claude":
        if scope == "global":
            raise RememberError("Claude Code has no global auto memory (CLAUDE.md is"
                                " instructions); use --scope workspace")
        memory_dir, _, _ = claude_memory_dir(os.path.abspath(cwd), env)
        project = os.path.dirname(memory_dir)
        if not os.path.isdir(project):
            raise RememberError(f"Claude Code has not run in this project yet ({project} does"
                                " not exist); nothing was written")
        return RememberPlan("claude", os.path.join(memory_dir, "MEMORY.md"), project,
                            "workspace", claude_suffix(text), "- TEXT line in MEMORY.md")
    if agent in ("gemini", "qwen"):
        scope = scope or "global"
        if agent == "qwen":
            if scope != "global":
                raise RememberError("Qwen Code writes project memory through its own /remember"
                                    " extraction (no documented append format); only"
                                    " --scope global (legacy save_memory in ~/.qwen/QWEN.md)")
            home = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".qwen")
            return RememberPlan("qwen", os.path.join(home, "QWEN.md"), home, "global",
                                gemini_suffix(text, "global", "## Qwen Added Memories"),
                                "legacy save_memory: ## Qwen Added Memories + - fact")
        home = gemini_home(env)
        if scope == "global":
            name = gemini_context_names(home)[0]
            return RememberPlan("gemini", os.path.join(home, name), home, "global",
                                gemini_suffix(text, "global", "## Gemini Added Memories"),
                                "save_memory (v0.37-v0.43): ## Gemini Added Memories + - fact")
        pid, _ = gemini_project_id(os.path.abspath(cwd), home)
        if pid is None:
            raise RememberError("no private Gemini memory for this project yet (Gemini CLI has"
                                " not registered it); nothing was written")
        memory_dir = os.path.join(home, "tmp", pid, "memory")
        return RememberPlan("gemini", os.path.join(memory_dir, "MEMORY.md"),
                            os.path.join(home, "tmp", pid), "workspace",
                            gemini_suffix(text, "workspace", ""),
                            "save_memory project scope (v0.37-v0.43): - fact")
    if agent == "codex":
        raise RememberError("Codex memories are written only by Codex's own pipeline"
                            " (memory_summary.md is generated); RuleLens does not write them")
    raise RememberError(f"{agent}: no memory format RuleLens can write")


def preview(plan: RememberPlan) -> bytes:
    """The bytes the append would add to the file as it is now (no write)."""
    if not os.path.isdir(plan.root):
        return plan.suffix_for(None)
    try:
        current: bytes | None = read_beneath(plan.root, plan.path)[0]
    except Refused as exc:
        if exc.code != "missing":
            raise RememberError(f"{plan.path}: {exc}") from exc
        current = None
    return plan.suffix_for(current)


def remember(plan: RememberPlan) -> bytes:
    """Append under the lock; returns the bytes written."""
    rel = relative_to(plan.root, os.path.dirname(plan.path))
    if rel is None:
        raise RememberError(f"{plan.path} is outside {plan.root}; refusing to write")
    return append_in_place(plan.path, plan.suffix_for, root=plan.root)
