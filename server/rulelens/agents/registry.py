"""The non-Grok agents' discovery modules, by agent id, and which ones a workspace uses.

Grok's discovery is ``rulelens.rules`` (the ``Resolver``); every other agent has one pure
module here with ``view(cwd, file, env) -> AgentView``. ``ORDER`` is the column order of
every side-by-side view (Grok first).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from rulelens.agents import boost, claude, codex, copilot, cursor, fsio, gemini
from rulelens.agents.view import AgentView

Discover = Callable[[str, str | None, Mapping[str, str]], AgentView]

DISCOVERY: dict[str, Discover] = {
    "claude": claude.view,
    "codex": codex.view,
    "cursor": cursor.view,
    "copilot": copilot.view,
    "gemini": gemini.view,
    "boost": boost.view,
}
DISPLAY: dict[str, str] = {
    "grok": "Grok", "claude": claude.DISPLAY, "codex": codex.DISPLAY, "cursor": cursor.DISPLAY,
    "copilot": copilot.DISPLAY, "gemini": gemini.DISPLAY, "boost": boost.DISPLAY,
}
ORDER: tuple[str, ...] = ("grok", "claude", "codex", "cursor", "copilot", "gemini", "boost")
SHORT: dict[str, str] = {"grok": "Grok", "claude": "Claude", "codex": "Codex",
                         "cursor": "Cursor", "copilot": "Copilot", "gemini": "Gemini",
                         "boost": "Boost"}

#: Files or directories at a workspace root that show an agent is used there.
MARKERS: dict[str, tuple[str, ...]] = {
    "claude": ("CLAUDE.md", "CLAUDE.local.md", ".claude"),
    "codex": ("AGENTS.md", "AGENTS.override.md", ".codex"),
    "cursor": (".cursor/rules", ".cursorrules"),
    "copilot": (".github/copilot-instructions.md", ".github/instructions"),
    "gemini": ("GEMINI.md", ".gemini"),
    "boost": (".ai/rules",),
}


def family(agent_id: str) -> str:
    """``claude`` for ``claude`` or ``claude@2026-08``."""
    return agent_id.split("@", 1)[0]


def present(workspace: str) -> list[str]:
    """Grok plus every agent whose files exist at ``workspace`` (the ``rulelens.agents``
    setting's default), in :data:`ORDER`."""
    out = ["grok"]
    for agent in ORDER[1:]:
        if any(os.path.lexists(os.path.join(workspace, m)) for m in MARKERS[agent]):
            out.append(agent)
    return out


def known(agent_id: str) -> bool:
    return family(agent_id) in ORDER


def is_dir(path: str) -> bool:
    return fsio.is_dir(path)
