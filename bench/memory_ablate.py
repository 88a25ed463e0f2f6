"""Benchmark: what each speed-up of the memory search is worth, one removed at a time.

At ``--chunks`` (default 50,000) across five agents' memory (``bench/memory.py``'s
``build_agents_home``, random unit vectors of the local embedder's size, the query embedded
by the real local embedder each time), measures ``memory search --agent all`` end to end
(:meth:`AgentStores.search`) and ``--rank best`` over one index (:func:`best_search`), with:

* ``all``           every speed-up;
* ``no reuse``      the listing and sync redone on every search (``FRESH_SECONDS = 0``);
* ``no array``      no in-memory vector array: sqlite-vec answers every KNN;
* ``no pk lookup``  vectors fetched as before (one ``IN (json_each)`` query, a vec0 scan);
* ``before``        none of them.

Configurations run interleaved, query by query, so background load hits them alike; each
keeps its own AgentStores (its own connections and arrays). Wall and CPU (process) time.

    .venv/bin/python bench/memory_ablate.py [--chunks 50000] [--queries 40] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import struct
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from memory import build_agents_home, queries
from rulelens.memory import agentmemory
from rulelens.memory import index as ix
from rulelens.memory.agentmemory import AgentStores
from rulelens.memory.best import best_search
from rulelens.memory.service import MemoryService

MATRIX = ix.MemoryIndex._matrix
VECTORS_FOR = ix.MemoryIndex.vectors_for


def scan_vectors_for(self: ix.MemoryIndex, ids: Iterable[str]) -> dict[str, list[float]]:
    """``vectors_for`` as it was: one ``IN (json_each)`` query (vec0 scans every row)."""
    wanted = list(ids)
    with self._lock:
        if not wanted or not self.vec_available():
            return {}
        dims = int(self.meta("embedding_dimensions") or 0)
        out: dict[str, list[float]] = {}
        for cid, blob in self.conn.execute(
                "SELECT chunk_id, embedding FROM chunks_vec WHERE chunk_id IN"
                " (SELECT value FROM json_each(?))", (json.dumps(wanted),)):
            if isinstance(blob, bytes) and dims and len(blob) == 4 * dims:
                out[str(cid)] = list(struct.unpack(f"<{dims}f", blob))
        return out


CONFIGS: dict[str, tuple[float, bool, bool]] = {  # reuse seconds, array, pk lookup
    "all": (agentmemory.FRESH_SECONDS, True, True), "no reuse": (0.0, True, True),
    "no array": (agentmemory.FRESH_SECONDS, False, True),
    "no pk lookup": (agentmemory.FRESH_SECONDS, True, False), "before": (0.0, False, False)}


def apply(reuse: float, array: bool, pk: bool) -> None:
    agentmemory.FRESH_SECONDS = reuse
    no_matrix: Callable[..., Any] = lambda self, build=True: None  # noqa: E731
    ix.MemoryIndex._matrix = MATRIX if array else no_matrix  # type: ignore[method-assign]
    ix.MemoryIndex.vectors_for = VECTORS_FOR if pk else scan_vectors_for  # type: ignore[method-assign]


def fill_vectors(idx: ix.MemoryIndex, name: str, dims: int) -> None:
    import numpy as np

    idx.ensure_vectors(name, dims)
    ids = [r[0] for r in idx.conn.execute("SELECT id FROM chunks")]
    v = np.random.default_rng(3).standard_normal((len(ids), dims)).astype("<f4")
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    with idx.conn:
        idx.conn.executemany("INSERT INTO chunks_vec(chunk_id, embedding) VALUES (?, ?)",
                             [(c, v[i].tobytes()) for i, c in enumerate(ids)])


def pct(samples: list[float]) -> tuple[float, float]:
    s = sorted(samples)
    return statistics.median(s), s[int(0.95 * (len(s) - 1))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=50_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--keep", metavar="DIR", help="build here (reused when present)")
    args = parser.parse_args()
    root = args.keep or tempfile.mkdtemp(prefix="rulelens-bench-ablate-")
    marker = os.path.join(root, "env.json")
    try:
        if os.path.exists(marker):
            with open(marker, encoding="utf-8") as fh:
                cwd, env = json.load(fh)
        else:
            os.makedirs(root, exist_ok=True)
            cwd, env = build_agents_home(root, args.chunks)
        svc = MemoryService(env=env, embedder_kind="local")
        embedder, error = svc.embedder(svc.settings())
        if embedder is None:
            print(f"skipped: local embedder not available ({error})")
            return 1
        stores = {name: AgentStores(svc) for name in CONFIGS}
        first = next(iter(stores.values()))
        _, idx, _ = first.fresh("all", cwd)
        if int(str(idx.stats()["vectors"])) < int(str(idx.stats()["chunks"])):
            fill_vectors(idx, embedder.name, embedder.dimensions)
        if not os.path.exists(marker):
            with open(marker, "w", encoding="utf-8") as fh:
                json.dump([cwd, env], fh)
        qs = queries(args.queries)
        for name, cfg in CONFIGS.items():  # warm each configuration (arrays built here)
            apply(*cfg)
            for q in qs[:3]:
                stores[name].search("all", cwd, q)
        res: dict[str, dict[str, list[float]]] = {
            n: {"all": [], "all_cpu": [], "best": [], "best_cpu": []} for n in CONFIGS}
        loads = []
        for q in qs:
            loads.append(os.getloadavg()[0])
            for name, cfg in CONFIGS.items():
                apply(*cfg)
                start, cpu = time.perf_counter(), time.process_time()
                stores[name].search("all", cwd, q)
                res[name]["all"].append((time.perf_counter() - start) * 1000)
                res[name]["all_cpu"].append((time.process_time() - cpu) * 1000)
                one = stores[name].fresh("all", cwd)[1]
                start, cpu = time.perf_counter(), time.process_time()
                best_search(one, q, query_vector=embedder.embed([q])[0])
                res[name]["best"].append((time.perf_counter() - start) * 1000)
                res[name]["best_cpu"].append((time.process_time() - cpu) * 1000)
        n = int(str(idx.stats()["chunks"]))
        print(f"{n} chunks; {len(qs)} queries; load average min {min(loads):.1f}, median"
              f" {statistics.median(loads):.1f}, max {max(loads):.1f} (2 cores)")
        for name in CONFIGS:
            r = res[name]
            a50, a95 = pct(r["all"])
            b50, b95 = pct(r["best"])
            print(f"{name:13s} --agent all hybrid: p50 {a50:6.1f} ms, p95 {a95:6.1f} ms, CPU p50"
                  f" {pct(r['all_cpu'])[0]:5.1f} ms | --rank best, one index: p50 {b50:6.1f}"
                  f" ms, p95 {b95:6.1f} ms, CPU p50 {pct(r['best_cpu'])[0]:5.1f} ms")
        for s in stores.values():
            s.close()
        svc.close()
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
