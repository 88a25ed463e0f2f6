"""Benchmark: retrieval quality on a labelled memory set (bench/data/retrieval).

The set is a small memory home written for this purpose (a global MEMORY.md, a workspace
MEMORY.md and eight session logs of a fictional ``ledger-api`` project) plus
``queries.json``: 41 queries (exact-term and paraphrase) with the sections that answer them,
and 10 unrelated queries that should return nothing. A result chunk is relevant when it
comes from the labelled file and contains the labelled heading. Systems compared:

* ``grep``          chunks ranked by how many query keywords occur in them as substrings
                    (what a user does with ``rg``); anything with one keyword counts as returned;
* ``fts``           the agent's pipeline without embeddings (its default);
* ``hybrid-local``  the same pipeline with the local MiniLM embedder, when ``rulelens[local]``
                    is installed.

For ranking quality each system ranks with ``min_score = 0`` (nDCG@10, recall@6); for what
the agent would actually return, recall@6 and the share of unrelated queries that return
anything use the agent's thresholds (``min_score`` 0.7, 6 results).

    .venv/bin/python bench/retrieval.py
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass

from rulelens.memory.index import IndexedChunk, MemoryIndex
from rulelens.memory.search import explain_search, extract_keywords
from rulelens.memory.settings import MemorySettings
from rulelens.memory.workspace import MemoryLocation, locate

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "retrieval")


@dataclass(frozen=True)
class Query:
    text: str
    kind: str
    relevant: tuple[tuple[str, str], ...]  # (absolute path, heading)


def build_home(root: str) -> tuple[MemoryLocation, dict[str, str]]:
    """Copy the labelled memory into a fresh GROK_HOME; map labels' files to real paths."""
    grok = os.path.join(root, ".grok")
    cwd = os.path.join(root, "ledger-api")
    os.makedirs(cwd)
    loc = locate(cwd, grok)
    src = os.path.join(DATA, "memory")
    os.makedirs(loc.global_dir)
    shutil.copy(os.path.join(src, "MEMORY.md"), loc.global_memory)
    shutil.copytree(os.path.join(src, "workspace"), loc.workspace_dir)
    mapping = {"MEMORY.md": loc.global_memory}
    for dirpath, _, names in os.walk(os.path.join(src, "workspace")):
        for n in names:
            rel = os.path.relpath(os.path.join(dirpath, n), src)
            mapping[rel] = os.path.join(loc.workspace_dir, os.path.relpath(
                os.path.join(dirpath, n), os.path.join(src, "workspace")))
    return loc, mapping


def load_queries(mapping: dict[str, str]) -> list[Query]:
    with open(os.path.join(DATA, "queries.json"), encoding="utf-8") as fh:
        raw = json.load(fh)["queries"]
    return [Query(q["query"], q["type"], tuple((mapping[r["file"]], r["heading"])
                                               for r in q["relevant"])) for q in raw]


def is_relevant(q: Query, path: str, text: str) -> tuple[str, str] | None:
    for rpath, heading in q.relevant:
        if rpath == path and heading in text.splitlines():
            return (rpath, heading)
    return None


def ndcg_at(q: Query, ranked: list[tuple[str, str]], k: int = 10) -> float:
    seen: set[tuple[str, str]] = set()
    dcg = 0.0
    for i, (path, text) in enumerate(ranked[:k]):
        hit = is_relevant(q, path, text)
        if hit and hit not in seen:
            seen.add(hit)
            dcg += 1.0 / math.log2(i + 2)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(q.relevant))))
    return dcg / ideal if ideal else 0.0


def recall_at(q: Query, ranked: list[tuple[str, str]], k: int = 6) -> float:
    found = {h for path, text in ranked[:k] if (h := is_relevant(q, path, text))}
    return len(found) / len(q.relevant) if q.relevant else 0.0


Ranker = Callable[[str, bool], list[tuple[str, str]]]


def grep_ranker(chunks: list[IndexedChunk]) -> Ranker:
    def run(query: str, agent_view: bool) -> list[tuple[str, str]]:
        words = extract_keywords(query)
        scored = []
        for order, c in enumerate(chunks):
            low = c.text.lower()
            n = sum(1 for w in words if w in low)
            if n:
                scored.append((-n, order, c))
        scored.sort(key=lambda s: (s[0], s[1]))
        return [(c.path, c.text) for _, _, c in scored]
    return run


def pipeline_ranker(idx: MemoryIndex, embedder: object | None) -> Ranker:
    settings = MemorySettings()

    def run(query: str, agent_view: bool) -> list[tuple[str, str]]:
        if agent_view:
            out = explain_search(idx, query, settings, embedder=embedder)  # type: ignore[arg-type]
        else:
            out = explain_search(idx, query, settings, embedder=embedder,  # type: ignore[arg-type]
                                 max_results=10, min_score=0.0)
        return [(r.path, r.snippet) for r in out.results]
    return run


def evaluate(name: str, ranker: Ranker, queries: list[Query]) -> str:
    labelled = [q for q in queries if q.relevant]
    unrelated = [q for q in queries if not q.relevant]
    ndcg = sum(ndcg_at(q, ranker(q.text, False)) for q in labelled) / len(labelled)
    recall = sum(recall_at(q, ranker(q.text, False)) for q in labelled) / len(labelled)
    agent_recall = sum(recall_at(q, ranker(q.text, True)[:6]) for q in labelled) / len(labelled)
    noisy = sum(1 for q in unrelated if ranker(q.text, True)) / len(unrelated)
    by_kind = {}
    for kind in sorted({q.kind for q in labelled}):
        qs = [q for q in labelled if q.kind == kind]
        by_kind[kind] = sum(ndcg_at(q, ranker(q.text, False)) for q in qs) / len(qs)
    kinds = ", ".join(f"{k} {v:.3f}" for k, v in by_kind.items())
    return (f"{name:<13} nDCG@10 {ndcg:.3f} ({kinds})  recall@6 {recall:.3f}"
            f"  agent-view recall@6 {agent_recall:.3f}"
            f"  unrelated queries returning anything {100 * noisy:.0f} %")


def main() -> int:
    root = tempfile.mkdtemp(prefix="rulelens-bench-retrieval-")
    try:
        loc, mapping = build_home(root)
        queries = load_queries(mapping)
        idx = MemoryIndex.open(os.path.join(root, "cache", "index.sqlite"))
        idx.sync(loc)
        chunks = [c for f in loc.memory_files() for c in idx.chunks_for_path(f.path)]
        labelled = sum(1 for q in queries if q.relevant)
        print(f"{len(chunks)} chunks in {len(loc.memory_files())} files; {labelled} labelled"
              f" queries, {len(queries) - labelled} unrelated")
        print(evaluate("grep", grep_ranker(chunks), queries))
        print(evaluate("fts", pipeline_ranker(idx, None), queries))
        try:
            from rulelens.memory.embedders import LocalEmbedder
            embedder = LocalEmbedder.load()
        except Exception as exc:
            print(f"hybrid-local  skipped: local embedder not available ({exc})")
        else:
            idx.embed_missing(embedder, 8)
            print(evaluate("hybrid-local", pipeline_ranker(idx, embedder), queries))
        idx.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
