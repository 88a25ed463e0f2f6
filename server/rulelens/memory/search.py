"""The agent's memory search pipeline as small pure functions, and one function that runs it.

Spec §7.7–7.13. Each step is its own function so that a test can pin the formula and the
editor can explain a score. :func:`explain_search` runs the pipeline up to three times
over one candidate fetch — the agent's ``memory_search`` view, the first-turn injection
view (0.9) and, on request, a wider list — and marks every result with what the agent
would do with it.

Deliberate difference: the agent merges candidates through a hash map, so equal scores
come out in arbitrary order. Here ties keep candidate order (FTS rank order, then vector
order), which is one of the orders the agent can produce.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from rulelens.agents.rusttext import byte_len, lines, trim
from rulelens.memory.chunker import header_level
from rulelens.memory.settings import MemorySettings, SearchSettings
from rulelens.memory.words import is_numeric_word, split_words
from rulelens.memory.workspace import EVERGREEN

EPSILON = sys.float_info.epsilon
SearchMode = Literal["fts", "hybrid", "fts-fallback"]

# -- 7.7 keywords -------------------------------------------------------------------

#: The agent's stop words (``query_expansion.rs``), by group.
_STOP_WORDS_TEXT = """
a an the this that these those
i me my we our you your he she it they him her its them us
is are was were be been being have has had do does did will would could should can may might
in on at to for of with by from about into through during before after above below
and or but if then because as while when where what which who how why
thing things stuff something anything everything one some any all each every both few more
yesterday today tomorrow earlier later recently now just already still yet
please help find show get tell give make
not no yes also too very really here there so up out like than other only
"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())


def extract_keywords(query: str) -> list[str]:
    """``extract_keywords``: lowercase, split on non-(alphanumeric|_), >= 2 bytes, no stop
    words, not all-numeric, de-duplicated in first-appearance order."""
    seen: set[str] = set()
    out: list[str] = []
    for word in split_words(query.lower()):
        if byte_len(word) < 2 or word in STOP_WORDS or is_numeric_word(word) or word in seen:
            continue
        seen.add(word)
        out.append(word)
    return out


def fts_match(keywords: Sequence[str]) -> str:
    """Bare keywords joined by `` OR ``; every keyword is a valid FTS5 bareword."""
    return " OR ".join(keywords)


# -- 7.8 scoring ----------------------------------------------------------------------

def normalise_fts(rows: Sequence[tuple[str, float]]) -> dict[str, float]:
    """Min-max over the whole combined FTS list: best rank 1.0, worst 0.0, single row 1.0."""
    if not rows:
        return {}
    ranks = [r for _, r in rows]
    lo, hi = min(ranks), max(ranks)
    span = max(hi - lo, EPSILON)
    out: dict[str, float] = {}
    for cid, rank in rows:
        out[cid] = 1.0 - (rank - lo) / span
    return out


def vector_similarity(distance: float) -> float:
    """``1 - d/2`` clamped to [0, 1]: L2 distance of unit vectors on an absolute scale."""
    return min(1.0, max(0.0, 1.0 - distance / 2.0))


def merge_score(fts: float, vec: float, text_weight: float, vector_weight: float) -> float:
    """Both: ``max(tw*fts + vw*vec, fts)``; FTS only: ``fts``; otherwise ``vw*vec``."""
    if fts > 0 and vec > 0:
        return max(text_weight * fts + vector_weight * vec, fts)
    if fts > 0:
        return fts
    return vector_weight * vec


def decay_multiplier(source: str, created_at: int, now: float,
                     half_life_days: float | None) -> float:
    """``exp(-ln2/H * age_days)`` for non-evergreen sources; age from index insertion."""
    if half_life_days is None or source in EVERGREEN or half_life_days <= 0:
        return 1.0
    age_days = max(0.0, (now - max(created_at, 0)) / 86400.0)
    return math.exp(-math.log(2.0) / half_life_days * age_days)


def access_boost(access_count: int) -> float:
    """``1 + ln(1 + access_count) * 0.05``."""
    return 1.0 + math.log1p(max(0, access_count)) * 0.05


def clamp01(x: float) -> float:
    return min(1.0, max(0.0, x))


# -- 7.9 content-free filter --------------------------------------------------------

SCAFFOLD_MARKERS = (
    "Auto-populated by dream consolidation",
    "Add project-specific knowledge here",
    "Add any cross-project preferences here",
)


def _strip_comments(text: str) -> str:
    out: list[str] = []
    rest = text
    while True:
        start = rest.find("<!--")
        if start < 0:
            break
        end = rest.find("-->", start + 4)
        if end < 0:
            break  # unterminated: keep the remainder as literal text
        out.append(rest[:start])
        rest = rest[end + 3:]
    out.append(rest)
    return "".join(out)


def is_structurally_empty(text: str) -> bool:
    """Only blank lines and ATX headers once ``<!-- … -->`` spans are removed."""
    if "<!--" in text:
        text = _strip_comments(text)
    return all(trim(line) == "" or header_level(line) is not None for line in lines(text))


def is_scaffold(text: str) -> bool:
    """One of the agent's own templates: trimmed under 500 bytes with a marker phrase."""
    t = trim(text)
    return byte_len(t) < 500 and any(m in t for m in SCAFFOLD_MARKERS)


def is_content_free(text: str, source: str) -> bool:
    """Structurally empty, or an evergreen chunk that is a scaffold template."""
    return is_structurally_empty(text) or (source in EVERGREEN and is_scaffold(text))


# -- 7.10 MMR -----------------------------------------------------------------------

def mmr_tokens(text: str) -> frozenset[str]:
    """Lowercased word set, split like keywords; no stop words, no length filter."""
    return frozenset(w for w in split_words(text.lower()) if w)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def mmr_order(relevance: Sequence[float], token_sets: Sequence[frozenset[str]],
              lam: float) -> list[int]:
    """Greedy MMR; returns indices. Ties: higher raw relevance wins, else the earlier one."""
    n = len(relevance)
    if n <= 1 or lam == 1.0:
        return list(range(n))
    lo, hi = min(relevance), max(relevance)
    span = max(hi - lo, EPSILON)
    norm = [(r - lo) / span for r in relevance]
    remaining = list(range(n))
    selected: list[int] = []
    while remaining:
        best_pos = -1
        best_score = -math.inf
        for pos, i in enumerate(remaining):
            max_sim = max((jaccard(token_sets[i], token_sets[j]) for j in selected), default=0.0)
            score = lam * norm[i] - (1 - lam) * max_sim
            if best_pos < 0 or score > best_score or (
                    score == best_score and relevance[i] > relevance[remaining[best_pos]]):
                best_pos, best_score = pos, score
        selected.append(remaining.pop(best_pos))
    return selected


# -- 7.12 staleness -----------------------------------------------------------------

def _round_half_away(x: float) -> int:
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def format_age(age_days: float) -> str:
    if age_days < 1:
        return f"{_round_half_away(age_days * 24)}h ago"
    if age_days < 7:
        days = math.floor(age_days)
        return "1 day ago" if days == 1 else f"{days} days ago"
    weeks = _round_half_away(age_days / 7)
    return "1 week ago" if weeks == 1 else f"{weeks} weeks ago"


def staleness_note(source: str, created_at: int | None, now: float) -> str:
    """``format_staleness_note``: empty for evergreen sources and chunks a day old or less."""
    if source in EVERGREEN or created_at is None:
        return ""
    age = max(0.0, (now - created_at) / 86400.0)
    if age <= 1:
        return ""
    if age > 7:
        return f"**Stale ({format_age(age)}):** Verify current state before relying on this.\n"
    return f"**Note ({format_age(age)}):** Verify this is still current.\n"


# -- 7.13 first-turn query ------------------------------------------------------------

GREETINGS = frozenset({"hi", "hey", "hello", "howdy", "continue", "start", "begin", "go",
                       "good morning", "good afternoon", "good evening", "what's up",
                       "whats up", "sup"})
GREETING_FALLBACK_QUERY = "project conventions preferences architecture"


def is_greeting(text: str) -> bool:
    return trim(text.lower()).rstrip(".!?,") in GREETINGS


def first_turn_query(raw: str) -> str:
    """The query the agent searches on the first turn: greetings and short text fall back."""
    if not raw or byte_len(raw) < 20 or is_greeting(raw):
        return GREETING_FALLBACK_QUERY
    return raw


# -- the pipeline ---------------------------------------------------------------------

class _Index(Protocol):
    def search_fts(self, match: str, limit: int, sources: Iterable[str] | None = None
                   ) -> list[tuple[str, float]]: ...

    def get_chunks(self, ids: Iterable[str]) -> Mapping[str, Any]: ...

    def vec_available(self, embedder_name: str | None = None) -> bool: ...

    def vector_search(self, embedding: Sequence[float], k: int) -> list[tuple[str, float]]: ...


class _Embedder(Protocol):
    name: str

    def embed(self, texts: list[str]) -> list[list[float]]: ...


@dataclass(frozen=True)
class Candidates:
    fts: list[tuple[str, float]]
    vec: list[tuple[str, float]]


@dataclass(frozen=True)
class Result:
    """One search hit. Lines are the agent's: 0-based start, exclusive end."""

    chunk_id: str
    path: str
    start_line: int
    end_line: int
    snippet: str
    score: float
    raw_score: float
    source: str
    created_at: int | None
    staleness: str = ""
    agent_returns: bool = False
    injected_first_turn: bool = False

    def to_json(self) -> dict[str, object]:
        """The CLI/LSP shape: 1-based inclusive lines (the editor's numbering)."""
        start = self.start_line + 1
        return {"path": self.path, "start_line": start, "end_line": max(self.end_line, start),
                "snippet": self.snippet, "score": self.score, "raw_score": self.raw_score,
                "source": self.source, "staleness": self.staleness,
                "agent_returns": self.agent_returns,
                "injected_first_turn": self.injected_first_turn}


def fetch_candidates(index: _Index, keywords: Sequence[str], limit: int,
                     query_embedding: Sequence[float] | None) -> tuple[Candidates, str | None]:
    """FTS top ``limit`` + the evergreen supplement + vector top ``limit``.

    Returns the candidates and, when vector search failed, why.
    """
    match = fts_match(keywords)
    fts = index.search_fts(match, limit) if match else []
    if match:
        present = {cid for cid, _ in fts}
        fts += [r for r in index.search_fts(match, limit, ("global", "workspace"))
                if r[0] not in present]
    vec: list[tuple[str, float]] = []
    problem = None
    if query_embedding is not None:
        try:
            vec = index.vector_search(query_embedding, limit)
        except Exception as exc:  # the agent degrades to FTS on any vector error
            problem = f"vector search failed: {exc}"
    return Candidates(fts, vec), problem


def rank(candidates: Candidates, chunks: Mapping[str, Any], settings: SearchSettings,
         max_results: int, min_score: float, now: float) -> list[Result]:
    """Steps 6–12 of the agent's search: merge, filter, decay, weigh, threshold, sort, MMR."""
    fts = normalise_fts(candidates.fts)
    vec = {cid: vector_similarity(d) for cid, d in candidates.vec}
    order = list(dict.fromkeys([c for c, _ in candidates.fts] + [c for c, _ in candidates.vec]))
    half_life = settings.effective_half_life_days()
    kept: list[Result] = []
    for cid in order:
        chunk = chunks.get(cid)
        if chunk is None or is_content_free(chunk.text, chunk.source):
            continue
        base = merge_score(fts.get(cid, 0.0), vec.get(cid, 0.0), settings.text_weight,
                           settings.vector_weight)
        raw = (base * decay_multiplier(chunk.source, chunk.created_at, now, half_life)
               * settings.source_weight(chunk.source) * access_boost(chunk.access_count or 0))
        display = clamp01(raw)
        if display >= min_score:
            kept.append(Result(cid, chunk.path, chunk.start_line, chunk.end_line, chunk.text,
                               display, raw, chunk.source, chunk.created_at,
                               staleness_note(chunk.source, chunk.created_at, now)))
    kept.sort(key=lambda r: -r.raw_score)
    if settings.mmr_enabled:
        picked = mmr_order([r.raw_score for r in kept], [mmr_tokens(r.snippet) for r in kept],
                           settings.mmr_lambda)
        kept = [kept[i] for i in picked]
    return kept[:max_results]


@dataclass(frozen=True)
class SearchOutcome:
    query: str
    keywords: list[str]
    mode: SearchMode
    results: list[Result]
    agent_results: list[Result]
    note: str | None = None
    extra: dict[str, object] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {"query": self.query, "keywords": self.keywords, "mode": self.mode,
                "note": self.note, "results": [r.to_json() for r in self.results]}


def query_embedding(embedder: _Embedder | None, index: _Index, query: str
                    ) -> tuple[list[float] | None, SearchMode, str | None]:
    """Embed the query when an embedder and its vectors exist; any failure means FTS."""
    if embedder is None:
        return None, "fts", None
    if not index.vec_available(embedder.name):
        return None, "fts-fallback", (f"no vectors from {embedder.name} in the index yet;"
                                      " run `rulelens memory index`")
    try:
        vectors = embedder.embed([query])
        return list(vectors[0]), "hybrid", None
    except Exception as exc:  # EmbedderError and anything else: degrade, say so
        return None, "fts-fallback", f"embedding failed, FTS only: {exc}"


def explain_search(index: _Index, query: str, settings: MemorySettings, *,
                   embedder: _Embedder | None = None, max_results: int | None = None,
                   min_score: float | None = None, wide: bool = False,
                   wide_max_results: int = 20, now: float | None = None) -> SearchOutcome:
    """The agent's view of ``query`` and, with ``wide``, more results clearly marked.

    ``max_results``/``min_score`` are what the model may pass to ``memory_search``; the
    defaults come from ``[memory.search]``. ``results`` is the agent's list (in its
    order) followed, when ``wide``, by the other hits of a ``min_score = 0`` run.
    """
    now = time.time() if now is None else now
    search = settings.search
    k = search.max_results if max_results is None else max_results
    threshold = search.min_score if min_score is None else min_score
    keywords = extract_keywords(query)
    qvec, mode, note = query_embedding(embedder, index, query)

    fetched: dict[tuple[object, ...], tuple[Candidates, str | None, Mapping[str, Any]]] = {}

    def run(q_keywords: list[str], q_vec: list[float] | None, limit: int, floor: float
            ) -> tuple[list[Result], str | None]:
        # The first-turn view usually repeats the agent's candidate fetch: reuse it.
        key = (tuple(q_keywords), None if q_vec is None else tuple(q_vec), limit)
        if key not in fetched:
            cands, problem = fetch_candidates(index, q_keywords, limit * 3, q_vec)
            chunks = index.get_chunks({c for c, _ in cands.fts} | {c for c, _ in cands.vec})
            fetched[key] = (cands, problem, chunks)
        cands, problem, chunks = fetched[key]
        return rank(cands, chunks, search, limit, floor, now), problem

    agent, problem = run(keywords, qvec, k, threshold)
    if problem:
        mode, note = "fts-fallback", problem
    injected: set[str] = set()
    if settings.initial_injection.enabled:
        ft_query = first_turn_query(query)
        ft_vec = qvec
        if ft_query != query:
            ft_vec = query_embedding(embedder, index, ft_query)[0] if qvec is not None else None
        first, _ = run(extract_keywords(ft_query), ft_vec, 6, settings.initial_injection.threshold)
        injected = {r.chunk_id for r in first if f"{r.score:.2f}" != "0.00"}
    agent_ids = {r.chunk_id for r in agent}
    results = [replace(r, agent_returns=True, injected_first_turn=r.chunk_id in injected)
               for r in agent]
    if wide:
        more, _ = run(keywords, qvec, max(wide_max_results, k), 0.0)
        results += [replace(r, injected_first_turn=r.chunk_id in injected)
                    for r in more if r.chunk_id not in agent_ids]
    return SearchOutcome(query, keywords, mode, results, agent, note)


# -- 7.11 / 7.13 exact text -----------------------------------------------------------

NO_RESULTS = "No memory results found for query."


def format_memory_search(results: Sequence[Result]) -> str:
    """Byte for byte the text the agent's ``memory_search`` tool returns."""
    if not results:
        return NO_RESULTS
    out = [f"Found {len(results)} memory result(s):\n"]
    for i, r in enumerate(results, 1):
        out.append(f"\n### Result {i} (score: {r.score:.2f}, source: {r.source})\n"
                   f"**File:** {r.path} (lines {r.start_line}-{r.end_line})\n"
                   f"{r.staleness}```\n{r.snippet}\n```\n")
    return "".join(out)


#: Grok 1.0.45's first line after the heading (§A7.13); also in the post-compaction block.
FRAMING_SENTENCE = ("Treat memory as historical context, not automatically as the current plan."
                    " Verify recalled paths, commands, repository state, and external facts"
                    " with live tools before relying on them; prefer current evidence when it"
                    " conflicts with memory.")


def format_injection(results: Sequence[Result], framing: bool = False) -> str:
    """The first-turn ``<memory-context>`` block (snippets cut to 500 characters);
    ``framing``: the agent version puts :data:`FRAMING_SENTENCE` after the heading."""
    kept = [r for r in results if f"{r.score:.2f}" != "0.00"]
    if not kept:
        return ""
    out = ["<memory-context>\n## Relevant Memory from Past Sessions\n\n"]
    if framing:
        out.append(FRAMING_SENTENCE + "\n\n")
    for i, r in enumerate(kept, 1):
        snippet = r.snippet if len(r.snippet) <= 500 else r.snippet[:500] + "..."
        out.append(f"### Result {i} (score: {r.score:.2f}, source: {r.source})\n"
                   f"**File:** {r.path} (lines {r.start_line}-{r.end_line})\n"
                   f"{r.staleness}```\n{snippet}\n```\n\n")
    out.append("</memory-context>")
    return "".join(out)
