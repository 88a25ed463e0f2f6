"""Shared parts of the hostile-memory tests: the demo memory home, the memory CLI under a
timeout (a hang fails the test), the real server over stdio, and a tree fingerprint."""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from pytest_lsp import LanguageClient

from lsp.conftest import request, start_client, stop_client
from lsp.memory_fixtures import WORKSPACE_DIR, MemDemo, make_memdemo

__all__ = [
    "TIMEOUT_S",
    "WORKSPACE_DIR",
    "MemDemo",
    "cli",
    "cli_json",
    "fingerprint",
    "make_memdemo",
    "request",
    "server",
]

#: Every child process and every request gets this long; a hang is a failure.
TIMEOUT_S = 60


def cli(md: MemDemo, *args: str, env: dict[str, str] | None = None,
        prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """``rulelens memory ARGS`` as a real process, killed after :data:`TIMEOUT_S`."""
    return subprocess.run([*prefix, sys.executable, "-m", "rulelens", "memory", *args],
                          cwd=md.repo, env=env or md.env, capture_output=True, text=True,
                          timeout=TIMEOUT_S, check=False)


def cli_json(md: MemDemo, *args: str, env: dict[str, str] | None = None) -> Any:
    proc = cli(md, *args, "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


@asynccontextmanager
async def server(md: MemDemo, spec: str = "neovim",
                 env: dict[str, str] | None = None) -> AsyncIterator[LanguageClient]:
    client = await start_client(env or md.env, [md.repo], spec)
    try:
        yield client
    finally:
        await stop_client(client)


def fingerprint(root: pathlib.Path) -> dict[str, tuple[str, int, int]]:
    """Every entry under ``root``: (kind or sha256, size, mtime_ns), links not followed."""
    out: dict[str, tuple[str, int, int]] = {}
    for dirpath, dirnames, names in os.walk(root):
        for name in dirnames + names:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            if os.path.islink(path):
                kind = "link:" + os.readlink(path)
            elif os.path.isfile(path):
                kind = hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()
            else:
                kind = "dir"
            out[os.path.relpath(path, root)] = (kind, st.st_size, st.st_mtime_ns)
    return out
