"""pytest-lsp fixtures: the real server over stdio, on the demo workspace built into tmp.

Every test runs once with VS Code's and once with Neovim's client capabilities.
The server gets a fake HOME/GROK_HOME/XDG from the demo build, never the real home.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from helpers.waiting import until

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "demo"))
from build import build  # noqa: E402

if TYPE_CHECKING:
    from .memory_fixtures import Embeddings, MemDemo

CLIENTS = ("visual-studio-code", "neovim")
SERVER = [sys.executable, "-m", "rulelens", "serve", "--stdio"]


@dataclass
class Demo:
    repo: pathlib.Path
    home: pathlib.Path
    grok_home: pathlib.Path
    deep_file: pathlib.Path
    env: dict[str, str]

    def uri(self, rel: str) -> str:
        return (self.repo / rel).as_uri()


def demo_env(home: pathlib.Path, tmp: pathlib.Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GROK_", "XAI_", "XDG_", "GIT_"))}
    env.update(HOME=str(home), GROK_HOME=str(home / ".grok"),
               XDG_CONFIG_HOME=str(tmp / "xdg" / "config"),
               XDG_CACHE_HOME=str(tmp / "xdg" / "cache"),
               XDG_STATE_HOME=str(tmp / "xdg" / "state"),
               XDG_DATA_HOME=str(tmp / "xdg" / "data"),
               GIT_CONFIG_NOSYSTEM="1")
    return env


def make_demo(dest: pathlib.Path) -> Demo:
    built = build(str(dest / "demo"))
    home = pathlib.Path(built["home"])
    return Demo(pathlib.Path(built["repo"]), home, pathlib.Path(built["grok_home"]),
                pathlib.Path(built["deep_file"]), demo_env(home, dest))


@pytest.fixture
def demo(tmp_path: pathlib.Path) -> Demo:
    return make_demo(tmp_path)


# The memory tests' fixtures. Their helpers live in memory_fixtures, which imports this
# module, so they are imported where used rather than at the top.
@pytest.fixture
def md(tmp_path: pathlib.Path) -> MemDemo:
    """The demo with its own RuleLens cache dir."""
    from .memory_fixtures import make_memdemo
    return make_memdemo(tmp_path)


@pytest.fixture
def api() -> Iterator[Embeddings]:
    """A loopback OpenAI-compatible embeddings endpoint."""
    from .memory_fixtures import embeddings_server
    yield from embeddings_server()


def plain(value: Any) -> Any:
    """pygls ``Object`` namedtuples (custom results) -> dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def cli_json(demo: Demo, path: pathlib.Path) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-m", "rulelens", "chain", "--json", str(path)],
                         env=demo.env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def cli_agent_json(demo: Demo, path: pathlib.Path, agent: str) -> dict[str, Any]:
    """``rulelens chain --json --agent AGENT --cwd REPO PATH``: one agent's view, with its
    ``tokens``, for the start directory every headline view uses."""
    out = subprocess.run([sys.executable, "-m", "rulelens", "chain", "--json", "--agent",
                          agent, "--cwd", str(demo.repo), str(path)],
                         env=demo.env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


async def start_client(env: dict[str, str], folders: Sequence[pathlib.Path], spec: str,
                       command: Sequence[str] = SERVER,
                       options: dict[str, Any] | None = None) -> LanguageClient:
    config = ClientServerConfig(server_command=list(command), server_env=env)
    client = await config.start()
    assert isinstance(client, LanguageClient)
    refreshes: list[None] = []
    client.lens_refreshes = refreshes  # type: ignore[attr-defined]

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def _refresh(params: None) -> None:  # a real editor re-requests its lenses here
        refreshes.append(None)
    await client.initialize_session(types.InitializeParams(
        capabilities=pytest_lsp.client_capabilities(spec),
        root_uri=folders[0].as_uri() if folders else None,
        workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders],
        initialization_options=options))
    return client


async def stop_client(client: LanguageClient) -> None:
    await asyncio.wait_for(client.shutdown_session(), 20)
    await client.stop()


@pytest_asyncio.fixture(params=CLIENTS)
async def client(request: pytest.FixtureRequest, demo: Demo) -> AsyncIterator[LanguageClient]:
    c = await start_client(demo.env, [demo.repo], request.param)
    yield c
    await stop_client(c)


def open_doc(client: LanguageClient, uri: str, text: str | None = None,
             language: str = "plaintext") -> None:
    if text is None:
        text = pathlib.Path(uri[len("file://"):]).read_text(encoding="utf-8")
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1,
                                             text=text)))


async def lenses(client: LanguageClient, uri: str) -> list[types.CodeLens] | None:
    return await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)))


async def hover(client: LanguageClient, uri: str, line: int = 0,
                character: int = 0) -> types.Hover | None:
    return await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line, character)))


async def request(client: LanguageClient, method: str, params: Any) -> Any:
    return plain(await client.protocol.send_request_async(method, params))


def waiter(client: LanguageClient, method: str) -> asyncio.Future[Any]:
    """Listen BEFORE triggering: a fast notification is missed otherwise."""
    return asyncio.wrap_future(client.protocol.wait_for_notification(method))


async def watching(client: LanguageClient, path: pathlib.Path | str | None = None,
                   memory: bool = False, timeout: float = 20.0) -> dict[str, Any]:
    """Wait until the server reports its watch armed (``rulelens/serverStatus``):
    ``path`` among the watched paths, or any watch; with ``memory``, the memory directory."""
    async def armed() -> dict[str, Any] | None:
        status = await request(client, "rulelens/serverStatus", {})
        w = status.get("watching") or {}
        paths = [str(p) for p in w.get("paths", [])]
        ok = (str(path) in paths) if path is not None else bool(paths)
        if memory:
            ok = ok if path is not None else True
            ok = ok and bool(w.get("memory"))
        return status if ok else None

    what = f"the watch on {path or 'the workspace'}" + (" and memory" if memory else "")
    result: dict[str, Any] = await until(armed, what, timeout)
    return result
