"""What a session reader returns: the session found, and what its record shows."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from rulelens.sessions.jsonl import LineStats

Seen = Literal["start", "on-read"]


@dataclass(frozen=True)
class SessionRef:
    """One recorded session: where it is and what its header says."""

    agent: str
    id: str
    #: The session file (Codex, Gemini, Claude) or directory (Grok).
    path: str
    #: RFC 3339 UTC (``2026-09-01T10:00:00Z``), or None when the record has no time.
    started: str | None
    cwd: str | None
    agent_version: str | None

    def to_json(self) -> dict[str, str | None]:
        return {"id": self.id, "path": self.path, "started": self.started, "cwd": self.cwd,
                "agent_version": self.agent_version}


@dataclass(frozen=True)
class SeenFile:
    """One instruction file the session shows injected: its path and the text it got."""

    path: str
    when: Seen
    content: str


@dataclass
class Record:
    """What one session recorded about instruction files.

    ``files`` lists what the record names by path. ``start_text`` is an injected block
    without paths (Codex: the text inside ``<INSTRUCTIONS>``), attributed to files by
    content. ``unrecorded`` names what the agent does not write down (``start`` for
    Gemini CLI), which is neither observed nor absent. ``problem`` is set when the record
    cannot be read (a format RuleLens does not know): the verdict is then ``unknown``.
    """

    files: list[SeenFile] = field(default_factory=list)
    start_text: str | None = None
    start_text_seen: bool = False
    unrecorded: tuple[Seen, ...] = ()
    #: Why the start set is unknown (a sentence for the user), when it is.
    unrecorded_why: str | None = None
    problem: str | None = None
    #: Files the session is seen working on (Gemini's tool calls): for these, an on-read
    #: file the prediction lists and the session never announced is ``absent``.
    touched: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    stats: LineStats = field(default_factory=LineStats)


def rfc3339(value: object) -> str | None:
    """``2026-09-01T10:00:00.000Z``, ``…+00:00`` or Codex's file-name form
    ``2025-01-03T12-00-00`` as RFC 3339 UTC with a ``Z``; None when it is none of them."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    m = re.fullmatch(r"(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})", text)
    if m:
        text = f"{m.group(1)}T{m.group(2)}:{m.group(3)}:{m.group(4)}+00:00"
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    out = when.astimezone(UTC).isoformat(timespec="milliseconds" if when.microsecond else
                                         "seconds")
    return out.replace("+00:00", "Z")


def sort_key(ref: SessionRef) -> str:
    """Newest first sorts by this descending: the start time (RFC 3339 UTC sorts as text)."""
    return ref.started or ""


def home_of(env: Mapping[str, str]) -> str:
    return env.get("HOME") or os.path.expanduser("~")


def same_dir(a: str | None, b: str) -> bool:
    """Two directory paths name the same place (normalised; resolved when both exist)."""
    if not a:
        return False
    if os.path.normpath(a) == os.path.normpath(b):
        return True
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False
