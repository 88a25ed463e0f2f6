"""The first hour (issue 20) over the real server: empty states say why, and the headline
speaks only for the agents in use (no Grok without Grok files or ~/.grok)."""

from __future__ import annotations

import pathlib
import subprocess

from lsprotocol import types

from rulelens.lsp import protocol

from .conftest import demo_env, hover, lenses, open_doc, request, start_client, stop_client


def _workspace(tmp_path: pathlib.Path,
               files: dict[str, str]) -> tuple[pathlib.Path, dict[str, str]]:
    home = tmp_path / "home"
    home.mkdir()
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return repo, demo_env(home, tmp_path)


async def test_no_grok_headline_without_grok_files_or_home(tmp_path: pathlib.Path) -> None:
    always = "---\nalwaysApply: true\n---\nx\n"
    repo, env = _workspace(tmp_path, {"CLAUDE.md": "# Claude\n", "src/app.ts": "x\n",
                                      ".cursor/rules/style.mdc": always})
    client = await start_client(env, [repo], "visual-studio-code")
    try:
        uri = (repo / "src/app.ts").as_uri()
        open_doc(client, uri, language="typescript")
        got = await lenses(client, uri)
        assert got is not None and len(got) == 1 and got[0].command is not None
        title = got[0].command.title
        assert "Grok" not in title, title
        assert title.startswith("Claude 1"), title
        assert "Cursor 1" in title, title
        payload = await request(client, protocol.AGENTS_FOR_FILE, {"uri": uri})
        assert payload["lens"] == title and "Grok" not in payload["headline"]
        assert [a["agent"].split("@")[0] for a in payload["agents"]][:1] == ["claude"]
        shown = await hover(client, uri)
        assert shown is not None and isinstance(shown.contents, types.MarkupContent)
        assert shown.contents.value.startswith(f"**{payload['headline']}**")
    finally:
        await stop_client(client)


async def test_grok_headline_once_its_home_exists(tmp_path: pathlib.Path) -> None:
    repo, env = _workspace(tmp_path, {"CLAUDE.md": "# Claude\n", "src/app.ts": "x\n"})
    (pathlib.Path(env["HOME"]) / ".grok").mkdir()
    client = await start_client(env, [repo], "neovim")
    try:
        uri = (repo / "src/app.ts").as_uri()
        open_doc(client, uri, language="typescript")
        got = await lenses(client, uri)
        assert got is not None and got[0].command is not None
        assert got[0].command.title.startswith("Grok "), got[0].command.title
    finally:
        await stop_client(client)


async def test_render_of_an_untrusted_folder_says_why(tmp_path: pathlib.Path) -> None:
    repo, env = _workspace(tmp_path, {"AGENTS.md": "# Rules\n", "src/app.py": "x\n"})
    client = await start_client(env, [repo], "visual-studio-code")
    try:
        uri = (repo / "src/app.py").as_uri()
        open_doc(client, uri, language="python")
        got = await request(client, protocol.RENDER, {"uri": uri})
        assert got["text"] == ""
        assert "withheld because the folder is not trusted" in got["empty"]
        assert "grok --trust" in got["empty"]
    finally:
        await stop_client(client)


async def test_render_with_content_has_no_empty_reason(tmp_path: pathlib.Path) -> None:
    repo, env = _workspace(tmp_path, {"AGENTS.md": "# Rules\n", "src/app.py": "x\n"})
    env["GROK_FOLDER_TRUST"] = "0"
    client = await start_client(env, [repo], "visual-studio-code")
    try:
        uri = (repo / "src/app.py").as_uri()
        open_doc(client, uri, language="python")
        got = await request(client, protocol.RENDER, {"uri": uri})
        assert "# Rules" in got["text"] and "empty" not in got
    finally:
        await stop_client(client)
