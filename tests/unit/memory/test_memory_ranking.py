"""The ranking formulas, filters, MMR ties, staleness and the agent's exact output text."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from rulelens.memory.search import (
    Candidates,
    Result,
    access_boost,
    decay_multiplier,
    first_turn_query,
    format_age,
    format_injection,
    format_memory_search,
    is_content_free,
    is_scaffold,
    is_structurally_empty,
    jaccard,
    merge_score,
    mmr_order,
    mmr_tokens,
    normalise_fts,
    rank,
    staleness_note,
    vector_similarity,
)
from rulelens.memory.settings import SearchSettings

NOW = 1_800_000_000.0
DAY = 86400

#: The agent's own templates (spec §7.2), verbatim.
GLOBAL_TEMPLATE = ("# Global Memory\n\n> This file is automatically managed by Grok's memory"
                   " system.\n> You can also edit it manually — changes will be indexed on next"
                   " session.\n\n## Preferences\n\n<!-- Add any cross-project preferences here"
                   " -->\n")
WORKSPACE_TEMPLATE = ("# Project Memory — /home/me/src/shop\n\n> Auto-populated by dream"
                      " consolidation. Edit freely.\n")


def test_fts_min_max_normalisation() -> None:
    assert normalise_fts([("a", -3.0), ("b", -2.0), ("c", -1.0)]) == {"a": 1.0, "b": 0.5,
                                                                      "c": 0.0}
    assert normalise_fts([("only", -0.5)]) == {"only": 1.0}
    assert normalise_fts([("x", -1e-6), ("y", -1e-6)]) == {"x": 1.0, "y": 1.0}
    assert normalise_fts([]) == {}


def test_vector_similarity_is_absolute_and_clamped() -> None:
    assert vector_similarity(0.0) == 1.0
    assert vector_similarity(1.0) == 0.5
    assert vector_similarity(2.5) == 0.0


def test_merge_rule() -> None:
    assert merge_score(0.5, 0.9, 0.3, 0.7) == pytest.approx(0.3 * 0.5 + 0.7 * 0.9)
    assert merge_score(1.0, 0.2, 0.3, 0.7) == 1.0  # never below the FTS score alone
    assert merge_score(0.8, 0.0, 0.3, 0.7) == 0.8  # FTS only: not weighted
    assert merge_score(0.0, 0.9, 0.3, 0.7) == pytest.approx(0.63)  # vector only: weighted
    assert merge_score(0.0, 0.0, 0.3, 0.7) == 0.0  # the worst FTS row ends at 0


def test_decay_only_for_non_evergreen_sources() -> None:
    created = int(NOW - 30 * DAY)
    assert decay_multiplier("session", created, NOW, 30.0) == pytest.approx(0.5)
    assert decay_multiplier("dream", created, NOW, 30.0) == pytest.approx(0.5)
    assert decay_multiplier("global", created, NOW, 30.0) == 1.0
    assert decay_multiplier("workspace", created, NOW, 30.0) == 1.0
    assert decay_multiplier("session", created, NOW, None) == 1.0
    assert decay_multiplier("session", int(NOW + DAY), NOW, 30.0) == 1.0  # future: age 0
    assert decay_multiplier("session", -5, NOW, 30.0) == pytest.approx(
        math.exp(-math.log(2) / 30 * NOW / DAY))


def test_effective_half_life() -> None:
    assert SearchSettings().effective_half_life_days() == 30.0
    assert SearchSettings(half_life_days=0).effective_half_life_days() is None
    off = SearchSettings(temporal_decay_enabled=False)
    assert off.effective_half_life_days() is None  # recency_decay 0.95 is the no-op value
    legacy = SearchSettings(temporal_decay_enabled=False, recency_decay=0.5)
    assert legacy.effective_half_life_days() == pytest.approx(1.0)


def test_access_boost() -> None:
    assert access_boost(0) == 1.0
    assert access_boost(1) == pytest.approx(1 + math.log(2) * 0.05)
    assert access_boost(10) == pytest.approx(1.1199, abs=1e-4)


@dataclass
class Row:
    path: str
    start_line: int
    end_line: int
    text: str
    source: str
    created_at: int
    access_count: int = 0


def test_rank_clamps_filters_and_sorts_on_raw() -> None:
    chunks = {
        "g": Row("/m/MEMORY.md", 0, 3, "alpha beta notes", "global", int(NOW), 20),
        "w": Row("/m/w/MEMORY.md", 0, 3, "alpha gamma notes", "workspace", int(NOW), 0),
        "s": Row("/m/w/sessions/a.md", 0, 3, "alpha session notes", "session",
                 int(NOW - 60 * DAY)),
        "t": Row("/m/w/MEMORY.md", 3, 5, WORKSPACE_TEMPLATE, "workspace", int(NOW)),
    }
    cands = Candidates([("g", -2.0), ("w", -2.0), ("s", -2.0), ("t", -2.0)], [])
    out = rank(cands, chunks, SearchSettings(mmr_enabled=False), 6, 0.7, NOW)
    assert [r.chunk_id for r in out] == ["g", "w"]  # s decays to 0.25; t is a scaffold
    assert out[0].score == 1.0 and out[0].raw_score > 1.0  # clamped display, raw ranks
    assert out[0].raw_score == pytest.approx(access_boost(20))
    lowered = rank(cands, chunks, SearchSettings(mmr_enabled=False), 6, 0.0, NOW)
    assert [r.chunk_id for r in lowered] == ["g", "w", "s"]
    assert lowered[2].score == pytest.approx(0.25)
    assert lowered[2].staleness.startswith("**Stale (9 weeks ago):**")


def test_source_weights_apply() -> None:
    chunks = {"g": Row("/m/MEMORY.md", 0, 1, "alpha", "global", int(NOW)),
              "w": Row("/m/w/MEMORY.md", 0, 1, "alpha two", "workspace", int(NOW))}
    settings = SearchSettings(mmr_enabled=False, source_weights=(("global", 0.5),))
    out = rank(Candidates([("g", -2.0), ("w", -1.0)], []), chunks, settings, 6, 0.0, NOW)
    # w has normalised FTS 0.0 -> 0; g has 1.0 * 0.5; a missing key weighs 1.0.
    assert [(r.chunk_id, r.score) for r in out] == [("g", 0.5), ("w", 0.0)]


def test_structurally_empty_and_scaffold_filters() -> None:
    assert is_structurally_empty("# T\n\n## Sub\n   \n")
    assert is_structurally_empty("## A\n<!-- note\nspanning -->\n")
    assert not is_structurally_empty("## A\n<!-- unterminated\n")
    assert not is_structurally_empty("## A\n> quote\n")
    assert not is_structurally_empty("#tag\n")
    assert not is_structurally_empty("## A\n- item\n")
    assert is_scaffold(GLOBAL_TEMPLATE) and is_scaffold(WORKSPACE_TEMPLATE)
    assert is_scaffold("## Notes\n\n<!-- Add project-specific knowledge here -->\n")
    assert is_content_free(GLOBAL_TEMPLATE, "global")
    assert is_content_free(WORKSPACE_TEMPLATE, "workspace")
    # Sessions and dream chunks never go through the scaffold branch.
    assert not is_content_free(WORKSPACE_TEMPLATE, "session")
    assert not is_content_free(WORKSPACE_TEMPLATE, "dream")
    long = WORKSPACE_TEMPLATE + "\n## Facts\n\n" + "- a real fact about the shop\n" * 20
    assert not is_scaffold(long)  # 500 bytes or more: real content


def test_mmr_tokens_and_jaccard() -> None:
    assert mmr_tokens("The cat, the HAT!") == frozenset({"the", "cat", "hat"})
    assert jaccard(frozenset(), frozenset()) == 1.0
    assert jaccard(frozenset({"a"}), frozenset()) == 0.0
    assert jaccard(frozenset({"a", "b"}), frozenset({"b", "c"})) == pytest.approx(1 / 3)


def test_mmr_penalises_duplicates() -> None:
    a = frozenset({"deploy", "tag", "workflow"})
    b = frozenset({"deploy", "tag", "workflow"})
    c = frozenset({"postgres", "partition"})
    d = frozenset({"misc"})
    # Normalised relevance 1, 0.9, 0.89, 0: the duplicate b (0.63 - 0.3) drops below c.
    assert mmr_order([1.0, 0.9, 0.89, 0.0], [a, b, c, d], 0.7) == [0, 2, 1, 3]
    assert mmr_order([1.0, 0.9, 0.89, 0.0], [a, b, c, d], 1.0) == [0, 1, 2, 3]  # no-op


def test_mmr_ties() -> None:
    t = [frozenset({"x"}), frozenset({"y"}), frozenset({"z"})]
    # All relevances equal: every normalised value is 0; nothing is similar; the earliest
    # candidate stays on an exact tie.
    assert mmr_order([0.5, 0.5, 0.5], t, 0.7) == [0, 1, 2]
    # Exact tie of MMR scores but different raw relevance: the higher raw relevance wins.
    # Candidates 1 and 2 both have max_sim 1.0 against candidate 0 and the same normalised
    # relevance only if raw equal, so build the tie through lambda 0 (pure diversity).
    same = [frozenset({"q"})] * 3
    assert mmr_order([0.2, 0.4, 0.9], same, 0.0) == [2, 1, 0]


def test_staleness_notes_and_ages() -> None:
    assert staleness_note("session", int(NOW - 0.5 * DAY), NOW) == ""
    assert staleness_note("session", int(NOW - 1 * DAY), NOW) == ""
    assert (staleness_note("session", int(NOW - 3 * DAY), NOW)
            == "**Note (3 days ago):** Verify this is still current.\n")
    assert (staleness_note("dream", int(NOW - 1.5 * DAY), NOW)
            == "**Note (1 day ago):** Verify this is still current.\n")
    assert (staleness_note("session", int(NOW - 14 * DAY), NOW)
            == "**Stale (2 weeks ago):** Verify current state before relying on this.\n")
    assert staleness_note("global", int(NOW - 99 * DAY), NOW) == ""
    assert staleness_note("session", None, NOW) == ""
    assert format_age(0.5) == "12h ago"
    assert format_age(7.2) == "1 week ago"
    assert format_age(10.5) == "2 weeks ago"  # round(1.5) = 2, half away from zero


def result(i: int, **kw: object) -> Result:
    base: dict[str, object] = dict(chunk_id=f"c{i}", path=f"/m/f{i}.md", start_line=0,
                                   end_line=4, snippet="text", score=0.875, raw_score=0.875,
                                   source="session", created_at=0, staleness="")
    base.update(kw)
    return Result(**base)  # type: ignore[arg-type]


def test_memory_search_output_is_byte_exact() -> None:
    assert format_memory_search([]) == "No memory results found for query."
    rs = [result(1, snippet="## A\n\nalpha", staleness="**Note (3 days ago):** Verify this is"
                 " still current.\n"),
          result(2, score=1.0, source="global", start_line=5, end_line=9, snippet="b")]
    assert format_memory_search(rs) == (
        "Found 2 memory result(s):\n"
        "\n### Result 1 (score: 0.88, source: session)\n"
        "**File:** /m/f1.md (lines 0-4)\n"
        "**Note (3 days ago):** Verify this is still current.\n"
        "```\n## A\n\nalpha\n```\n"
        "\n### Result 2 (score: 1.00, source: global)\n"
        "**File:** /m/f2.md (lines 5-9)\n"
        "```\nb\n```\n")


def test_injection_block_cuts_snippets_and_drops_zero_scores() -> None:
    rs = [result(1, snippet="é" * 600), result(2, score=0.004)]
    text = format_injection(rs)
    assert text.startswith("<memory-context>\n## Relevant Memory from Past Sessions\n\n"
                           "### Result 1 (score: 0.88, source: session)\n")
    assert "é" * 500 + "...\n```\n\n</memory-context>" in text
    assert "Result 2" not in text
    assert format_injection([result(1, score=0.001)]) == ""


def test_first_turn_query_greetings() -> None:
    fallback = "project conventions preferences architecture"
    assert first_turn_query("hi") == fallback
    assert first_turn_query("Good morning!") == fallback
    assert first_turn_query("short question") == fallback  # under 20 bytes
    q = "how do we deploy the shop to staging?"
    assert first_turn_query(q) == q


def test_result_json_uses_one_based_inclusive_lines() -> None:
    js = result(1, start_line=4, end_line=9).to_json()
    assert (js["start_line"], js["end_line"]) == (5, 9)
    empty = result(1, start_line=3, end_line=3).to_json()  # the overlap-only chunk
    assert (empty["start_line"], empty["end_line"]) == (4, 4)
