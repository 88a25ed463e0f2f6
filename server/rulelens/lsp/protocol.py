"""Every custom method, notification and command the server speaks (see docs/protocol.md).

Clients use only what is listed here. Payload shapes are documented in docs/protocol.md;
the names are constants so the server, the tests and the benchmark cannot drift apart.
"""

from __future__ import annotations

#: Request ``{uri}`` -> ``rulelens chain --json`` for that file plus ``tracker``, or null.
CHAIN = "rulelens/chain"
#: Request ``{uri}`` -> ``{text}``: exactly what the agent injects, or null.
RENDER = "rulelens/render"
#: Notification server -> client ``{uris}``: open documents whose chain changed on disk.
CHAIN_CHANGED = "rulelens/chainChanged"
#: Memory requests (served by the memory feature when it is installed).
MEMORY_SEARCH = "rulelens/memorySearch"
MEMORY_STATUS = "rulelens/memoryStatus"
#: Request ``{path, workspaceUri?}`` -> ``memory chunks --json``; only under the memory roots.
MEMORY_CHUNKS = "rulelens/memoryChunks"
#: Notification server -> client ``{workspaceUri, reindexed, removed}`` after a memory change.
MEMORY_INDEXED = "rulelens/memoryIndexed"

#: Command of the chain code lens; arguments ``[uri]``; returns the ``rulelens/chain`` payload.
SHOW_CHAIN = "rulelens.showChain"
REMEMBER = "rulelens.remember"
REINDEX_MEMORY = "rulelens.reindexMemory"

#: Settings section (``initializationOptions`` and ``workspace/didChangeConfiguration``).
SETTINGS_SECTION = "rulelens"

CUSTOM_REQUESTS = (CHAIN, RENDER, MEMORY_SEARCH, MEMORY_STATUS, MEMORY_CHUNKS)
CUSTOM_NOTIFICATIONS = (CHAIN_CHANGED, MEMORY_INDEXED)
COMMANDS = (SHOW_CHAIN, REMEMBER, REINDEX_MEMORY)
