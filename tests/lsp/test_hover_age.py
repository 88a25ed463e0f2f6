"""The line-0 hover tells how old each loaded instruction file is and how many commits
touched what it governs since (issue 23 item 5): read from git in the background, so the
first hover says it is reading and a later one shows the ages. Real git, the real server."""

from __future__ import annotations

import re
import subprocess

from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers.waiting import until

from .conftest import Demo, hover, open_doc

DEEP = "src/app/handlers/orders.py"


def _git(demo: Demo, *args: str) -> None:
    subprocess.run(["git", "-C", str(demo.repo), *args], check=True, env=demo.env,
                   capture_output=True)


async def test_hover_shows_the_age_of_loaded_files(client: LanguageClient, demo: Demo) -> None:
    (demo.repo / "src" / "app" / "handlers" / "refunds.py").write_text("x = 1\n")
    _git(demo, "add", "-A")
    _git(demo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "code")
    uri = demo.uri(DEEP)
    open_doc(client, uri, language="python")

    async def aged() -> str | None:
        got = await hover(client, uri)
        assert got is not None and isinstance(got.contents, types.MarkupContent)
        text = got.contents.value
        return text if "**Age** (from git)" in text and "reading the git" not in text else None

    text = await until(aged, "the hover's ages")
    # The root AGENTS.md governs the whole repository: one commit touched it since (the
    # demo's own commit changed it; the new code commit came after).
    line = next(x for x in text.splitlines() if x.startswith("- `AGENTS.md`"))
    assert re.search(r": changed .+; 1 commit to \. since$", line), line
