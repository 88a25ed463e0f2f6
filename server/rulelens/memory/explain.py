"""Why a result ranked where it did, in the agent's pipeline (spec §7.8–7.10).

:func:`agent_explanations` re-runs the agent's steps on the agent's own candidate fetch
(``max_results * 3`` from FTS, the evergreen supplement and the vectors) with the same pure
functions :func:`rulelens.memory.search.rank` uses, keeping every intermediate number:
keyword score and rank, vector similarity, the merge, decay (age, half-life), source
weight, access boost, the threshold, the order before and after MMR. It also says, for any
chunk, why the agent would not return it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rulelens.memory.search import (
    access_boost,
    clamp01,
    decay_multiplier,
    extract_keywords,
    fetch_candidates,
    is_content_free,
    merge_score,
    mmr_order,
    mmr_tokens,
    normalise_fts,
    vector_similarity,
)
from rulelens.memory.settings import MemorySettings


@dataclass(frozen=True)
class AgentExplanation:
    chunk_id: str
    keyword_score: float | None  # min-max normalised FTS score (1.0 = its best keyword hit)
    keyword_rank: int | None  # 1-based, in the combined FTS list
    vector_similarity: float | None  # 1 - d/2
    merged: float
    decay: float
    age_days: float
    half_life_days: float | None
    source_weight: float
    access_boost: float
    raw: float
    display: float
    min_score: float
    passed_threshold: bool
    content_free: bool
    rank_before_mmr: int | None  # 1-based among the kept results
    rank_after_mmr: int | None
    agent_returns: bool
    why_not: str | None  # "the agent would not return this because …", None when it does

    def to_json(self) -> dict[str, object]:
        return dict(self.__dict__)


def _age_days(created_at: int, now: float) -> float:
    return max(0.0, (now - max(created_at, 0)) / 86400.0)


def agent_explanations(index: Any, query: str, settings: MemorySettings, *,
                       query_vector: Sequence[float] | None = None,
                       max_results: int | None = None, min_score: float | None = None,
                       now: float | None = None) -> dict[str, AgentExplanation]:
    """Every candidate of the agent's fetch for ``query``, explained."""
    now = time.time() if now is None else now
    s = settings.search
    k = s.max_results if max_results is None else max_results
    floor = s.min_score if min_score is None else min_score
    cands, _ = fetch_candidates(index, extract_keywords(query), k * 3, query_vector)
    fts = normalise_fts(cands.fts)
    fts_rank = {cid: i for i, (cid, _) in enumerate(cands.fts, 1)}
    vec = {cid: vector_similarity(d) for cid, d in cands.vec}
    order = list(dict.fromkeys([c for c, _ in cands.fts] + [c for c, _ in cands.vec]))
    chunks: Mapping[str, Any] = index.get_chunks(order)
    half = s.effective_half_life_days()
    rows: dict[str, dict[str, Any]] = {}
    kept: list[tuple[str, float, frozenset[str]]] = []
    for cid in order:
        c = chunks.get(cid)
        if c is None:
            continue
        empty = is_content_free(c.text, c.source)
        merged = merge_score(fts.get(cid, 0.0), vec.get(cid, 0.0), s.text_weight, s.vector_weight)
        decay = decay_multiplier(c.source, c.created_at, now, half)
        weight = s.source_weight(c.source)
        boost = access_boost(c.access_count or 0)
        raw = merged * decay * weight * boost
        rows[cid] = {"keyword_score": fts.get(cid), "keyword_rank": fts_rank.get(cid),
                     "vector_similarity": vec.get(cid), "merged": merged, "decay": decay,
                     "age_days": _age_days(c.created_at, now), "half_life_days": half,
                     "source_weight": weight, "access_boost": boost, "raw": raw,
                     "display": clamp01(raw), "content_free": empty}
        if not empty and clamp01(raw) >= floor:
            kept.append((cid, raw, mmr_tokens(c.text)))
    kept.sort(key=lambda r: -r[1])
    before = {cid: i for i, (cid, _, _) in enumerate(kept, 1)}
    picked = (mmr_order([r[1] for r in kept], [r[2] for r in kept], s.mmr_lambda)
              if s.mmr_enabled else list(range(len(kept))))
    after = {kept[i][0]: pos for pos, i in enumerate(picked, 1)}
    out: dict[str, AgentExplanation] = {}
    for cid, r in rows.items():
        passed = not r["content_free"] and r["display"] >= floor
        position = after.get(cid)
        returns = position is not None and position <= k
        why = None if returns else _why_not(r, passed, position, floor, k)
        out[cid] = AgentExplanation(cid, r["keyword_score"], r["keyword_rank"],
                                    r["vector_similarity"], r["merged"], r["decay"],
                                    r["age_days"], r["half_life_days"], r["source_weight"],
                                    r["access_boost"], r["raw"], r["display"], floor, passed,
                                    r["content_free"], before.get(cid), position, returns, why)
    return out


def _why_not(r: Mapping[str, Any], passed: bool, position: int | None, floor: float,
             k: int) -> str:
    if r["content_free"]:
        return ("the agent would not return this because it is content-free (only headings,"
                " comments or the agent's own template)")
    if not passed:
        return (f"the agent would not return this because its score {r['display']:.2f} is under"
                f" min_score {floor:.2f}")
    return (f"the agent would not return this because MMR puts it at #{position}, after its"
            f" {k} results")


def not_a_candidate(query: str, k: int, with_vectors: bool) -> str:
    """The reason for a chunk outside the agent's candidate fetch."""
    if not extract_keywords(query) and not with_vectors:
        return ("the agent would not return this because the query has no keyword it searches"
                " (all stop words or short) and it has no vectors")
    where = "its FTS and vector top" if with_vectors else "its FTS top"
    return (f"the agent would not return this because it is not among {where} {k * 3}"
            " candidates" + ("" if with_vectors else " (no keyword of the query matches it, or"
                             " better keyword hits fill the list; the agent runs FTS only)"))
