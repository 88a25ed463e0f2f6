"""``rulelens/memorySearch`` and ``rulelens/memoryStatus`` over real LSP: the CLI's JSON,
the wider list, the workspace choice, and ``$/progress`` during the first index.
"""

from __future__ import annotations

import pathlib
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from rulelens.lsp import protocol

from .conftest import CLIENTS, request, start_client, stop_client
from .memory_fixtures import WORKSPACE_DIR, MemDemo, cli_json, make_memdemo, same_search, search


@pytest_asyncio.fixture(params=CLIENTS)
async def client(request: pytest.FixtureRequest, md: MemDemo) -> AsyncIterator[LanguageClient]:
    c = await start_client(md.env, [md.repo], request.param)
    yield c
    await stop_client(c)


def _kinds(reports: list[object]) -> list[str]:
    return [type(r).__name__.removeprefix("WorkDoneProgress") for r in reports]


async def test_first_search_indexes_with_progress_then_equals_cli(
        client: LanguageClient, md: MemDemo) -> None:
    assert not md.cache.exists(), "the first search must build the index"
    got = await search(client, md, "flaky checkout test")
    tokens = dict(client.progress_reports)
    assert len(tokens) == 1, f"one progress token (window/workDoneProgress/create): {tokens}"
    (reports,) = tokens.values()
    kinds = _kinds(reports)
    assert kinds[0] == "Begin" and kinds[-1] == "End" and "Report" in kinds, kinds
    assert reports[0].title == "RuleLens: indexing memory"  # type: ignore[attr-defined]
    last = [r for r in reports if type(r) is types.WorkDoneProgressReport][-1]
    assert last.message == "indexing files 5/5" and last.percentage == 100
    pcts = [r.percentage for r in reports if getattr(r, "percentage", None) is not None]
    assert pcts == sorted(pcts), "percentages never go down"
    assert (md.cache / "memory").is_dir()

    assert got["mode"] == "fts" and got["note"] is None
    assert got["results"][0]["path"].endswith("fix-flaky-checkout-test-0193a1b2.md")
    assert same_search(got, cli_json(md, "search", "flaky checkout test"))

    # The index is up to date now: a second search creates no progress token.
    again = await search(client, md, "stripe")
    assert len(client.progress_reports) == 1
    assert same_search(again, cli_json(md, "search", "stripe"))


async def test_all_flag_adds_marked_results_like_cli(client: LanguageClient, md: MemDemo) -> None:
    narrow = await search(client, md, "stripe")
    wide = await search(client, md, "stripe", all=True)
    assert all(r["agent_returns"] for r in narrow["results"])
    assert wide["results"][:len(narrow["results"])] == narrow["results"]
    extra = wide["results"][len(narrow["results"]):]
    assert extra and not any(r["agent_returns"] for r in extra)
    assert same_search(wide, cli_json(md, "search", "stripe", "--all"))


async def test_status_matches_cli_and_counts_the_index(client: LanguageClient,
                                                       md: MemDemo) -> None:
    before = await request(client, protocol.MEMORY_STATUS, {"workspaceUri": md.ws})
    assert before == cli_json(md, "status")
    assert before["workspace_name"] == md.workspace_dir.name
    assert before["chunks"] == 0
    await search(client, md, "pytest")
    after = await request(client, protocol.MEMORY_STATUS, {"workspaceUri": md.ws})
    assert after["chunks"] > 0
    assert after == cli_json(md, "status")
    # No params at all: the first workspace folder.
    assert await request(client, protocol.MEMORY_STATUS, None) == after


async def test_workspace_uri_selects_the_folder_and_is_checked(tmp_path: pathlib.Path) -> None:
    md = make_memdemo(tmp_path / "a")
    other = tmp_path / "other"
    other.mkdir()               # a plain folder: no origin, its own (empty) memory directory
    c = await start_client(md.env, [other, md.repo], "visual-studio-code")
    try:
        default = await request(c, protocol.MEMORY_SEARCH, {"query": "stripe"})
        assert [r["source"] for r in default["results"]] in ([], ["global"])
        assert not any(WORKSPACE_DIR in r["path"] for r in default["results"])
        chosen = await search(c, md, "stripe")
        assert chosen["results"] and WORKSPACE_DIR in chosen["results"][0]["path"]
        inside = (md.repo / "src").as_uri()      # a folder inside a workspace folder is fine
        assert (await request(c, protocol.MEMORY_SEARCH,
                              {"query": "stripe", "workspaceUri": inside}))["results"]
        for bad in ("file:///etc", "https://example.com/x", (tmp_path / "a").as_uri()):
            with pytest.raises(Exception, match="workspace folder"):
                await c.protocol.send_request_async(
                    protocol.MEMORY_SEARCH, {"query": "stripe", "workspaceUri": bad})
        with pytest.raises(Exception, match="query"):
            await c.protocol.send_request_async(protocol.MEMORY_SEARCH, {"query": 3})
        # The server keeps serving after the errors.
        assert (await search(c, md, "stripe"))["results"]
    finally:
        await stop_client(c)
