"""Which agents read an instruction file, for messages such as
``GEMINI.md: read by Gemini CLI; not by Grok, Claude Code or Codex`` (lint, hovers).

Asks every non-Grok discovery module for its view of ``path`` with the session started at
``workspace``: an agent *reads* the file when it lists it as loaded at start, on read, or
as something the model may pull in (Boost's index rows, Codex's deeper AGENTS.md). Grok's
answer comes from the caller (``rules`` knows it; ``agents`` does not import ``rules``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rulelens.agents.registry import DISCOVERY, DISPLAY
from rulelens.agents.view import ViewFile


def who_reads(path: str, workspace: str, env: Mapping[str, str],
              agents: Sequence[str] = tuple(DISCOVERY)) -> tuple[list[str], list[str]]:
    """``(agents that read path, agents that do not)`` as display names, in column order."""
    reads: list[str] = []
    skips: list[str] = []
    for agent in agents:
        view = DISCOVERY[agent](workspace, path, env)
        (reads if isinstance(view.find(path), ViewFile) else skips).append(DISPLAY[agent])
    return reads, skips


def _join(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def sentence(name: str, reads: list[str], skips: list[str], grok_reads: bool) -> str:
    """``GEMINI.md: read by Gemini CLI; not by Grok, Claude Code or Codex``."""
    yes = (["Grok"] if grok_reads else []) + reads
    no = ([] if grok_reads else ["Grok"]) + skips
    if not yes:
        return f"{name}: read by none of {_join(no)}"
    text = f"{name}: read by {', '.join(yes)}"
    return text + (f"; not by {_join(no)}" if no else "")
