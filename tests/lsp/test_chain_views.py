"""The chain as the editor sees it: lenses, hovers, rulelens/chain and rulelens/render.

Runs against the real server over stdio with VS Code's and Neovim's capabilities.
"""

from __future__ import annotations

import re
import subprocess
import sys

from lsprotocol import types
from pytest_lsp import LanguageClient

from rulelens.lsp import protocol
from rulelens.rules.perfile import cell_mark
from rulelens.rules.tracker import DORMANT_NOTE

from .conftest import Demo, cli_agent_json, cli_json, hover, lenses, open_doc, request

DEEP = "src/app/handlers/orders.py"


async def test_code_lens_title_and_command(client: LanguageClient, demo: Demo) -> None:
    """One lens, per agent, for the workspace folder: the same headline as the sidebar."""
    uri = demo.uri(DEEP)
    open_doc(client, uri, language="python")
    got = await lenses(client, uri)
    assert got is not None and len(got) == 1
    lens = got[0]
    assert lens.range.start == types.Position(0, 0)
    assert lens.command is not None
    payload = await request(client, protocol.AGENTS_FOR_FILE, {"uri": uri})
    title = lens.command.title
    # Per agent: the files it loads and what its start costs (chain --json's tokens.start).
    grok_start = cli_agent_json(demo, demo.deep_file, "grok")["tokens"]["start"]
    assert grok_start > 100
    assert title.startswith(f"Grok 5 · {grok_start} tok · Claude 3 · "), title
    assert re.match(r"Grok 5 · \d+ tok · Claude 3 · \d+ tok · Codex 1 · \d+ tok · Cursor 4"
                    r" · \d+ tok", title), title
    assert "from " not in title     # started in the workspace folder: not named
    assert len(title) <= 100        # one line; every agent is in the hover
    shown, _, more = title.partition(" · +")
    assert payload["headline"].startswith(shown)   # the same counts as the sidebar's
    hidden = payload["headline"].count(" tok") - shown.count(" tok")
    assert (more == f"{hidden} more") if hidden else not more
    assert lens.command.command == protocol.SHOW_CHAIN
    assert list(lens.command.arguments or []) == [uri]
    # The command returns the same payload as rulelens/chain.
    shown = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=protocol.SHOW_CHAIN, arguments=[uri]))
    assert shown == await request(client, protocol.CHAIN, {"uri": uri})


async def test_hover_is_the_per_agent_table_for_the_same_start(client: LanguageClient,
                                                               demo: Demo) -> None:
    uri = demo.uri(DEEP)
    open_doc(client, uri, language="python")
    result = await hover(client, uri, 0, 3)
    assert result is not None and isinstance(result.contents, types.MarkupContent)
    assert result.contents.kind == types.MarkupKind.Markdown
    text = result.contents.value
    payload = await request(client, protocol.AGENTS_FOR_FILE, {"uri": uri})
    assert text.startswith(f"**{payload['headline']}** · sessions started in `./`")
    head = next(line for line in text.splitlines() if line.startswith("| file |"))
    names = [c.strip() for c in head.strip("|").split("|")][1:]
    assert names[:4] == ["Grokᶜ", "Claudeᵈ", "Codexᶜ", "Cursorᵈ"]  # with how sure each is
    body = [line for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| file |")]
    assert len(body) == len(payload["rows"])
    for line, row in zip(body, payload["rows"], strict=True):
        cells = [c.strip() for c in line.strip("|").split("|")][1:]
        # The table tells "not loaded" apart by why (trust, below, dup, off, scope, no).
        assert cells[:len(row["cells"])] == [cell_mark(c["when"], c["why"])
                                             for c in row["cells"]], line
    # The chain from the file's own folder is not mixed in (it is `rulelens chain FILE`).
    assert "7 rules from src/app/handlers/" not in text and "Tracker view" not in text
    # Off line 0 of a source file there is nothing to say.
    assert await hover(client, uri, 1, 0) is None


async def test_chain_request_equals_cli_json(client: LanguageClient, demo: Demo) -> None:
    for rel in (DEEP, "AGENTS.md", "docs/README.md"):
        uri = demo.uri(rel)
        open_doc(client, uri)
        payload = await request(client, protocol.CHAIN, {"uri": uri})
        tracker = payload.pop("tracker")
        assert payload == cli_json(demo, demo.repo / rel), rel
        assert tracker["note"] == DORMANT_NOTE


async def test_render_is_the_injected_text(client: LanguageClient, demo: Demo) -> None:
    uri = demo.uri(DEEP)
    open_doc(client, uri)
    got = await request(client, protocol.RENDER, {"uri": uri})
    cli = subprocess.run([sys.executable, "-m", "rulelens", "render", str(demo.deep_file)],
                         env=demo.env, capture_output=True, check=True)
    assert got["text"].encode("utf-8") == cli.stdout
    assert got["text"].startswith("\n\n<system-reminder>\n")
    assert f"## From: {demo.repo / 'src/app/AGENTS.md'}\n" in got["text"]


async def test_tracker_split_for_a_subdirectory(client: LanguageClient, demo: Demo) -> None:
    uri = demo.uri(DEEP)
    open_doc(client, uri, language="python")
    tracker = (await request(client, protocol.CHAIN, {"uri": uri}))["tracker"]
    root_chain = cli_json(demo, demo.repo)
    assert tracker["agent_cwd"] == str(demo.repo)
    assert tracker["session_files"] == [f["path"] for f in root_chain["files"]]
    # Deepest directory first, as the tracker walks upward.
    assert tracker["mentioned_by_path"] == [str(demo.repo / "src/app/AGENTS.md"),
                                            str(demo.repo / "src/AGENTS.md")]
    assert tracker["note"] == DORMANT_NOTE
    # The setting moves the agent's start directory: src/AGENTS.md now loads at start.
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"rulelens": {"agentCwd": "src"}}))
    tracker = (await request(client, protocol.CHAIN, {"uri": uri}))["tracker"]
    assert tracker["agent_cwd"] == str(demo.repo / "src")
    assert str(demo.repo / "src/AGENTS.md") in tracker["session_files"]
    assert tracker["mentioned_by_path"] == [str(demo.repo / "src/app/AGENTS.md")]
    # Every headline view names the moved start directory once.
    (lens,) = await lenses(client, uri) or []
    assert lens.command is not None and lens.command.title.startswith("from src/: Grok ")
    text = (await hover(client, uri)).contents.value  # type: ignore[union-attr]
    assert "sessions started in `src/`" in text


async def test_rule_file_lenses(client: LanguageClient, demo: Demo) -> None:
    """An instruction file's one lens: which agents started in the workspace folder read it."""
    cases = {
        "src/AGENTS.md": ("read by Cursor", "not by Grok, Claude, Codex"),
        ".grok/rules/security.md": ("read by Grok", None),
        "CLAUDE.local.md": ("read by Claude", None),
        ".cursor/rules/style.mdc": ("read by Cursor", None),
    }
    for rel, (reads, also) in cases.items():
        uri = demo.uri(rel)
        open_doc(client, uri, language="markdown")
        got = await lenses(client, uri)
        assert got is not None and len(got) == 1, rel
        title = got[0].command.title if got[0].command else ""
        assert title.startswith(f"from ./: {reads}"), (rel, title)
        if also:
            assert also in title, (rel, title)
    hover_text = (await hover(client, demo.uri("CLAUDE.local.md"))).contents.value  # type: ignore[union-attr]
    assert hover_text.startswith("**from ./: read by Claude")
    assert "sessions started in `./`" in hover_text


async def test_frontmatter_key_hovers(client: LanguageClient, demo: Demo) -> None:
    uri = demo.uri(".claude/rules/testing.md")
    open_doc(client, uri, language="markdown")
    result = await hover(client, uri, 1, 2)          # "paths:" on line 1
    assert result is not None
    text = result.contents.value  # type: ignore[union-attr]
    assert text.startswith("**Frontmatter `paths`**")
    assert "| Claude Code | A YAML list of globs" in text
    assert "Grok Build strips the frontmatter" in text
    assert await hover(client, uri, 2, 6) is None     # a list item, not a key
    assert await hover(client, uri, 5, 0) is None     # body
    uri = demo.uri(".grok/rules/security.md")
    open_doc(client, uri, language="markdown")
    text = (await hover(client, uri, 1, 0)).contents.value  # type: ignore[union-attr]
    assert text.startswith("**Frontmatter `description`**") and "| Cursor |" in text


async def test_unopened_and_foreign_uris_answer_null(client: LanguageClient,
                                                     demo: Demo) -> None:
    never = demo.uri(DEEP)
    for uri in (never, "untitled:Untitled-1", "vscode-vfs://github/acme/demo/AGENTS.md"):
        assert await request(client, protocol.CHAIN, {"uri": uri}) is None
        assert await request(client, protocol.RENDER, {"uri": uri}) is None
        assert not await lenses(client, uri)
        assert await hover(client, uri) is None
