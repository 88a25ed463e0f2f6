"""Benchmark: code lens and hover latency of ``rulelens serve`` through a real LSP client.

Builds the synthetic repository of ``bench/chain.py`` (a real git repository with nested
instruction files, a realistic ``.gitignore`` and a fake home), starts the server over
stdio with pygls' client, opens 2,000 of its files and measures, per request:

* ``null``  a hover on an ``untitled:`` URI, answered without touching the disk: the
            transport round trip every request pays (the baseline, same run);
* ``cold``  the first request for each file on a fresh server (the subset whose
            directory was never resolved before is reported too);
* ``warm``  the same request again.

Code lens and hover each get their own fresh server, so each cold number is honest.
A third server runs ``--cycles`` (8,000) didOpen -> codeLens -> didClose cycles, each on
a file never opened before (after a warm-up of 1,000 others in the same directories):
nothing about a closed document may remain, so its RSS (VmRSS) must not grow with the
count. Then every server idles a second and its VmRSS is read.

With ``--with-session MIB`` (issue 22) the fake home also holds a Codex rollout of that
size recorded in the repository, and one more server answers lens and hover requests (cold
on new files and warm, alternating) while its ``rulelens/verify`` reads that rollout.

Prints p50/p95 in milliseconds, ratios to the baseline, the servers' peak RSS (VmHWM),
the RSS growth over the cycles and the idle RSS. Targets: warm p95 < 10 ms, cold p95 <
50 ms, peak RSS < 100 MB, growth over the cycles < 5 MB, idle RSS < 100 MB.

    .venv/bin/python bench/lsp.py [--files 2000] [--cycles 8000] [--keep DIR]
    .venv/bin/python bench/lsp.py --agents default   # no setting: the agents present
    .venv/bin/python bench/lsp.py --with-session 512  # also: latency during a session read
    .venv/bin/python bench/lsp.py --startup [--rounds 15]   # start-up only: bench/_startup.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _startup as startup
from _common import pct, start_server, stop_server
from chain import build_home, build_repo
from rulelens.lsp import protocol

CAPS = types.ClientCapabilities(
    workspace=types.WorkspaceClientCapabilities(
        code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True)),
    text_document=types.TextDocumentClientCapabilities(
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown])),
)


def pick_files(repo: Path, n: int) -> list[Path]:
    files: list[Path] = []
    for directory, dirs, names in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        files += [Path(directory) / name for name in sorted(names)]
    step = max(1, len(files) // n)
    return files[::step][:n]


def status_mb(pid: int, field: str) -> float:
    """``VmHWM`` (peak) or ``VmRSS`` (now) of a process, in MB."""
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def peak_rss_mb(pid: int) -> float:
    return status_mb(pid, "VmHWM")


def build_cycle_files(repo: Path, n: int, dirs: int = 40) -> list[Path]:
    """``n`` distinct small files under ``repo/cycles`` in ``dirs`` directories."""
    files = []
    for i in range(n):
        directory = repo / "cycles" / f"d{i % dirs:02d}"
        if i < dirs:
            directory.mkdir(parents=True, exist_ok=True)
            if i % 4 == 0:
                (directory / "AGENTS.md").write_text(f"# cycles {i}\n\nRules here.\n")
        path = directory / f"f{i:05d}.py"
        path.write_text(f"X = {i}\n")
        files.append(path)
    return files


async def timed(fn: Callable[[], Awaitable[object]]) -> float:
    t0 = time.perf_counter()
    result = await fn()
    elapsed = (time.perf_counter() - t0) * 1000
    if result is None:
        raise RuntimeError("empty answer: the file was not served")
    return elapsed


class Session:
    def __init__(self, repo: Path, env: dict[str, str], agents: str = "all") -> None:
        self.repo, self.env = repo, env
        self.options: dict[str, object] = (
            {} if agents == "default" else {"agents": agents if agents == "all"
                                            else agents.split(",")})
        self.client = LanguageClient("rulelens-bench", "0")

        @self.client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
        def _refresh(params: None) -> None:
            return None

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _diagnostics(params: types.PublishDiagnosticsParams) -> None:
            return None

        @self.client.feature(protocol.CHAIN_CHANGED)
        def _changed(params: object) -> None:  # a last-session verdict came in
            return None

    async def __aenter__(self) -> Session:
        await start_server(self.client, self.repo, self.env, CAPS, self.options)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await stop_server(self.client)

    @property
    def pid(self) -> int:
        assert self.client._server is not None
        return self.client._server.pid

    def open(self, path: Path) -> str:
        uri = path.as_uri()
        text = path.read_bytes().decode("utf-8", "replace")
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="plaintext",
                                                 version=1, text=text)))
        return uri

    def lens(self, uri: str) -> Callable[[], Awaitable[object]]:
        return lambda: self.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)))

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))

    async def idle_rss_mb(self) -> float:
        """VmRSS once the server has had a second with nothing to do."""
        await asyncio.sleep(1.0)
        return status_mb(self.pid, "VmRSS")

    async def documents(self) -> dict[str, int]:
        """The server's per-document table sizes (``rulelens/serverStatus``)."""
        status = await self.client.protocol.send_request_async(protocol.SERVER_STATUS, {})
        docs = status["documents"] if isinstance(status, dict) else status.documents
        return {k: int(v) for k, v in (docs.items() if isinstance(docs, dict)
                                       else docs._asdict().items())}

    def hover(self, uri: str) -> Callable[[], Awaitable[object]]:
        return lambda: self.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(0, 0)))

    async def null(self, n: int = 300) -> list[float]:
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri="untitled:bench", language_id="plaintext",
                                                 version=1, text="x")))
        out = []
        for _ in range(n):
            t0 = time.perf_counter()
            await self.hover("untitled:bench")()
            out.append((time.perf_counter() - t0) * 1000)
        return out


@dataclass
class Cycles:
    before: float
    after: float
    documents: dict[str, int]
    idle: float

    @property
    def growth(self) -> float:
        return self.after - self.before


async def cycles(repo: Path, env: dict[str, str], warm: list[Path],
                 counted: list[Path]) -> Cycles:
    """RSS before and after ``counted`` open -> codeLens -> close cycles, and at idle."""
    async with Session(repo, env) as s:
        for path in warm:
            await cycle(s, path)
        await asyncio.sleep(0.5)
        before = status_mb(s.pid, "VmRSS")
        for path in counted:
            await cycle(s, path)
        await asyncio.sleep(0.5)
        after = status_mb(s.pid, "VmRSS")
        return Cycles(before, after, await s.documents(), await s.idle_rss_mb())


async def cycle(s: Session, path: Path) -> None:
    uri = s.open(path)
    await timed(s.lens(uri))
    s.close(uri)


async def measure(kind: str, repo: Path, env: dict[str, str], files: list[Path],
                  results: dict[str, list[float]], agents: str) -> tuple[float, float]:
    async with Session(repo, env, agents) as s:
        results.setdefault("null", []).extend(await s.null())
        seen_dirs: set[Path] = set()
        uris = []
        for path in files:
            uri = s.open(path)
            uris.append(uri)
            request = s.lens(uri) if kind == "lens" else s.hover(uri)
            ms = await timed(request)
            results.setdefault(f"{kind} cold", []).append(ms)
            if path.parent not in seen_dirs:
                seen_dirs.add(path.parent)
                results.setdefault(f"{kind} cold, new dir", []).append(ms)
        for uri in uris:
            request = s.lens(uri) if kind == "lens" else s.hover(uri)
            results.setdefault(f"{kind} warm", []).append(await timed(request))
        return peak_rss_mb(s.pid), await s.idle_rss_mb()


def build_rollout(home: Path, repo: Path, mib: int) -> Path:
    """A Codex rollout recorded in ``repo`` under ``home/.codex/sessions``: its header, about
    ``mib`` MiB of ordinary event lines, then the AGENTS.md message (the exact format
    ``rulelens verify`` reads: see ``agents/sessionfacts.py``)."""
    folder = home / ".codex" / "sessions" / "2026" / "09" / "02"
    folder.mkdir(parents=True, exist_ok=True)
    sid = "0199a1b2-0000-7000-8000-00000000be4c"
    path = folder / f"rollout-2026-09-02T08-00-00-{sid}.jsonl"
    stamp = "2026-09-02T08:00:00.000Z"
    meta = {"timestamp": stamp, "type": "session_meta", "payload": {
        "id": sid, "timestamp": stamp, "cwd": str(repo), "originator": "codex_cli_rs",
        "cli_version": "0.63.0"}}
    event = json.dumps({"timestamp": stamp, "type": "event_msg", "payload": {
        "type": "agent_message", "message": "z" * 900}}).encode() + b"\n"
    block = event * ((1 << 20) // len(event))
    text = (repo / "AGENTS.md").read_text()
    last = {"timestamp": stamp, "type": "response_item", "payload": {
        "type": "message", "role": "user", "content": [{"type": "input_text", "text":
            f"# AGENTS.md instructions for {repo}\n\n<INSTRUCTIONS>\n{text}\n</INSTRUCTIONS>"}]}}
    with path.open("wb") as fh:
        fh.write(json.dumps(meta).encode() + b"\n")
        for _ in range(mib):
            fh.write(block)
        fh.write(json.dumps(last).encode() + b"\n")
    return path


async def during_session(repo: Path, env: dict[str, str], warm: list[Path],
                         cold: list[Path], results: dict[str, list[float]],
                         agents: str) -> float:
    """Lens and hover latency while ``rulelens/verify`` reads the rollout: warm requests on
    ``warm`` (answered once before) alternate with cold ones on ``cold``. Returns the
    seconds the read took."""
    async with Session(repo, env, agents) as s:
        uris = [s.open(p) for p in warm]
        for uri in uris:
            await timed(s.lens(uri))
            await timed(s.hover(uri))
        began = time.perf_counter()
        pending = asyncio.ensure_future(s.client.protocol.send_request_async(
            protocol.VERIFY, {"uri": uris[0], "agent": "codex"}))
        i = 0
        while not pending.done():
            uri = uris[i % len(uris)]
            results.setdefault("lens warm, session read", []).append(await timed(s.lens(uri)))
            results.setdefault("hover warm, session read", []).append(
                await timed(s.hover(uri)))
            if i < len(cold):
                new = s.open(cold[i])
                kind = "lens" if i % 2 == 0 else "hover"
                request = s.lens(new) if kind == "lens" else s.hover(new)
                results.setdefault(f"{kind} cold, session read", []).append(
                    await timed(request))
            i += 1
        answer = await pending
        verdict = answer["verdict"] if isinstance(answer, dict) else answer.verdict
        if verdict != "match":
            raise RuntimeError(f"verify did not read the rollout: {answer}")
        return time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--dirs", type=int, default=400)
    parser.add_argument("--cycles", type=int, default=8000)
    parser.add_argument("--keep", help="build the repository here and keep it")
    parser.add_argument("--agents", default="all",
                        help="the rulelens.agents setting: `all` (default: every profile, so"
                             " the per-agent lens and hover table are computed), a comma list"
                             " (`grok` measures Grok alone) or `default` (no setting sent: the"
                             " agents whose files exist in the workspace)")
    parser.add_argument("--with-session", type=int, default=0, metavar="MIB",
                        help="also measure lens and hover while rulelens/verify reads a Codex"
                             " rollout of MIB MiB recorded in the repository (issue 22)")
    parser.add_argument("--startup", action="store_true",
                        help="only the start-up section (bench/_startup.py): initialize and "
                             "first code lens on the demo vs python -c pass")
    parser.add_argument("--rounds", type=int, default=15, help="warm starts for --startup")
    args = parser.parse_args()
    if args.startup:
        return startup.run(args.rounds)
    base = Path(args.keep or tempfile.mkdtemp(prefix="rulelens-bench-lsp-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        repo = build_repo(base, args.dirs, max(1, args.files // args.dirs + 1))
        home = build_home(base, repo)
        files = pick_files(repo, args.files)
        warm_n = max(1, args.cycles // 8)
        cycle_files = build_cycle_files(repo, warm_n + args.cycles)
        env = {"HOME": str(home), "PATH": os.environ.get("PATH", ""),
               "XDG_CONFIG_HOME": str(base / "xdg"), "XDG_CACHE_HOME": str(base / "xdg")}
        print(f"repository: {repo} ({len(files)} files opened)")
        results: dict[str, list[float]] = {}
        print(f"agents enabled: {args.agents}")
        sessions = [asyncio.run(measure(kind, repo, env, files, results, args.agents))
                    for kind in ("lens", "hover")]
        read_s = None
        if args.with_session:
            build_rollout(home, repo, args.with_session)
            read_s = asyncio.run(during_session(repo, env, files[:50], files[50:], results,
                                                args.agents))
        rss = [peak for peak, _ in sessions]
        cyc = asyncio.run(cycles(repo, env, cycle_files[:warm_n], cycle_files[warm_n:]))
        idle = max([idle for _, idle in sessions] + [cyc.idle])
        base_p50 = statistics.median(results["null"])
        print(f"\n{'request':<24}{'n':>6}{'p50 ms':>10}{'p95 ms':>10}{'p50/null':>10}")
        for name, values in results.items():
            print(f"{name:<24}{len(values):>6}{pct(values, .5):>10.2f}{pct(values, .95):>10.2f}"
                  f"{pct(values, .5) / base_p50:>10.1f}")
        print(f"\nserver peak RSS: code lens session {rss[0]:.1f} MB,"
              f" hover session {rss[1]:.1f} MB")
        print(f"{args.cycles} open -> codeLens -> close cycles on distinct files"
              f" (after {warm_n} warm-up cycles): RSS {cyc.before:.1f} -> {cyc.after:.1f}"
              f" MB (growth {cyc.growth:+.1f} MB); tables after: {cyc.documents}")
        print(f"idle RSS after the benchmark: lens {sessions[0][1]:.1f} MB, hover"
              f" {sessions[1][1]:.1f} MB, cycles {cyc.idle:.1f} MB")
        checks = {
            "warm p95 < 10 ms": max(pct(results["lens warm"], .95),
                                    pct(results["hover warm"], .95)) < 10,
            "cold p95 < 50 ms": max(pct(results["lens cold"], .95),
                                    pct(results["hover cold"], .95)) < 50,
            "peak RSS < 100 MB": max(rss) < 100,
            "RSS growth over the cycles < 5 MB": cyc.growth < 5,
            "idle RSS < 100 MB": idle < 100,
            "no document state after close": not any(cyc.documents.values()),
        }
        if read_s is not None:
            print(f"rulelens/verify read a {args.with_session} MiB rollout in {read_s:.1f} s")
            checks["warm p95 < 10 ms while a session is read"] = max(
                pct(results["lens warm, session read"], .95),
                pct(results["hover warm, session read"], .95)) < 10
            checks["cold p95 < 50 ms while a session is read"] = max(
                pct(results["lens cold, session read"], .95),
                pct(results["hover cold, session read"], .95)) < 50
        for name, ok in checks.items():
            print(f"  {'met' if ok else 'MISSED'}: {name}")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
