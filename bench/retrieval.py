"""Benchmark: retrieval quality on a graded memory set and on Cranfield 1400.

**Memory set** (bench/data/retrieval): the memory of a fictional ``ledger-api`` developer —
a global MEMORY.md, a workspace MEMORY.md (consolidated 2026-11-01) and 36 dated session
logs, 301 chunks — and ``queries.json``: 101 graded queries (paraphrases, identifiers,
exact terms, and superseded facts whose older versions are graded 1 and the current one 3)
plus 25 unrelated queries that should return nothing. The set is indexed with
``[memory.index] max_chunk_chars = 512`` so that each section is its own chunk (at the
default 1600 a short session log is one chunk and a chunk label would be a file label). A
chunk is relevant when it comes from the labelled file and holds the labelled heading line;
its gain is the grade.

**Cranfield** (../shared/data/cranfield, optional): each abstract is a session file of its
own workspace, gain ``5 - code``, the README's deterministic 100-query subset.

Systems, each ranking with no threshold for nDCG@10 and recall@6:

* ``grep``          chunks by how many keywords occur as substrings (``rg`` by hand);
* ``bm25``          FTS5 bm25 over the keywords joined with OR (the agent's FTS query);
* ``vectors``       nearest MiniLM vectors alone;
* ``rrf``           reciprocal-rank fusion (k = 60) of ``bm25`` and ``vectors``;
* ``agent-none``    the agent's pipeline without embeddings (its default);
* ``agent-local``   the agent's pipeline with the local MiniLM embedder;
* ``best-none`` / ``best``   :mod:`rulelens.memory.best` without / with the same vectors.

"unrelated-empty" is the share of unrelated queries for which the system returns nothing
in the view a user sees: any hit counts for grep/bm25/vectors/rrf, the agent's thresholds
(min_score 0.7, 6 results) for agent-*, the weak-match cut-off for best.

    .venv/bin/python bench/retrieval.py [--no-cranfield] [--calibrate]
"""

from __future__ import annotations

import argparse
import calendar
import json
import math
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from rulelens.memory.best import BestSettings, best_search
from rulelens.memory.index import MemoryIndex
from rulelens.memory.search import explain_search, extract_keywords, fts_match
from rulelens.memory.settings import IndexSettings, MemorySettings
from rulelens.memory.workspace import MemoryFile, MemoryLocation, locate

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "retrieval")
CRANFIELD = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "data", "cranfield"))
CHUNKING = IndexSettings(max_chunk_chars=512)
#: The consolidation dates of the two MEMORY.md files (their mtimes in the built home).
MEMORY_DATES = {"MEMORY.md": (2026, 8, 1), "workspace/MEMORY.md": (2026, 11, 1)}


@dataclass(frozen=True)
class Query:
    text: str
    kind: str
    gains: dict[str, int]  # label key -> grade


Labeller = Callable[[str, str], list[str]]  # (path, chunk text) -> label keys it holds
Ranked = list[tuple[str, str]]  # (path, text), best first
Ranker = Callable[[str, bool], Ranked]  # (query, user view) -> ranked


@dataclass
class DataSet:
    name: str
    location: MemoryLocation
    files: list[MemoryFile]
    queries: list[Query]
    labels: Labeller
    index: MemoryIndex


# -- the memory set --------------------------------------------------------------------

def build_memory_set(root: str) -> DataSet:
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
    for rel, (y, m, d) in MEMORY_DATES.items():
        t = calendar.timegm((y, m, d, 12, 0, 0))
        os.utime(mapping[rel], (t, t))
    with open(os.path.join(DATA, "queries.json"), encoding="utf-8") as fh:
        raw = json.load(fh)["queries"]
    queries = [Query(q["query"], q["type"],
                     {f"{mapping[r['file']]}\0{r['heading']}": int(r.get("grade", 3))
                      for r in q["relevant"]}) for q in raw]
    headings: dict[str, list[str]] = {}
    for q in queries:
        for key in q.gains:
            path, heading = key.split("\0")
            headings.setdefault(path, []).append(heading)

    def labels(path: str, text: str) -> list[str]:
        lines = set(text.splitlines())
        return [f"{path}\0{h}" for h in headings.get(path, ()) if h in lines]

    idx = MemoryIndex.open(os.path.join(root, "cache", "index.sqlite"), CHUNKING)
    idx.sync(loc)
    return DataSet("memory set", loc, loc.memory_files(), queries, labels, idx)


# -- Cranfield -----------------------------------------------------------------------

def _fields(text: str, marker: str) -> dict[str, dict[str, str]]:
    records: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    field = ""
    for line in text.splitlines():
        if line.startswith(".I "):
            current = {}
            records[line[3:].strip()] = current
            field = ""
        elif line[:2] in (".T", ".A", ".B", ".W") and line.strip() == line[:2]:
            field = line[1]
        elif current is not None and field:
            current[field] = (current.get(field, "") + " " + line.strip()).strip()
    return records


def build_cranfield(root: str) -> DataSet | None:
    if not os.path.isdir(CRANFIELD):
        return None
    with open(os.path.join(CRANFIELD, "cran.all.1400"), encoding="utf-8") as fh:
        docs = _fields(fh.read(), ".I")
    with open(os.path.join(CRANFIELD, "cran.qry"), encoding="utf-8") as fh:
        qry = list(_fields(fh.read(), ".I").values())
    grok = os.path.join(root, ".grok-cran")
    cwd = os.path.join(root, "cranfield")
    os.makedirs(cwd)
    loc = locate(cwd, grok)
    os.makedirs(loc.sessions_dir)
    paths: dict[str, str] = {}
    for doc_id, f in docs.items():
        path = os.path.join(loc.sessions_dir, f"2026-01-01-cran-{int(doc_id):04d}.md")
        title = f.get("T", "").rstrip(" .")
        with open(path, "w", encoding="utf-8") as out:
            out.write(f"# {title}\n\n{f.get('W', '')}\n")
        paths[str(int(doc_id))] = path
    gains: dict[int, dict[str, int]] = {}
    with open(os.path.join(CRANFIELD, "cranqrel"), encoding="utf-8") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) == 3 and parts[2] != "-1":
                gains.setdefault(int(parts[0]), {})[paths[parts[1]]] = 5 - int(parts[2])
    positions = [1 + math.floor(i * 225 / 100) for i in range(100)]
    queries = [Query(qry[p - 1]["W"], "cranfield", gains.get(p, {})) for p in positions]
    idx = MemoryIndex.open(os.path.join(root, "cache-cran", "index.sqlite"))
    idx.sync(loc)

    def labels(path: str, text: str) -> list[str]:
        return [path]

    return DataSet("Cranfield (100 queries)", loc, loc.memory_files(), queries, labels, idx)


# -- metrics -------------------------------------------------------------------------

def _first_hits(q: Query, ranked: Ranked, labels: Labeller, k: int) -> list[tuple[int, str]]:
    seen: set[str] = set()
    out: list[tuple[int, str]] = []
    for i, (path, text) in enumerate(ranked[:k]):
        for key in labels(path, text):
            if key in q.gains and key not in seen:
                seen.add(key)
                out.append((i, key))
    return out


def ndcg_at(q: Query, ranked: Ranked, labels: Labeller, k: int = 10) -> float:
    """Graded nDCG (linear gains); a label counts once, at its first chunk."""
    dcg = 0.0
    used: set[int] = set()
    for i, key in _first_hits(q, ranked, labels, k):
        if i not in used:  # one chunk holding two labels earns the larger gain once
            used.add(i)
            dcg += max(q.gains[x] for x in labels(*ranked[i]) if x in q.gains) / math.log2(i + 2)
        del key
    ideal = sorted(q.gains.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(q: Query, ranked: Ranked, labels: Labeller, k: int = 6) -> float:
    """Share of the query's graded labels found in the first ``k`` results."""
    return len(_first_hits(q, ranked, labels, k)) / len(q.gains) if q.gains else 0.0


# -- systems -------------------------------------------------------------------------

def grep_ranker(ds: DataSet) -> Ranker:
    chunks = [c for f in ds.files for c in ds.index.chunks_for_path(f.path)]

    def run(query: str, user_view: bool) -> Ranked:
        words = extract_keywords(query)
        scored = sorted(((-sum(1 for w in words if w in c.text.lower()), n, c)
                         for n, c in enumerate(chunks)), key=lambda s: (s[0], s[1]))
        return [(c.path, c.text) for s, _, c in scored if s < 0]
    return run


def _rows(ds: DataSet, ids: Sequence[str]) -> Ranked:
    chunks = ds.index.get_chunks(ids)
    return [(chunks[c].path, chunks[c].text) for c in ids if c in chunks]


def bm25_ids(ds: DataSet, query: str, k: int = 50) -> list[str]:
    return [c for c, _ in ds.index.search_fts(fts_match(extract_keywords(query)), k)]


def bm25_ranker(ds: DataSet) -> Ranker:
    return lambda q, _: _rows(ds, bm25_ids(ds, q))


def vector_ids(ds: DataSet, embedder: object, query: str, k: int = 50) -> list[str]:
    vec = embedder.embed([query])[0]  # type: ignore[attr-defined]
    return [c for c, _ in ds.index.vector_search(vec, k)]


def vector_ranker(ds: DataSet, embedder: object) -> Ranker:
    return lambda q, _: _rows(ds, vector_ids(ds, embedder, q))


def rrf_ranker(ds: DataSet, embedder: object, k: int = 60) -> Ranker:
    def run(query: str, user_view: bool) -> Ranked:
        score: dict[str, float] = {}
        for ids in (bm25_ids(ds, query), vector_ids(ds, embedder, query)):
            for r, cid in enumerate(ids, 1):
                score[cid] = score.get(cid, 0.0) + 1.0 / (k + r)
        return _rows(ds, sorted(score, key=lambda c: -score[c]))
    return run


def agent_ranker(ds: DataSet, embedder: object | None) -> Ranker:
    settings = MemorySettings(index=CHUNKING)

    def run(query: str, user_view: bool) -> Ranked:
        if user_view:
            out = explain_search(ds.index, query, settings, embedder=embedder)  # type: ignore[arg-type]
        else:
            out = explain_search(ds.index, query, settings, embedder=embedder,  # type: ignore[arg-type]
                                 max_results=10, min_score=0.0)
        return [(r.path, r.snippet) for r in out.results]
    return run


def best_ranker(ds: DataSet, embedder: object | None, settings: BestSettings | None = None
                ) -> Ranker:
    s = settings or BestSettings()
    cache: dict[str, list[float]] = {}

    def run(query: str, user_view: bool) -> Ranked:
        vec = None
        if embedder is not None:
            if query not in cache:
                cache[query] = embedder.embed([query])[0]  # type: ignore[attr-defined]
            vec = cache[query]
        out = best_search(ds.index, query, query_vector=vec, settings=s)
        rows = out.results if user_view else sorted(
            out.results + out.cut, key=lambda r: -r.score)
        return [(r.path, r.snippet) for r in rows]
    return run


@dataclass(frozen=True)
class Scores:
    ndcg: float
    recall: float
    unrelated_empty: float | None
    by_kind: dict[str, float]


def evaluate(ds: DataSet, ranker: Ranker) -> Scores:
    labelled = [q for q in ds.queries if q.gains]
    unrelated = [q for q in ds.queries if not q.gains and q.kind == "unrelated"]
    per = {id(q): ranker(q.text, False) for q in labelled}
    ndcg = {id(q): ndcg_at(q, per[id(q)], ds.labels) for q in labelled}
    recall = sum(recall_at(q, per[id(q)], ds.labels) for q in labelled) / len(labelled)
    empty = (sum(1 for q in unrelated if not ranker(q.text, True)) / len(unrelated)
             if unrelated else None)
    kinds = sorted({q.kind for q in labelled})
    by_kind = {k: sum(ndcg[id(q)] for q in labelled if q.kind == k)
               / sum(1 for q in labelled if q.kind == k) for k in kinds}
    return Scores(sum(ndcg.values()) / len(labelled), recall, empty, by_kind)


def line(name: str, s: Scores) -> str:
    empty = "   -  " if s.unrelated_empty is None else f"{s.unrelated_empty:6.2f}"
    kinds = ", ".join(f"{k} {v:.3f}" for k, v in s.by_kind.items()) if len(s.by_kind) > 1 else ""
    return f"{name:<12} {s.ndcg:8.3f} {s.recall:9.3f} {empty}   {kinds}"


def calibrate(ds: DataSet, embedder: object | None) -> None:
    """The weak-match cut-off sweep behind BestSettings' defaults."""
    print("\ncut-off sweep (memory set): weak_cosine weak_coverage -> unrelated-empty,"
          " labelled queries with a result, nDCG@10 of the user view")
    labelled = [q for q in ds.queries if q.gains]
    for cos in (0.25, 0.30, 0.35, 0.40, 0.45):
        for cov in (0.34, 0.4, 0.5, 0.6, 1.01):
            s = replace(BestSettings(), weak_cosine=cos, weak_coverage=cov)
            r = best_ranker(ds, embedder, s)
            unrelated = [q for q in ds.queries if not q.gains]
            empty = sum(1 for q in unrelated if not r(q.text, True)) / len(unrelated)
            answered = sum(1 for q in labelled if r(q.text, True)) / len(labelled)
            ndcg = sum(ndcg_at(q, r(q.text, True), ds.labels) for q in labelled) / len(labelled)
            print(f"  {cos:.2f} {cov:.2f} -> {empty:.2f} {answered:.2f} {ndcg:.3f}")


def run_set(ds: DataSet, embedder: object | None) -> dict[str, Scores]:
    systems: list[tuple[str, Ranker]] = [("grep", grep_ranker(ds)), ("bm25", bm25_ranker(ds)),
                                        ("agent-none", agent_ranker(ds, None)),
                                        ("best-none", best_ranker(ds, None))]
    if embedder is not None:
        ds.index.embed_missing(embedder, 32)  # type: ignore[arg-type]
        systems += [("vectors", vector_ranker(ds, embedder)), ("rrf", rrf_ranker(ds, embedder)),
                    ("agent-local", agent_ranker(ds, embedder)),
                    ("best", best_ranker(ds, embedder))]
    chunks = int(str(ds.index.stats()["chunks"]))
    labelled = sum(1 for q in ds.queries if q.gains)
    print(f"\n{ds.name}: {chunks} chunks in {len(ds.files)} files; {labelled} graded queries,"
          f" {len(ds.queries) - labelled} unrelated")
    print(f"{'system':<12} {'nDCG@10':>8} {'recall@6':>9} {'unrel-empty':>6}   nDCG by kind")
    out: dict[str, Scores] = {}
    for name, ranker in systems:
        out[name] = evaluate(ds, ranker)
        print(line(name, out[name]))
    if "rrf" in out:
        print(f"best - rrf: {out['best'].ndcg - out['rrf'].ndcg:+.3f} nDCG@10")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-cranfield", action="store_true")
    parser.add_argument("--no-local", action="store_true")
    parser.add_argument("--calibrate", action="store_true")
    args = parser.parse_args(argv)
    embedder = None
    if not args.no_local:
        try:
            from rulelens.memory.embedders import LocalEmbedder
            embedder = LocalEmbedder.load()
        except Exception as exc:
            print(f"local embedder not available ({exc}); vector systems skipped")
    root = tempfile.mkdtemp(prefix="rulelens-bench-retrieval-")
    try:
        ds = build_memory_set(root)
        run_set(ds, embedder)
        if args.calibrate:
            calibrate(ds, embedder)
        ds.index.close()
        if not args.no_cranfield:
            cran = build_cranfield(root)
            if cran is None:
                print(f"\nCranfield skipped: {CRANFIELD} not found")
            else:
                run_set(cran, embedder)
                cran.index.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
