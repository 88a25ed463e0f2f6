"""Property: the fast outline (C-level splits) gives exactly the keys of the line-by-line scan.

The duplicate and shadowing checks decide from :func:`outline` and report positions from
:func:`scan`; if the two disagreed, a finding could go missing or point at nothing.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rulelens.lint.markdown import outline, scan

PIECES = st.sampled_from([
    "a", "b c", "word " * 9, "\n", "\n", "\n\n", " ", "  ", "\t", "#", "# ", "## ", "###### ",
    "####### ", "#a", "   # h", "    # code", " #", "#\t", "```", "```py", "~~~", "`x`",
    "\r\n", "\r", "\x0b", "\x1c", "\x85", "\u00a0", "\u2028", "é", "Title ##", "  #  ",
])


@settings(max_examples=3000, deadline=None)
@given(parts=st.lists(PIECES, max_size=40), first_line=st.integers(0, 3))
def test_outline_matches_scan(parts: list[str], first_line: int) -> None:
    text = "".join(parts)
    fast = outline(text, first_line)
    slow = scan(text, first_line)
    assert fast.paragraphs == tuple(p.key for p in slow.paragraphs)
    assert fast.headings == tuple((h.key, h.text) for h in slow.headings)
    assert fast.unclosed_fence == (slow.unclosed_fence is not None)
