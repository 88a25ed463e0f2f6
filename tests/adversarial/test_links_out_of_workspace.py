"""An instruction file that is itself a link out of the repository (``CLAUDE.md ->
~/.ssh/id_rsa``): the agents follow it, so RuleLens still lists it as loaded, but no byte of
the target reaches the editor — not in rulelens/chain, rulelens/agentsForFile or
rulelens/render (issue 19). The real server over stdio."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

from lsp.conftest import demo_env, open_doc, request, start_client, stop_client
from rulelens.lsp import protocol

SECRET = "SECRET-KEY-MATERIAL-7f3a"


async def test_a_link_out_of_the_workspace_is_listed_but_never_shown(
        tmp_path: pathlib.Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".grok").mkdir()
    (home / ".ssh" / "id_rsa").write_text(f"-----BEGIN KEY-----\n{SECRET}\n")
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "CLAUDE.md").symlink_to(home / ".ssh" / "id_rsa")
    (repo / "AGENTS.md").write_text("# Rules\n\n- Use tabs.\n")
    (repo / "app.py").write_text("x = 1\n")
    env = {**demo_env(home, tmp_path), "GROK_FOLDER_TRUST": "0"}
    client = await start_client(env, [repo], "visual-studio-code")
    try:
        uri = (repo / "app.py").as_uri()
        open_doc(client, uri, language="python")
        replies = [await request(client, protocol.AGENTS_FOR_FILE, {"uri": uri}),
                   await request(client, protocol.CHAIN, {"uri": uri}),
                   await request(client, protocol.RENDER, {"uri": uri})]
        text = json.dumps(replies)
        assert SECRET not in text and "BEGIN KEY" not in text
        agents, chain, render = replies
        claude = next(a for a in agents["agents"] if a["agent"].startswith("claude"))
        link = next(f for f in claude["files"] if f["path"] == str(repo / "CLAUDE.md"))
        assert link["content"] == "" and "link out of the workspace" in link["withheld"]
        # The ordinary file beside it is shown as usual.
        agents_md = next(f for f in chain["files"] if f["path"] == str(repo / "AGENTS.md"))
        assert "Use tabs." in agents_md["content"]
        assert render["text"] == "" and "link out of the workspace" in render["empty"]
    finally:
        await stop_client(client)
    assert os.path.islink(repo / "CLAUDE.md")   # nothing of the user's was changed
