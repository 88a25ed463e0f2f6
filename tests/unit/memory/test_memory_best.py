"""``--rank best``, ``--explain`` and the first-turn block, on real memory trees, a real
index and the real local embedder (MiniLM)."""

from __future__ import annotations

import os
import time

import pytest
from memhome import MemHome

from rulelens.memory.best import (
    BestExplanation,
    BestSettings,
    best_search,
    fact_time,
    forms,
    matched_line,
    stem,
)
from rulelens.memory.context import first_turn_block, post_compaction_block
from rulelens.memory.embedders import LocalEmbedder
from rulelens.memory.explain import agent_explanations
from rulelens.memory.index import MemoryIndex
from rulelens.memory.search import FRAMING_SENTENCE, GREETING_FALLBACK_QUERY, explain_search
from rulelens.memory.settings import MemorySettings

SESSIONS = {
    "2026-08-12-bootstrap-0191a001.md": "## Python 3.11 baseline\n\n- The service targets"
                                        " Python 3.11; requires-python is >=3.11.\n",
    "2026-09-16-python-312-0192d009.md": "## Moved to Python 3.12\n\n- The service moved to"
                                         " Python 3.12; requires-python is >=3.12.\n",
    "2026-11-24-python-313-0193b016.md": "## Python 3.13 upgrade postponed\n\n- The service"
                                         " targets Python 3.12 still; requires-python stays"
                                         " >=3.12 until WeasyPrint ships 3.13 wheels.\n",
    "2026-10-02-fees-01936011.md": "## Fee schedule\n\n- SWIFT transfers cost 5.00 EUR plus"
                                   " 0.1 % capped at 50.00 EUR.\n",
    "2026-10-09-deadlock-01934a10.md": "## Deadlock in transfers\n\n- Lock both accounts"
                                       " ordered by id to avoid deadlocks.\n",
}


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    return LocalEmbedder.load()


@pytest.fixture
def indexed(memhome: MemHome, local: LocalEmbedder) -> MemoryIndex:
    memhome.write("MEMORY.md", "# Global Memory\n\n## Editor\n\n- I use Neovim with LazyVim.\n")
    for name, text in SESSIONS.items():
        memhome.write(f"ws/sessions/{name}", text)
    idx = MemoryIndex.open(os.path.join(memhome.cache, "best.sqlite"))
    idx.sync(memhome.location())
    idx.embed_missing(local, 16)
    return idx


def heading(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("## "))


def test_an_older_near_duplicate_is_placed_after_the_newer_one(indexed: MemoryIndex,
                                                    local: LocalEmbedder) -> None:
    q = "which python version does the service target"
    out = best_search(indexed, q, query_vector=local.embed([q])[0])
    order = [heading(r.snippet) for r in out.results]
    older = next(r for r in out.results if "3.11 baseline" in r.snippet)
    newer = next(r for r in out.results if "Moved to Python 3.12" in r.snippet)
    # By its own score the 3.11 note would come first (it says "targets" like the query) ...
    assert older.explanation.base > newer.explanation.base
    # ... but the 3.12 note says the same thing later, so 3.11 is placed right after it.
    assert order.index("## Python 3.11 baseline") == order.index("## Moved to Python 3.12") + 1
    assert older.explanation.superseded_by == newer.chunk_id
    assert newer.explanation.superseded_by is None
    unsorted = best_search(indexed, q, query_vector=local.embed([q])[0],
                           settings=BestSettings(dup_window=0))
    assert heading(unsorted.results[0].snippet) == "## Python 3.11 baseline"
    # The agent's own ranking does not do this: its first result is the 3.11 note.
    agent = explain_search(indexed, q, MemorySettings(), embedder=local)
    assert heading(agent.agent_results[0].snippet) == "## Python 3.11 baseline"


def test_unrelated_query_is_answered_with_nothing(indexed: MemoryIndex,
                                                  local: LocalEmbedder) -> None:
    q = "swift ui animation"  # shares one keyword with the fee schedule, nothing else
    assert explain_search(indexed, q, MemorySettings()).agent_results  # min-max: score 1.0
    out = best_search(indexed, q, query_vector=local.embed([q])[0])
    assert out.results == []
    assert out.cut and "weak match" in out.cut[0].explanation.cutoff


def test_without_vectors_coverage_decides(indexed: MemoryIndex) -> None:
    hit = best_search(indexed, "lock accounts ordered deadlocks")
    assert heading(hit.results[0].snippet) == "## Deadlock in transfers"
    assert hit.results[0].explanation.cosine is None and not hit.vectors
    weak = best_search(indexed, "accounts kubernetes helm grafana", settings=BestSettings())
    assert weak.results == []  # one rare keyword of four is under the coverage cut-off


def test_fact_time_and_matched_line() -> None:
    assert fact_time("/m/sessions/2026-11-24-x.md", "", 0) == 1795478400
    assert fact_time("/m/MEMORY.md", "decided on 2026-01-02", 7) == 1767312000
    assert fact_time("/m/MEMORY.md", "no date", 7) == 7
    line, ranges = matched_line("[Context: # Project]\n\n## Deploy\n\n- Tags promote deploys.\n",
                                ["deploys", "tags"])
    assert line == "- Tags promote deploys." and ranges == [(2, 6), (15, 22)]


def test_explain_names_every_factor_and_why_the_agent_skips(indexed: MemoryIndex,
                                                            memhome: MemHome) -> None:
    settings = MemorySettings()
    later = time.time() + 40 * 86400  # sessions decay; global is evergreen
    ex = agent_explanations(indexed, "python service", settings, now=later)
    rows = indexed.get_chunks(list(ex))
    for cid, e in ex.items():
        assert e.source_weight == 1.0 and e.access_boost == 1.0
        if rows[cid].source == "session":
            assert e.decay < 0.5 and e.half_life_days == 30.0 and e.age_days > 39
        assert e.display == pytest.approx(min(1.0, e.merged * e.decay))
        assert (e.why_not is None) == e.agent_returns
        if not e.passed_threshold:
            assert "under min_score 0.70" in (e.why_not or "")
    assert any(not e.agent_returns for e in ex.values())  # decay pushed them under 0.7


def test_first_turn_block_greeting_threshold_and_framing(indexed: MemoryIndex) -> None:
    settings = MemorySettings()
    hi = first_turn_block(indexed, "hi", settings, framing=True)
    assert hi.query == GREETING_FALLBACK_QUERY and hi.text == ""  # nothing reaches 0.9
    q = "which python version does the service target now"
    new = first_turn_block(indexed, q, settings, framing=True)
    old = first_turn_block(indexed, q, settings, framing=False)
    assert new.text.startswith("<memory-context>\n## Relevant Memory from Past Sessions\n\n"
                               + FRAMING_SENTENCE + "\n\n### Result 1 (score: ")
    assert old.text.startswith("<memory-context>\n## Relevant Memory from Past Sessions\n\n"
                               "### Result 1 (score: ")
    assert new.text.replace(FRAMING_SENTENCE + "\n\n", "") == old.text
    assert new.text.endswith("```\n\n</memory-context>")
    scores = [float(line.split("score: ")[1].split(",")[0])
              for line in new.text.splitlines() if line.startswith("### Result")]
    assert scores and min(scores) >= 0.9 and new.results == len(scores)
    post = post_compaction_block(indexed, "", settings, framing=True)
    assert post.query == "project context"


def test_stem_cuts_plural_and_verb_endings_only() -> None:
    assert [stem(w) for w in ("rains", "raining", "rained", "policies", "accounts")] == [
        "rain", "rain", "rain", "policy", "account"]
    assert [stem(w) for w in ("class", "is", "bus", "ring", "node")] == [
        "class", "is", "bus", "ring", "node"]
    words = ("rain", "rains", "raining", "policy", "policies", "lock", "locked", "locking",
             "class", "classes", "bus", "buses", "is", "as", "node", "nodes")
    for k in words:  # forms() is exactly the words stem() maps to the keyword's stem
        assert {w for w in words if w in forms(k)} == {w for w in words if stem(w) == stem(k)}


def test_coverage_counts_a_keyword_under_another_ending(indexed: MemoryIndex,
                                                        local: LocalEmbedder) -> None:
    q = "locking account"  # the note says "Lock both accounts"
    vec = local.embed([q])[0]

    def deadlock(settings: BestSettings) -> BestExplanation:
        out = best_search(indexed, q, query_vector=vec, settings=settings)
        return next(r.explanation for r in out.results + out.cut
                    if "Deadlock in transfers" in r.snippet)

    assert deadlock(BestSettings(stem_coverage=False)).coverage == 0.0
    stemmed = deadlock(BestSettings())
    assert stemmed.coverage == 1.0
    assert stemmed.matched == ("locking", "account")


def test_vector_array_answers_as_sqlite_vec_and_is_dropped_on_a_write(
        indexed: MemoryIndex, local: LocalEmbedder, memhome: MemHome) -> None:
    """The first vector search of an index generation is sqlite-vec's; the second is the
    in-memory array's: same neighbours, same distances, same stored vectors. Any write
    starts a new generation, so a new chunk is found at once."""
    q = local.embed(["deadlock between transfers"])[0]
    first = indexed.vector_search(q, 5)
    ids = [c for c, _ in first]
    from_vec0 = first, indexed.vectors_for(ids)
    assert indexed._vectors is None
    from_array = indexed.vector_search(q, 5), indexed.vectors_for(ids)
    assert indexed._vectors is not None
    assert [c for c, _ in from_array[0]] == [c for c, _ in from_vec0[0]]
    for (_, a), (_, b) in zip(from_array[0], from_vec0[0], strict=True):
        assert a == pytest.approx(b, abs=1e-5)
    assert from_array[1].keys() == from_vec0[1].keys()
    assert all(from_array[1][c] == pytest.approx(from_vec0[1][c], abs=1e-6) for c in ids)
    memhome.write("ws/sessions/2026-11-30-locks-01940001.md",
                  "## Transfer deadlock fixed\n\n- Deadlocks between transfers are gone.\n")
    indexed.sync(memhome.location())
    indexed.embed_missing(local, 16)
    new = [c for c, _ in indexed.vector_search(q, 3)]
    assert indexed._vectors is None  # dropped with the write
    assert any("2026-11-30-locks" in c for c in new)
