"""Shared parts of the memory LSP tests: a demo home with its own cache, the CLI, and a
loopback OpenAI-compatible embeddings server (a real HTTP server, never a mock object).
"""

from __future__ import annotations

import asyncio
import json
import pathlib
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pytest_lsp import LanguageClient

from helpers.embeddings_api import Answer, fake_vec, loopback_server

from .conftest import Demo, make_demo, request

WORKSPACE_DIR = "demo-shop-5a7bd946"   # the demo origin acme/demo-shop, byte-exact name


@dataclass
class MemDemo:
    demo: Demo
    cache: pathlib.Path

    @property
    def env(self) -> dict[str, str]:
        return self.demo.env

    @property
    def repo(self) -> pathlib.Path:
        return self.demo.repo

    @property
    def memory(self) -> pathlib.Path:
        return self.demo.grok_home / "memory"

    @property
    def workspace_dir(self) -> pathlib.Path:
        return self.memory / WORKSPACE_DIR

    @property
    def ws(self) -> str:
        return self.demo.repo.as_uri()


def make_memdemo(tmp: pathlib.Path) -> MemDemo:
    demo = make_demo(tmp)
    cache = tmp / "rulelens-cache"
    demo.env["RULELENS_CACHE_DIR"] = str(cache)
    return MemDemo(demo, cache)


def cli(md: MemDemo, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rulelens", "memory", *args],
                          cwd=md.repo, env=md.env, capture_output=True, text=True, check=check)


def cli_json(md: MemDemo, *args: str) -> Any:
    return json.loads(cli(md, *args, "--json").stdout)


async def search(client: LanguageClient, md: MemDemo, query: str, **extra: Any) -> Any:
    return await request(client, "rulelens/memorySearch",
                         {"query": query, "workspaceUri": md.ws, **extra})


def comparable(payload: dict[str, Any]) -> dict[str, Any]:
    """A search payload without its scores (compare those with :func:`same_search`)."""
    out = dict(payload)
    out["results"] = [{k: v for k, v in r.items() if k not in ("score", "raw_score")}
                      for r in payload["results"]]
    return out


def same_search(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal payloads, scores within 1e-5: session decay uses the clock, and two calls a
    few seconds apart differ around the 7th decimal (half-life 30 days)."""
    if comparable(a) != comparable(b):
        return False
    return all(abs(x[k] - y[k]) <= 1e-5 for x, y in zip(a["results"], b["results"], strict=True)
               for k in ("score", "raw_score"))


async def eventually(check: Any, timeout: float, step: float = 0.1) -> Any:
    """Poll ``await check()`` until it returns a truthy value or ``timeout`` passes."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = await check()
        if value or loop.time() >= deadline:
            return value
        await asyncio.sleep(step)


@dataclass
class Embeddings:
    """The loopback ``/v1/embeddings`` server; ``calls`` holds each request's input list."""

    base_url: str
    calls: list[list[str]] = field(default_factory=list)
    #: Seconds each answer waits (a slow endpoint, to make background work last).
    delay: list[float] = field(default_factory=lambda: [0.0])

    def respond(self, path: str, headers: dict[str, str], body: Any) -> Answer:
        texts = list(body["input"])
        self.calls.append(texts)
        dim = int(body.get("dimensions") or 64)
        data = [{"object": "embedding", "index": i, "embedding": fake_vec(t, dim)}
                for i, t in enumerate(texts)]
        return Answer(200, {"object": "list", "data": data, "model": body["model"]},
                      delay_s=self.delay[0])


def embeddings_server() -> Iterator[Embeddings]:
    """A fixture body: unit vectors for every input, after ``delay[0]`` seconds."""
    api = Embeddings("")
    with loopback_server(api.respond) as url:
        api.base_url = url
        yield api


def api_config(md: MemDemo, base_url: str, dimensions: int = 64) -> None:
    """Configure the agent's ``[memory.embedding]`` (which means the ``api`` embedder)."""
    config = md.demo.grok_home / "config.toml"
    config.write_text(config.read_text() + "\n[memory.embedding]\nmodel = \"fake-embed\"\n"
                      f"base_url = \"{base_url}\"\ndimensions = {dimensions}\n")
