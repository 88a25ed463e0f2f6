"""Every custom method, notification and command the server speaks (see docs/protocol.md).

Clients use only what is listed here. Payload shapes are documented in docs/protocol.md;
the names are constants so the server, the tests and the benchmark cannot drift apart.
"""

from __future__ import annotations

#: Request ``{uri, agent?, cwd?}`` -> ``rulelens chain --json`` for that file plus
#: ``tracker``, or null. With ``agent`` (``claude``, ``codex``, ...) or ``cwd`` (the start
#: directory): ``rulelens chain FILE --agent A --cwd DIR --json`` (``when``/``why`` per file).
CHAIN = "rulelens/chain"
#: Request ``{uri, cwd?, agents?}`` -> ``{cwd, file, enabled, agents: [chain per agent],
#: rows: [{path, cells: [{agent, when, why}]}]}``: every enabled agent's view in one call.
AGENTS_FOR_FILE = "rulelens/agentsForFile"
#: Request ``{workspaceUri?}`` -> ``[{id, short, display, evidence, source, profiles,
#: present, enabled, trust_command}]``: every agent the server knows, in column order.
AGENTS = "rulelens/agents"
#: Request ``{uri}`` -> ``{text}``: exactly what the agent injects, or null.
RENDER = "rulelens/render"
#: Request ``{uri, agent, cwd?, session?}`` -> ``rulelens verify --json``: the agent's last
#: session in the start directory (``cwd``, default: the workspace folder or ``agentCwd``)
#: against the prediction for the open document; ``session`` is ``latest`` or an id.
VERIFY = "rulelens/verify"
#: Request ``{}`` or no params -> ``{documents: {open, fingerprints, ...}}``: how many
#: entries each per-document table holds (all 0 once every document is closed).
SERVER_STATUS = "rulelens/serverStatus"
#: Notification server -> client ``{uris}``: open documents whose chain changed on disk.
CHAIN_CHANGED = "rulelens/chainChanged"
#: Memory requests (served by the memory feature when it is installed).
MEMORY_SEARCH = "rulelens/memorySearch"
MEMORY_STATUS = "rulelens/memoryStatus"
#: Request ``{path, workspaceUri?}`` -> ``memory chunks --json``; only under the memory roots.
MEMORY_CHUNKS = "rulelens/memoryChunks"
#: Request ``{query?, workspaceUri?, postCompaction?}`` -> ``{query, text, results, reason,
#: agent}``: the first-turn ``<memory-context>`` block byte for byte (``memory context``).
MEMORY_CONTEXT = "rulelens/memoryContext"
#: Request ``{workspaceUri?}`` -> ``[{scope, dir, text}]``: memory v2's generated manifests.
MEMORY_MANIFEST = "rulelens/memoryManifest"
#: Notification server -> client ``{workspaceUri, reindexed, removed}`` after a memory change.
MEMORY_INDEXED = "rulelens/memoryIndexed"

#: Command of the chain code lens; arguments ``[uri]``; returns the ``rulelens/chain`` payload.
SHOW_CHAIN = "rulelens.showChain"
REMEMBER = "rulelens.remember"
REINDEX_MEMORY = "rulelens.reindexMemory"

#: Settings section (``initializationOptions`` and ``workspace/didChangeConfiguration``).
SETTINGS_SECTION = "rulelens"

CUSTOM_REQUESTS = (CHAIN, AGENTS_FOR_FILE, AGENTS, RENDER, VERIFY, SERVER_STATUS, MEMORY_SEARCH,
                   MEMORY_STATUS, MEMORY_CHUNKS, MEMORY_CONTEXT, MEMORY_MANIFEST)
CUSTOM_NOTIFICATIONS = (CHAIN_CHANGED, MEMORY_INDEXED)
COMMANDS = (SHOW_CHAIN, REMEMBER, REINDEX_MEMORY)

# ------------------------------------------------------------------ param shapes
#: field -> (JSON type, required, what it must be). A custom request whose params are not
#: an object of this shape (a required field missing, a field of another type; ``null``
#: counts as absent) is answered ``InvalidParams`` before any handler runs. Params may be
#: omitted only when every field is optional. Every ``rulelens/*`` request has an entry.
Shape = dict[str, tuple[type | tuple[type, ...], bool, str]]

_URI: Shape = {"uri": (str, True, "a string (the document's URI)")}
_WORKSPACE = (str, False, "a string (a workspace folder's URI)")
_CWD = (str, False, "an absolute path (the start directory)")
#: Whose memory (issue 24): Grok's when absent; ``all`` for search and status.
_MEMORY_AGENT = (str, False, 'a memory agent id ("grok", "claude", "codex", "gemini",'
                             ' "qwen") or "all"')
REQUEST_PARAMS: dict[str, Shape] = {
    CHAIN: {**_URI, "agent": (str, False, 'an agent id ("grok", "claude", ...)'), "cwd": _CWD},
    AGENTS_FOR_FILE: {**_URI, "cwd": _CWD,
                      "agents": ((list, str), False,
                                 'a list of agent ids ("grok", "claude", ...) or "all"')},
    AGENTS: {"workspaceUri": _WORKSPACE},
    RENDER: _URI,
    VERIFY: {**_URI, "agent": (str, True, 'an agent id ("codex", "claude", ...)'), "cwd": _CWD,
             "session": (str, False, '"latest" (default) or a session id')},
    SERVER_STATUS: {},
    MEMORY_SEARCH: {"query": (str, True, "a string"), "workspaceUri": _WORKSPACE,
                    "all": (bool, False, "true or false"),
                    "rank": (str, False, '"agent" (default) or "best"'),
                    "explain": (bool, False, "true or false"),
                    "sources": (list, False, 'a list of "memory", "transcript"'),
                    "agent": _MEMORY_AGENT},
    MEMORY_STATUS: {"workspaceUri": _WORKSPACE, "agent": _MEMORY_AGENT},
    MEMORY_CHUNKS: {"path": (str, True, "an absolute path (a string)"),
                    "workspaceUri": _WORKSPACE},
    MEMORY_CONTEXT: {"query": (str, False, "a string (the user's first message)"),
                     "workspaceUri": _WORKSPACE,
                     "postCompaction": (bool, False, "true or false")},
    MEMORY_MANIFEST: {"workspaceUri": _WORKSPACE},
}
#: command -> (shape of each positional argument, how many are required). A string
#: argument is written ``str``; an object argument by its shape.
COMMAND_ARGUMENTS: dict[str, tuple[tuple[type | Shape, ...], int]] = {
    SHOW_CHAIN: ((str,), 1),
    REMEMBER: (({"text": (str, True, "a string (the note)"),
                 "scope": (str, False, '"global" or "workspace"'),
                 "workspaceUri": _WORKSPACE,
                 "expectedSha256": (str, False, 'a hex string ("" for a missing file)'),
                 "dryRun": (bool, False, "true or false"),
                 "agent": _MEMORY_AGENT},), 1),
    REINDEX_MEMORY: (({"workspaceUri": _WORKSPACE},), 0),
}


def check_params(method: str, params: object) -> str | None:
    """Why ``params`` do not fit the custom request ``method``; ``None`` if they do."""
    shape = REQUEST_PARAMS.get(method)
    if shape is None:
        return None
    if params is None and not any(required for _, required, _ in shape.values()):
        return None
    return check_shape(shape, params)


def check_command(command: object, arguments: object) -> str | None:
    """Why ``arguments`` do not fit ``command``; ``None`` if they do (or it is unknown)."""
    spec = COMMAND_ARGUMENTS.get(command) if isinstance(command, str) else None
    if spec is None:
        return None
    kinds, required = spec
    args = [] if arguments is None else arguments
    if not isinstance(args, list) or not required <= len(args) <= len(kinds):
        return f"expected {required}..{len(kinds)} arguments for {command}"
    for kind, value in zip(kinds, args, strict=False):
        problem = (check_shape(kind, value) if isinstance(kind, dict)
                   else None if isinstance(value, kind) else f"expected a {kind.__name__}")
        if problem is not None:
            return problem
    return None


def check_shape(shape: Shape, value: object) -> str | None:
    if not isinstance(value, dict):
        return "expected an object with " + ", ".join(f"`{k}`" for k in shape)
    for key, (kind, required, what) in shape.items():
        field = value.get(key)
        if field is None:
            if required:
                return f"expected `{key}`: {what}"
        elif not isinstance(field, kind) or (kind is not bool and isinstance(field, bool)):
            return f"expected `{key}` to be {what}"
        elif isinstance(field, list) and not all(isinstance(x, str) for x in field):
            return f"expected `{key}` to be {what}"  # every list param is a list of strings
    return None
