"""Memory requests and commands: thin wiring of ``rulelens.memory.service.MemoryService``.

``rulelens/memorySearch`` and ``rulelens/memoryStatus`` answer the same JSON as the CLI;
``rulelens.remember`` appends a note (an explicit user command, written atomically by the
core); ``rulelens.reindexMemory`` reindexes with ``$/progress``. The workspace is a
client-supplied URI, so it must be one of the workspace folders (or inside one).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from rulelens.lsp import protocol

if TYPE_CHECKING:
    from rulelens.lsp.server import RuleLensServer


def _get(params: Any, key: str) -> Any:
    if isinstance(params, Mapping):
        return params.get(key)
    return getattr(params, key, None)


def register(server: RuleLensServer) -> None:
    s = server.session
    services: dict[str, Any] = {}

    def service() -> Any:
        """One service per client memory settings; imported on first use (apsw, vec)."""
        from rulelens.memory.service import MemoryService

        client = s.settings.get("memory")
        key = repr(client)
        found = services.get(key)
        if found is None:
            for old in services.values():
                old.close()
            services.clear()
            found = MemoryService(s.environ, client if isinstance(client, Mapping) else None)
            services[key] = found
        return found

    def workspace(uri: Any) -> str:
        if isinstance(uri, str) and uri:
            path = s.path_of(uri)
            if path is None:
                raise ValueError(f"{uri}: not a file: URI inside a workspace folder")
            return path
        if not s.roots:
            raise ValueError("no workspace folder is open")
        return s.roots[0]

    @server.feature(protocol.MEMORY_SEARCH)
    @server.thread()
    def memory_search(ls: Any, params: Any) -> dict[str, Any]:
        query = _get(params, "query")
        if not isinstance(query, str):
            raise ValueError("`query` must be a string")
        outcome = service().search(workspace(_get(params, "workspaceUri")), query,
                                   wide=bool(_get(params, "all")))
        return dict(outcome.to_json())

    @server.feature(protocol.MEMORY_STATUS)
    @server.thread()
    def memory_status(ls: Any, params: Any) -> dict[str, Any]:
        return dict(service().status(workspace(_get(params, "workspaceUri"))).to_json())

    @server.command(protocol.REMEMBER)
    @server.thread()
    def remember(ls: Any, *args: Any) -> dict[str, Any]:
        arg = args[0] if args else None
        text = _get(arg, "text")
        scope = _get(arg, "scope") or "global"
        if not isinstance(text, str) or not text.strip() or scope not in ("global", "workspace"):
            raise ValueError('expected [{"text": "...", "scope": "global" | "workspace"}]')
        done = service().remember(workspace(_get(arg, "workspaceUri")), text, scope)
        return {"path": done.path, "text": done.text}

    @server.command(protocol.REINDEX_MEMORY)
    async def reindex(ls: Any, *args: Any) -> dict[str, Any]:
        arg = args[0] if args else None
        cwd = workspace(_get(arg, "workspaceUri"))
        loop = asyncio.get_running_loop()
        token = str(uuid.uuid4())
        try:
            await ls.work_done_progress.create_async(token)
        except Exception:
            token = ""
        if token:
            ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(
                title="RuleLens: indexing memory", percentage=0, cancellable=False))

        def progress(done: int, total: int, message: str) -> None:
            if token:
                pct = int(100 * done / total) if total else 0
                loop.call_soon_threadsafe(ls.work_done_progress.report, token,
                                          types.WorkDoneProgressReport(message=message,
                                                                       percentage=pct))

        try:
            outcome = await loop.run_in_executor(None,
                                                 lambda: service().index(cwd, progress))
        finally:
            if token:
                ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))
        return dict(outcome.to_json())
