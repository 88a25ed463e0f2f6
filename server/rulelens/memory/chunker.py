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
    return blake3(text.encode("utf-8", "surrogatepass")).hexdigest()


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


@dataclass(frozen=True)
class _Section:
    lines: list[str]
    start: int
    context: str


def _format_context(stack: list[tuple[int, str]]) -> str:
    if len(stack) <= 1:
        return ""
    return " > ".join(trim(text) for _, text in stack[:-1])


def _with_context(context: str, text: str) -> str:
    return text if not context else f"[Context: {context}]\n\n{text}"


def _split_by_headers(all_lines: list[str]) -> list[_Section]:
    sections: list[_Section] = []
    current: list[str] = []
    start = 0
    stack: list[tuple[int, str]] = []
    for i, line in enumerate(all_lines):
        level = header_level(line)
        if level is not None:
            if current:
                sections.append(_Section(current, start, _format_context(stack)))
                current = []
            start = i
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, line))
        current.append(line)
    if current:
        sections.append(_Section(current, start, _format_context(stack)))
    return sections


def _split_paragraphs(section: _Section, max_bytes: int, overlap: int) -> list[Chunk]:
    out: list[Chunk] = []
    text = ""
    start = section.start
    offset = 0
    for i, line in enumerate(section.lines):
        if trim(line) == "" and text != "" and byte_len(text) + byte_len(line) > max_bytes:
            flushed = trim(text)
            out.append(Chunk(start, section.start + i, _with_context(section.context, flushed)))
            text = flushed[-overlap:] if overlap > 0 else ""
            start = section.start + i + 1
            offset = i + 1
            continue
        if text != "":
            text += "\n"
        text += line
        if byte_len(text) > max_bytes and i > offset:
            k = text.rfind("\n")
            if k < 0:
                k = len(text)
            out.append(Chunk(start, section.start + i,
                             _with_context(section.context, trim(text[:k]))))
            text = text[k:].lstrip("\n")
            start = section.start + i
            offset = i
    if trim(text) != "":
        out.append(Chunk(start, section.start + len(section.lines),
                         _with_context(section.context, trim(text))))
    return out


def chunk_markdown(content: str, max_bytes: int = DEFAULT_MAX_CHUNK_BYTES,
                   overlap_chars: int = DEFAULT_OVERLAP_CHARS) -> list[Chunk]:
    """``chunk_markdown(content, max, overlap)``: the chunks the agent indexes, in order."""
    all_lines = lines(content)
    if not content or not all_lines:
        return []
    if byte_len(content) <= max_bytes:
        return [Chunk(0, len(all_lines), content)]
    chunks: list[Chunk] = []
    for section in _split_by_headers(all_lines):
        joined = "\n".join(section.lines)
        if byte_len(joined) <= max_bytes:
            chunks.append(Chunk(section.start, section.start + len(section.lines),
                                _with_context(section.context, joined)))
        else:
            chunks.extend(_split_paragraphs(section, max_bytes, overlap_chars))
    return chunks
