"""Start-up of ``rulelens serve`` on the demo: the CPU time spent to answer ``initialize``
against the bare import of pygls and lsprotocol, and the first code lens after ``didOpen``.

Run through ``bench/lsp.py --startup [--rounds N]``. Each round starts a fresh server with a
raw JSON-RPC client (no client library in the timed path), as an editor does: spawn, send
``initialize``, wait for the answer, then send ``initialized``, ``didOpen`` of
``src/app/handlers/orders.py`` and ``codeLens`` at once (RuleLens' own modules load after
``initialized``, so the lens time includes them). It reads the server's own CPU time when
it answered ``initialize`` (``/proc/<pid>/schedstat``), which a busy machine disturbs far
less than wall time. In the same run, as baselines: the CPU time of a child
``python -c "import pygls.server, lsprotocol.types"`` (the cost no language server built
on them avoids; the child reads its own clock when the import is done), the same import
inside RuleLens' attrs code cache (``rulelens.startup``), and the wall time of
``python -c pass``. Round 1 starts with an empty cache directory (the first start after
installing: attrs' generated code is not cached yet); the others are warm.
Targets (issue 20): ``initialize`` CPU at most 50 ms above the bare import; the first code
lens within 300 ms of ``didOpen`` (on an idle machine).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, BinaryIO

ROOT = Path(__file__).resolve().parents[1]
DEEP = "src/app/handlers/orders.py"
TARGET_INITIALIZE_CPU_DELTA_MS = 50.0
TARGET_LENS_MS = 300.0
BARE_IMPORT = "import pygls.server, lsprotocol.types"
#: The same import as ``rulelens serve`` does it: inside the attrs code cache.
CACHED_IMPORT = ("from rulelens.startup import GeneratedCodeCache, cache_file\n"
                 "with GeneratedCodeCache(cache_file()).active():\n"
                 "    import pygls.server, lsprotocol.types")


def _frame(obj: dict[str, Any]) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read(stream: BinaryIO) -> dict[str, Any]:
    length = 0
    while True:
        line = stream.readline()
        if not line:
            raise EOFError("the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def _answer(stream: BinaryIO, request_id: int) -> dict[str, Any]:
    while True:
        message = _read(stream)
        if message.get("id") == request_id and "method" not in message:
            return message


def _cpu_ms(pid: int) -> float:
    """Time the process has spent on a CPU, all threads (schedstat is in nanoseconds)."""
    with open(f"/proc/{pid}/schedstat") as fh:
        return int(fh.read().split()[0]) / 1e6


def bare_python_ms() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return (time.perf_counter() - t0) * 1000


def child_cpu_ms(code: str, env: dict[str, str]) -> float:
    """CPU time of a child ``python -c code`` from its start to the end of ``code`` (as the
    server's is read when it answers: its own clock, not the interpreter's shutdown)."""
    probe = f"{code}\nimport time\nprint(time.process_time() * 1000)"
    out = subprocess.run([sys.executable, "-c", probe], env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(out.split()[-1])


def one_start(repo: Path, env: dict[str, str]) -> dict[str, float]:
    uri = repo.as_uri()
    doc = repo / DEEP
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "rulelens", "serve"], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": os.getpid(), "rootUri": uri, "capabilities": {},
            "workspaceFolders": [{"uri": uri, "name": "repo"}]}}))
        proc.stdin.flush()
        _answer(proc.stdout, 1)
        initialize_ms = (time.perf_counter() - t0) * 1000
        cpu_ms = _cpu_ms(proc.pid)
        t1 = time.perf_counter()
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": doc.as_uri(), "languageId": "python", "version": 1,
                             "text": doc.read_text()}}}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeLens",
                                 "params": {"textDocument": {"uri": doc.as_uri()}}}))
        proc.stdin.flush()
        lens = _answer(proc.stdout, 2)
        lens_ms = (time.perf_counter() - t1) * 1000
        lens_cpu_ms = _cpu_ms(proc.pid) - cpu_ms
        if not lens.get("result"):
            raise RuntimeError(f"no code lens for {doc}: {lens}")
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.flush()
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return {"initialize": initialize_ms, "initialize cpu": cpu_ms, "lens": lens_ms,
            "lens cpu": lens_cpu_ms}


def run(rounds: int) -> int:
    sys.path.insert(0, str(ROOT / "examples" / "demo"))
    from build import build

    with tempfile.TemporaryDirectory(prefix="rulelens-bench-startup-") as tmp:
        demo = build(os.path.join(tmp, "demo"))
        env = {"HOME": demo["home"], "GROK_HOME": demo["grok_home"],
               "PATH": os.environ.get("PATH", ""), "XDG_CACHE_HOME": os.path.join(tmp, "cache"),
               "XDG_CONFIG_HOME": os.path.join(tmp, "config")}
        repo = Path(demo["repo"])
        first = one_start(repo, env)       # empty cache: the first start after installing
        bare: list[float] = []
        base: dict[str, list[float]] = {}
        warm: dict[str, list[float]] = {}
        for _ in range(rounds):           # interleaved, so load drift hits every row alike
            bare.append(bare_python_ms())
            base.setdefault("import cpu", []).append(child_cpu_ms(BARE_IMPORT, env))
            base.setdefault("cached import cpu", []).append(child_cpu_ms(CACHED_IMPORT, env))
            for key, value in one_start(repo, env).items():
                warm.setdefault(key, []).append(value)
    python = statistics.median(bare)
    imported = statistics.median(base["import cpu"])
    cached = statistics.median(base["cached import cpu"])
    init_cpu = statistics.median(warm["initialize cpu"])
    print(f"\nstart-up of `rulelens serve` on the demo ({rounds} warm rounds + 1 cold)")
    print(f"{'':<60}{'first start':>12}{'p50 ms':>10}{'max ms':>10}")
    print(f"{'python -c pass (wall)':<60}{'':>12}{python:>10.1f}{max(bare):>10.1f}")
    print(f"{'CPU: python -c ' + repr(BARE_IMPORT) + ' (baseline)':<60}{'':>12}"
          f"{imported:>10.1f}{max(base['import cpu']):>10.1f}")
    print(f"{'CPU: the same import in the attrs code cache':<60}{'':>12}"
          f"{cached:>10.1f}{max(base['cached import cpu']):>10.1f}")
    names = {"initialize": "initialize answered (wall)",
             "initialize cpu": "CPU: rulelens serve until initialize answered",
             "lens": "first code lens after didOpen (wall)",
             "lens cpu": "CPU: initialized until that lens answered"}
    for key, values in warm.items():
        print(f"{names[key]:<60}{first[key]:>12.1f}{statistics.median(values):>10.1f}"
              f"{max(values):>10.1f}")
    print(f"  initialize CPU = baseline {imported:.0f} ms {init_cpu - imported:+.0f} ms "
          f"(RuleLens' own over the cached import: {init_cpu - cached:+.0f} ms)")
    checks = {
        f"initialize CPU p50 <= bare import + {TARGET_INITIALIZE_CPU_DELTA_MS:.0f} ms":
            init_cpu <= imported + TARGET_INITIALIZE_CPU_DELTA_MS,
        f"first code lens p50 < {TARGET_LENS_MS:.0f} ms after didOpen":
            statistics.median(warm["lens"]) < TARGET_LENS_MS,
    }
    for name, ok in checks.items():
        print(f"  {'met' if ok else 'MISSED'}: {name}")
    return 0
