"""Benchmark: how soon a memory note written on disk is searchable in ``rulelens serve``.

Builds the demo workspace plus ``--sessions`` generated session logs in a temp dir, starts
the server over stdio with pygls' client (a first search builds the index), then per round:

* ``explicit``  write a new session note, then at once ask ``rulelens.reindexMemory``: the
                indexing work itself plus one round trip (the baseline, same run);
* ``watch``     write a new session note and wait for ``rulelens/memoryIndexed`` naming
                it, with no request: the watcher's latency (debounce included);
* ``delete``    delete a note and wait for the notification that removes it.

Prints p50/p95 in milliseconds and ratios to the baseline. Target: watch p95 < 1000 ms.

    .venv/bin/python bench/memory_watch.py [--sessions 300] [--rounds 20] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "demo"))
from build import build  # noqa: E402

from _common import pct, start_server, stop_server  # noqa: E402

WORKSPACE = "demo-shop-5a7bd946"
CAPS = types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=False))


def note_text(i: int) -> str:
    return (f"## Session Summary\n\n- **Date:** 2026-12-{i % 28 + 1:02d}\n\n## Topics\n\n"
            + "".join(f"{j}. topic {i}-{j}: the widget cache was rebuilt after a schema bump\n"
                      for j in range(20)))


class Bench:
    def __init__(self, env: dict[str, str], repo: Path, sessions: Path) -> None:
        self.env, self.repo, self.sessions = env, repo, sessions
        self.client = LanguageClient("rulelens-bench", "0")
        self.waiting: dict[str, asyncio.Future[float]] = {}

        @self.client.feature("rulelens/memoryIndexed")
        def indexed(params: Any) -> None:
            now = time.perf_counter()
            for key in ("reindexed", "removed"):
                for path in getattr(params, key, None) or []:
                    fut = self.waiting.pop(f"{key}:{path}", None)
                    if fut is not None and not fut.done():
                        fut.set_result(now)

    async def start(self) -> None:
        await start_server(self.client, self.repo, self.env, CAPS)
        t = time.perf_counter()
        await self.client.protocol.send_request_async(
            "rulelens/memorySearch", {"query": "widget cache", "workspaceUri": self.repo.as_uri()})
        print(f"first search (builds the index): {(time.perf_counter() - t) * 1000:.0f} ms")
        await asyncio.sleep(1.0)  # let the watcher arm

    async def stop(self) -> None:
        await stop_server(self.client)

    def expect(self, key: str, path: Path) -> asyncio.Future[float]:
        fut: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting[f"{key}:{path}"] = fut
        return fut

    async def explicit(self, i: int) -> float:
        path = self.sessions / f"2026-12-01-explicit-{i:04d}abcd.md"
        fut = self.expect("reindexed", path)      # the watcher will announce it later
        t = time.perf_counter()
        path.write_text(note_text(i))
        await self.client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="rulelens.reindexMemory", arguments=[{"workspaceUri": self.repo.as_uri()}]))
        took = time.perf_counter() - t
        self.waiting.pop(f"reindexed:{path}", None)
        fut.cancel()
        await asyncio.sleep(0.6)                   # let the watcher's own batch pass
        return took

    async def watch(self, i: int) -> float:
        path = self.sessions / f"2026-12-02-watch-{i:04d}abcd.md"
        fut = self.expect("reindexed", path)
        t = time.perf_counter()
        path.write_text(note_text(i))
        return await asyncio.wait_for(fut, 30) - t

    async def delete(self, i: int) -> float:
        path = self.sessions / f"2026-12-02-watch-{i:04d}abcd.md"
        fut = self.expect("removed", path)
        t = time.perf_counter()
        path.unlink()
        return await asyncio.wait_for(fut, 30) - t


async def run(args: argparse.Namespace, dest: Path) -> None:
    built = build(str(dest / "demo"))
    home, repo = Path(built["home"]), Path(built["repo"])
    sessions = home / ".grok" / "memory" / WORKSPACE / "sessions"
    for i in range(args.sessions):
        (sessions / f"2026-10-{i % 28 + 1:02d}-gen-{i:05d}0000.md").write_text(note_text(i))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GROK_", "XDG_"))}
    env.update(HOME=str(home), GROK_HOME=str(home / ".grok"),
               RULELENS_CACHE_DIR=str(dest / "cache"), XDG_CONFIG_HOME=str(dest / "xdg"))
    bench = Bench(env, repo, sessions)
    await bench.start()
    try:
        results: dict[str, list[float]] = {"explicit": [], "watch": [], "delete": []}
        for i in range(args.rounds):
            results["explicit"].append(await bench.explicit(i))
            results["watch"].append(await bench.watch(i))
            results["delete"].append(await bench.delete(i))
    finally:
        await bench.stop()
    base = statistics.median(results["explicit"])
    print(f"{args.sessions + 5} memory files, {args.rounds} rounds"
          " (watchfiles step 50 ms, debounce cap 200 ms)")
    for name, values in results.items():
        ms = [v * 1000 for v in values]
        print(f"{name:<9} p50 {pct(ms, 0.5):7.1f} ms  p95 {pct(ms, 0.95):7.1f} ms"
              f"  ({statistics.median(values) / base:.1f}x explicit)")
    p95 = pct([v * 1000 for v in results["watch"]], 0.95)
    print(f"target watch p95 < 1000 ms: {'met' if p95 < 1000 else 'NOT met'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--keep", metavar="DIR")
    args = parser.parse_args()
    dest = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="rl-watch-bench-"))
    try:
        asyncio.run(run(args, dest))
    finally:
        if not args.keep:
            shutil.rmtree(dest, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
