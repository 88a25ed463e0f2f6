"""Embedders over LSP and the CLI: client settings reach the service, an untrusted
workspace never uses an ``api`` endpoint, a dead endpoint degrades to FTS for that query
and says so, and embedding reports ``$/progress``.

The embeddings API is a real HTTP server on loopback; the dead one is a closed port.
"""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from helpers.embeddings_api import closed_port
from helpers.waiting import quiet_period

from .conftest import start_client, stop_client
from .memory_fixtures import (
    Embeddings,
    MemDemo,
    api_config,
    cli,
    cli_json,
    same_search,
    search,
)


def _api_settings(base_url: str) -> dict[str, object]:
    return {"embedder": "api", "api": {"baseUrl": base_url, "model": "fake-embed",
                                       "dimensions": 64}}


async def test_client_settings_choose_the_embedder(md: MemDemo, api: Embeddings) -> None:
    c = await start_client(md.env, [md.repo], "visual-studio-code",
                           options={"memory": {"embedder": "none"}})
    try:
        fts = await search(c, md, "flaky checkout test")
        assert fts["mode"] == "fts" and api.calls == []
        c.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"rulelens": {"memory": _api_settings(api.base_url)}}))
        hybrid = await search(c, md, "flaky checkout test")
        assert hybrid["mode"] == "hybrid", hybrid["note"]
        assert hybrid["note"] is None
        assert api.calls, "the loopback endpoint was asked for vectors"
        assert ["flaky checkout test"] in api.calls, "the query itself was embedded"
        embedded = sum(len(batch) for batch in api.calls)
        assert embedded >= 11 + 1          # the demo's 11 chunks and the query
    finally:
        await stop_client(c)


@pytest.mark.parametrize("untrusted", [
    {"memory": {"embedder": "none", "api": {}}, "trusted": False},      # what VS Code sends
    {"memory": {"embedder": "api", "api": {}}, "trusted": False},       # an older client
])
async def test_untrusted_workspace_never_calls_the_configured_api(
        md: MemDemo, api: Embeddings, untrusted: dict[str, object]) -> None:
    api_config(md, api.base_url)           # the agent's config.toml alone would mean `api`
    assert cli_json(md, "search", "stripe")["mode"] == "hybrid" and api.calls
    api.calls.clear()
    options = dict(untrusted)
    if options["memory"]["embedder"] == "api":  # type: ignore[index]
        options["memory"] = _api_settings(api.base_url)
    c = await start_client(md.env, [md.repo], "visual-studio-code", options=options)
    try:
        got = await search(c, md, "stripe")
        assert got["mode"] == "fts" and got["note"] is None
        await quiet_period(1.0, "no embedder call from a background job either")
        assert api.calls == []
        status = await c.protocol.send_request_async("rulelens/memoryStatus",
                                                     {"workspaceUri": md.ws})
        assert status.embedder == "none"
    finally:
        await stop_client(c)


async def test_dead_endpoint_degrades_to_fts_and_says_so_over_lsp(md: MemDemo) -> None:
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    c = await start_client(md.env, [md.repo], "neovim", options={"memory": _api_settings(dead)})
    try:
        got = await search(c, md, "flaky checkout test")
        assert got["mode"] == "fts-fallback"
        assert "embedding failed, FTS only" in got["note"] and "cannot reach" in got["note"]
        assert dead.rsplit("/", 1)[0] in got["note"]
        plain_fts = cli_json(md, "search", "flaky checkout test", "--embedder", "none")
        assert same_search({**got, "mode": "fts", "note": None}, plain_fts)
        again = await search(c, md, "stripe")      # every query says so, none errors
        assert again["mode"] == "fts-fallback" and again["results"]
    finally:
        await stop_client(c)


def test_dead_endpoint_degrades_to_fts_and_says_so_in_the_cli(md: MemDemo) -> None:
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    api_config(md, dead)
    got = cli_json(md, "search", "flaky checkout test")
    assert got["mode"] == "fts-fallback" and "cannot reach" in got["note"]
    assert got["results"] and got["results"][0]["path"].endswith(
        "fix-flaky-checkout-test-0193a1b2.md")
    table = cli(md, "search", "flaky checkout test").stdout
    assert "mode:     fts-fallback" in table and "note:     embedding failed" in table
    index = cli(md, "index", check=False)
    assert index.returncode == 1
    assert "embedder:" in index.stderr and "cannot reach" in index.stderr
    assert "FTS index is complete" in index.stderr
    assert cli_json(md, "status")["chunks"] > 0


async def test_background_embedding_reports_progress(md: MemDemo, api: Embeddings) -> None:
    """More chunks than a search embeds inline: the server embeds them in the background
    with ``$/progress``, and later searches turn hybrid without a reindex request."""
    sessions = md.workspace_dir / "sessions"
    for i in range(40):
        sessions.joinpath(f"2026-10-{i % 28 + 1:02d}-topic-{i:04d}0000.md").write_text(
            "".join(f"## Topic {i} part {j}\n\n" + f"word{i}x{j} " * 300 + "\n\n"
                    for j in range(3)))
    api.delay[0] = 0.3                     # >= 3 batches: the job lasts past the quiet 0.5 s
    c = await start_client(md.env, [md.repo], "visual-studio-code",
                           options={"memory": _api_settings(api.base_url)})
    try:
        first = await search(c, md, "flaky checkout test")
        assert first["mode"] == "fts-fallback" and "no vectors" in first["note"]

        def ended() -> list[object]:
            # A token's list exists (empty) from window/workDoneProgress/create until its
            # Begin arrives: such a token has not ended.
            return [token for token, reports in list(c.progress_reports.items())
                    if reports
                    and reports[0].title == "RuleLens: embedding memory"  # type: ignore[attr-defined]
                    and type(reports[-1]) is types.WorkDoneProgressEnd]

        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while not ended() and loop.time() < deadline:
            await asyncio.sleep(0.1)
        (token,) = ended()
        reports = c.progress_reports[token]
        assert type(reports[0]) is types.WorkDoneProgressBegin
        messages = [r.message for r in reports if type(r) is types.WorkDoneProgressReport]
        assert messages and all(m.startswith("embedding chunks ") for m in messages)
        done, total = messages[-1].removeprefix("embedding chunks ").split("/")
        assert done == total and int(total) > 64
        batches = len(api.calls)
        assert batches >= 3
        got = await search(c, md, "flaky checkout test")
        assert got["mode"] == "hybrid" and got["note"] is None
        after = api.calls[batches:]
        assert ["flaky checkout test"] in after
        assert all(len(call) == 1 for call in after), "only queries are embedded now"
    finally:
        await stop_client(c)
