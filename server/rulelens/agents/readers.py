"""Which agents read an instruction file, for messages such as
``GEMINI.md: read by Gemini CLI; not by Grok, Claude Code or Codex`` (lint, hovers).

Asks every non-Grok discovery module for its view of ``path`` with the session started at
``workspace``: an agent *reads* the file when it lists it as loaded at start, on read, or
as something the model may pull in (Boost's index rows, Codex's deeper AGENTS.md); a
scoped rule whose scope does not match the file itself (``globs``, ``paths``, ``applyTo``,
manual-only) is read "for matching files". Grok's answer comes from the caller (``rules``
knows it; ``agents`` does not import ``rules``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rulelens.agents.registry import DISCOVERY, DISPLAY
from rulelens.agents.view import NotLoaded, ViewFile

#: Not-loaded reasons that still mean "this agent reads the file, for other files".
SCOPED = frozenset({"globs-no-match", "paths-no-match", "applyto-no-match", "manual",
                    "no-applyto"})
FOR_MATCHING = " (for matching files)"


def who_reads(path: str, workspace: str, env: Mapping[str, str],
              agents: Sequence[str] = tuple(DISCOVERY)) -> tuple[list[str], list[str]]:
    """``(agents that read path, agents that do not)`` as display names, in column order;
    a scoped rule read only for other files is named ``Cursor (for matching files)``."""
    reads: list[str] = []
    skips: list[str] = []
    for agent in agents:
        entry = DISCOVERY[agent](workspace, path, env).find(path)
        if isinstance(entry, ViewFile):
            reads.append(DISPLAY[agent])
        elif isinstance(entry, NotLoaded) and entry.reason in SCOPED:
            reads.append(DISPLAY[agent] + FOR_MATCHING)
        else:
            skips.append(DISPLAY[agent])
    return reads, skips


def _join(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def sentence(name: str, reads: list[str], skips: list[str], grok_reads: bool,
             grok: str = "Grok") -> str:
    """``GEMINI.md: read by Gemini CLI; not by Grok, Claude Code or Codex`` (``grok``: the
    name Grok goes by in the caller's profile)."""
    yes = ([grok] if grok_reads else []) + reads
    no = ([] if grok_reads else [grok]) + skips
    if not yes:
        return f"{name}: read by none of {_join(no)}"
    text = f"{name}: read by {', '.join(yes)}"
    return text + (f"; not by {_join(no)}" if no else "")
