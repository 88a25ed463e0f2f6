"""A small Markdown scan: paragraphs, ATX headings and code fences, with line numbers.

Just enough structure for the content checks; CommonMark edge cases (lazy continuation,
setext headings, HTML blocks) do not change which paragraphs are *exactly* repeated, so
they are not modelled. Results for chain files are cached by content.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
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


def scan(lines: list[str] | tuple[str, ...], first: int = 0) -> Scan:
    """Scan ``lines[first:]``; line numbers are indices into ``lines``."""
    paragraphs: list[Paragraph] = []
    headings: list[Heading] = []
    block: list[str] = []
    block_start = 0
    fence: tuple[str, int, int, int] | None = None  # char, length, line, col

    def flush(end: int) -> None:
        if block:
            key = "\n".join(_SPACES.sub(" ", b.strip()) for b in block)
            paragraphs.append(Paragraph(key, block_start, end))
            block.clear()

    for i in range(first, len(lines)):
        line = lines[i].rstrip("\r")
        m = _FENCE.match(line)
        if fence is not None:
            block.append(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= fence[1] \
                    and not m.group(2).strip():
                fence = None
                flush(i)
            continue
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            flush(i - 1)
            fence = (m.group(1)[0], len(m.group(1)), i, line.index(m.group(1)))
            block_start = i
            block.append(line)
            continue
        if not line.strip():
            flush(i - 1)
            continue
        h = _HEADING.match(line)
        if h:
            flush(i - 1)
            text = h.group(2)
            start = line.index(h.group(1))
            headings.append(Heading(heading_key(text), text, i, start, len(line.rstrip())))
            continue
        if not block:
            block_start = i
        block.append(line)
    unclosed = None
    if fence is not None:
        unclosed = (fence[2], fence[3], fence[0] * fence[1])
    flush(len(lines) - 1)
    return Scan(tuple(paragraphs), tuple(headings), unclosed)


@lru_cache(maxsize=512)
def scan_text(text: str) -> Scan:
    """Cached scan of a whole text (chain files are scanned once per content)."""
    return scan(text.split("\n"))
