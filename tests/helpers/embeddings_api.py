"""A loopback stand-in for a remote OpenAI-compatible ``/v1/embeddings`` endpoint.

A real HTTP server on 127.0.0.1 (never a mock object): the unit tests of the ``api``
embedder and the LSP/CLI memory tests both talk to it over real sockets. Each test decides
what to answer through a ``respond`` function; :func:`fake_vec` gives deterministic
vectors in which similar texts are near each other.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def fake_vec(text: str, dim: int) -> list[float]:
    """Signed feature hashing of words and character trigrams, L2-normalised: similar
    texts, near vectors."""
    v = [0.0] * dim
    toks = re.findall(r"\w+", text.lower())
    for f in toks + [t[i : i + 3] for t in toks for i in range(max(1, len(t) - 2))]:
        h = hashlib.blake2b(f.encode(), digest_size=8).digest()
        v[int.from_bytes(h[:4], "little") % dim] += 1.0 if h[4] & 1 else -1.0
    n = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / n for x in v]


@dataclass
class Answer:
    """One answer: status, JSON body, extra headers; ``delay_s`` before answering."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


#: ``respond(path, headers, json_body) -> Answer``, called on the server's thread.
Responder = Callable[[str, dict[str, str], Any], Answer]


@contextmanager
def loopback_server(respond: Responder) -> Iterator[str]:
    """Serve ``respond`` on a free loopback port; yields the base URL ``http://…/v1``."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            answer = respond(self.path, dict(self.headers), json.loads(raw or b"{}"))
            if answer.delay_s:
                time.sleep(answer.delay_s)
            payload = json.dumps(answer.body).encode()
            try:
                self.send_response(answer.status)
                for key, value in answer.headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except OSError:
                pass  # the client gave up (a timeout test)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
