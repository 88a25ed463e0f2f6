"""Byte-exact port of the agent's Markdown chunker (spec §7.5).

Why exact: chunk ids are ``<path>:<i>`` and scores are normalised per candidate list, so a
chunk boundary that moves by one line changes what the agent would return. Limits are
UTF-8 **byte** lengths (Rust ``str::len``), the overlap tail is counted in **characters**,
``trim`` is Rust's White_Space trim and lines split like Rust ``str::lines``
(see :mod:`rulelens.rusttext`). Quirks kept on purpose:

* code fences are not tracked: a ``#`` line inside a fence starts a new section;
* the header-context prefix is not counted against the limit;
* whole-file and whole-section chunks are not trimmed (they usually end with ``\\n``);
* the overlap only applies after a line longer than the limit and can produce an
  overlap-only chunk whose line range is empty (``start == end``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from blake3 import blake3

from rulelens.rusttext import WHITE_SPACE, byte_len, lines, trim, trim_start

#: The agent's ``[memory.index]`` defaults.
DEFAULT_MAX_CHUNK_BYTES = 1600
DEFAULT_OVERLAP_CHARS = 320


@dataclass(frozen=True)
class Chunk:
    """One indexed piece of a memory file; lines are 0-based, ``end_line`` exclusive."""

    start_line: int
    end_line: int
    text: str

    @property
    def hash(self) -> str:
        return chunk_hash(self.text)


def chunk_hash(text: str) -> str:
    """blake3 hex (64 characters) of the final chunk text, context prefix included."""
    try:
        data = text.encode()  # the common case; the error handler costs ~20 % per call
    except UnicodeEncodeError:
        data = text.encode("utf-8", "surrogatepass")
    return blake3(data).hexdigest()


def header_level(line: str) -> int | None:
    """ATX header level: leading ``#`` run after a whitespace trim, then nothing or a space.

    A tab after the hashes does not count; there is no upper bound on the level.
    """
    if not line or (line[0] != "#" and line[0] not in WHITE_SPACE):
        return None  # fast path: most lines start with neither "#" nor whitespace
    stripped = trim_start(line)
    if not stripped.startswith("#"):
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    rest = stripped[level:]
    return level if rest == "" or rest.startswith(" ") else None


def _with_context(context: str, text: str) -> str:
    return text if not context else f"[Context: {context}]\n\n{text}"


#: A header line after the first: ``\n``, whitespace other than ``\n`` (which ends a
#: line), a run of ``#``, then a space or the end of the line (Rust ``lines`` drops one
#: ``\r`` before ``\n``; a lone ``\r`` at the very end stays in the line). The same rule
#: as :func:`header_level`, applied to the whole text at once: a per-line Python call
#: was most of the chunker's time, and the literal ``\n`` lets the regex engine skip
#: ahead (``^`` with MULTILINE tries every position and was seven times slower).
_HEADER = re.compile("\n[" + re.escape(WHITE_SPACE.replace("\n", ""))
                     + "]*(#+)(?= |\r?\n|\\Z)")

#: One section: first line, end line (exclusive), header context.
_Section = tuple[int, int, str]


def _sections(content: str, all_lines: list[str]) -> list[_Section]:
    """``split_by_headers``: sections and their context, from the header positions.

    The stack holds (level, context through this header), so a section's context is the
    entry below the top: the same string as joining the trimmed headers except the last.
    """
    sections: list[_Section] = []
    stack: list[tuple[int, str]] = []
    start = 0
    n = len(all_lines)

    def push(i: int, level: int) -> None:
        nonlocal start
        if i > start:  # close the non-empty current section with the stack before this header
            sections.append((start, i, stack[-2][1] if len(stack) > 1 else ""))
        start = i
        while stack and stack[-1][0] >= level:
            stack.pop()
        title = trim(all_lines[i])
        stack.append((level, f"{stack[-1][1]} > {title}" if stack else title))

    first = header_level(all_lines[0])
    if first is not None:
        push(0, first)
    line_no, pos = 0, 0
    count = content.count
    for match in _HEADER.finditer(content):
        at = match.start()  # the "\n" that ends the line before the header
        line_no += count("\n", pos, at) + 1
        pos = at + 1
        if line_no >= n:
            break
        push(line_no, match.end(1) - match.start(1))
    if start < n:
        sections.append((start, n, stack[-2][1] if len(stack) > 1 else ""))
    return sections


def _split_paragraphs(section_lines: list[str], section_start: int, context: str,
                      max_bytes: int, overlap: int, size: Callable[[str], int]
                      ) -> list[Chunk]:
    out: list[Chunk] = []
    text = ""
    start = section_start
    offset = 0
    for i, line in enumerate(section_lines):
        if trim(line) == "" and text != "" and size(text) + size(line) > max_bytes:
            flushed = trim(text)
            out.append(Chunk(start, section_start + i, _with_context(context, flushed)))
            text = flushed[-overlap:] if overlap > 0 else ""
            start = section_start + i + 1
            offset = i + 1
            continue
        if text != "":
            text += "\n"
        text += line
        if size(text) > max_bytes and i > offset:
            k = text.rfind("\n")
            if k < 0:
                k = len(text)
            out.append(Chunk(start, section_start + i, _with_context(context, trim(text[:k]))))
            text = text[k:].lstrip("\n")
            start = section_start + i
            offset = i
    if trim(text) != "":
        out.append(Chunk(start, section_start + len(section_lines),
                         _with_context(context, trim(text))))
    return out


def _lines(content: str) -> list[str]:
    """:func:`rulelens.rusttext.lines`, with a fast path for text without ``\r``."""
    if "\r" in content:
        return lines(content)
    parts = content.split("\n")
    if parts[-1] == "":
        parts.pop()
    return parts


def chunk_markdown(content: str, max_bytes: int = DEFAULT_MAX_CHUNK_BYTES,
                   overlap_chars: int = DEFAULT_OVERLAP_CHARS) -> list[Chunk]:
    """``chunk_markdown(content, max, overlap)``: the chunks the agent indexes, in order."""
    all_lines = _lines(content)
    if not content or not all_lines:
        return []
    size = len if content.isascii() else byte_len  # ASCII: bytes == characters
    if size(content) <= max_bytes:
        return [Chunk(0, len(all_lines), content)]
    chunks: list[Chunk] = []
    for start, end, context in _sections(content, all_lines):
        joined = "\n".join(all_lines[start:end])
        if size(joined) <= max_bytes:
            chunks.append(Chunk(start, end, f"[Context: {context}]\n\n{joined}" if context
                                else joined))
        else:
            chunks.extend(_split_paragraphs(all_lines[start:end], start, context, max_bytes,
                                            overlap_chars, size))
    return chunks
