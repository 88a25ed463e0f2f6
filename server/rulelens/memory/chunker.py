"""Byte-exact port of the agent's Markdown chunker (spec §7.5).

Why exact: chunk ids are ``<path>:<i>`` and scores are normalised per candidate list, so a
chunk boundary that moves by one line changes what the agent would return. Limits are
UTF-8 **byte** lengths (Rust ``str::len``), the overlap tail is counted in **characters**,
``trim`` is Rust's White_Space trim and lines split like Rust ``str::lines``
(see :mod:`rulelens.agents.rusttext`). Quirks kept on purpose:

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

from rulelens.agents.rusttext import WHITE_SPACE, byte_len, lines, trim, trim_start

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


def chunk_hashes(texts: list[str]) -> list[str]:
    """:func:`chunk_hash` of each text, with one reused hasher (a first index hashes
    every chunk; a new hasher and ``hexdigest`` per call cost a quarter more)."""
    hasher = blake3()
    out: list[str] = []
    for text in texts:
        try:
            hasher.update(text.encode())
        except UnicodeEncodeError:
            hasher.update(text.encode("utf-8", "surrogatepass"))
        out.append(hasher.digest().hex())
        hasher.reset()
    return out


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


#: A header line after the first, in text whose ``\r\n`` became ``\n``: ``\n``,
#: whitespace other than ``\n`` (which ends a line), a run of ``#``, then a space or
#: the end of the line. The same rule as :func:`header_level`, applied to the whole
#: text at once: a per-line Python call was most of the chunker's time, and the literal
#: ``\n`` lets the regex engine skip ahead (``^`` with MULTILINE tries every position
#: and was seven times slower).
_HEADER = re.compile("\n[" + re.escape(WHITE_SPACE.replace("\n", "")) + "]*(#+)(?= |\n|\\Z)")


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


def chunk_markdown(content: str, max_bytes: int = DEFAULT_MAX_CHUNK_BYTES,
                   overlap_chars: int = DEFAULT_OVERLAP_CHARS) -> list[Chunk]:
    """``chunk_markdown(content, max, overlap)``: the chunks the agent indexes, in order.

    ``split_by_headers`` runs over character positions of ``text``, the content with
    every ``\\r\\n`` replaced by ``\\n``: its ``\\n``-separated pieces are exactly Rust's
    ``lines`` of the original (which drops one ``\\r`` before each ``\\n``), so a
    section's lines joined with ``\\n`` are a plain slice. The header stack holds
    (level, context through this header): a section's context is the entry below the
    top, the same string as joining the trimmed headers except the last. One loop, no
    per-line or per-section helper calls: this runs for every file of a first index.
    """
    if not content:
        return []
    size = len if content.isascii() else byte_len  # ASCII: bytes == characters
    if size(content) <= max_bytes:  # verbatim, "\r" included
        return [Chunk(0, len(lines(content)), content)]
    text = content.replace("\r\n", "\n") if "\r" in content else content
    chunks: list[Chunk] = []
    append = chunks.append
    count, find = text.count, text.find
    stack: list[tuple[int, str]] = []
    eol = find("\n")
    first = header_level(text if eol < 0 else text[:eol])
    if first is not None:
        stack.append((first, (text if eol < 0 else text[:eol]).strip(WHITE_SPACE)))
    start_line = start_pos = line_no = 0
    for match in _HEADER.finditer(text):
        # Close the current section (never empty here: it holds at least the line
        # before this header) with the stack as it was before this header.
        pos = match.start() + 1
        line_no += count("\n", start_pos, pos)
        context = stack[-2][1] if len(stack) > 1 else ""
        joined = text[start_pos:pos - 1]
        if size(joined) <= max_bytes:
            append(Chunk(start_line, line_no,
                         f"[Context: {context}]\n\n{joined}" if context else joined))
        else:
            chunks.extend(_split_paragraphs(joined.split("\n"), start_line, context,
                                            max_bytes, overlap_chars, size))
        start_line, start_pos = line_no, pos
        level = match.end(1) - match.start(1)
        while stack and stack[-1][0] >= level:
            stack.pop()
        eol = find("\n", pos)
        title = (text[pos:] if eol < 0 else text[pos:eol]).strip(WHITE_SPACE)
        stack.append((level, f"{stack[-1][1]} > {title}" if stack else title))
    ends_with_newline = text.endswith("\n")
    end_line = line_no + count("\n", start_pos) + (0 if ends_with_newline else 1)
    context = stack[-2][1] if len(stack) > 1 else ""
    joined = text[start_pos:-1] if ends_with_newline else text[start_pos:]
    if size(joined) <= max_bytes:
        append(Chunk(start_line, end_line,
                     f"[Context: {context}]\n\n{joined}" if context else joined))
    else:
        chunks.extend(_split_paragraphs(joined.split("\n"), start_line, context, max_bytes,
                                        overlap_chars, size))
    return chunks
