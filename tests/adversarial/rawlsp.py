"""A raw JSON-RPC client for ``rulelens serve``: it sends whatever bytes a test asks for.

pytest-lsp's typed client cannot send params that do not match lsprotocol's types, a
malformed frame, or a request before ``initialize``; this one can. One thread reads the
server's stdout into per-id reply lists (so a second reply to one id is seen), answers
the server's own requests (``workspace/codeLens/refresh``, progress creation) with
``null``, and keeps notifications. Every wait has a timeout; ``close`` kills the process.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import IO, Any

from lsp.conftest import demo_env  # the fake HOME/GROK_HOME/XDG environment the LSP tests use

SERVER = [sys.executable, "-m", "rulelens", "serve", "--stdio"]
MISSING: Any = object()   # "send no params member at all"


class NoReply(AssertionError):
    pass


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class RawServer:
    def __init__(self, env: Mapping[str, str], stderr: int | IO[bytes] | None = None,
                 cwd: str | None = None) -> None:
        self.proc = subprocess.Popen(
            SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=stderr if stderr is not None else subprocess.DEVNULL,
            env=dict(env), cwd=cwd)
        self.replies: dict[Any, list[dict[str, Any]]] = {}
        self.notifications: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        self._write = threading.Lock()
        self._next_id = 0
        self._eof = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # ---------------------------------------------------------------- sending
    def send_bytes(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        with self._write:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def send(self, message: Any) -> None:
        self.send_bytes(frame(json.dumps(message).encode()))

    def request(self, method: str, params: Any = MISSING, msg_id: Any = None) -> Any:
        """Send a request; its id (a fresh integer unless given)."""
        if msg_id is None:
            self._next_id += 1
            msg_id = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not MISSING:
            message["params"] = params
        self.send(message)
        return msg_id

    def notify(self, method: str, params: Any = MISSING) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not MISSING:
            message["params"] = params
        self.send(message)

    # --------------------------------------------------------------- replies
    def reply(self, msg_id: Any, timeout: float = 20) -> dict[str, Any]:
        """The (first) reply to ``msg_id``; raises ``NoReply`` after ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self.replies.get(msg_id):
                left = deadline - time.monotonic()
                if left <= 0 or self._eof:
                    raise NoReply(f"no reply to {msg_id!r} (server exited: {self._eof})")
                self._cond.wait(left)
            return self.replies[msg_id][0]

    def call(self, method: str, params: Any = MISSING, timeout: float = 20) -> dict[str, Any]:
        return self.reply(self.request(method, params), timeout)

    def result(self, method: str, params: Any = MISSING, timeout: float = 20) -> Any:
        answer = self.call(method, params, timeout)
        assert "error" not in answer, answer
        return answer["result"]

    def error_code(self, method: str, params: Any = MISSING, timeout: float = 20) -> int | None:
        answer = self.call(method, params, timeout)
        return answer["error"]["code"] if "error" in answer else None

    def reply_counts(self) -> dict[Any, int]:
        with self._cond:
            return {k: len(v) for k, v in self.replies.items()}

    # -------------------------------------------------------------- lifecycle
    def initialize(self, root: pathlib.Path | None, options: Any = None) -> dict[str, Any]:
        params: dict[str, Any] = {"processId": os.getpid(), "capabilities": {},
                                  "rootUri": root.as_uri() if root else None}
        if root is not None:
            params["workspaceFolders"] = [{"uri": root.as_uri(), "name": root.name}]
        if options is not None:
            params["initializationOptions"] = options
        answer = self.call("initialize", params)
        assert "result" in answer, answer
        self.notify("initialized", {})
        return dict(answer["result"])

    def open(self, path: pathlib.Path, text: str | None = None) -> str:
        uri = path.as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "plaintext", "version": 1,
            "text": path.read_text() if text is None else text}})
        return uri

    def close_doc(self, uri: str) -> None:
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def wait_exit(self, timeout: float) -> int:
        """The exit code; raises ``subprocess.TimeoutExpired`` if still running."""
        return self.proc.wait(timeout)

    def shutdown_and_exit(self, timeout: float = 5) -> int:
        assert "error" not in self.call("shutdown")
        self.notify("exit")
        return self.wait_exit(timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    # ---------------------------------------------------------------- reading
    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while True:
                length = None
                while True:
                    line = out.readline()
                    if not line:
                        return
                    if line == b"\r\n":
                        break
                    name, _, value = line.decode().partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                assert length is not None, "the server sent a frame without Content-Length"
                message = json.loads(out.read(length))
                self._dispatch(message)
        finally:
            with self._cond:
                self._eof = True
                self._cond.notify_all()

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:       # the server asks us something
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            return
        with self._cond:
            if "method" in message:
                self.notifications.append(message)
            else:
                self.replies.setdefault(message.get("id"), []).append(message)
            self._cond.notify_all()


@contextmanager
def raw_server(env: Mapping[str, str], **kwargs: Any) -> Iterator[RawServer]:
    server = RawServer(env, **kwargs)
    try:
        yield server
    finally:
        server.close()


def make_workspace(base: pathlib.Path, files: int = 3) -> tuple[pathlib.Path, dict[str, str]]:
    """A real, trusted git repository with two instruction files and ``files`` source
    files, and an environment whose HOME, GROK_HOME and XDG dirs all lie under ``base``."""
    home, repo = base / "home", base / "repo"
    (home / ".grok" / "memory").mkdir(parents=True)
    (repo / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30,
                   env={"PATH": os.environ.get("PATH", ""), "HOME": str(home)})
    # The user said yes to `grok --trust` once (Grok >= 1.0.45 loads project files only
    # in a trusted folder), as examples/demo/build.py records it.
    (home / ".grok" / "trusted_folders.toml").write_text(
        f"[folders.{json.dumps(os.path.realpath(repo))}]\ntrusted = true\n"
        "decided_at = 1759190400\n")
    (repo / "AGENTS.md").write_text("# Project rules\n\nRun the tests.\n")
    (repo / "src" / "AGENTS.md").write_text("# src rules\n\nKeep functions short.\n")
    for i in range(files):
        (repo / "src" / f"f{i}.py").write_text(f"X = {i}\n")
    return repo, demo_env(home, base)
