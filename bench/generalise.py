"""Benchmark: does ``--rank best`` generalise? Tune on one set, report on the others.

Three sets, built in a temporary directory and indexed like bench/retrieval.py
(``max_chunk_chars = 512``):

* **A**, the Grok memory set (bench/data/retrieval): one developer's global and workspace
  MEMORY.md and 36 dated session summaries, 101 graded queries + 25 unrelated. The
  shipped :class:`~rulelens.memory.best.BestSettings` were chosen on it.
* **B**, the Claude/Gemini set (bench/data/generalise, see its README): three Claude Code
  auto-memory folders (``MEMORY.md`` index + topic files with frontmatter) and Gemini CLI
  memory (a global ``GEMINI.md`` with ``## Gemini Added Memories`` and two project
  ``MEMORY.md`` folders with sibling notes), laid out as ``~/.claude`` and ``~/.gemini``;
  five projects, about 164 entries, 100 graded queries (half of them questions) + 12
  unrelated. Written for this benchmark, never used to pick the shipped settings.
* **Cranfield** (../shared/data/cranfield), 100 queries, as in bench/retrieval.py: never
  tuned on here.

Protocol: a small grid of ranking settings (the weights of cosine, keyword coverage, BM25
and rank fusion, the long-query switch, and question rewriting on or off) is searched on
one set; the winner is reported on the *other* sets only. Both directions are run (tune on
A, report on B and Cranfield; tune on B, report on A and Cranfield). The shipped defaults
count as "tuned on A". Each table marks the systems tuned on the set it shows with ``*``;
those figures are not evidence of generalisation and the summary leaves them out.

Baselines in the same run: ``bm25`` (FTS5, keywords joined with OR), ``vectors`` (local
MiniLM alone), ``rrf`` (reciprocal-rank fusion, k = 60, of the two), ``best`` (shipped
defaults). nDCG@10 with no threshold, as bench/retrieval.py.

    .venv/bin/python bench/generalise.py [--no-cranfield] [--grid small|full]
"""

from __future__ import annotations

import argparse
import calendar
import itertools
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import retrieval as R  # the sibling benchmark: sets, metrics, baselines
from rulelens.memory.agentmemory import StoreLocation
from rulelens.memory.best import BestSettings, Gathered, gather, rank_gathered
from rulelens.memory.index import MemoryIndex
from rulelens.memory.workspace import MemoryFile, WorkspaceName

HERE = os.path.dirname(os.path.abspath(__file__))
AGENT_DATA = os.path.join(HERE, "data", "generalise")
#: Data folder -> where the agent keeps it under the home directory.
HOME_DIRS = {"claude": ".claude", "gemini": ".gemini"}
#: Every file's mtime in the built home (no file of set B has a date in its name).
SET_B_MTIME = calendar.timegm((2026, 11, 30, 12, 0, 0))


# -- question rewriting (a lever measured here, not shipped) ---------------------------

#: Words a question is made of that say nothing of its subject (the rewrite drops them).
_QUESTION_WORDS_TEXT = """
how what which why when where who whom whose is are was were am do does did can could should
would will shall must may might i we you my our your me us the a an
"""
QUESTION_WORDS = frozenset(_QUESTION_WORDS_TEXT.split())


def rewrite_query(query: str) -> str:
    """A question as the statement it asks about: question words, auxiliaries and pronouns
    dropped, the question mark too ("how long do access tokens last?" -> "long access
    tokens last"). Other queries come back unchanged; an all-question query stays whole."""
    text = query.strip()
    words = text.rstrip("?").split()
    if not text.endswith("?") and (not words or words[0].lower() not in QUESTION_WORDS):
        return query
    kept = [w for w in words if w.lower().strip(",.") not in QUESTION_WORDS]
    return " ".join(kept) or query


# -- set B -------------------------------------------------------------------------------

def _source(rel: str) -> str:
    """``agent:scope`` of a data file (``claude/projects/...`` is workspace memory)."""
    agent = rel.split("/", 1)[0]
    scope = "global" if rel == "gemini/GEMINI.md" else "workspace"
    return f"{agent}:{scope}"


def build_agent_set(root: str) -> R.DataSet:
    """Set B in the agents' layouts under ``root/home``, indexed in ``root/cache-b``."""
    home = os.path.join(root, "home")
    paths: dict[str, str] = {}  # data-relative path -> built path
    roots: dict[str, str] = {}  # built path -> the agent root it is read beneath
    for data_dir, home_dir in HOME_DIRS.items():
        src, dst = os.path.join(AGENT_DATA, data_dir), os.path.join(home, home_dir)
        shutil.copytree(src, dst)
        for dirpath, _, names in os.walk(src):
            for n in sorted(names):
                rel = os.path.relpath(os.path.join(dirpath, n), AGENT_DATA).replace(os.sep, "/")
                built = os.path.join(dst, os.path.relpath(os.path.join(dirpath, n), src))
                os.utime(built, (SET_B_MTIME, SET_B_MTIME))
                paths[rel], roots[built] = built, dst
    with open(os.path.join(AGENT_DATA, "queries.json"), encoding="utf-8") as fh:
        raw = json.load(fh)["queries"]
    queries: list[R.Query] = []
    needles: dict[str, dict[str, str]] = {}  # built path -> label key -> text it must hold
    for q in raw:
        gains: dict[str, int] = {}
        for r in q["relevant"]:
            built = paths[r["file"]]
            key = f"{built}\0{r['line']}"
            gains[key] = max(gains.get(key, 0), int(r["grade"]))
            needles.setdefault(built, {})[key] = r["line"]
            name = os.path.basename(r["file"])
            if r["file"].startswith("claude/") and name != "MEMORY.md":
                index = os.path.join(os.path.dirname(built), "MEMORY.md")
                ikey = f"{index}\0]({name})"
                gains[ikey] = max(gains.get(ikey, 0), 1)  # the index line that points at it
                needles.setdefault(index, {})[ikey] = f"]({name})"
        queries.append(R.Query(q["query"], q["type"], gains))

    def labels(path: str, text: str) -> list[str]:
        return [k for k, needle in needles.get(path, {}).items() if needle in text]

    cache = os.path.join(root, "cache-b")
    os.makedirs(cache)
    files = [MemoryFile(p, _source(rel)) for rel, p in sorted(paths.items())]
    location = StoreLocation(home, "", cache, cache,
                             WorkspaceName("bench", "bench", "", home, None, None), False, roots)
    idx = MemoryIndex.open(os.path.join(cache, "index.sqlite"), R.CHUNKING)
    idx.sync(location, files=files)
    ds = R.DataSet("set B (Claude/Gemini memory)", location, files, queries, labels, idx)
    _check_labels(ds, needles)
    return ds


def _check_labels(ds: R.DataSet, needles: dict[str, dict[str, str]]) -> None:
    """Every label must be held by some chunk, or the set's judgements are wrong."""
    held = {k for f in ds.files for c in ds.index.chunks_for_path(f.path)
            for k in ds.labels(c.path, c.text)}
    missing = [k.replace("\0", " :: ") for per in needles.values() for k in per if k not in held]
    if missing:
        raise SystemExit("labels no chunk holds (fix queries.json):\n  " + "\n  ".join(missing))


# -- tuning ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Config:
    settings: BestSettings
    rewrite: bool

    def describe(self) -> str:
        s = self.settings
        return (f"cos {s.w_cosine:.2f} cov {s.w_coverage:.2f} bm25 {s.w_bm25:.2f}"
                f" rrf {s.w_rrf:.2f} long>={s.long_query_keywords}"
                f" stem {'on' if s.stem_coverage else 'off'}"
                f" rewrite {'on' if self.rewrite else 'off'}")


def grid(kind: str) -> list[Config]:
    """The settings searched when tuning (``small``: the weights only)."""
    base = BestSettings()
    cosines = (0.4, 0.5, 0.58, 0.7, 0.8)
    bm25s = (0.0, 0.15, 0.3)
    rrfs = (0.0, 0.2, 0.4)
    longs = (4, 5, 6, 99) if kind == "full" else (5,)
    rewrites = (False, True) if kind == "full" else (False,)
    stems = (False, True)
    return [Config(replace(base, w_cosine=c, w_coverage=round(1.0 - c, 2), w_bm25=b, w_rrf=r,
                           long_query_keywords=n, stem_coverage=st), w)
            for c, b, r, n, st, w in itertools.product(cosines, bm25s, rrfs, longs, stems,
                                                       rewrites)]


class Gatherer:
    """Each query's candidates gathered once per (query text, rewrite), then ranked by any
    settings (``rank_gathered`` is pure), so a grid costs one search per query."""

    def __init__(self, ds: R.DataSet, embedder: object) -> None:
        self.ds, self.embedder = ds, embedder
        self._cache: dict[tuple[str, bool, bool], Gathered] = {}
        self._vectors: dict[str, list[float]] = {}

    def get(self, query: str, rewrite: bool, stemmed: bool) -> Gathered:
        key = (query, rewrite, stemmed)
        if key not in self._cache:
            text = rewrite_query(query) if rewrite else query
            if text not in self._vectors:
                self._vectors[text] = self.embedder.embed([text])[0]  # type: ignore[attr-defined]
            vec = self._vectors[text]
            g = gather(self.ds.index, text, vec, BestSettings().candidates, stemmed)
            self._cache[key] = replace(g, query=query)
        return self._cache[key]


def config_ranker(g: Gatherer, cfg: Config) -> R.Ranker:
    def run(query: str, user_view: bool) -> R.Ranked:
        out = rank_gathered(g.get(query, cfg.rewrite, cfg.settings.stem_coverage), cfg.settings,
                            cfg.settings.max_results)
        rows = out.results if user_view else sorted(out.results + out.cut, key=lambda r: -r.score)
        return [(r.path, r.snippet) for r in rows]
    return run


def mean_ndcg(ds: R.DataSet, ranker: R.Ranker) -> float:
    labelled = [q for q in ds.queries if q.gains]
    return sum(R.ndcg_at(q, ranker(q.text, False), ds.labels) for q in labelled) / len(labelled)


#: The ranking before issue 24: the shipped weights, no stemming, no rewriting.
BEFORE = Config(replace(BestSettings(), stem_coverage=False), False)
#: A tuned config is preferred to a simpler one (fewer settings changed from BEFORE) only
#: when it scores at least this much more on the tuning set: half a query of set A.
PARSIMONY = 0.005


def changes(cfg: Config) -> int:
    """How many of the tuned settings differ from :data:`BEFORE`."""
    a, b = cfg.settings, BEFORE.settings
    return sum((a.w_cosine != b.w_cosine, a.w_bm25 != b.w_bm25, a.w_rrf != b.w_rrf,
                a.long_query_keywords != b.long_query_keywords,
                a.stem_coverage != b.stem_coverage, cfg.rewrite != BEFORE.rewrite))


def tune(ds: R.DataSet, g: Gatherer, configs: Sequence[Config]
         ) -> tuple[tuple[Config, float], tuple[Config, float]]:
    """On ``ds``: the config with the best nDCG@10 (the first of a tie, in grid order), and
    the one with the fewest changes among those within :data:`PARSIMONY` of it."""
    scored = [(cfg, mean_ndcg(ds, config_ranker(g, cfg))) for cfg in configs]
    top = max(scored, key=lambda c: c[1])
    simple = min((c for c in scored if c[1] >= top[1] - PARSIMONY),
                 key=lambda c: (changes(c[0]), -c[1]))
    return top, simple


# -- report ------------------------------------------------------------------------------

Table = dict[str, R.Scores]
PerQuery = dict[str, list[float]]  # system -> nDCG@10 of each graded query, in order


def paired_interval(a: Sequence[float], b: Sequence[float], rounds: int = 2000
                    ) -> tuple[float, float]:
    """95 % paired bootstrap interval of mean(a) - mean(b) over queries (seeded)."""
    rng = random.Random(24)
    n = len(a)
    diffs = sorted(sum(a[i] - b[i] for i in (rng.randrange(n) for _ in range(n))) / n
                   for _ in range(rounds))
    return diffs[int(0.025 * rounds)], diffs[int(0.975 * rounds) - 1]


def report(ds: R.DataSet, systems: list[tuple[str, R.Ranker, bool]],
           per: PerQuery) -> Table:
    """Score and print every system on ``ds``; ``tuned_here`` systems are marked ``*``."""
    labelled = [q for q in ds.queries if q.gains]
    print(f"\n{ds.name}: {ds.index.stats()['chunks']} chunks in {len(ds.files)} files;"
          f" {len(labelled)} graded queries, {len(ds.queries) - len(labelled)} unrelated")
    print(f"  {'system':<16} {'nDCG@10':>8} {'recall@6':>9} {'unrel-empty':>6}   nDCG by kind")
    out: Table = {}
    for name, ranker, tuned_here in systems:
        s = out[name] = R.evaluate(ds, ranker)
        per[name] = [R.ndcg_at(q, ranker(q.text, False), ds.labels) for q in labelled]
        empty = "   -  " if s.unrelated_empty is None else f"{s.unrelated_empty:6.2f}"
        kinds = ", ".join(f"{k} {v:.3f}" for k, v in s.by_kind.items())
        label = name + (" *" if tuned_here else "")
        print(f"  {label:<16} {s.ndcg:8.3f} {s.recall:9.3f} {empty}   {kinds}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-cranfield", action="store_true")
    parser.add_argument("--grid", choices=("small", "full"), default="full")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    from rulelens.memory.embedders import LocalEmbedder
    embedder = LocalEmbedder.load()
    root = tempfile.mkdtemp(prefix="rulelens-bench-generalise-")
    started = time.monotonic()
    try:
        sets = {"A": R.build_memory_set(root), "B": build_agent_set(root)}
        if not args.no_cranfield:
            cran = R.build_cranfield(root)
            if cran is None:
                print(f"Cranfield skipped: {R.CRANFIELD} not found")
            else:
                sets["Cranfield"] = cran
        for ds in sets.values():
            ds.index.embed_missing(embedder, 32)  # type: ignore[arg-type]
        gatherers = {k: Gatherer(ds, embedder) for k, ds in sets.items()}
        configs = grid(args.grid)
        tuned: dict[str, Config] = {}
        for name in ("A", "B"):
            top, simple = tune(sets[name], gatherers[name], configs)
            tuned[f"top-{name}"], tuned[f"simple-{name}"] = top[0], simple[0]
            print(f"tuned on {name} ({len(configs)} configs), scores there not reported:\n"
                  f"  top-{name}:    {top[0].describe()} -> {top[1]:.3f}\n"
                  f"  simple-{name}: {simple[0].describe()} -> {simple[1]:.3f}")
        shipped = Config(BestSettings(), False)
        print(f"shipped best: {shipped.describe()}")
        tables: dict[str, Table] = {}
        per: dict[str, PerQuery] = {}
        for name, ds in sets.items():
            g = gatherers[name]
            systems: list[tuple[str, R.Ranker, bool]] = [
                ("bm25", R.bm25_ranker(ds), False),
                ("vectors", R.vector_ranker(ds, embedder), False),
                ("rrf", R.rrf_ranker(ds, embedder), False),
                ("best-before", config_ranker(g, BEFORE), name == "A"),
                ("best", config_ranker(g, shipped), name == "A"),
            ] + [(f"best-{key}", config_ranker(g, cfg), key.endswith(name))
                 for key, cfg in tuned.items()]
            per[name] = {}
            tables[name] = report(ds, systems, per[name])
        print("\nheld out (never the set a system was tuned on): nDCG@10, minus rrf,"
              " 95 % paired bootstrap interval of the difference")
        held = [("best-before", "A"), ("best", "A")] + [(f"best-{k}", k[-1]) for k in tuned]
        for sys_name, tuned_on in held:
            for name, t in tables.items():
                if name == tuned_on:
                    continue
                lo, hi = paired_interval(per[name][sys_name], per[name]["rrf"])
                print(f"  {sys_name:<15} tuned on {tuned_on}, on {name:<9}"
                      f" {t[sys_name].ndcg:.3f}  {t[sys_name].ndcg - t['rrf'].ndcg:+.3f}"
                      f"  [{lo:+.3f}, {hi:+.3f}]")
        for ds in sets.values():
            ds.index.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"\n({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
