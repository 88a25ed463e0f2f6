"""Memory for people in the language server: ``--rank best``, ``--explain``, transcripts,
the first-turn block, v2 manifests and which store the agent uses.

:class:`PeopleMemory` owns one :class:`~rulelens.memory.stores.AgentMemory` per agent
profile over the memory feature's service; the handlers live in :mod:`rulelens.lsp.memory`
(``rulelens/memorySearch`` with ``rank``/``explain``/``sources``) and here
(``rulelens/memoryContext``, ``rulelens/memoryManifest``).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rulelens.lsp import protocol

if TYPE_CHECKING:
    from rulelens.lsp.host import Host, MemoryHost
    from rulelens.memory.stores import AgentMemory, SearchReport


def _get(params: Any, key: str) -> Any:
    if isinstance(params, Mapping):
        return params.get(key)
    return getattr(params, key, None)


class PeopleMemory:
    def __init__(self, feature: MemoryHost) -> None:
        self.feature = feature
        self._lock = threading.Lock()
        self._memories: dict[str, AgentMemory] = {}

    def agent(self) -> str:
        """The Grok profile in use (``rulelens.agent``); other agents' memory is not modelled."""
        from rulelens.agents.profiles import DEFAULT_AGENT
        from rulelens.agents.registry import family

        agent = self.feature.session.settings.get("agent")
        return agent if isinstance(agent, str) and family(agent) == DEFAULT_AGENT else (
            DEFAULT_AGENT)

    def memory(self) -> AgentMemory:
        from rulelens.agents.profiles import DEFAULT_AGENT
        from rulelens.memory.stores import AgentMemory

        svc = self.feature.service()
        key = self.agent()
        with self._lock:
            found = self._memories.get(key)
            if found is None or found.service is not svc:
                if found is not None:
                    found.close()
                try:
                    found = AgentMemory(svc, key)
                except ValueError:
                    found = AgentMemory(svc, DEFAULT_AGENT)
                self._memories[key] = found
            return found

    def sources(self, requested: Any) -> tuple[str, ...]:
        """The request's ``sources``, else the ``memory.sources`` setting, else memory only."""
        value = requested
        if value is None:
            memory = self.feature.session.settings.get("memory")
            value = memory.get("sources") if isinstance(memory, Mapping) else None
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value:
            return ("memory",)
        return tuple(str(v) for v in value)

    def wants(self, params: Any) -> bool:
        """Whether a search needs more than the agent's view (the unchanged path)."""
        return ((_get(params, "rank") or "agent") != "agent" or bool(_get(params, "explain"))
                or self.sources(_get(params, "sources")) != ("memory",)
                or self.memory().enablement().mode != "legacy")

    def search(self, cwd: str, query: str, params: Any, progress: Any) -> dict[str, Any]:
        explain = bool(_get(params, "explain"))
        report: SearchReport = self.memory().search(
            cwd, query, rank=_get(params, "rank") or "agent", explain=explain,
            sources=self.sources(_get(params, "sources")), wide=bool(_get(params, "all")),
            progress=progress)
        return dict(report.to_json(explain))

    def remember_v2(self, cwd: str, text: str, dry_run: bool) -> dict[str, Any] | None:
        """``rulelens.remember`` when the agent uses memory v2 (a new observation in the
        global inbox, whatever the scope asked); None in the legacy store."""
        memory = self.memory()
        if memory.enablement().mode != "v2":
            return None
        if dry_run:
            store, path, note = memory.plan_remember(cwd, text)
            return {"path": path, "text": note, "note": note, "sha256": "", "searchable": True,
                    "warning": "memory v2: the note becomes a new observation in the global"
                               " inbox; the agent regenerates MEMORY.md itself", "store": store}
        path, note = memory.remember(cwd, text)
        return {"path": path, "text": note, "sha256": "", "store": "v2"}

    def close(self) -> None:
        with self._lock:
            for m in self._memories.values():
                m.close()
            self._memories.clear()


def register(server: Host, feature: MemoryHost) -> PeopleMemory:
    people = PeopleMemory(feature)

    @server.feature(protocol.MEMORY_CONTEXT)
    async def memory_context(ls: Any, params: Any) -> dict[str, Any]:
        cwd = feature.workspace(_get(params, "workspaceUri"))
        query = _get(params, "query") or ""
        post = bool(_get(params, "postCompaction"))
        memory = people.memory()
        block = await feature.run(lambda: memory.context(cwd, query, post))
        return {**block.to_json(), "agent": memory.features.agent}

    @server.feature(protocol.MEMORY_MANIFEST)
    async def memory_manifest(ls: Any, params: Any) -> list[dict[str, Any]]:
        cwd = feature.workspace(_get(params, "workspaceUri"))
        memory = people.memory()
        if not memory.features.has_v2:
            raise ValueError(f"{memory.features.agent} has no memory v2")
        rows = await feature.run(lambda: memory.manifests(cwd))
        return [{"scope": k, "dir": d, "text": t} for k, d, t in rows]

    return people
