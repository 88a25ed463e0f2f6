"""Parts the LSP benchmarks share: percentiles and a real ``rulelens serve`` over stdio.

Imported by the bench scripts as a sibling module (``python bench/<name>.py`` puts
``bench/`` first on ``sys.path``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile by nearest rank (``pct(xs, .95)`` is the p95)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def start_server(client: LanguageClient, repo: Path, env: dict[str, str],
                       capabilities: types.ClientCapabilities,
                       options: dict[str, object] | None = None) -> None:
    """Start ``rulelens serve`` with ``env`` and initialise it on the one folder ``repo``
    (``options``: the ``rulelens`` settings section, e.g. ``{"agents": "all"}``)."""
    await client.start_io(sys.executable, "-m", "rulelens", "serve", env=env)
    await client.initialize_async(types.InitializeParams(
        capabilities=capabilities, root_uri=repo.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=repo.as_uri(), name="repo")],
        initialization_options=options))
    client.initialized(types.InitializedParams())


async def stop_server(client: LanguageClient) -> None:
    """The polite shutdown: ``shutdown``, ``exit``, then wait for the process."""
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
