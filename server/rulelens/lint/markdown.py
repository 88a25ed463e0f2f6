"""A small, fast Markdown scan: paragraphs, ATX headings and code fences, with line numbers.

Just enough structure for the content checks, done with a few C-level regex passes over
the whole text instead of a Python loop per line (linting 1,000 files must stay near the
cost of reading them). Paragraphs are runs of non-blank, non-heading lines; their key is
their exact text (trimmed, CR removed), since the check is about *exact* duplicates.
CommonMark subtleties (setext headings, lazy continuation, HTML blocks) are not modelled:
they do not change which paragraphs are *exactly* repeated.

Two views of one scan: :func:`outline` gives only the keys (paragraph texts, heading keys
and titles) and is what the chain tables and a document's first look need; positions are
computed lazily (:func:`iter_paragraphs`, :func:`iter_headings`) only for a document that
actually has a finding, and only up to the findings reported. Line-start patterns are
written as ``\\n…`` plus a separate test of the first line, because a literal first
character lets the regex engine skip ahead instead of trying every position as ``^`` would.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

# Each line-start construct has two spellings: ``_AT`` matches at a known line start,
# ``_NL`` finds the following ones (group offsets are the same in both; its lookahead turns
# an ordinary line away at its first character).
_FENCE_AT = re.compile(r" {0,3}(`{3,}|~{3,})([^\n]*)")
_FENCE_NL = re.compile(r"\n(?=[ `~]) {0,3}(`{3,}|~{3,})([^\n]*)")
_HEADING_AT = re.compile(r"( {0,3})(#{1,6})[ \t]+([^\n]*)")
_HEADING_NL = re.compile(r"\n(?=[ #])( {0,3})(#{1,6})[ \t]+([^\n]*)")
_PARA = re.compile(r"(?:^(?! {0,3}#{1,6}[ \t])[^\S\n]*\S[^\n]*(?:\n|\Z))+", re.MULTILINE)
#: A line that ends a paragraph (blank, or an ATX heading), with the newline before it.
#: The lookahead after ``\n`` rejects an ordinary line (one starting with a letter) in one
#: step instead of trying both alternatives; a final ``\n`` is then no break, which only
#: leaves a newline on the last piece, removed by the strip every piece gets.
_BREAK = re.compile(r"\n(?=[\s#])(?:[^\S\n]*|(?: {0,3}#{1,6}[ \t])[^\n]*)(?=\n|\Z)")
#: The same lines; a heading's title (``_HEADING_NL``'s group 3) is captured, so one
#: split yields paragraphs and headings, alternately.
_BREAK_TITLE = re.compile(
    r"\n(?=[\s#])(?:[^\S\n]*|(?: {0,3}#{1,6}[ \t]+([^\n]*)))(?=\n|\Z)")
_SPACES = re.compile(r"\s+")


class Paragraph(NamedTuple):
    """Immutable like the other values; a NamedTuple because files have thousands."""

    key: str
    line: int
    end_line: int


class Heading(NamedTuple):
    key: str
    text: str
    line: int
    start: int
    end: int


@dataclass(frozen=True)
class Scan:
    paragraphs: tuple[Paragraph, ...]
    headings: tuple[Heading, ...]
    #: (line, column, fence) of a fence that is never closed.
    unclosed_fence: tuple[int, int, str] | None


@dataclass(frozen=True, eq=False)
class Outline:
    """The keys of a scan, in order, without positions.

    Compared by identity: the chain tables use outlines as cache keys, and one outline is
    made per file content (see :mod:`rulelens.lint.chainindex`).
    """

    #: :attr:`Paragraph.key` of every paragraph.
    paragraphs: tuple[str, ...]
    #: ``(key, text)`` of every heading outside fences.
    headings: tuple[tuple[str, str], ...]
    unclosed_fence: bool


def heading_key(text: str) -> str:
    key = text.strip().lower()
    return _SPACES.sub(" ", key) if "  " in key or "\t" in key else key


def _title(rest: str) -> str:
    raw = rest.rstrip()  # drops a CRLF's \r too
    return raw.rstrip("#").rstrip() if raw.endswith("#") else raw


def _start(text: str, first_line: int) -> int:
    """Offset of line ``first_line`` (``len(text)`` past the end)."""
    start = 0
    for _ in range(first_line):
        nl = text.find("\n", start)
        if nl < 0:
            return len(text)
        start = nl + 1
    return start


def _at_lines(at: re.Pattern[str], nl: re.Pattern[str], text: str,
              start: int) -> Iterator[tuple[int, re.Match[str]]]:
    """``(line start, match)`` of each line from ``start`` (a line start) matching."""
    m = at.match(text, start)
    if m is not None:
        yield start, m
    for m in nl.finditer(text, start):
        yield m.start() + 1, m


class _Fences(NamedTuple):
    #: Fenced (start, end) offsets, in order.
    ranges: list[tuple[int, int]]
    #: (offset, fence) of the opening of a fence never closed.
    unclosed: tuple[int, str] | None

    def contains(self, offset: int) -> bool:
        ranges = self.ranges
        i = bisect.bisect_right(ranges, offset, key=_first) - 1
        return i >= 0 and ranges[i][0] <= offset < ranges[i][1]


def _first(r: tuple[int, int]) -> int:
    return r[0]


_NO_FENCES = _Fences([], None)


def may_have_fences(text: str) -> bool:
    """Whether ``text`` contains a fence marker (the one-character tests run at
    ``memchr`` speed and settle it for a text without backticks or tildes)."""
    return ("`" in text and "```" in text) or ("~" in text and "~~~" in text)


def _fences(text: str, start: int) -> _Fences:
    """Fenced ranges (offsets) and the opening of an unclosed fence."""
    if not may_have_fences(text):
        return _NO_FENCES
    ranges: list[tuple[int, int]] = []
    open_at: tuple[int, str, int] | None = None  # offset, fence, length
    for _, m in _at_lines(_FENCE_AT, _FENCE_NL, text, start):
        fence, info = m.group(1), m.group(2)
        if open_at is None:
            if fence[0] == "`" and "`" in info:
                continue  # not a fence: an inline code span
            open_at = (m.start(1), fence, len(fence))
        elif fence[0] == open_at[1][0] and len(fence) >= open_at[2] and not info.strip():
            ranges.append((open_at[0], m.end()))
            open_at = None
    if open_at is not None:
        ranges.append((open_at[0], len(text)))
        return _Fences(ranges, (open_at[0], open_at[1]))
    return _Fences(ranges, None)


_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")


def heading_level(line: str) -> int:
    """The level of an ATX heading line (0: not a heading)."""
    m = _ATX.match(line)
    return len(m.group(1)) if m else 0


def section_body(lines: tuple[str, ...] | list[str], line: int) -> str:
    """The text under the heading on ``line`` up to the next heading of the same or a
    higher level, white space collapsed (fences are not modelled: a ``#`` line inside one
    ends the section early, which can only hide a difference)."""
    level = heading_level(lines[line]) if 0 <= line < len(lines) else 0
    if not level:
        return ""
    out: list[str] = []
    for text in lines[line + 1:]:
        found = heading_level(text)
        if found and found <= level:
            break
        out.append(text)
    return " ".join(" ".join(out).split())


def fence_ranges(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of every fenced code block (an unclosed one runs to the
    end), in order."""
    return _fences(text, 0).ranges


def _position(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset), offset - (text.rfind("\n", 0, offset) + 1)


def iter_paragraphs(text: str, first_line: int = 0, line_base: int = 0) -> Iterator[Paragraph]:
    """Paragraphs of ``text`` from line ``first_line``, lines moved down by ``line_base``."""
    start = _start(text, first_line)
    line = first_line + line_base
    prev = start
    for m in _PARA.finditer(text, start):
        line += text.count("\n", prev, m.start())
        body = m.group().strip()
        end_line = line + body.count("\n")
        if "\r" in body:
            body = body.replace("\r", "")
        yield Paragraph(body, line, end_line)
        prev = m.start()


def iter_headings(text: str, first_line: int = 0, line_base: int = 0) -> Iterator[Heading]:
    """ATX headings outside fences, from line ``first_line``, moved down by ``line_base``."""
    if "#" not in text:
        return
    start = _start(text, first_line)
    fences = _fences(text, start)
    line = line_base
    prev = 0
    for at, m in _at_lines(_HEADING_AT, _HEADING_NL, text, start):
        if fences.ranges and fences.contains(at):
            continue
        line += text.count("\n", prev, at)
        prev = at
        col = len(m.group(1))
        raw = m.group(3).rstrip()
        end = col + (m.start(3) - m.start(2)) + len(raw)
        title = raw.rstrip("#").rstrip() if raw.endswith("#") else raw
        yield Heading(heading_key(title), title, line, col, end)


def unclosed_fence(text: str, first_line: int = 0,
                   line_base: int = 0) -> tuple[int, int, str] | None:
    """(line, column, fence) of a fence opened from line ``first_line`` and never closed."""
    found = _fences(text, _start(text, first_line)).unclosed
    if found is None:
        return None
    line, col = _position(text, found[0])
    return line + line_base, col, found[1]


def outline(text: str, first_line: int = 0) -> Outline:
    """The keys :func:`scan` would give, without positions (C-level passes only)."""
    start = _start(text, first_line)
    # Paragraphs are what lies between blank or heading lines: one C-level split. Without
    # fences, the same split captures the heading titles (every heading line is a break).
    body = "\n" + (text[start:] if start else text)
    fences = _fences(text, start)
    rests: list[str]
    if "#" in text and not fences.ranges:
        pieces = _BREAK_TITLE.split(body)
        paragraphs = [p for p in (piece.strip() for piece in pieces[0::2]) if p]
        rests = [r for r in pieces[1::2] if r is not None]
    else:
        paragraphs = [p for p in (piece.strip() for piece in _BREAK.split(body)) if p]
        if "#" not in text:
            rests = []
        else:
            rests = [m.group(3) for at, m in _at_lines(_HEADING_AT, _HEADING_NL, text, start)
                     if not fences.contains(at)]
    if "\r" in text:
        paragraphs = [p.replace("\r", "") if "\r" in p else p for p in paragraphs]
    return Outline(tuple(paragraphs), _keyed_titles(rests), fences.unclosed is not None)


def _keyed_titles(rests: list[str]) -> tuple[tuple[str, str], ...]:
    """``(heading_key(t), t)`` for ``t = _title(rest)``, as comprehensions (a thousand
    files hold tens of thousands of headings)."""
    raws = [rest.rstrip() for rest in rests]
    titles = [raw.rstrip("#").rstrip() if raw.endswith("#") else raw for raw in raws]
    keys = [title.strip().lower() for title in titles]
    if any("  " in key or "\t" in key for key in keys):
        keys = [heading_key(title) for title in titles]
    return tuple(zip(keys, titles, strict=True))


def scan(text: str, first_line: int = 0) -> Scan:
    """Scan ``text`` from line ``first_line``; line numbers are 0-based lines of ``text``."""
    return Scan(tuple(iter_paragraphs(text, first_line)), tuple(iter_headings(text, first_line)),
                unclosed_fence(text, first_line))
