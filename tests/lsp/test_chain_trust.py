"""Folder trust and the `rulelens.agent` setting as the editor sees them (issue 12).

The demo home trusts the demo repository; these tests delete that grant (or choose
grok@1.0.6) and check the lens, the hover, the chain payload and the rule-file lens.
"""

from __future__ import annotations

import asyncio
import re

from lsprotocol import types

from rulelens.lsp import protocol
from rulelens.lsp.session import Session

from .conftest import (
    Demo,
    cli_json,
    hover,
    lenses,
    open_doc,
    request,
    start_client,
    stop_client,
    waiter,
    watching,
)

DEEP = "src/app/handlers/orders.py"
NOTE = "Folder not trusted yet: 5 project files withheld; run `grok --trust` here to load them"


def _untrust(demo: Demo) -> None:
    (demo.grok_home / "trusted_folders.toml").unlink()


async def test_untrusted_demo_lens_hover_and_payload(demo: Demo) -> None:
    _untrust(demo)
    client = await start_client(demo.env, [demo.repo], "visual-studio-code")
    try:
        uri = demo.uri(DEEP)
        open_doc(client, uri, language="python")
        got = await lenses(client, uri)
        assert got is not None and len(got) == 1 and got[0].command is not None
        # Sessions start in the workspace folder: Grok withholds the root's 3 project files.
        assert re.match(r"Grok 2 \(\+3 after trust\) · \S+ tok · Claude 3 · ",
                        got[0].command.title), got[0].command.title
        shown = await hover(client, uri, 0, 0)
        assert shown is not None and isinstance(shown.contents, types.MarkupContent)
        assert ("> **Grok: folder not trusted yet, 3 project files withheld; run `grok --trust`"
                " here**") in shown.contents.value
        payload = await request(client, protocol.CHAIN, {"uri": uri})
        assert payload.pop("trustNote") == NOTE
        payload.pop("tracker")
        assert payload == cli_json(demo, demo.deep_file)
        assert payload["trust"]["state"] == "undecided"
        assert sum(s["reason"] == "untrusted-folder" for s in payload["skipped"]) == 5
        agents_md = demo.uri("AGENTS.md")
        open_doc(client, agents_md)
        rule = await lenses(client, agents_md)
        assert rule is not None and rule[0].command is not None
        assert rule[0].command.title.startswith("from ./: read by Grok (after trust), ")
    finally:
        await stop_client(client)


async def test_agent_setting_chooses_the_profile(demo: Demo) -> None:
    _untrust(demo)
    client = await start_client(demo.env, [demo.repo], "neovim",
                                options={"agent": "grok@1.0.6"})
    try:
        uri = demo.uri(DEEP)
        open_doc(client, uri, language="python")
        payload = await request(client, protocol.CHAIN, {"uri": uri})
        assert payload["agent"] == "grok@1.0.6" and "trust" not in payload
        assert len(payload["files"]) == 7 and "trustNote" not in payload
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"rulelens": {"agent": "grok"}}))
        again = await request(client, protocol.CHAIN, {"uri": uri})
        assert again["agent"] == "grok@1.0.45" and len(again["files"]) == 2
    finally:
        await stop_client(client)


async def _diagnostics(demo: Demo, rel: str) -> list[str]:
    client = await start_client(demo.env, [demo.repo], "visual-studio-code")
    try:
        uri = demo.uri(rel)
        published = waiter(client, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        open_doc(client, uri)
        await published
        return sorted(f"{d.code} {d.message}" for d in client.diagnostics.get(uri, []))
    finally:
        await stop_client(client)


async def test_lint_diagnostics_are_the_trusted_folders(demo: Demo) -> None:
    trusted = await _diagnostics(demo, "AGENTS.md")
    _untrust(demo)
    assert await _diagnostics(demo, "AGENTS.md") == trusted
    assert not any("trust" in d.lower() for d in trusted)


def test_the_lint_resolver_sees_a_trusted_folder(demo: Demo) -> None:
    _untrust(demo)
    session = Session(environ=demo.env)
    assert session.resolver is not None and session.lint_resolver is not None
    cwd = str(demo.deep_file.parent)
    shown = session.resolver.resolve(cwd)
    assert len(shown.withheld) == 5 and len(shown.files) == 2
    linted = session.lint_resolver.resolve(cwd)
    assert linted.withheld == () and len(linted.files) == 7
    assert linted.trust is not None and linted.trust.state == "trusted"
    old = Session(environ=demo.env, agent_setting="grok@1.0.6")
    assert old.lint_resolver is old.resolver  # no trust gate: one resolver
    other = Session(environ=demo.env, agent_setting="claude")
    assert other.resolver is not None and other.resolver.profile.id == "grok@1.0.45"
    assert "not a Grok profile" in (other.agent_problem() or "")


async def test_granting_trust_on_disk_loads_the_project_files(demo: Demo) -> None:
    """`grok --trust` writes trusted_folders.toml; the watcher re-resolves every chain."""
    store = demo.grok_home / "trusted_folders.toml"
    grant = store.read_text()
    _untrust(demo)
    client = await start_client(demo.env, [demo.repo], "visual-studio-code")
    try:
        uri = demo.uri(DEEP)
        open_doc(client, uri, language="python")
        before = await request(client, protocol.CHAIN, {"uri": uri})
        assert before["trust"]["state"] == "undecided" and len(before["files"]) == 2
        await watching(client, demo.grok_home)
        changed = waiter(client, protocol.CHAIN_CHANGED)
        store.write_text(grant)
        await asyncio.wait_for(changed, 20)
        after = await request(client, protocol.CHAIN, {"uri": uri})
        assert after["trust"]["state"] == "trusted" and len(after["files"]) == 7
        assert "trustNote" not in after
    finally:
        await stop_client(client)
