"""Shared parts of the memory LSP tests: a demo home with its own cache, the CLI, and a
loopback OpenAI-compatible embeddings server (a real HTTP server, never a mock object).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import pathlib
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pytest_lsp import LanguageClient

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


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fake_vec(text: str, dim: int) -> list[float]:
    """Signed feature hashing of words and trigrams, L2-normalised: similar texts, near vectors."""
    v = [0.0] * dim
    toks = re.findall(r"\w+", text.lower())
    for f in toks + [t[i:i + 3] for t in toks for i in range(max(1, len(t) - 2))]:
        h = hashlib.blake2b(f.encode(), digest_size=8).digest()
        v[int.from_bytes(h[:4], "little") % dim] += 1.0 if h[4] & 1 else -1.0
    n = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / n for x in v]


@dataclass
class Embeddings:
    """A loopback ``/v1/embeddings`` server; ``calls`` holds each request's input list."""

    server: ThreadingHTTPServer
    calls: list[list[str]] = field(default_factory=list)
    #: Seconds each answer waits (a slow endpoint, to make background work last).
    delay: list[float] = field(default_factory=lambda: [0.0])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"


def embeddings_server() -> Iterator[Embeddings]:
    calls: list[list[str]] = []
    delay = [0.0]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            texts = list(body["input"])
            calls.append(texts)
            time.sleep(delay[0])
            dim = int(body.get("dimensions") or 64)
            data = [{"object": "embedding", "index": i, "embedding": fake_vec(t, dim)}
                    for i, t in enumerate(texts)]
            raw = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Embeddings(server, calls, delay)
    finally:
        server.shutdown()
        server.server_close()


def api_config(md: MemDemo, base_url: str, dimensions: int = 64) -> None:
    """Configure the agent's ``[memory.embedding]`` (which means the ``api`` embedder)."""
    config = md.demo.grok_home / "config.toml"
    config.write_text(config.read_text() + "\n[memory.embedding]\nmodel = \"fake-embed\"\n"
                      f"base_url = \"{base_url}\"\ndimensions = {dimensions}\n")
