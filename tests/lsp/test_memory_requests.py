"""Memory requests over LSP answer the CLI's JSON for the demo workspace's memory."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from rulelens.lsp import protocol

from .conftest import Demo, request


def _cli(demo: Demo, *args: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-m", "rulelens", "memory", *args, "--json"],
                         cwd=demo.repo, env=demo.env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


async def test_memory_search_and_status(client: LanguageClient, demo: Demo) -> None:
    ws = demo.repo.as_uri()
    got = await request(client, protocol.MEMORY_SEARCH, {"query": "flaky checkout test",
                                                        "workspaceUri": ws})
    assert got["query"] == "flaky checkout test"
    assert got["results"], "the demo memory has a session about the flaky checkout test"
    cli = _cli(demo, "search", "flaky checkout test")
    def key(results: list[dict[str, object]]) -> list[tuple[object, ...]]:
        return [(r["path"], r["start_line"], r["end_line"], round(float(r["score"]), 4))  # type: ignore[arg-type]
                for r in results]

    assert key(got["results"]) == key(cli["results"])  # type: ignore[arg-type]
    status = await request(client, protocol.MEMORY_STATUS, {"workspaceUri": ws})
    assert status == _cli(demo, "status")
    with pytest.raises(Exception, match="workspace folder"):
        await client.protocol.send_request_async(
            protocol.MEMORY_SEARCH, {"query": "x", "workspaceUri": "file:///etc"})
    outcome = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=protocol.REINDEX_MEMORY, arguments=[{"workspaceUri": ws}]))
    assert isinstance(outcome, dict)
