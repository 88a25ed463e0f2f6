"""``--rank best``: a ranking for people looking for something they remember.

The agent-exact ranking (:mod:`rulelens.memory.search`) answers "what would the agent
see" and stays byte for byte the agent's. This one answers "where did I write that down",
from the same index and the same vectors:

1. **Candidates**: BM25 over the keywords (``OR``, as the agent) and the nearest vectors.
2. **Score**, from signals on an absolute scale (so an unrelated query is not scored 1.0
   the way the agent's min-max normalisation scores its best keyword hit):
   ``w_cosine * cosine + w_coverage * coverage`` where ``cosine`` is the query/chunk cosine
   similarity and ``coverage`` the IDF-weighted share of the query's keywords found in the
   chunk (a keyword also counts under another ending, ``rains`` for ``rain``:
   ``stem_coverage``). Queries of ``long_query_keywords`` (5) keywords or more (questions,
   pasted text) are ranked by reciprocal-rank fusion of the two lists weighted by ``1 + cosine``
   instead: there, whether each word occurs says little. Without vectors: coverage and
   (``w_rrf``, ``w_bm25``, 0 by default) BM25 signals only.
3. **Weak-match cut-off**: a result is kept only if its cosine reaches ``weak_cosine``
   (0.35) or its coverage reaches ``weak_coverage`` (0.34). Calibrated on
   bench/data/retrieval (``bench/retrieval.py --calibrate`` prints the sweep): there it
   leaves 80 % of unrelated queries empty (84 % before coverage was stemmed) while 98 % of
   real ones keep an answer; 0.30/0.34 keeps more (99 %) but empties only 64 %, 0.45/0.50
   empties all and answers 92 %. On the held-out Claude/Gemini set it empties 92 %.
4. **Superseded facts**: of two near-duplicates among the first ``dup_window`` results (both
   within ``dup_query_cosine`` of the query and ``dup_cosine`` of each other; without
   vectors, both covering the query with headings alike by word Jaccard ``dup_jaccard``),
   the older one is placed right after the newer one and names it (``superseded_by``). A
   fact's time is the first ``YYYY-MM-DD`` in its file name or text, else its file's mtime.
5. Sort, then cut to ``max_results``.

The weights were chosen on the memory set (bench/retrieval.py) and checked on Cranfield,
which was not used to pick them except for the long-query switch. bench/generalise.py
re-tunes them on that set and on a second, differently written one (Claude and Gemini
memory) and reports each only on the set it was not tuned on.

Every result carries the numbers behind it (:class:`BestExplanation`), which
``--explain`` and the editors' detail views print.
"""

from __future__ import annotations

import calendar
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from rulelens.memory.search import extract_keywords, fts_match, jaccard
from rulelens.memory.words import split_words


@dataclass(frozen=True)
class BestSettings:
    candidates: int = 40
    max_results: int = 10
    rrf_k: int = 60
    w_cosine: float = 0.58
    w_coverage: float = 0.42
    w_rrf: float = 0.0
    w_bm25: float = 0.0
    #: Queries with at least this many keywords (questions, pasted text) are ranked by
    #: rank fusion weighted by cosine instead: there, presence of each word says little.
    long_query_keywords: int = 5
    long_cosine: float = 1.0
    weak_cosine: float = 0.35
    weak_coverage: float = 0.34
    dup_window: int = 10
    dup_cosine: float = 0.7
    dup_query_cosine: float = 0.45
    dup_jaccard: float = 0.3
    #: Keyword coverage also counts a keyword's other endings ("rains" covers "rain").
    #: Chosen on the memory set (nDCG@10 0.846 -> 0.873); held out: Claude/Gemini set
    #: 0.938 -> 0.945, Cranfield 0.420 -> 0.425 (bench/generalise.py).
    stem_coverage: bool = True


class _Index(Protocol):
    def search_fts(self, match: str, limit: int, sources: Any = None
                   ) -> list[tuple[str, float]]: ...

    def get_chunks(self, ids: Any) -> Mapping[str, Any]: ...

    def vector_search(self, embedding: Sequence[float], k: int) -> list[tuple[str, float]]: ...

    def fts_document_count(self, term: str) -> int: ...

    def vectors_for(self, ids: Any) -> Mapping[str, Sequence[float]]: ...

    def stats(self) -> Mapping[str, object]: ...


@dataclass(frozen=True)
class BestExplanation:
    bm25: float | None  # FTS5 bm25 (negative: lower is better), None when not a keyword hit
    bm25_rank: int | None  # 1-based
    cosine: float | None  # query/chunk cosine similarity
    vector_rank: int | None
    coverage: float  # IDF-weighted share of the query keywords in the chunk
    matched: tuple[str, ...]  # the keywords found in the chunk
    rrf: float  # scaled reciprocal-rank fusion, 1.0 = first in both lists
    base: float  # the weighted sum before supersession
    fact_time: int
    superseded_by: str | None  # chunk id of the newer near-duplicate
    passed: bool
    cutoff: str  # which test kept it, or why it was cut

    def to_json(self) -> dict[str, object]:
        return {"bm25": self.bm25, "bm25_rank": self.bm25_rank, "cosine": self.cosine,
                "vector_rank": self.vector_rank, "coverage": self.coverage,
                "matched": list(self.matched), "rrf": self.rrf, "base": self.base,
                "fact_time": self.fact_time, "superseded_by": self.superseded_by,
                "passed": self.passed, "cutoff": self.cutoff}


@dataclass(frozen=True)
class BestResult:
    chunk_id: str
    path: str
    start_line: int  # 0-based, end exclusive (the index's numbering)
    end_line: int
    snippet: str
    source: str
    score: float
    explanation: BestExplanation


@dataclass(frozen=True)
class BestOutcome:
    query: str
    keywords: list[str]
    results: list[BestResult]
    cut: list[BestResult] = field(default_factory=list)  # candidates below the cut-off
    vectors: bool = False


_DATE = re.compile(r"(20\d\d)-(\d\d)-(\d\d)")


def fact_time(path: str, text: str, fallback: int) -> int:
    """The first ISO date in the file name, else in the text, else ``fallback`` (Unix s)."""
    for hay in (path.rsplit("/", 1)[-1], text):
        m = _DATE.search(hay)
        if m:
            y, mo, d = (int(g) for g in m.groups())
            if 1 <= mo <= 12 and 1 <= d <= 31:
                return calendar.timegm((y, mo, d, 0, 0, 0))
    return fallback


def idf_weights(index: _Index, keywords: Sequence[str]) -> dict[str, float]:
    """``ln(1 + N / df)`` per keyword; a keyword in no chunk weighs as a rare one."""
    total = int(str(index.stats().get("chunks", 0))) or 1
    return {k: math.log1p(total / max(1, index.fts_document_count(k))) for k in keywords}


#: (suffix, replacement, shortest word it is cut from): plural and verb endings only.
_SUFFIXES = (("ies", "y", 5), ("ing", "", 6), ("ed", "", 5), ("es", "", 5), ("s", "", 4))


def stem(word: str) -> str:
    """A light English stem: ``rains``/``raining``/``rained`` -> ``rain``, ``policies`` ->
    ``policy``; short words and ``-ss`` are kept. Only for coverage, never for FTS (the
    agent's tokenizer does not stem)."""
    if word.endswith("ss"):
        return word
    for suffix, replacement, shortest in _SUFFIXES:
        if word.endswith(suffix) and len(word) >= shortest:
            return word[: -len(suffix)] + replacement
    return word


def forms(keyword: str) -> frozenset[str]:
    """The words whose :func:`stem` is the keyword's (among the endings ``stem`` cuts):
    ``lock`` -> lock, locks, locked, locking. Matching these against a chunk's words is
    the same as stemming every word of the chunk, without doing so."""
    root = stem(keyword)
    tried = {keyword, root, root + "s", root + "es", root + "ed", root + "ing"}
    if root.endswith("y"):
        tried.add(root[:-1] + "ies")
    return frozenset(w for w in tried if stem(w) == root)


def coverage(words: frozenset[str], weights: Mapping[str, float], stemmed: bool = False
             ) -> tuple[float, tuple[str, ...]]:
    """The IDF-weighted share of the keywords found in ``words``; ``stemmed``: a keyword
    also counts when a word has the same :func:`stem`."""
    if not weights:
        return 0.0, ()
    matched = tuple(k for k in weights
                    if k in words or (stemmed and not forms(k).isdisjoint(words)))
    total = sum(weights.values())
    return (sum(weights[k] for k in matched) / total if total else 0.0), matched


def matched_line(text: str, keywords: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """The chunk's line holding the most query keywords (the first such line; the first
    non-heading line when none matches), skipping the ``[Context: …]`` prefix, and the
    character ranges of the keywords in it (what a picker highlights)."""
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("[Context: ")]
    if not lines:
        return "", []
    wanted = {k.lower() for k in keywords}

    def hits(line: str) -> int:
        return len(wanted & set(split_words(line.lower())))

    best = max(lines, key=hits)
    if hits(best) == 0:
        best = next((ln for ln in lines if not ln.lstrip().startswith("#")), lines[0])
    low = best.lower()
    ranges: list[tuple[int, int]] = []
    for k in sorted(wanted, key=len, reverse=True):
        start = 0
        while (i := low.find(k, start)) >= 0:
            end = i + len(k)
            before = low[i - 1] if i else " "
            after = low[end] if end < len(low) else " "
            if not (before.isalnum() or after.isalnum()) and not any(
                    a < end and i < b for a, b in ranges):
                ranges.append((i, end))
            start = end
    return best.strip(), sorted((a - (len(best) - len(best.lstrip())),
                                 b - (len(best) - len(best.lstrip()))) for a, b in ranges)


def cosine_from_l2(distance: float) -> float:
    """Unit vectors: ``|a-b|^2 = 2 - 2 cos``."""
    return max(-1.0, min(1.0, 1.0 - distance * distance / 2.0))


@dataclass(frozen=True)
class Candidate:
    """One chunk's signals for one query, before any weighting."""

    chunk: Any
    bm25: float | None
    bm25_rank: int | None
    bm25_rel: float  # bm25 / best bm25 of the query (1.0 for the best keyword hit)
    cosine: float | None
    vector_rank: int | None
    coverage: float
    matched: tuple[str, ...]
    fact_time: int


@dataclass(frozen=True)
class Gathered:
    query: str
    keywords: list[str]
    candidates: list[Candidate]
    vectors: Mapping[str, Sequence[float]]  # chunk vectors, for the near-duplicate test
    with_vectors: bool


def gather(index: _Index, query: str, query_vector: Sequence[float] | None = None,
           candidates: int = 40, stemmed: bool = True) -> Gathered:
    """Candidates from BM25 and the vectors, with every signal the ranking weighs."""
    keywords = extract_keywords(query)
    fts = index.search_fts(fts_match(keywords), candidates) if keywords else []
    vec = index.vector_search(query_vector, candidates) if query_vector is not None else []
    fts_rank = {cid: i for i, (cid, _) in enumerate(fts, 1)}
    bm25 = dict(fts)
    best_bm25 = min(bm25.values(), default=0.0)  # FTS5 bm25 is negative, lower is better
    vec_rank = {cid: i for i, (cid, _) in enumerate(vec, 1)}
    cos = {cid: cosine_from_l2(d) for cid, d in vec}
    ids = list(dict.fromkeys([c for c, _ in fts] + [c for c, _ in vec]))
    chunks = index.get_chunks(ids)
    weights = idf_weights(index, keywords)
    out: list[Candidate] = []
    for cid in ids:
        c = chunks.get(cid)
        if c is None:
            continue
        cov, matched = coverage(frozenset(split_words(c.text.lower())), weights, stemmed)
        rel = bm25[cid] / best_bm25 if cid in bm25 and best_bm25 < 0 else 0.0
        out.append(Candidate(c, bm25.get(cid), fts_rank.get(cid), rel, cos.get(cid),
                             vec_rank.get(cid), cov, matched,
                             fact_time(c.path, c.text, int(c.updated_at or c.created_at or 0))))
    vectors = index.vectors_for(ids) if vec else {}
    return Gathered(query, keywords, out, vectors, bool(vec))


def _cutoff(c: Candidate, s: BestSettings, with_vectors: bool) -> tuple[bool, str]:
    if c.cosine is not None and c.cosine >= s.weak_cosine:
        return True, f"cosine {c.cosine:.2f} >= {s.weak_cosine:.2f}"
    if c.coverage >= s.weak_coverage:
        return True, f"keyword coverage {c.coverage:.2f} >= {s.weak_coverage:.2f}"
    return False, (f"weak match: keyword coverage {c.coverage:.2f} < {s.weak_coverage:.2f}"
                   + (f" and cosine {c.cosine or 0.0:.2f} < {s.weak_cosine:.2f}"
                      if with_vectors else ""))


def rank_gathered(g: Gathered, s: BestSettings, limit: int) -> BestOutcome:
    ranks = [c for c in (1 if any(x.bm25_rank for x in g.candidates) else 0,
                         1 if g.with_vectors else 0) if c]
    top = len(ranks) / (s.rrf_k + 1) if ranks else 1.0
    rows: list[Row] = []
    for c in g.candidates:
        rrf = sum(1.0 / (s.rrf_k + r) for r in (c.bm25_rank, c.vector_rank) if r) / top
        text_part = s.w_coverage * c.coverage + s.w_rrf * rrf + s.w_bm25 * c.bm25_rel
        if g.with_vectors and len(g.keywords) >= s.long_query_keywords:
            base = rrf * (1.0 + s.long_cosine * max(0.0, c.cosine or 0.0)) / (1.0 + s.long_cosine)
        elif g.with_vectors:
            base = s.w_cosine * max(0.0, c.cosine or 0.0) + text_part
        else:
            base = text_part / ((s.w_coverage + s.w_rrf + s.w_bm25) or 1.0)
        passed, why = _cutoff(c, s, g.with_vectors)
        rows.append((base, c.chunk, BestExplanation(
            c.bm25, c.bm25_rank, c.cosine, c.vector_rank, c.coverage, c.matched, rrf, base,
            c.fact_time, None, passed, why), frozenset()))
    rows.sort(key=lambda r: -r[0])
    cos = {c.chunk.id: c.cosine for c in g.candidates if c.cosine is not None}
    rows = _order_superseded(rows, s, cos, g.vectors)
    results = [BestResult(c.id, c.path, c.start_line, c.end_line, c.text, c.source, score, e)
               for score, c, e, _ in rows]
    kept = [r for r in results if r.explanation.passed]
    return BestOutcome(g.query, g.keywords, kept[:limit],
                       [r for r in results if not r.explanation.passed], g.with_vectors)


def best_search(index: _Index, query: str, *, query_vector: Sequence[float] | None = None,
                settings: BestSettings | None = None, max_results: int | None = None
                ) -> BestOutcome:
    """``--rank best`` for ``query`` (see the module docstring)."""
    s = settings or BestSettings()
    g = gather(index, query, query_vector, s.candidates, s.stem_coverage)
    return rank_gathered(g, s, s.max_results if max_results is None else max_results)


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=False))


def _heading_words(text: str) -> frozenset[str]:
    for line in text.splitlines():
        if line.startswith("#"):
            return frozenset(split_words(line.lower().lstrip("# ")))
    return frozenset()


def near_duplicates(a: Any, b: Any, ea: BestExplanation, eb: BestExplanation,
                    s: BestSettings, cos: Mapping[str, float],
                    vectors: Mapping[str, Sequence[float]]) -> bool:
    """Two answers to *this* query about the same subject: both close to the query and
    to each other (vectors), or, without vectors, both covering the query and titled alike."""
    if a.path == b.path:
        return False
    if a.id in vectors and b.id in vectors:
        return (min(cos.get(a.id, 0.0), cos.get(b.id, 0.0)) >= s.dup_query_cosine
                and _dot(vectors[a.id], vectors[b.id]) >= s.dup_cosine)
    return (min(ea.coverage, eb.coverage) >= s.weak_coverage
            and jaccard(_heading_words(a.text), _heading_words(b.text)) >= s.dup_jaccard)


Row = tuple[float, Any, BestExplanation, frozenset[str]]


def _order_superseded(rows: list[Row], s: BestSettings, cos: Mapping[str, float],
                      vectors: Mapping[str, Sequence[float]]) -> list[Row]:
    """An older near-duplicate of a newer result among the first ``dup_window`` moves just
    below it (``superseded_by`` names the newer chunk); the newest of a chain keeps its
    place, so "3.11 -> 3.12 -> 3.13 postponed" reads newest first."""
    head = rows[:s.dup_window]
    by_time = sorted(range(len(head)), key=lambda i: -head[i][2].fact_time)
    for pos, i in enumerate(by_time):
        score, c, e, toks = head[i]
        for j in by_time[:pos]:
            nscore, other, oe, _ = head[j]
            if oe.fact_time > e.fact_time and near_duplicates(c, other, e, oe, s, cos, vectors):
                if score >= nscore:
                    score = nscore - 1e-6
                head[i] = (score, c, replace(e, superseded_by=other.id), toks)
                break
    out = head + rows[s.dup_window:]
    out.sort(key=lambda r: -r[0])
    return out
