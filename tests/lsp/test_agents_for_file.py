"""Every agent's view over the real server: rulelens/agentsForFile, rulelens/chain with
``agent``/``cwd``, the per-agent code lens and the side-by-side hover (pytest-lsp, VS Code
and Neovim capabilities, the demo workspace)."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

from pytest_lsp import LanguageClient

from rulelens.agents.registry import BY_ID, ORDER, SHORT
from rulelens.lsp import protocol
from rulelens.rules.perfile import MARKS

from .conftest import (
    Demo,
    cli_agent_json,
    hover,
    lenses,
    open_doc,
    request,
    start_client,
    stop_client,
)

DEEP = "src/app/handlers/orders.py"
#: The demo has files for every agent but Zed (no `.rules`), so those are enabled by default.
ALL = [a for a in ORDER if a != "zed"]


def cli(demo: Demo, *args: str) -> Any:
    import json

    out = subprocess.run([sys.executable, "-m", "rulelens", "chain", "--json", *args],
                         env=demo.env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


async def test_agents_for_file_every_enabled_agent(client: LanguageClient, demo: Demo) -> None:
    uri = demo.uri(DEEP)
    open_doc(client, uri, language="python")
    got = await request(client, protocol.AGENTS_FOR_FILE, {"uri": uri})
    assert got["cwd"] == str(demo.repo)                 # the workspace folder, named
    assert got["file"] == str(demo.deep_file)
    assert got["enabled"] == ALL                        # the demo has files for every agent
    assert [a["agent"].split("@")[0] for a in got["agents"]] == ALL
    # Same views as the CLI with the same start directory.
    expected = cli(demo, str(demo.deep_file), "--agent", "all", "--cwd", str(demo.repo))
    by_id = {a["agent"].split("@")[0]: a for a in expected["agents"]}
    for mine in got["agents"]:
        theirs = by_id[mine["agent"].split("@")[0]]
        if mine["agent"].startswith("grok"):
            continue  # Grok's chain is pinned against the CLI in test_chain_views
        assert [(f["path"], f["when"]) for f in mine["files"]] == [
            (f["path"], f["when"]) for f in theirs["files"]]
    # One row per file, one cell per agent; no file in two groups of one agent.
    rows = {r["path"]: {c["agent"].split("@")[0]: c["when"] for c in r["cells"]}
            for r in got["rows"]}
    assert rows[str(demo.repo / ".cursor/rules/style.mdc")]["cursor"] == "on-read"
    assert rows[str(demo.repo / "src/app/AGENTS.md")]["grok"] == "no"
    for view in got["agents"]:
        paths = [f["path"] for f in view["files"]] + [s["path"] for s in view["skipped"]]
        assert len(paths) == len(set(paths)), view["agent"]


async def test_agents_for_file_with_cwd_and_agents(client: LanguageClient, demo: Demo) -> None:
    uri = demo.uri(DEEP)
    open_doc(client, uri, language="python")
    start = str(demo.repo / "src")
    got = await request(client, protocol.AGENTS_FOR_FILE,
                        {"uri": uri, "cwd": start, "agents": ["codex", "claude"]})
    assert got["cwd"] == start
    assert [a["agent"] for a in got["agents"]] == ["claude", "codex"]
    codex = got["agents"][1]
    # Started in src/, Codex injects the override there; src/AGENTS.md is shadowed.
    assert str(demo.repo / "src/AGENTS.override.md") in [
        f["path"] for f in codex["files"] if f["when"] == "start"]
    assert {s["path"]: s["reason"] for s in codex["skipped"]}[
        str(demo.repo / "src/AGENTS.md")] == "shadowed"


async def test_chain_request_takes_agent_and_cwd(client: LanguageClient, demo: Demo) -> None:
    uri = demo.uri(DEEP)
    open_doc(client, uri, language="python")
    got = await request(client, protocol.CHAIN, {"uri": uri, "agent": "gemini",
                                                 "cwd": str(demo.repo)})
    assert got["agent"] == "gemini" and got["cwd"] == str(demo.repo)
    expected = cli(demo, str(demo.deep_file), "--agent", "gemini", "--cwd", str(demo.repo))
    assert got["files"] == expected["files"]
    assert "tracker" in await request(client, protocol.CHAIN, {"uri": uri})  # unchanged


async def test_per_agent_lens_and_hover(client: LanguageClient, demo: Demo) -> None:
    uri = demo.uri(DEEP)
    open_doc(client, uri, language="python")
    got = await lenses(client, uri)
    assert got is not None
    titles = [lens.command.title for lens in got if lens.command is not None]
    assert len(titles) == 1  # one headline, for the workspace folder
    per_agent = titles[0]
    assert per_agent.startswith("Grok ")
    expected = cli(demo, str(demo.deep_file), "--agent", "all", "--cwd", str(demo.repo))
    counts = {a["agent"].split("@")[0]: sum(f["when"] != "may" for f in a["files"])
              for a in expected["agents"]}
    assert f"Claude {counts['claude']}" in per_agent and f"Codex {counts['codex']}" in per_agent
    assert "+2 may" not in per_agent  # the detail is in the hover's table
    text = (await hover(client, uri)).contents.value  # type: ignore[union-attr]
    headline = text.splitlines()[0]
    assert headline.startswith("**Grok ") and "sessions started in `./`" in headline
    # The lens may abbreviate many agents; the hover's headline names every count.
    assert all(f"{SHORT[a]} {counts[a]}" in headline for a in ALL if a != "grok"), headline
    # Each column says how sure it is (ᶜ the agent's code, ᵈ its docs), and the source.
    marks = {a: MARKS[BY_ID[a].evidence] for a in ALL}
    assert "| file | " + " | ".join(SHORT[a] + marks[a] for a in ALL) + " |" in text
    assert "Claude Code: per Claude Code docs, 2026-08 — https://code.claude.com/" in text
    # Grok skips the .mdc, Cursor attaches it by its globs, Cline loads it always.
    assert "| .cursor/rules/style.mdc | no | — | — | on-read | — | — | — | start |" in text
    assert "per Claude Code docs" in text


async def test_instruction_files_say_which_agents_read_them(client: LanguageClient,
                                                           demo: Demo) -> None:
    """An instruction file's per-agent lens says who reads it (started at the workspace)."""
    expected = {
        "GEMINI.md": "from ./: read by Gemini · not by Grok, Claude, Codex, Cursor, Copilot,"
                     " Boost, Cline, OpenCode, Qwen, Windsurf, Kiro, Junie, Aider, Continue",
        ".cursor/rules/style.mdc": "from ./: read by Cursor (for matching files), Cline · not"
                                   " by Grok, Claude, Codex, Copilot, Gemini, Boost, OpenCode,"
                                   " Qwen, Windsurf, Kiro, Junie, Aider, Continue",
        "AGENTS.md": "from ./: read by Grok, Codex, Cursor, Copilot, Cline, OpenCode, Qwen,"
                     " Windsurf, Kiro · not by Claude, Gemini, Boost, Junie, Aider, Continue",
    }
    for rel, title in expected.items():
        uri = demo.uri(rel)
        open_doc(client, uri, language="markdown")
        got = await lenses(client, uri)
        assert got is not None and got[-1].command is not None
        assert got[-1].command.title == title, rel


async def test_one_agent_setting_gives_that_agents_headline(demo: Demo) -> None:
    """``rulelens.agents: ["grok"]``: one lens and a one-column table, for the same start
    directory as every other view (the workspace folder)."""
    c = await start_client(demo.env, [demo.repo], "visual-studio-code",
                           options={"agents": ["grok"]})
    try:
        uri = demo.uri(DEEP)
        open_doc(c, uri, language="python")
        got = await lenses(c, uri)
        assert got is not None and len(got) == 1
        # The start cost is Grok's own approxTokens (UTF-8 bytes / 4) of what it injects.
        grok = cli_agent_json(demo, demo.deep_file, "grok")
        cost = sum(len(f["content"].encode()) // 4 for f in grok["files"] if f["when"] == "start")
        assert got[0].command is not None and got[0].command.title == f"Grok 5 · {cost} tok"
        text = (await hover(c, uri)).contents.value  # type: ignore[union-attr]
        assert text.startswith(f"**Grok 5 · {cost} tok** · sessions started in `./`")
        assert "| file | Grokᶜ |" in text and "| Claude" not in text
        # The breakdown: start / on read / memory at start, and each top file's share.
        costs = text.split("**What it costs**", 1)[1]
        line = next(x for x in costs.split("\n") if x.startswith("- Grok:"))
        assert line.startswith(f"- Grok: {cost} at start · +0 on read"), line
        shares = [int(m) for m in re.findall(r" (\d+)%", line)]
        assert len(shares) == 4 and 98 <= sum(shares) <= 102, line  # 3 files + 2 others
        assert "Grok: UTF-8 bytes / 4, rounded down" in costs
        payload = await request(c, protocol.AGENTS_FOR_FILE, {"uri": uri})
        assert payload["enabled"] == ["grok"] and payload["headline"] == f"Grok 5 · {cost} tok"
    finally:
        await stop_client(c)


async def test_agents_for_file_rejects_bad_params(client: LanguageClient, demo: Demo) -> None:
    import pytest
    from pygls.exceptions import JsonRpcException

    with pytest.raises(JsonRpcException):
        await request(client, protocol.AGENTS_FOR_FILE, {"uri": demo.uri(DEEP), "agents": "x"})
    assert await request(client, protocol.AGENTS_FOR_FILE, {"uri": demo.uri(DEEP)}) is None
