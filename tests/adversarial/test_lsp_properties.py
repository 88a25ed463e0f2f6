"""Property tests: generated params to every method the server registers, over stdio.

For each generated request the server must send exactly one reply to its id, a result
or an error with a JSON-RPC/LSP code (never ``InternalError``: that is a handler bug),
and keep serving. Notifications with generated params must never take the server down.
The params are arbitrary JSON (null, objects, wrong types, negative and huge integers,
strings with lone surrogates, which JSON carries escaped), near-valid params (a valid
template for the method with one member replaced by arbitrary JSON) and the template.
"""

from __future__ import annotations

import pathlib
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from helpers.waiting import quiet_period_sync
from rulelens.lsp import protocol
from rulelens.lsp.server import create_server

from .rawlsp import make_workspace, raw_server

#: Codes a well-behaved answer may carry (-32603, InternalError, is not among them).
EXPECTED_CODES = {-32602, -32601, -32600, -32002, -32800, -32803}
#: Lifecycle methods are tested in test_lsp_lifecycle (they end the session).
LIFECYCLE = {types.SHUTDOWN, types.EXIT}


def registered() -> tuple[list[str], list[str]]:
    """(requests, notifications) the server registers, standard and ``rulelens/*``."""
    fm = create_server({"HOME": "/nonexistent"}).protocol.fm
    names = (set(fm.builtin_features) | set(fm.features)) - LIFECYCLE
    requests = sorted(n for n in names if _is_request(n))
    return requests, sorted(names - set(requests))


def _is_request(method: str) -> bool:
    if method in types.METHOD_TO_TYPES:
        return types.METHOD_TO_TYPES[method][1] is not None or method in (
            types.INITIALIZE, types.WORKSPACE_EXECUTE_COMMAND)
    return method not in protocol.CUSTOM_NOTIFICATIONS


REQUESTS, NOTIFICATIONS = registered()

KEYS = st.sampled_from(["uri", "textDocument", "position", "line", "character", "range",
                        "start", "end", "context", "diagnostics", "query", "path",
                        "workspaceUri", "all", "command", "arguments", "text", "scope",
                        "dryRun", "version", "languageId", "capabilities", "id"])
SURROGATES = st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1)
SCALARS = (st.none() | st.booleans()
           | st.integers(min_value=-(2**70), max_value=2**70)
           | st.sampled_from([-1, 0, 2**31 - 1, 2**31, 2**32, 2**63, 10**30])
           | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(max_size=30) | SURROGATES
           | st.sampled_from(["file:///etc/passwd", "file:///", "untitled:x", "", "\x00",
                              "../../etc", "rulelens.remember", "rulelens.showChain"]))
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(KEYS | st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)


def test_every_custom_request_and_command_has_a_param_shape() -> None:
    """The shapes are what turns bad params into InvalidParams before a handler runs."""
    commands = create_server({"HOME": "/nonexistent"}).protocol.fm.commands
    assert [m for m in REQUESTS if m.startswith("rulelens/")
            and m not in protocol.REQUEST_PARAMS] == []
    assert sorted(set(commands) - set(protocol.COMMAND_ARGUMENTS)) == []
    assert set(protocol.CUSTOM_REQUESTS) <= set(REQUESTS)


def templates(uri: str, root: str) -> dict[str, Any]:
    """Valid params for each method (the seed the near-valid params mutate)."""
    doc = {"uri": uri}
    pos = {"line": 0, "character": 0}
    rng = {"start": pos, "end": pos}
    return {
        types.TEXT_DOCUMENT_HOVER: {"textDocument": doc, "position": pos},
        types.TEXT_DOCUMENT_CODE_LENS: {"textDocument": doc},
        types.TEXT_DOCUMENT_CODE_ACTION: {"textDocument": doc, "range": rng,
                                          "context": {"diagnostics": []}},
        types.WORKSPACE_EXECUTE_COMMAND: {"command": protocol.SHOW_CHAIN, "arguments": [uri]},
        types.INITIALIZE: {"capabilities": {}},
        protocol.CHAIN: {**doc, "agent": "grok"}, protocol.RENDER: doc,
        protocol.AGENTS_FOR_FILE: {**doc, "agents": ["grok", "claude"]},
        protocol.SERVER_STATUS: {},
        protocol.MEMORY_SEARCH: {"query": "tests", "workspaceUri": root},
        protocol.MEMORY_STATUS: {"workspaceUri": root},
        protocol.MEMORY_CHUNKS: {"path": "/etc/passwd"},
        types.TEXT_DOCUMENT_DID_OPEN: {"textDocument": {**doc, "languageId": "python",
                                                        "version": 1, "text": "X = 1\n"}},
        types.TEXT_DOCUMENT_DID_CHANGE: {"textDocument": {**doc, "version": 2},
                                         "contentChanges": [{"text": "X = 2\n"}]},
        types.TEXT_DOCUMENT_DID_CLOSE: {"textDocument": doc},
        types.TEXT_DOCUMENT_DID_SAVE: {"textDocument": doc},
        types.WORKSPACE_DID_CHANGE_CONFIGURATION: {"settings": {"rulelens": {}}},
        types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS: {"event": {"added": [], "removed": []}},
    }


def mutate(template: Any, path: list[int], value: Any) -> Any:
    """``template`` with the member that ``path`` picks (modulo sizes) set to ``value``."""
    if not path or not isinstance(template, dict | list) or not template:
        return value
    if isinstance(template, dict):
        key = sorted(template)[path[0] % len(template)]
        return {**template, key: mutate(template[key], path[1:], value)}
    i = path[0] % len(template)
    return [*template[:i], mutate(template[i], path[1:], value), *template[i + 1:]]


def test_every_request_gets_exactly_one_reply(tmp_path: pathlib.Path) -> None:
    assert {protocol.CHAIN, protocol.RENDER, protocol.MEMORY_SEARCH,
            types.TEXT_DOCUMENT_CODE_LENS, types.TEXT_DOCUMENT_HOVER} <= set(REQUESTS)
    repo, env = make_workspace(tmp_path)
    err_path = tmp_path / "stderr.log"
    with err_path.open("wb") as err, raw_server(env, stderr=err) as s:
        s.initialize(repo)
        uri = s.open(repo / "src" / "f0.py")
        seeds = templates(uri, repo.as_uri())
        sent: list[Any] = []
        outcomes: Counter[object] = Counter()

        @settings(max_examples=1000, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(method=st.sampled_from(REQUESTS + NOTIFICATIONS), raw=JSON,
               kind=st.sampled_from(["raw", "near", "valid"]),
               path=st.lists(st.integers(0, 7), max_size=4), omit=st.integers(0, 9))
        def one(method: str, raw: Any, kind: str, path: list[int], omit: int) -> None:
            seed = seeds.get(method, {})
            params = {"raw": raw, "near": mutate(seed, path, raw), "valid": seed}[kind]
            if method in NOTIFICATIONS:
                s.notify(method, params)
                return
            msg_id = s.request(method, params) if omit else s.request(method)
            reply = s.reply(msg_id, timeout=30)
            assert ("result" in reply) != ("error" in reply), reply
            if "error" in reply:
                assert reply["error"]["code"] in EXPECTED_CODES, (method, params, reply)
            outcomes[reply["error"]["code"] if "error" in reply else "result"] += 1
            sent.append(msg_id)

        one()
        # Still serving, and nothing was answered twice (late duplicates included).
        assert s.result(protocol.SERVER_STATUS)["documents"] is not None
        quiet_period_sync(0.5, "a late duplicate reply")
        counts = s.reply_counts()
        assert len(sent) > 100
        assert outcomes["result"] > 10 and outcomes[-32602] > 10, outcomes   # both kinds
        assert [i for i in sent if counts.get(i) != 1] == []
        assert s.alive
        assert s.shutdown_and_exit() == 0
    text = err_path.read_text(errors="replace")
    assert "Traceback" not in text, text[-4000:]
