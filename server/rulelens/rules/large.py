"""Instruction files too large to hold: validated and counted by streaming, streamed back.

The agent has no size cap: a 200 MB ``AGENTS.md`` loads. RuleLens holds a file whole up to
:data:`~rulelens.agents.safeio.TEXT_LIMIT`; above that (up to :data:`STREAM_LIMIT`) it reads
the file once in chunks to learn what the agent would: whether it is UTF-8 (else the agent
drops it), its size and its character count, and, for a rule file, how much frontmatter
the agent strips. The chain then lists it as loaded with ``held=False`` and empty
``content``; :func:`injected_chunks` gives the injected text again, chunk by chunk, for
``rulelens render``. Memory stays at one chunk plus :data:`HEAD_CHARS` whatever the size.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from dataclasses import dataclass

from rulelens.agents import safeio
from rulelens.agents.rusttext import trim_start
from rulelens.rules.frontmatter import strip_for_agent
from rulelens.rules.model import Skipped, SkipReason

#: Larger files are not read at all (reading 100 GB to count it is a hang of its own).
STREAM_LIMIT = 1024 * 1024 * 1024
#: The head kept to decide how much frontmatter a rule file loses.
HEAD_CHARS = 1024 * 1024
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Unheld:
    """A valid UTF-8 file RuleLens does not hold: its size, length and first characters."""

    size: int
    chars: int
    head: str

    def injected(self, is_rule: bool) -> tuple[int, int] | None:
        """``(characters, bytes)`` of what the agent injects, or ``None`` when the head is
        too short to tell where a rule file's frontmatter ends."""
        cut = strip_prefix(self.head, whole=False) if is_rule else 0
        if cut is None:
            return None
        return self.chars - cut, self.size - len(self.head[:cut].encode("utf-8"))


def strip_prefix(text: str, whole: bool) -> int | None:
    """How many leading characters :func:`strip_for_agent` removes from a text that starts
    with ``text`` (all of it when ``whole``); ``None`` when the rest could change that."""
    if whole:
        return len(text) - len(strip_for_agent(text))
    trimmed = trim_start(text)
    lead = len(text) - len(trimmed)
    if not trimmed or (len(trimmed) < 3 and "---".startswith(trimmed)):
        return None
    if not trimmed.startswith("---"):
        return lead
    close = trimmed.find("\n---", 3)
    if close < 0:
        return None
    after = trimmed[close + 4:]
    body = trim_start(after)
    if not body:
        return None
    return lead + close + 4 + len(after) - len(body)


def _decoded(path: str) -> Iterator[tuple[str, int]]:
    """The file's text in chunks, each with its size in bytes; ``UnicodeDecodeError``
    (its ``start`` the byte offset in the file) if it is not UTF-8."""
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    offset = 0
    for chunk in safeio.iter_chunks(path, _CHUNK):
        try:
            yield decoder.decode(chunk), len(chunk)
        except UnicodeDecodeError as exc:
            raise UnicodeDecodeError("utf-8", chunk, offset + exc.start, offset + exc.end,
                                     exc.reason) from None
        offset += len(chunk)
    try:
        yield decoder.decode(b"", final=True), 0
    except UnicodeDecodeError as exc:  # a sequence cut off by the end of the file
        raise UnicodeDecodeError("utf-8", b"", offset, offset, exc.reason) from None


def read_unheld(path: str, size: int) -> Unheld | Skipped:
    """Stream ``path`` (``size`` bytes by ``fstat``, over the hold bound) once."""
    if size > STREAM_LIMIT:
        return Skipped(path, SkipReason.UNREADABLE,
                       f"{size} bytes, more than RuleLens reads ({STREAM_LIMIT}); the agent"
                       " would load it whole")
    chars = total = 0
    head = ""
    try:
        for text, nbytes in _decoded(path):
            chars += len(text)
            total += nbytes
            if len(head) < HEAD_CHARS:
                head += text[:HEAD_CHARS - len(head)]
    except UnicodeDecodeError as exc:
        return Skipped(path, SkipReason.NOT_UTF8,
                       f"not valid UTF-8 (byte {exc.start}); the agent drops it silently."
                       " Re-save it as UTF-8")
    except OSError as exc:
        return Skipped(path, SkipReason.UNREADABLE, f"cannot be read ({safeio.describe(exc)})")
    return Unheld(total, chars, head)


def injected_chunks(path: str, is_rule: bool) -> Iterator[str]:
    """What the agent injects for ``path``, in chunks (its frontmatter cut for a rule).

    Raises ``ValueError`` when a rule file's frontmatter end can no longer be told (the
    file changed), ``UnicodeDecodeError`` or ``OSError`` when it no longer reads.
    """
    chunks = (text for text, _nbytes in _decoded(path))
    if not is_rule:
        yield from (text for text in chunks if text)
        return
    head = ""
    for text in chunks:
        head += text
        if len(head) >= HEAD_CHARS:
            break
    else:  # the whole file is shorter than the head now
        yield strip_for_agent(head)
        return
    cut = strip_prefix(head[:HEAD_CHARS], whole=False)
    if cut is None:
        raise ValueError(f"{path}: its frontmatter end is no longer in its first"
                         f" {HEAD_CHARS} characters")
    yield head[cut:]
    yield from (text for text in chunks if text)
