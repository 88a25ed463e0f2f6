"""A small, fast Markdown scan: paragraphs, ATX headings and code fences, with line numbers.

Just enough structure for the content checks, done with a few C-level regex passes over
the whole text instead of a Python loop per line (linting 1,000 files must stay near the
cost of reading them). Paragraphs are runs of non-blank, non-heading lines; their key is
the text with all white space collapsed. Headings inside fenced code are ignored.
CommonMark subtleties (setext headings, lazy continuation, HTML blocks) are not modelled:
they do not change which paragraphs are *exactly* repeated. Cached by content.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)$", re.MULTILINE)
_HEADING = re.compile(r"^( {0,3})(#{1,6})[ \t]+([^\n]*?)[ \t]*#*[ \t]*\r?$", re.MULTILINE)
_PARA = re.compile(r"(?:^(?! {0,3}#{1,6}[ \t])[^\S\n]*\S[^\n]*(?:\n|\Z))+", re.MULTILINE)
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Paragraph:
    key: str
    line: int
    end_line: int


@dataclass(frozen=True)
class Heading:
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
    return _SPACES.sub(" ", text.strip().lower())


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
    line_starts: list[int] | None = None

    def position(offset: int) -> tuple[int, int]:
        nonlocal line_starts
        if line_starts is None:
            line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
        line = bisect.bisect_right(line_starts, offset) - 1
        return line, offset - line_starts[line]

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
            raw_end = m.end() - (1 if m.group(0).endswith("\r") else 0)
            headings.append(Heading(heading_key(m.group(3)), m.group(3), line, col,
                                    col + (raw_end - m.start(2))))
    paragraphs: list[Paragraph] = []
    line = first_line
    prev = start
    for m in _PARA.finditer(text, start):
        line += text.count("\n", prev, m.start())
        body = m.group().rstrip("\n")
        end_line = line + body.count("\n")
        paragraphs.append(Paragraph(" ".join(body.split()), line, end_line))
        prev = m.start()
    fence_info = None
    if unclosed is not None:
        fl, fc = position(unclosed[0])
        fence_info = (fl, fc, unclosed[1])
    return Scan(tuple(paragraphs), tuple(headings), fence_info)


@lru_cache(maxsize=1024)
def scan_text(text: str) -> Scan:
    """Cached scan of a whole text (chain files are scanned once per content)."""
    return scan(text)
