"""Changes on disk reach the editor: rulelens/chainChanged, a changed chain, lens refresh."""

from __future__ import annotations

import asyncio
import os
import pathlib
import re
import threading
from typing import Any

from pytest_lsp import LanguageClient

from helpers.waiting import until
from rulelens.lsp import protocol

from .conftest import Demo, hover, lenses, open_doc, request, waiter, watching

DEEP = "src/app/handlers/orders.py"
TIMEOUT = 20


def _refresh_supported(client: LanguageClient) -> bool:
    caps = client.capabilities  # type: ignore[attr-defined]
    return bool(caps and caps.workspace and caps.workspace.code_lens
                and caps.workspace.code_lens.refresh_support)


async def _changed(client: LanguageClient, action, expect: str) -> list[str]:  # type: ignore[no-untyped-def]
    """Run ``action`` and wait for a chainChanged naming ``expect``; returns its uris."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    fut = waiter(client, protocol.CHAIN_CHANGED)
    action()
    while True:
        note = await asyncio.wait_for(fut, max(0.1, deadline - loop.time()))
        uris = list(note.uris)
        if expect in uris:
            return uris
        fut = waiter(client, protocol.CHAIN_CHANGED)


async def test_gitignore_edit_changes_the_chain(client: LanguageClient, demo: Demo) -> None:
    deep, local = demo.uri(DEEP), demo.uri("CLAUDE.local.md")
    open_doc(client, deep)
    open_doc(client, local)
    before = await request(client, protocol.CHAIN, {"uri": deep})
    assert str(demo.repo / "CLAUDE.local.md") not in [f["path"] for f in before["files"]]
    await watching(client, demo.repo)
    gitignore = demo.repo / ".gitignore"
    text = gitignore.read_text().replace("CLAUDE.local.md\n", "")
    uris = await _changed(client, lambda: gitignore.write_text(text), deep)
    assert local in uris
    after = await request(client, protocol.CHAIN, {"uri": deep})
    assert str(demo.repo / "CLAUDE.local.md") in [f["path"] for f in after["files"]]
    assert len(after["skipped"]) == len(before["skipped"]) - 1
    title = (await lenses(client, local))[0].command.title  # type: ignore[index,union-attr]
    assert title.startswith("from ./: read by Grok, Claude"), title
    if _refresh_supported(client):
        assert client.lens_refreshes  # type: ignore[attr-defined]


async def test_rule_file_edit_and_creation(client: LanguageClient, demo: Demo) -> None:
    deep, docs = demo.uri(DEEP), demo.uri("docs/README.md")
    open_doc(client, deep)
    open_doc(client, docs)
    await request(client, protocol.CHAIN, {"uri": deep})
    await watching(client, demo.repo)
    rule = demo.repo / "src/app/AGENTS.md"
    uris = await _changed(
        client, lambda: rule.write_text(rule.read_text() + "- New rule: be kind.\n"), deep)
    # docs/README.md is announced too: its per-agent views (sessions start in the workspace
    # folder) list src/app/AGENTS.md, e.g. as a file Codex's model may pull in, with its size.
    assert docs in uris
    files = (await request(client, protocol.CHAIN, {"uri": deep}))["files"]
    assert files[-1]["content"].endswith("- New rule: be kind.\n")
    before = (await request(client, protocol.AGENTS_FOR_FILE, {"uri": deep}))["headline"]
    new = demo.repo / "src/app/handlers/AGENTS.md"
    await _changed(client, lambda: new.write_text("# handlers\n"), deep)
    got = await lenses(client, deep)
    assert got is not None and got[0].command is not None
    after = got[0].command.title
    # A late chainChanged from the first edit can end the wait above: wait for the headline.
    async def grown() -> dict[str, Any] | None:
        got = await request(client, protocol.AGENTS_FOR_FILE, {"uri": deep})
        return got if got["headline"] != before else None

    payload = await until(grown, "the headline to count the new AGENTS.md")
    after = (await lenses(client, deep) or [])[0].command.title  # type: ignore[union-attr]
    assert after == payload["lens"]  # the headline cut to one line between agents
    assert payload["headline"].startswith(after.partition(" · +")[0])
    # Cursor reads a nested AGENTS.md when it works on a file below it: one more.
    grown = payload["headline"]
    assert re.search(r"Cursor (\d+)", grown).group(1) == str(  # type: ignore[union-attr]
        int(re.search(r"Cursor (\d+)", before).group(1)) + 1), (before, grown)  # type: ignore[union-attr]


async def test_agent_config_change_is_watched(client: LanguageClient, demo: Demo) -> None:
    deep = demo.uri(DEEP)
    open_doc(client, deep)
    await request(client, protocol.CHAIN, {"uri": deep})
    await watching(client, demo.grok_home)
    config = demo.grok_home / "config.toml"
    await _changed(client, lambda: config.write_text("[compat.claude]\nrules = false\n"), deep)
    payload = await request(client, protocol.CHAIN, {"uri": deep})
    assert ".claude/rules/testing.md" not in "".join(f["path"] for f in payload["files"])
    assert any(s["reason"] == "compat-disabled" and s["path"].endswith("testing.md")
               for s in payload["skipped"])


async def test_checkout_of_10000_files_does_not_freeze(client: LanguageClient,
                                                       demo: Demo) -> None:
    deep = demo.uri(DEEP)
    open_doc(client, deep)
    await request(client, protocol.CHAIN, {"uri": deep})
    await watching(client, demo.repo)
    done = threading.Event()

    def checkout() -> None:                        # what `git checkout` does to a big tree
        for i in range(10_000):
            d = demo.repo / "vendor" / f"pkg{i // 200:02d}"
            if i % 200 == 0:
                d.mkdir(parents=True, exist_ok=True)
            (d / f"mod{i}.py").write_text(f"x = {i}\n")
        done.set()

    writer = threading.Thread(target=checkout)
    writer.start()
    answered = 0
    while not done.is_set():                        # every request is answered meanwhile
        result = await asyncio.wait_for(hover(client, deep), 10)
        assert result is not None
        answered += 1
        await asyncio.sleep(0.02)
    writer.join()
    assert answered > 0
    # And the watcher still follows rule files afterwards.
    rule = demo.repo / "src/AGENTS.md"
    await _changed(client, lambda: rule.write_text("# src, rewritten\n"), deep)
    files = (await request(client, protocol.CHAIN, {"uri": deep}))["files"]
    assert any(f["content"] == "# src, rewritten\n" for f in files)
    assert len(os.listdir(demo.repo / "vendor")) == 50
    assert pathlib.Path(demo.repo / "vendor/pkg49/mod9999.py").exists()
