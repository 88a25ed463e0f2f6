"""Session files read line by line in bounded memory, beneath the agent's own directory.

Every session reader (and the Grok transcript index of ``rulelens.memory.transcripts``)
splits a file into lines with :func:`bounded_lines`: at most ``max_line`` bytes of one line
are ever held; a longer line is let go while it streams past and reported as ``None`` (the
caller counts it). :func:`stream` opens the file beneath the agent's sessions directory
(:func:`rulelens.memory.beneath.open_beneath`: no link leads out, regular files only, never
blocking), reads it through :func:`rulelens.agents.safeio.iter_opened` and keeps the counts
of lines skipped as too long or unparseable. Nothing is ever written.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from rulelens.agents import safeio
from rulelens.memory.beneath import Refused, open_beneath

#: The longest session line held (an instruction message with every file's text). A longer
#: one (a tool output of megabytes) is skipped and counted, never held.
MAX_LINE = 32 << 20
#: Read size for the first records of a file (:func:`first`).
HEAD_CHUNK = 64 << 10


def bounded_lines(chunks: Iterable[bytes], max_line: int = MAX_LINE
                  ) -> Iterator[tuple[int, bytes | None]]:
    """(length, line) of each complete line (its ``\\n`` included); the line is None when
    it is longer than ``max_line`` (counted, not held). A torn last line is dropped."""
    held = bytearray()
    dropped = 0  # bytes of an over-long line already let go
    for chunk in chunks:
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            end = len(chunk) if nl < 0 else nl + 1
            if dropped:
                dropped += end - start
            else:
                held += chunk[start:end]
                if len(held) > max_line:
                    dropped, held = len(held), bytearray()
            if nl < 0:
                break
            if dropped:
                yield dropped, None
                dropped = 0
            else:
                yield len(held), bytes(held)
                held = bytearray()
            start = end


@dataclass
class LineStats:
    """What a read of one session file skipped: lines too long to hold, lines that are not
    JSON (a torn write, a truncated file), and whether the last line was cut off."""

    lines: int = 0
    too_long: int = 0
    malformed: int = 0
    torn_tail: bool = False

    def sentence(self) -> str | None:
        """``3 malformed lines and 1 line over 32 MiB skipped``, or None."""
        parts = []
        if self.malformed:
            parts.append(f"{self.malformed} malformed line{'s' * (self.malformed != 1)}")
        if self.too_long:
            parts.append(f"{self.too_long} line{'s' * (self.too_long != 1)} over"
                         f" {MAX_LINE >> 20} MiB")
        if self.torn_tail:
            parts.append("a truncated last line")
        return (" and ".join(parts) + " skipped") if parts else None


def stream(root: str, path: str, stats: LineStats, wanted: Callable[[bytes], bool]
           = lambda _line: True, max_line: int = MAX_LINE) -> Iterator[Any]:
    """The decoded JSON value of every line of ``path`` (beneath ``root``) that ``wanted``
    accepts (a byte test run before decoding, so bulky lines are never decoded). Raises
    :class:`rulelens.memory.beneath.Refused` when the file cannot be opened safely."""
    with open_beneath(root, path) as (fd, st):
        safeio.check_opened(st, path)
        consumed = 0
        for size, raw in bounded_lines(safeio.iter_opened(fd, st, path), max_line):
            consumed += size
            stats.lines += 1
            if raw is None:
                stats.too_long += 1
                continue
            line = raw.strip()
            if not line:
                continue
            if not (line.startswith(b"{") and line.endswith(b"}")):
                stats.malformed += 1  # a torn or truncated record, seen without decoding
                continue
            if not wanted(raw):
                continue
            try:
                value = json.loads(raw)
            except (ValueError, RecursionError):
                stats.malformed += 1
                continue
            yield value
        stats.torn_tail = consumed < _size_now(fd, st)


def first(root: str, path: str, stats: LineStats, count: int = 1,
          max_line: int = MAX_LINE) -> list[Any]:
    """The first ``count`` JSON values of ``path`` (lines that do not parse are counted and
    skipped); reading stops there."""
    out: list[Any] = []
    with open_beneath(root, path) as (fd, st):
        safeio.check_opened(st, path)
        # Small reads: a header is usually a few KiB, and listing reads one per session.
        chunks = safeio.iter_opened(fd, st, path, chunk=HEAD_CHUNK)
        for _size, raw in bounded_lines(chunks, max_line):
            stats.lines += 1
            if raw is None:
                stats.too_long += 1
                continue
            if not raw.strip():
                continue
            try:
                out.append(json.loads(raw))
            except (ValueError, RecursionError):
                stats.malformed += 1
                continue
            if len(out) >= count:
                break
    return out


def _size_now(fd: int, st: object) -> int:
    try:
        return os.fstat(fd).st_size
    except OSError:
        return 0


__all__ = ["MAX_LINE", "LineStats", "Refused", "bounded_lines", "first", "stream"]
