"""``rulelens/memorySearch`` with ``rank``/``explain``/``sources`` (transcripts),
``rulelens/memoryContext`` and the store in ``rulelens/memoryStatus``, over real LSP and
equal to the CLI's JSON."""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from pytest_lsp import LanguageClient

from rulelens.memory.search import FRAMING_SENTENCE

from .conftest import CLIENTS, request, start_client, stop_client
from .memory_fixtures import MemDemo, cli, cli_json, search


@pytest_asyncio.fixture(params=CLIENTS[:1])
async def client(request: pytest.FixtureRequest, md: MemDemo) -> AsyncIterator[LanguageClient]:
    c = await start_client(md.env, [md.repo], request.param)
    yield c
    await stop_client(c)


def without_scores(payload: dict[str, object]) -> list[tuple[object, ...]]:
    return [(r["path"], r["start_line"], r["source"])  # type: ignore[index]
            for r in payload["results"]]  # type: ignore[attr-defined]


async def test_rank_best_and_agent_over_lsp_equal_the_cli(client: LanguageClient,
                                                          md: MemDemo) -> None:
    agent = await search(client, md, "stripe webhook retries")
    assert "rank" not in agent  # the agent's view keeps its shape
    best = await search(client, md, "stripe webhook retries", rank="best")
    assert best["rank"] == "best" and best["mode"] == "best-fts"
    assert without_scores(best) == without_scores(
        cli_json(md, "search", "stripe webhook retries", "--rank", "best"))
    assert best["results"][0]["agent_returns"] is True
    nothing = await search(client, md, "banana bread recipe", rank="best")
    assert nothing["results"] == []


async def test_explain_over_lsp(client: LanguageClient, md: MemDemo) -> None:
    got = await search(client, md, "stripe webhook retries", explain=True, all=True)
    first = got["results"][0]["explain"]
    assert set(first) >= {"keyword_score", "keyword_rank", "vector_similarity", "merged",
                          "decay", "age_days", "half_life_days", "source_weight",
                          "access_boost", "min_score", "rank_before_mmr", "rank_after_mmr",
                          "why_not"}
    assert first["keyword_rank"] == 1 and first["why_not"] is None
    skipped = [r for r in got["results"] if not r["agent_returns"]]
    assert skipped and all(r["explain"]["why_not"].startswith(
        "the agent would not return this because") for r in skipped)


async def test_transcript_results_are_labelled_and_point_at_the_turn(
        client: LanguageClient, md: MemDemo) -> None:
    group = md.demo.grok_home / "sessions" / urllib.parse.quote(str(md.repo), safe="")
    session = group / "0193a0aa-bbbb"
    os.makedirs(session)
    lines = [
        {"timestamp": 1784278800, "params": {"update": {"sessionUpdate": "user_message_chunk",
         "content": {"type": "text", "text": "why do refunds hit the ledger twice"}},
         "_meta": {"promptIndex": 0}}},
        {"timestamp": 1784278801, "params": {"update": {"sessionUpdate": "tool_call",
         "rawInput": {"command": "rg refunds"}}}},
        {"timestamp": 1784278802, "params": {"update": {"sessionUpdate": "agent_message_chunk",
         "content": {"type": "text", "text": "Refunds were posted twice because the webhook "}},
         "_meta": {"promptId": "p1"}}},
        {"timestamp": 1784278803, "params": {"update": {"sessionUpdate": "agent_message_chunk",
         "content": {"type": "text", "text": "retried without an idempotency key."}},
         "_meta": {"promptId": "p1"}}},
    ]
    (session / "updates.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (session / "summary.json").write_text(json.dumps(
        {"info": {"id": "0193a0aa-bbbb", "cwd": str(md.repo)},
         "generated_title": "Double refunds"}))
    got = await search(client, md, "refunds posted twice idempotency",
                       sources=["memory", "transcript"])
    (hit,) = got["transcripts"][:1]
    assert hit["source"] == "transcript"
    assert hit["label"] == "not searched by the agent's memory tools"
    assert hit["path"] == str(session / "updates.jsonl") and hit["start_line"] == 3
    assert hit["snippet"] == ("Refunds were posted twice because the webhook retried without"
                              " an idempotency key.")
    assert hit["title"] == "Double refunds" and hit["agent_returns"] is False
    plain = await search(client, md, "refunds posted twice idempotency")
    assert "transcripts" not in plain
    cli_out = cli_json(md, "search", "refunds posted twice idempotency", "--sources",
                       "memory,transcript")
    assert [t["start_line"] for t in cli_out["transcripts"]] == [
        t["start_line"] for t in got["transcripts"]]


async def test_context_and_store_over_lsp(client: LanguageClient, md: MemDemo) -> None:
    status = await request(client, "rulelens/memoryStatus", {"workspaceUri": md.ws})
    assert status["agent"] == "grok@1.0.45"
    assert status["store"]["mode"] == "legacy" and status["store"]["reason"]
    off = await request(client, "rulelens/memoryContext", {"workspaceUri": md.ws, "query": "hi"})
    assert off["text"] == "" and "memory: off" in off["reason"]  # the demo keeps memory off
    config = md.demo.grok_home / "config.toml"
    config.write_text(config.read_text() + "\n[memory]\nenabled = true\n")
    query = "how are stripe webhook retries handled"
    ctx = await request(client, "rulelens/memoryContext", {"workspaceUri": md.ws, "query": query})
    assert ctx["text"] == cli(md, "context", query).stdout
    assert ctx["text"].startswith("<memory-context>\n## Relevant Memory from Past Sessions\n\n"
                                  + FRAMING_SENTENCE + "\n\n### Result 1 ")
    status = await request(client, "rulelens/memoryStatus", {"workspaceUri": md.ws})
    assert status["store"]["enabled"] is True


async def test_manifest_over_lsp(client: LanguageClient, md: MemDemo) -> None:
    rows = await request(client, "rulelens/memoryManifest", {"workspaceUri": md.ws})
    assert [r["scope"] for r in rows] == ["global", "workspace"]
    assert rows[1]["dir"].endswith("/memory-v2/workspaces/demo-shop-5a7bd946")
    assert rows[0]["text"].startswith("# Global memory index\n\n> Generated by Grok.")
    assert rows[1]["text"].endswith("\nNo memory files have been recorded yet.\n")
    assert rows[1]["text"] == cli(md, "manifest", "--scope", "workspace").stdout
