"""The ``<memory-context>`` block the agent injects on the first turn (spec §7.13, §A7.13)
and after a compaction (§7.14), for one query, as the agent would build it.

Legacy store: the greeting fallback query, ``search(query, 6, initial_injection.min_score)``
(0.9 by default), results scoring ``0.00`` dropped, then the block; Grok 1.0.45 adds the
framing sentence. Memory v2: the two generated manifests (§A7.6). Whether v2 also runs the
legacy first-turn search is UNCONFIRMED (§A7.6); ``v2_search_injection`` switches it on.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rulelens.memory.search import (
    extract_keywords,
    fetch_candidates,
    first_turn_query,
    format_injection,
    query_embedding,
    rank,
)
from rulelens.memory.settings import MemorySettings

#: §7.14: the post-compaction query when the conversation has no user query.
POST_COMPACTION_FALLBACK = "project context"


@dataclass(frozen=True)
class ContextBlock:
    """What would be injected (``text``, ``""`` for nothing) and why."""

    query: str  # the query the agent searches (after the greeting fallback)
    text: str
    results: int
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"query": self.query, "text": self.text, "results": self.results,
                "reason": self.reason}


def _search_block(index: Any, query: str, settings: MemorySettings, limit: int,
                  threshold: float, embedder: Any | None, framing: bool,
                  now: float | None) -> tuple[str, int]:
    qvec, _, _ = query_embedding(embedder, index, query)
    cands, _ = fetch_candidates(index, extract_keywords(query), limit * 3, qvec)
    chunks: Mapping[str, Any] = index.get_chunks(
        {c for c, _ in cands.fts} | {c for c, _ in cands.vec})
    results = rank(cands, chunks, settings.search, limit, threshold,
                   time.time() if now is None else now)
    return format_injection(results, framing), sum(f"{r.score:.2f}" != "0.00" for r in results)


def first_turn_block(index: Any, raw: str, settings: MemorySettings, *, framing: bool,
                     embedder: Any | None = None, now: float | None = None) -> ContextBlock:
    """§7.13 steps 2–5 for the user's first message ``raw``."""
    query = first_turn_query(raw)
    if not settings.initial_injection.enabled:
        return ContextBlock(query, "", 0, "first-turn injection is off"
                            " ([memory.initial_injection] enabled = false)")
    threshold = settings.initial_injection.threshold
    text, n = _search_block(index, query, settings, 6, threshold, embedder, framing, now)
    fallback = " (the greeting fallback query)" if query != raw else ""
    if not text:
        return ContextBlock(query, "", 0, f"no result for {query!r}{fallback} reaches the"
                            f" injection threshold {threshold:.2f}; nothing is injected")
    return ContextBlock(query, text, n, f"{n} result(s) for {query!r}{fallback} reach"
                        f" {threshold:.2f}")


def post_compaction_block(index: Any, last_query: str, settings: MemorySettings, *,
                          framing: bool, embedder: Any | None = None,
                          now: float | None = None) -> ContextBlock:
    """§7.14: ``search(query, 3, 0.0)`` with the same formatting."""
    query = last_query or POST_COMPACTION_FALLBACK
    text, n = _search_block(index, query, settings, 3, 0.0, embedder, framing, now)
    return ContextBlock(query, text, n, f"{n} result(s) after a compaction")
