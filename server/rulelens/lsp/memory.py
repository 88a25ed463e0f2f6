"""Memory requests, commands and the memory watcher: thin wiring of ``MemoryService``.

``rulelens/memorySearch`` and ``rulelens/memoryStatus`` answer the same JSON as the CLI;
``rulelens/memoryChunks`` shows how a memory file is chunked (only files under the memory
roots are read); ``rulelens.remember`` appends a note (an explicit user command, written
atomically by the core), or with ``dryRun`` says what it would append and writes nothing
(confirmation dialogs show that, so no client copies the normalisation);
``rulelens.reindexMemory`` reindexes. Index and embedding work runs in worker threads and
reports ``$/progress``; the event loop only relays.

A watcher on the global memory directory (which holds every workspace directory) reindexes
the affected workspaces within a second of a change and sends ``rulelens/memoryIndexed``.

The workspace is a client-supplied URI, so it must be one of the workspace folders (or
inside one). Settings come from the client's ``rulelens.memory`` section; with
``trusted: false`` (an untrusted VS Code workspace) no ``api`` embedder is used, whatever
the workspace settings say, so memory text cannot be sent to an endpoint it names.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from lsprotocol import types
from pygls.uris import from_fs_path

from rulelens.lsp import protocol

if TYPE_CHECKING:
    from rulelens.lsp.host import Host
    from rulelens.lsp.memory_people import PeopleMemory
    from rulelens.lsp.session import Session
    from rulelens.lsp.watch import MemoryWatcher
    from rulelens.memory.agentmemory import AgentStores
    from rulelens.memory.service import IndexOutcome, MemoryService
    from rulelens.memory.workspace import MemoryLocation

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Watcher-triggered work shows progress only when it takes longer than this.
QUIET_PROGRESS_S = 0.5
#: At most this many ``report`` notifications per second and token.
REPORT_INTERVAL_S = 0.1


def _get(params: Any, key: str) -> Any:
    if isinstance(params, Mapping):
        return params.get(key)
    return getattr(params, key, None)


def _index(svc: MemoryService, cwd: str, progress: ProgressRelay) -> IndexOutcome:
    return svc.index(cwd, progress)


def progress_supported(caps: types.ClientCapabilities | None) -> bool:
    window = caps.window if caps is not None else None
    return bool(window is not None and window.work_done_progress)


class ProgressRelay:
    """Index/embedding progress from a worker thread -> ``$/progress`` on the event loop.

    The token is created lazily, at the first callback with work to do (``total > 0``), so
    a search over an up-to-date index sends nothing; ``eager`` relays (an explicit reindex)
    begin at once. ``delay_s`` keeps short background work silent. Percentages never go
    down (a later phase reports without one), as LSP asks.
    """

    def __init__(self, ls: Any, loop: asyncio.AbstractEventLoop, title: str,
                 delay_s: float = 0.0) -> None:
        self.ls = ls
        self.loop = loop
        self.title = title
        self.delay_s = delay_s
        self.supported = progress_supported(ls.client_capabilities)
        self.token = f"rulelens-memory-{uuid.uuid4()}"
        self._started = time.monotonic()
        self._begin: asyncio.Future[bool] | None = None
        self._sent: list[concurrent.futures.Future[None]] = []
        self._lock = threading.Lock()
        self._last = 0.0
        self._pct = 0
        self._seq = 0
        self._shown = 0

    # worker thread
    def __call__(self, done: int, total: int, message: str) -> None:
        if not self.supported or total <= 0:
            return
        now = time.monotonic()
        if now - self._started < self.delay_s:
            return
        with self._lock:
            if done < total and self._sent and now - self._last < REPORT_INTERVAL_S:
                return
            self._last = now
            pct: int | None = min(100, 100 * done // total)
            if pct is not None and pct < self._pct:
                pct = None
            else:
                self._pct = pct or 0
            what = "embedding chunks" if message == "embedding" else "indexing files"
            text = f"{what} {done}/{total}"
            self._seq += 1
            report = self._report(text, pct, self._seq)
            try:
                self._sent.append(asyncio.run_coroutine_threadsafe(report, self.loop))
            except RuntimeError:       # the loop is closing (server shutdown)
                report.close()

    # event loop
    async def start(self) -> None:
        """Begin now (an explicit command the user waits for)."""
        if self.supported:
            await self._begun()

    async def _begun(self) -> bool:
        if self._begin is None:
            self._begin = asyncio.ensure_future(self._create())
        return await asyncio.shield(self._begin)

    async def _create(self) -> bool:
        try:
            await asyncio.wait_for(self.ls.work_done_progress.create_async(self.token), 10)
        except Exception:
            log.info("the client refused a progress token; indexing without progress")
            return False
        self.ls.work_done_progress.begin(self.token, types.WorkDoneProgressBegin(
            title=self.title, percentage=0, cancellable=False))
        return True

    async def _report(self, message: str, pct: int | None, seq: int) -> None:
        # Reports scheduled while the token is being created can wake out of order (one
        # that arrives after creation finished does not wait); progress shows the latest
        # state, so a report older than one already shown is dropped.
        if await self._begun() and seq > self._shown:
            self._shown = seq
            self.ls.work_done_progress.report(self.token, types.WorkDoneProgressReport(
                message=message, percentage=pct))

    async def finish(self, message: str = "done") -> None:
        with self._lock:
            sent = list(self._sent)
        if sent:
            await asyncio.gather(*(asyncio.wrap_future(f) for f in sent), return_exceptions=True)
        if self._begin is not None and await asyncio.shield(self._begin):
            self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))


class MemoryFeature:
    """The server's memory state: one service, its workers, the watcher, background jobs."""

    def __init__(self, server: Host) -> None:
        self.server = server
        self.pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="rulelens-memory")
        #: Index and embedding jobs (watcher, background embedding, reindex): one at a time.
        self.jobs = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rulelens-memory-job")
        self.watcher: MemoryWatcher | None = None
        self._service: MemoryService | None = None
        self._client_key: str | None = None
        self._lock = threading.Lock()
        self._locations: dict[str, MemoryLocation] = {}
        #: Workspaces whose embeddings were brought up to date since the last change.
        self._embedded: set[str] = set()
        self._embedding: dict[str, asyncio.Task[None]] = {}
        #: rank/explain/transcripts/context/manifests (lsp/memory_people.py), set by register.
        self.people: PeopleMemory = None  # type: ignore[assignment]
        self._agent_stores: AgentStores | None = None

    @property
    def session(self) -> Session:
        """The server's session (made after start-up, at first use)."""
        return self.server.session

    # ---------------------------------------------------------------- settings
    def client_settings(self) -> dict[str, object]:
        """The ``memory`` section as sent; an untrusted workspace gets no ``api`` embedder."""
        settings = self.session.settings
        memory = settings.get("memory")
        client = dict(memory) if isinstance(memory, Mapping) else {}
        if settings.get("trusted") is False:
            kept = {k: v for k, v in client.items() if k in ("maxResults", "minScore")}
            kept["embedder"] = "local" if client.get("embedder") == "local" else "none"
            client = kept
        return client

    def service(self) -> MemoryService:
        """One service for the server's life; imported on first use (apsw, sqlite-vec)."""
        from rulelens.memory.service import MemoryService

        client = self.client_settings()
        key = repr(sorted(client.items(), key=lambda kv: kv[0]))
        with self._lock:
            if self._service is None:
                self._service = MemoryService(self.session.environ, client)
            elif key != self._client_key:
                self._service.set_client(client)
            if key != self._client_key:
                self._client_key = key
                self._embedded.clear()
            return self._service

    def agent_stores(self) -> AgentStores:
        """Other agents' memory (``agent`` param), over :meth:`service`; made on first use."""
        from rulelens.memory.agentmemory import AgentStores

        svc = self.service()
        with self._lock:
            if self._agent_stores is None:
                self._agent_stores = AgentStores(svc)
            return self._agent_stores

    def cut_hover_uri(self, uri: str) -> str | None:
        """:meth:`cut_hover` for a ``file:`` URI outside the workspace folders (the server
        opens no such document; only a file an agent's store lists is answered for)."""
        from urllib.parse import unquote, urlsplit

        try:
            parts = urlsplit(uri)
        except ValueError:
            return None
        path = os.path.normpath(unquote(parts.path))
        if parts.scheme != "file" or not path.startswith("/") or "\x00" in path:
            return None
        return self.cut_hover(path)

    def cut_hover(self, path: str) -> str | None:
        """(worker) For a memory file of another agent (Claude Code, Codex, Gemini CLI, Qwen
        Code) of a workspace folder: what reaches that agent's model and where the cut falls
        (Markdown); None for any other file. Only ``*.md`` files outside every workspace
        folder are looked up (memory lives in the agents' homes)."""
        if not path.endswith(".md") or any(
                path.startswith(r.rstrip(os.sep) + os.sep) for r in self.session.roots):
            return None
        from rulelens.memory.agentfiles import STORES, display_name

        stores = self.agent_stores()
        for cwd in self.session.roots:
            for agent in STORES:
                view = stores.views(agent, cwd)[0]
                f = view.file(path)
                if f is not None:
                    return cut_markdown(display_name(agent), f, view.evidence)
        return None

    def workspace(self, uri: Any) -> str:
        if isinstance(uri, str) and uri:
            path = self.session.path_of(uri)
            if path is None:
                raise ValueError(f"{uri}: not a file: URI inside a workspace folder")
            return path
        if not self.session.roots:
            raise ValueError("no workspace folder is open")
        return self.session.roots[0]

    def location(self, cwd: str) -> MemoryLocation:
        with self._lock:
            found = self._locations.get(cwd)
        if found is None:
            found = self.service().locate(cwd)
            with self._lock:
                self._locations[cwd] = found
        return found

    # -------------------------------------------------------------- execution
    async def run(self, fn: Callable[[], T], pool: ThreadPoolExecutor | None = None) -> T:
        """Run blocking core work off the event loop; user-facing failures keep their text."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(pool or self.pool, fn)

    async def with_progress(self, title: str, fn: Callable[[ProgressRelay], T], *,
                            pool: ThreadPoolExecutor | None = None, eager: bool = False,
                            delay_s: float = 0.0) -> T:
        relay = ProgressRelay(self.server, asyncio.get_running_loop(), title, delay_s)
        if eager:
            await relay.start()
        try:
            return await self.run(lambda: fn(relay), pool)
        finally:
            await relay.finish()

    def embed_in_background(self, cwd: str, kind: str) -> None:
        """After a search: bring embeddings up to date once, with progress (no-op for none)."""
        if kind == "none" or cwd in self._embedded or cwd in self._embedding:
            return
        svc = self.service()

        async def job() -> None:
            try:
                outcome = await self.with_progress(
                    "RuleLens: embedding memory", lambda p: svc.index(cwd, p),
                    pool=self.jobs, delay_s=QUIET_PROGRESS_S)
                if outcome.embedder_error:
                    log.warning("memory embedding: %s", outcome.embedder_error)
                self._embedded.add(cwd)
            except Exception:
                log.exception("background memory embedding failed")
            finally:
                self._embedding.pop(cwd, None)

        self._embedding[cwd] = asyncio.ensure_future(job())

    # ----------------------------------------------------------------- watcher
    def restart_watcher(self) -> None:
        self.stop_watcher()
        with self._lock:
            self._locations.clear()
        from rulelens.agents.compat import ConfigError
        from rulelens.lsp.watch import MemoryWatcher
        from rulelens.rules import AgentEnvironment

        try:
            grok_home = AgentEnvironment.from_env(self.session.environ).grok_home
        except ConfigError as exc:  # the user's file: one line (shown to them already)
            log.warning("memory watcher not started: %s", exc)
            return
        except Exception:
            log.exception("memory watcher not started: the agent environment failed")
            return
        self.watcher = MemoryWatcher(os.path.join(grok_home, "memory"), self.on_memory_changes,
                                     self.server.debounce_ms)
        self.watcher.start()

    def stop_watcher(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None

    def affected(self, paths: set[str]) -> list[str]:
        """(worker) Workspace folders whose memory files are among ``paths``."""
        out = []
        for cwd in self.session.roots:
            try:
                loc = self.location(cwd)
            except Exception:
                continue
            for p in paths:
                if (p == loc.global_memory or p == loc.workspace_dir
                        or p.startswith(loc.workspace_dir + os.sep)
                        or loc.workspace_dir.startswith(p.rstrip(os.sep) + os.sep)):
                    out.append(cwd)
                    break
        return out

    async def on_memory_changes(self, paths: set[str]) -> None:
        """(loop) Reindex the affected workspaces (embedding too) and tell the client."""
        svc = self.service()
        for cwd in await self.run(lambda: self.affected(paths), self.jobs):
            self._embedded.discard(cwd)
            try:
                outcome = await self.with_progress(
                    "RuleLens: indexing memory", functools.partial(_index, svc, cwd),
                    pool=self.jobs, delay_s=QUIET_PROGRESS_S)
            except Exception as exc:
                log.warning("memory reindex after a change failed for %s: %s", cwd, exc)
                continue
            if outcome.embedder_error is None:
                self._embedded.add(cwd)
            sync = outcome.sync
            if sync.reindexed or sync.deleted_paths:
                self.server.protocol.notify(protocol.MEMORY_INDEXED, {
                    "workspaceUri": from_fs_path(cwd),
                    "reindexed": list(sync.reindexed),
                    "removed": list(sync.deleted_paths)})

    def close(self) -> None:
        if self._agent_stores is not None:
            self._agent_stores.close()
        if self.people is not None:
            self.people.close()
        self.stop_watcher()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.jobs.shutdown(wait=False, cancel_futures=True)


def cut_markdown(name: str, f: Any, evidence: list[str]) -> str:
    """The hover of one memory file: scope, what is injected at start, where the cut falls."""
    head = f"**{name} memory** ({f.scope}, {f.role}): "
    if f.injected == "start" and f.cut_at_line is None:
        body = (f"injected whole at the start of every session ({f.injected_bytes:,} bytes"
                " reach the model).")
    elif f.injected == "start":
        after = [s for s in f.segments if s.injected == "start" and s.start > 0]
        tail = (f"; lines {after[0].start + 1}–{f.lines} reach it too (head and tail kept)"
                if after else "")
        body = (f"lines 1–{f.cut_at_line} are injected at session start ({f.injected_bytes:,}"
                f" bytes); **the cut falls after line {f.cut_at_line}**{tail}. The rest of"
                f" its {f.lines} lines is read only on demand.")
    elif f.injected == "on-demand":
        body = "not injected at start; the agent reads it on demand with its tools."
    else:
        body = "not read by the agent (its own pipeline's input)."
    grades = "\n\n" + "\n".join(f"- {e}" for e in evidence) if evidence else ""
    return head + body + grades


def _memory_agent(params: Any) -> str | None:
    """The ``agent`` param: None for Grok's own store (absent or ``grok@…``), else a store
    id or ``all``; an unknown id is an error."""
    from rulelens.memory.agentmemory import memory_agent
    from rulelens.memory.service import MemoryError_

    agent = _get(params, "agent")
    if agent is None:
        return None
    if not isinstance(agent, str):
        raise ValueError("`agent` must be a string")
    try:
        return memory_agent(agent)
    except MemoryError_ as exc:
        raise ValueError(str(exc)) from exc


def _agent_status(feature: MemoryFeature, agent: str, cwd: str) -> dict[str, Any]:
    """(worker) ``memory status --agent ID|all --json``; ``all`` adds ``present``: the memory
    agents used in the workspace or holding memory for it (the default remember choice)."""
    from rulelens.agents.registry import present

    views = feature.agent_stores().views(agent, cwd)
    if agent != "all":
        return dict(views[0].to_json())
    used = set(present(cwd, feature.service().env))
    from rulelens.memory.agentfiles import display_name
    from rulelens.memory.agentmemory import REMEMBER_SCOPES

    return {"agents": [v.to_json() for v in views],
            "present": [v.agent for v in views if v.files or v.agent in used],
            "names": {v.agent: display_name(v.agent) for v in views},
            "remember_scopes": {v.agent: list(REMEMBER_SCOPES.get(v.agent, ()))
                                for v in views}}


def _agent_remember(svc: MemoryService, agent: str, cwd: str, text: str, scope: Any,
                    dry_run: bool) -> dict[str, Any]:
    """(worker) ``rulelens.remember`` with another agent's ``agent``: the plan (dry run:
    the exact bytes appended) or the append; a refusal is one line for the user."""
    from rulelens.memory.agentmemory import plan_remember, preview, remember
    from rulelens.memory.remember import RememberError

    if agent == "all":
        raise ValueError("remember writes one agent's memory: pass its id as `agent`")
    try:
        p = plan_remember(svc, agent, cwd, text, scope if isinstance(scope, str) else None)
        data = preview(p) if dry_run else remember(p)
    except RememberError as exc:
        raise ValueError(str(exc)) from exc
    return {"agent": agent, "path": p.path, "scope": p.scope, "format": p.format,
            "text": data.decode("utf-8"), "written": not dry_run}


def register(server: Host) -> MemoryFeature:
    from rulelens.lsp import memory_people

    feature = MemoryFeature(server)
    server.memory = feature
    feature.people = memory_people.register(server, feature)

    @server.feature(protocol.MEMORY_SEARCH)
    async def memory_search(ls: Any, params: Any) -> dict[str, Any]:
        query = _get(params, "query")
        if not isinstance(query, str):
            raise ValueError("`query` must be a string")
        cwd = feature.workspace(_get(params, "workspaceUri"))
        other = _memory_agent(params)
        if other is not None:  # another agent's memory, or every agent's (issue 24)
            stores = feature.agent_stores()
            given = _get(params, "sources")
            sources = tuple(x for x in given if isinstance(x, str)) if isinstance(
                given, list) else ("memory",)  # "transcript": Codex/Claude/Grok transcripts
            return await feature.with_progress(
                "RuleLens: indexing memory",
                lambda p: stores.search(other, cwd, query, sources=sources).to_json())
        wide = bool(_get(params, "all"))
        svc = feature.service()
        if await feature.run(lambda: feature.people.wants(params)):  # rank/explain/sources/v2
            found = await feature.with_progress(
                "RuleLens: indexing memory",
                lambda p: feature.people.search(cwd, query, params, p))
            feature.embed_in_background(cwd, svc.settings().embedding.kind)
            return found
        outcome, kind = await feature.with_progress(
            "RuleLens: indexing memory",
            lambda p: (svc.search(cwd, query, wide=wide, progress=p),
                       svc.settings().embedding.kind))
        feature.embed_in_background(cwd, kind)
        return dict(outcome.to_json())

    @server.feature(protocol.MEMORY_STATUS)
    async def memory_status(ls: Any, params: Any) -> dict[str, Any]:
        cwd = feature.workspace(_get(params, "workspaceUri"))
        other = _memory_agent(params)
        if other is not None:
            return await feature.run(lambda: _agent_status(feature, other, cwd))
        svc = feature.service()
        memory = feature.people.memory()
        st, store = await feature.run(lambda: (svc.status(cwd), memory.enablement()))
        return {**st.to_json(), "agent": memory.features.agent, "store": store.to_json()}

    @server.feature(protocol.MEMORY_CHUNKS)
    async def memory_chunks(ls: Any, params: Any) -> list[dict[str, Any]]:
        cwd = feature.workspace(_get(params, "workspaceUri"))
        path = _get(params, "path")
        svc = feature.service()

        def chunks() -> list[dict[str, Any]]:
            content = svc.read_memory_path(cwd, path)   # beneath the memory root, or refused
            return [{"start_line": c.start_line, "end_line": c.end_line, "text": c.text,
                     "hash": c.hash} for c in svc.chunks(path, content=content)]

        return await feature.run(chunks)

    @server.command(protocol.REMEMBER)
    async def remember(ls: Any, *args: Any) -> dict[str, Any]:
        arg = args[0] if args else None
        text = _get(arg, "text")
        scope: Literal["global", "workspace"] = _get(arg, "scope") or "global"
        expected = _get(arg, "expectedSha256")
        dry_run = _get(arg, "dryRun")
        if not isinstance(text, str) or not text.strip() or scope not in ("global", "workspace"):
            raise ValueError('expected [{"text": "...", "scope": "global" | "workspace"}]')
        if expected is not None and not isinstance(expected, str):
            raise ValueError("`expectedSha256` must be a hex string (\"\" for a missing file)")
        if dry_run is not None and not isinstance(dry_run, bool):
            raise ValueError("`dryRun` must be true or false")
        cwd = feature.workspace(_get(arg, "workspaceUri"))
        svc = feature.service()
        other = _memory_agent(arg)
        if other is not None:
            done = await feature.run(lambda: _agent_remember(svc, other, cwd, text,
                                                             _get(arg, "scope"),
                                                             bool(dry_run)))
            if not dry_run:
                feature.agent_stores().invalidate()  # the next search sees the note
            return done

        def plan() -> dict[str, Any]:
            from rulelens.memory.service import content_sha256

            p = svc.plan_remember(cwd, text, scope)
            return {"path": p.path, "text": p.text, "note": p.note,
                    "sha256": content_sha256(p.seen.content),
                    "searchable": p.findability.searchable, "warning": p.findability.warning}

        def write() -> dict[str, Any]:
            done = svc.remember(cwd, text, scope, expected_sha256=expected)
            return {"path": done.path, "text": done.text, "sha256": done.sha256}

        v2 = await feature.run(lambda: feature.people.remember_v2(cwd, text, bool(dry_run)))
        if v2 is not None:
            return v2
        return await feature.run(plan if dry_run else write)

    @server.command(protocol.REINDEX_MEMORY)
    async def reindex(ls: Any, *args: Any) -> dict[str, Any]:
        arg = args[0] if args else None
        cwd = feature.workspace(_get(arg, "workspaceUri"))
        svc = feature.service()
        outcome = await feature.with_progress(
            "RuleLens: indexing memory", lambda p: svc.index(cwd, p),
            pool=feature.jobs, eager=True)
        if outcome.embedder_error is None:
            feature._embedded.add(cwd)
        return dict(outcome.to_json())

    return feature
