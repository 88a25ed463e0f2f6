"""The one list of agents: :data:`AGENTS`, one :class:`~rulelens.agents.record.Agent` each.

Every other list is derived from it: the column order of every side-by-side view
(:data:`ORDER`, Grok first), the short and display names, the workspace markers, the CLI's
``--agent`` choices, the readers sentence, the watched homes and the clients' agent lists
(``rulelens/agents``). Adding an agent is its module (``view`` and ``AGENT``), its profile
row, one line here, tests and the regenerated ``docs/agents.md``.

Grok's discovery is ``rulelens.rules`` (the ``Resolver``); its record's ``view`` reaches it
at call time (see :mod:`rulelens.agents.grok`). Every other agent has one pure module here
with ``view(cwd, file, env) -> AgentView``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from rulelens.agents import (
    aider,
    boost,
    claude,
    cline,
    codex,
    continue_,
    copilot,
    cursor,
    fsio,
    gemini,
    grok,
    junie,
    kiro,
    opencode,
    qwen,
    windsurf,
    zed,
)
from rulelens.agents.profiles import DEFAULT_AGENT
from rulelens.agents.record import Agent, Discover

__all__ = ["AGENTS", "BY_ID", "DEFAULT_AGENT", "DISCOVERY", "DISPLAY", "MARKERS", "ORDER",
           "SHORT", "WATCH_NAMES", "Agent", "Discover", "choices", "concerns", "family", "get",
           "home_dirs", "is_dir", "known", "present"]

#: Every agent, in column order. The only list of agents.
AGENTS: tuple[Agent, ...] = (
    grok.AGENT,
    claude.AGENT,
    codex.AGENT,
    cursor.AGENT,
    copilot.AGENT,
    gemini.AGENT,
    boost.AGENT,
    cline.AGENT,
    opencode.AGENT,
    qwen.AGENT,
    windsurf.AGENT,
    kiro.AGENT,
    zed.AGENT,
    junie.AGENT,
    aider.AGENT,
    continue_.AGENT,
)

BY_ID: dict[str, Agent] = {a.id: a for a in AGENTS}
#: Column order of every side-by-side view.
ORDER: tuple[str, ...] = tuple(a.id for a in AGENTS)
#: Discovery of the agents whose module is their engine (every agent but Grok).
DISCOVERY: dict[str, Discover] = {a.id: a.view for a in AGENTS if not a.engine}
DISPLAY: dict[str, str] = {a.id: a.display for a in AGENTS}
SHORT: dict[str, str] = {a.id: a.short for a in AGENTS}
#: Files or directories at a workspace root that show an agent is used there.
MARKERS: dict[str, tuple[str, ...]] = {a.id: a.markers for a in AGENTS if a.markers}


def family(agent_id: str) -> str:
    """``claude`` for ``claude`` or ``claude@2026-08``."""
    return agent_id.split("@", 1)[0]


def get(agent_id: str) -> Agent:
    """The record for ``claude`` or ``claude@2.1``; ``KeyError`` for an unknown id."""
    return BY_ID[family(agent_id)]


def known(agent_id: str) -> bool:
    return family(agent_id) in BY_ID


def choices() -> str:
    """``grok, claude, …`` for ``--agent`` help and error messages."""
    return ", ".join(ORDER)


def present(workspace: str | None, env: Mapping[str, str] | None = None) -> list[str]:
    """The ``rulelens.agents`` setting's default: every agent whose markers exist at
    ``workspace`` (and an agent whose home marks it used, Grok, when that home exists), in
    :data:`ORDER`; the default agent when none is."""
    environ: Mapping[str, str] = {} if env is None else env
    found = [a.id for a in AGENTS if a.used_in(workspace, environ)]
    return found or [DEFAULT_AGENT]


def home_dirs(agents: list[str] | tuple[str, ...], env: Mapping[str, str]) -> list[str]:
    """Every directory outside the workspace whose changes can change the views of
    ``agents`` (ids), without repeats, in :data:`ORDER`."""
    wanted = {family(a) for a in agents}
    out: list[str] = []
    for a in AGENTS:
        if a.id in wanted:
            out += a.home_dirs(env)
    return list(dict.fromkeys(out))


_NAMES = frozenset().union(*(a.file_names() for a in AGENTS))
#: Base names (lower case) of every file some agent reads or is configured by, where the
#: name has no directory part (``agents.md``, ``.cursorrules``).
WATCH_NAMES: frozenset[str] = frozenset(n.lower() for n in _NAMES if "/" not in n)
#: Names with a directory part, as path endings (``/.claude/settings.json``).
_WATCH_ENDINGS: tuple[str, ...] = tuple(sorted("/" + n for n in _NAMES if "/" in n))
#: Every agent's rules directories as path components (``(".github", "instructions")``).
_RULE_DIR_PARTS: frozenset[tuple[str, ...]] = frozenset(
    tuple(d.split("/")) for a in AGENTS for d in a.rules_dirs())
_LONGEST = max((len(p) for p in _RULE_DIR_PARTS), default=0)


def concerns(path: str) -> bool:
    """Whether a change to ``path`` can change some agent's view: a file an agent names or
    is configured by, or anything below one of their rules directories."""
    if os.path.basename(path).lower() in WATCH_NAMES or path.endswith(_WATCH_ENDINGS):
        return True
    parts = path.split(os.sep)[:-1]
    for n in range(1, _LONGEST + 1):
        for i in range(len(parts) - n + 1):
            if tuple(parts[i:i + n]) in _RULE_DIR_PARTS:
                return True
    return False


def is_dir(path: str) -> bool:
    return fsio.is_dir(path)
