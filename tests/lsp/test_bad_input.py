"""Bad input: the server answers every request (empty where nothing applies) and stays up."""

from __future__ import annotations

import asyncio
import os
import pathlib
import subprocess
import sys
import sysconfig
from collections.abc import Iterator

import pytest
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from helpers.unprivileged import NOBODY, world_readable_tmp
from rulelens.lsp import protocol

from .conftest import (
    ROOT,
    Demo,
    hover,
    lenses,
    make_demo,
    open_doc,
    request,
    start_client,
    stop_client,
    waiter,
    watching,
)

DEEP = "src/app/handlers/orders.py"


async def _answers(client: LanguageClient, uri: str) -> dict[str, object]:
    """Every request kind for ``uri``; raises if any errors or hangs."""
    return {
        "lens": await lenses(client, uri),
        "hover": await hover(client, uri),
        "chain": await request(client, protocol.CHAIN, {"uri": uri}),
        "render": await request(client, protocol.RENDER, {"uri": uri}),
    }


async def _still_serving(client: LanguageClient, demo: Demo) -> None:
    uri = demo.uri(DEEP)
    open_doc(client, uri)
    got = await lenses(client, uri)
    # Still serving: the demo's one headline lens (Grok first: the demo has ~/.grok).
    assert got and got[0].command and got[0].command.title.startswith("Grok 5 · ")


async def test_bad_documents(client: LanguageClient, demo: Demo,
                             tmp_path: pathlib.Path) -> None:
    binary = demo.repo / "logo.bin"
    binary.write_bytes(bytes(range(256)) * 64 + b"\xff\xfe\x00\x00")
    open_doc(client, binary.as_uri(), binary.read_bytes().decode("latin-1"))
    got = await _answers(client, binary.as_uri())
    assert got["lens"] and got["chain"] is not None         # it is a file like any other

    outside = tmp_path / "elsewhere" / "AGENTS.md"
    outside.parent.mkdir()
    outside.write_text("# not in the workspace\n")
    open_doc(client, outside.as_uri())
    assert await _answers(client, outside.as_uri()) == {
        "lens": None, "hover": None, "chain": None, "render": None}
    sneaky = demo.repo.as_uri() + "/../elsewhere/AGENTS.md"   # path tricks stay outside too
    open_doc(client, sneaky, "x")
    assert (await _answers(client, sneaky))["chain"] is None

    for uri in ("untitled:Untitled-1", "vscode-vfs://github/acme/demo/AGENTS.md",
                "git:/x/AGENTS.md?%7B%7D", "file://otherhost/share/AGENTS.md"):
        open_doc(client, uri, "# scratch\n")
        assert await _answers(client, uri) == {
            "lens": None, "hover": None, "chain": None, "render": None}, uri

    for params in ({}, {"uri": 5}, {"uri": None}, [], None):   # not {uri: string}
        with pytest.raises(JsonRpcInvalidParams, match="uri"):
            await request(client, protocol.CHAIN, params)

    big = demo.repo / "docs" / "big.md"
    text = ("---\ndescription: big\n---\n" + "word " * 200 + "\n") * 20_000  # ~20 MB
    assert len(text) > 20_000_000
    big.write_text(text)
    open_doc(client, big.as_uri(), text, language="markdown")
    got = await _answers(client, big.as_uri())
    assert got["lens"] and got["chain"] is not None
    assert await hover(client, big.as_uri(), 1, 2) is None      # not a rule file
    await _still_serving(client, demo)


def _nobody_python() -> list[str] | None:
    """A Python the unprivileged user can run, with our packages importable."""
    site = sysconfig.get_paths()["purelib"]
    env_path = os.pathsep.join([str(ROOT / "server"), site])
    for exe in (sys.executable, "/usr/bin/python3"):
        probe = subprocess.run([*NOBODY, "env", f"PYTHONPATH={env_path}", exe, "-c",
                                "import rulelens.lsp.server"], capture_output=True)
        if probe.returncode == 0:
            return ["env", f"PYTHONPATH={env_path}", exe]
    return None


@pytest.fixture
def world_readable_demo() -> Iterator[Demo]:
    """tmp_path is private to root; the unprivileged server needs a readable workspace."""
    with world_readable_tmp("rulelens-lsp-") as base:
        try:
            yield make_demo(base)
        finally:
            for d, _dirs, _files in os.walk(base):
                os.chmod(d, 0o755)


@pytest.mark.parametrize("spec", ["visual-studio-code", "neovim"])
async def test_file_in_unreadable_directory(world_readable_demo: Demo, spec: str) -> None:
    demo = world_readable_demo
    secret = demo.repo / "src" / "secret"
    secret.mkdir()
    (secret / "AGENTS.md").write_text("# hidden\n")
    (secret / "keys.py").write_text("KEY = 1\n")
    os.chmod(secret, 0o000)
    command = [sys.executable, "-m", "rulelens", "serve"]
    if os.geteuid() == 0:                       # chmod does not stop root: drop privileges
        python = _nobody_python()
        assert python is not None, "no Python runnable as uid 65534 (needed to test EACCES)"
        command = [*NOBODY, *python, "-m", "rulelens", "serve"]
    client = await start_client(demo.env, [demo.repo], spec, command)
    try:
        uri = (secret / "keys.py").as_uri()
        open_doc(client, uri, "KEY = 1\n", language="python")
        got = await _answers(client, uri)
        chain = got["chain"]
        assert isinstance(chain, dict)
        unreadable = {s["path"]: s["detail"] for s in chain["skipped"]
                      if s["reason"] == "unreadable"}
        assert "permission denied" in unreadable[str(secret)]
        assert all(p.startswith(str(secret)) for p in unreadable)
        await _still_serving(client, demo)
        # The unreadable directory does not stop the watcher for the rest of the tree.
        deep = demo.uri(DEEP)
        fut = waiter(client, protocol.CHAIN_CHANGED)
        await watching(client, demo.repo)
        (demo.repo / "src/app/AGENTS.md").write_text("# changed\n")
        note = await asyncio.wait_for(fut, 20)
        assert deep in list(note.uris)
    finally:
        await stop_client(client)
