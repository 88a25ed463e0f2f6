"""A small, fast Markdown scan: paragraphs, ATX headings and code fences, with line numbers.

Just enough structure for the content checks, done with a few C-level regex passes over
the whole text instead of a Python loop per line (linting 1,000 files must stay near the
cost of reading them). Paragraphs are runs of non-blank, non-heading lines; their key is
their exact text (trimmed, CR removed), since the check is about *exact* duplicates.
CommonMark subtleties (setext headings, lazy continuation, HTML blocks) are not modelled:
they do not change which paragraphs are *exactly* repeated. Cached by content.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)$", re.MULTILINE)
_HEADING = re.compile(r"^( {0,3})(#{1,6})[ \t]+([^\n]*)$", re.MULTILINE)
_PARA = re.compile(r"(?:^(?! {0,3}#{1,6}[ \t])[^\S\n]*\S[^\n]*(?:\n|\Z))+", re.MULTILINE)
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


def heading_key(text: str) -> str:
    key = text.strip().lower()
    return _SPACES.sub(" ", key) if "  " in key or "\t" in key else key


def _fences(text: str, start: int) -> tuple[list[tuple[int, int]], tuple[int, str] | None]:
    """Fenced ranges (offsets) and the opening of an unclosed fence."""
    ranges: list[tuple[int, int]] = []
    open_at: tuple[int, str, int] | None = None  # offset, fence, length
    for m in _FENCE.finditer(text, start):
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
        return ranges, (open_at[0], open_at[1])
    return ranges, None


def scan(text: str, first_line: int = 0) -> Scan:
    """Scan ``text`` from line ``first_line``; line numbers are 0-based lines of ``text``."""
    start = 0
    if first_line:
        for _ in range(first_line):
            nl = text.find("\n", start)
            if nl < 0:
                start = len(text)
                break
            start = nl + 1
    cursor = [0, 0]  # offset, line: positions are asked for in increasing order

    def position(offset: int) -> tuple[int, int]:
        at, line = cursor
        if offset < at:
            at, line = 0, 0
        line += text.count("\n", at, offset)
        cursor[0], cursor[1] = offset, line
        return line, offset - (text.rfind("\n", 0, offset) + 1)

    has_fence = "```" in text or "~~~" in text
    ranges, unclosed = _fences(text, start) if has_fence else ([], None)
    fence_starts = [r[0] for r in ranges]

    def fenced(offset: int) -> bool:
        i = bisect.bisect_right(fence_starts, offset) - 1
        return i >= 0 and ranges[i][0] <= offset < ranges[i][1]

    headings: list[Heading] = []
    if "#" in text:
        for m in _HEADING.finditer(text, start):
            if ranges and fenced(m.start()):
                continue
            line, _ = position(m.start())
            col = len(m.group(1))
            raw = m.group(3).rstrip()  # drops a CRLF's \r too
            end = col + (m.start(3) - m.start(2)) + len(raw)
            title = raw.rstrip("#").rstrip() if raw.endswith("#") else raw
            headings.append(Heading(heading_key(title), title, line, col, end))
    paragraphs: list[Paragraph] = []
    line = first_line
    prev = start
    for m in _PARA.finditer(text, start):
        line += text.count("\n", prev, m.start())
        body = m.group().strip()
        end_line = line + body.count("\n")
        if "\r" in body:
            body = body.replace("\r", "")
        paragraphs.append(Paragraph(body, line, end_line))
        prev = m.start()
    fence_info = None
    if unclosed is not None:
        cursor[0], cursor[1] = 0, 0
        fl, fc = position(unclosed[0])
        fence_info = (fl, fc, unclosed[1])
    return Scan(tuple(paragraphs), tuple(headings), fence_info)


@lru_cache(maxsize=1024)
def scan_text(text: str) -> Scan:
    """Cached scan of a whole text (chain files are scanned once per content)."""
    return scan(text)


def shifted(s: Scan, lines: int) -> Scan:
    """``s`` with every line number moved down by ``lines``."""
    if not lines:
        return s
    fence = s.unclosed_fence
    return Scan(
        tuple(Paragraph(p.key, p.line + lines, p.end_line + lines) for p in s.paragraphs),
        tuple(Heading(h.key, h.text, h.line + lines, h.start, h.end) for h in s.headings),
        None if fence is None else (fence[0] + lines, fence[1], fence[2]))
