"""The registry over the real server: ``rulelens/agents`` lists every agent the server knows
(the clients' agent lists come from it), the default ``rulelens.agents`` set follows the
workspace's markers, and an edit in an enabled agent's home refreshes its view."""

from __future__ import annotations

import asyncio
import pathlib
import shutil

from pytest_lsp import LanguageClient

from rulelens.agents.registry import AGENTS, ORDER
from rulelens.lsp import protocol

from .conftest import (
    Demo,
    make_demo,
    open_doc,
    request,
    start_client,
    stop_client,
    waiter,
    watching,
)

DEEP = "src/app/handlers/orders.py"


async def test_agents_request_lists_the_registry(client: LanguageClient, demo: Demo) -> None:
    got = await request(client, protocol.AGENTS, {})
    assert [a["id"] for a in got] == list(ORDER)
    for entry, record in zip(got, AGENTS, strict=True):
        assert entry["short"] == record.short and entry["display"] == record.display
        assert entry["evidence"] in ("code", "docs")
        assert entry["source"] == record.source and entry["source"]
    by_id = {a["id"]: a for a in got}
    # The demo repository carries every one of today's agents' files, and ~/.grok exists.
    for agent_id in ("grok", "claude", "codex", "cursor", "copilot", "gemini", "boost"):
        assert by_id[agent_id]["present"] and by_id[agent_id]["enabled"], agent_id
    # ... and the new agents' markers: .clinerules, opencode.json, QWEN.md, .continue,
    # .aider.conf.yml.
    for agent_id in ("cline", "opencode", "qwen", "continue", "aider"):
        assert by_id[agent_id]["present"] and by_id[agent_id]["enabled"], agent_id
    assert by_id["qwen"]["trust_command"] == "trust the folder when Qwen Code asks"
    assert by_id["grok"]["trust_command"] == "grok --trust"
    assert by_id["claude"]["trust_command"] is None


async def test_default_agents_follow_the_markers(tmp_path: pathlib.Path) -> None:
    """A workspace with only GEMINI.md, a home without ~/.grok: Gemini alone is enabled;
    once ~/.grok exists, Grok is too."""
    demo = make_demo(tmp_path)
    repo = tmp_path / "only-gemini"
    repo.mkdir()
    (repo / ".git").mkdir()
    (repo / "GEMINI.md").write_text("# gemini\n")
    (repo / "main.py").write_text("print(1)\n")
    shutil.rmtree(demo.grok_home)
    c = await start_client(demo.env, [repo], "visual-studio-code")
    try:
        got = await request(c, protocol.AGENTS, {"workspaceUri": repo.as_uri()})
        present = [a["id"] for a in got if a["present"]]
        assert present == ["gemini"]
        assert [a["id"] for a in got if a["enabled"]] == ["gemini"]
        uri = (repo / "main.py").as_uri()
        open_doc(c, uri, language="python")
        payload = await request(c, protocol.AGENTS_FOR_FILE, {"uri": uri})
        assert payload["enabled"] == ["gemini"]
    finally:
        await stop_client(c)
    demo.grok_home.mkdir()
    c = await start_client(demo.env, [repo], "neovim")
    try:
        got = await request(c, protocol.AGENTS, {})
        assert [a["id"] for a in got if a["enabled"]] == ["grok", "gemini"]
    finally:
        await stop_client(c)


async def test_codex_home_edit_refreshes_the_codex_view(tmp_path: pathlib.Path) -> None:
    """Issue 21: an edit in ``~/.codex`` used to leave the per-agent lenses stale."""
    demo = make_demo(tmp_path)
    codex_home = demo.home / ".codex"
    codex_home.mkdir(exist_ok=True)  # the demo home holds a recorded Codex session
    c = await start_client(demo.env, [demo.repo], "visual-studio-code")
    try:
        uri = demo.uri(DEEP)
        open_doc(c, uri, language="python")
        before = await request(c, protocol.AGENTS_FOR_FILE, {"uri": uri})
        codex = next(v for v in before["agents"] if v["agent"].startswith("codex"))
        assert not any(f["role"] == "home" for f in codex["files"])
        await watching(c, codex_home)
        fut = waiter(c, protocol.CHAIN_CHANGED)
        (codex_home / "AGENTS.md").write_text("# my global codex rules\n")
        note = await asyncio.wait_for(fut, 20)
        assert uri in list(note.uris)
        after = await request(c, protocol.AGENTS_FOR_FILE, {"uri": uri})
        codex = next(v for v in after["agents"] if v["agent"].startswith("codex"))
        assert [f["path"] for f in codex["files"] if f["role"] == "home"] == [
            str(codex_home / "AGENTS.md")]
    finally:
        await stop_client(c)
