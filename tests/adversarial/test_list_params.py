"""A list param whose items are not strings is InvalidParams, not an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest

from .rawlsp import make_workspace, raw_server

INVALID_PARAMS = -32602


@pytest.mark.parametrize("agents", [[None], [1], [[1]], [{"a": 1}], ["claude", None]])
def test_agents_items_must_be_strings(tmp_path: Path, agents: list[object]) -> None:
    repo, env = make_workspace(tmp_path)
    with raw_server(env) as s:
        s.initialize(repo)
        uri = s.open(repo / "src" / "f0.py")
        reply = s.call("rulelens/agentsForFile", {"uri": uri, "agents": agents})
        assert reply["error"]["code"] == INVALID_PARAMS, reply
        assert reply["error"]["message"].startswith("invalid params: expected `agents`"), reply
        assert s.result("rulelens/agentsForFile", {"uri": uri, "agents": ["claude"]})
