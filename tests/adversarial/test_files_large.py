"""The streaming parts for files too large to hold (``rules/large.py``, the streaming
neutraliser in ``rules/render.py``): each equals the whole-text function it replaces."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rulelens.rules import large
from rulelens.rules.frontmatter import strip_for_agent
from rulelens.rules.model import Skipped
from rulelens.rules.render import neutralize, neutralize_stream

_TEXT = st.lists(st.sampled_from(["---", "\n", " ", "\t", "\u3000", "x", "--", "-", "é",
                                  "<", "/", "system", "_", "-reminder", "SYSTEM-REMINDER"]),
                 max_size=30).map("".join)


@settings(max_examples=2000, deadline=None)
@given(text=_TEXT, cut=st.integers(min_value=0, max_value=60))
def test_strip_prefix_of_a_head_is_unknown_or_right(text: str, cut: int) -> None:
    whole = len(text) - len(strip_for_agent(text))
    assert large.strip_prefix(text, whole=True) == whole
    assert large.strip_prefix(text[:cut], whole=False) in (None, whole)


@settings(max_examples=2000, deadline=None)
@given(text=_TEXT, cuts=st.lists(st.integers(min_value=0, max_value=60), max_size=5))
def test_neutralize_stream_equals_neutralize(text: str, cuts: list[int]) -> None:
    points = sorted({min(c, len(text)) for c in cuts})
    chunks = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    assert "".join(neutralize_stream(chunks)) == neutralize(text)


def test_unheld_counts_and_streams_like_the_whole_text(tmp_path: Path) -> None:
    body = "\n\n---\nk: v\n---\n  \nbody é " + "y" * (large.HEAD_CHARS + 10) + "\n"
    path = tmp_path / "r.md"
    path.write_text(body, encoding="utf-8")
    found = large.read_unheld(str(path), path.stat().st_size)
    assert isinstance(found, large.Unheld)
    assert (found.size, found.chars) == (len(body.encode()), len(body))
    stripped = strip_for_agent(body)
    assert found.injected(is_rule=True) == (len(stripped), len(stripped.encode()))
    assert found.injected(is_rule=False) == (len(body), len(body.encode()))
    assert "".join(large.injected_chunks(str(path), True)) == stripped
    assert "".join(large.injected_chunks(str(path), False)) == body


def test_unheld_refuses_what_the_agent_drops(tmp_path: Path) -> None:
    path = tmp_path / "bad.md"
    path.write_bytes(b"ok" * 1000 + b"\xff")
    found = large.read_unheld(str(path), path.stat().st_size)
    assert isinstance(found, Skipped) and str(found.reason) == "not-utf8"
    assert "byte 2000" in found.detail
    path.write_bytes(b"ok\xe2\x82")                      # cut off inside a character
    found = large.read_unheld(str(path), path.stat().st_size)
    assert isinstance(found, Skipped) and str(found.reason) == "not-utf8"
    open_ended = tmp_path / "fm.md"
    open_ended.write_text("---\n" + "k: v\n" * (large.HEAD_CHARS // 4))
    found = large.read_unheld(str(open_ended), open_ended.stat().st_size)
    assert isinstance(found, large.Unheld) and found.injected(is_rule=True) is None
    assert large.read_unheld(str(path), large.STREAM_LIMIT + 1).reason == "unreadable"  # type: ignore[union-attr]
