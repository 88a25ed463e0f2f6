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
from rulelens.rules.tracker import DORMANT_NOTE

from .conftest import Demo, cli_json, hover, lenses, open_doc, request

DEEP = "src/app/handlers/orders.py"


async def test_code_lens_title_and_command(client: LanguageClient, demo: Demo) -> None:
    uri = demo.uri(DEEP)
    open_doc(client, uri, language="python")
    got = await lenses(client, uri)
    # The Grok chain lens, then (the demo has files for every agent) the per-agent counts.
    assert got is not None and len(got) == 2
    assert got[1].command is not None and got[1].command.title.startswith("from ./: Grok ")
    lens = got[0]
    assert lens.range.start == types.Position(0, 0)
    assert lens.command is not None
    assert lens.command.title == ("7 rules from src/app/handlers/ · deepest: src/app/AGENTS.md"
                                     " · 6 skipped")
    assert lens.command.command == protocol.SHOW_CHAIN
    assert list(lens.command.arguments or []) == [uri]
    # The command returns the same payload as rulelens/chain.
    shown = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=protocol.SHOW_CHAIN, arguments=[uri]))
    assert shown == await request(client, protocol.CHAIN, {"uri": uri})


async def test_hover_table_in_load_order(client: LanguageClient, demo: Demo) -> None:
    uri = demo.uri(DEEP)
    open_doc(client, uri, language="python")
    result = await hover(client, uri, 0, 3)
    assert result is not None and isinstance(result.contents, types.MarkupContent)
    assert result.contents.kind == types.MarkupKind.Markdown
    text = result.contents.value
    rows = re.findall(r"^\| (\d+) \| \[([^\]]+)\]\(([^)]+)\) \| (\w+) \| (\w+) \| ([^|]+) \|"
                      r" (\d+) \|$", text, re.M)
    expected = cli_json(demo, demo.deep_file)["files"]
    assert [(int(r[0]), r[3], r[4], int(r[6])) for r in rows] == [
        (f["precedence"], f["role"], f["kind"], f["tokens"]) for f in expected]
    assert [r[1] for r in rows] == [
        "~/.grok/rules/personal.md", "~/.claude/CLAUDE.md", "AGENTS.md",
        ".grok/rules/security.md", ".claude/rules/testing.md", "src/AGENTS.md",
        "src/app/AGENTS.md"]
    assert rows[2][2] == (demo.repo / "AGENTS.md").as_uri()          # links open the files
    assert rows[0][5] == "85 B"
    total = sum(f["tokens"] for f in expected)
    assert f"| | **total** | | | **{sum(f['bytes'] for f in expected)} B** | **{total}** |" in text
    skipped = text[text.index("**Not loaded (6)**"):]
    for reason, name in [("gitignored", "CLAUDE.local.md"),
                         ("nested-in-rules-dir", ".grok/rules/drafts/caching.md"),
                         ("unrecognized-name", ".cursor/rules/style.mdc"),
                         ("unrecognized-name", "AGENTS.local.md")]:
        assert re.search(rf"^- \[{re.escape(name)}\]\([^)]+\) — `{reason}`: \S", skipped, re.M)
    assert "ignored by .gitignore:2" in skipped
    assert "**Tracker view**" in text and DORMANT_NOTE in text
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
    text = (await hover(client, uri)).contents.value  # type: ignore[union-attr]
    assert "Only mentioned by path when the agent touches this file (1)" in text


async def test_rule_file_lenses(client: LanguageClient, demo: Demo) -> None:
    def tracked(rel: str) -> int:
        out = subprocess.run(["git", "ls-files", "--", rel], cwd=demo.repo, env=demo.env,
                             capture_output=True, text=True, check=True).stdout
        return len(out.splitlines())

    cases = {
        "src/AGENTS.md": f"Loaded for {tracked('src')} files here · position 6 of 6 from src/",
        ".grok/rules/security.md":
            f"Loaded for {tracked('.')} files here · position 4 of 5 from ./",
        "CLAUDE.local.md": "Not loaded: gitignored by .gitignore:2",
        ".grok/rules/drafts/caching.md": "Not loaded: nested inside a rules directory",
        ".cursor/rules/style.mdc": "Not loaded: Grok does not read this name",
    }
    for rel, title in cases.items():
        uri = demo.uri(rel)
        open_doc(client, uri, language="markdown")
        got = await lenses(client, uri)
        assert got is not None and len(got) == 3, rel
        assert got[0].command is not None and got[0].command.title == title, rel
        assert got[1].command is not None and " rule" in got[1].command.title
        assert got[2].command is not None and got[2].command.title.startswith("from ./: read by")
    hover_text = (await hover(client, demo.uri("CLAUDE.local.md"))).contents.value  # type: ignore[union-attr]
    assert hover_text.startswith("**Not loaded: gitignored by .gitignore:2** — ignored by")


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
