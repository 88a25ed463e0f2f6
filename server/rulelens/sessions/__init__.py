"""What agents recorded in their own session files, read to check RuleLens's prediction.

One reader module per agent whose format is known (``codex``, ``grok``, ``gemini``,
``claude``), each with the same functions: ``home(env)``, ``root(env)`` (the directory its
session files are opened beneath), ``sessions(env, hint)`` (every recorded session, header
only), ``ref_of(path, env, hint)`` (one named session) and ``read(ref, env)`` (what it
injected, streamed line by line in bounded memory; :mod:`rulelens.sessions.jsonl`). Session
files are read-only: nothing is written in or next to them. :mod:`rulelens.sessions.verify`
compares a record with the agent's view. Importing this package loads no reader.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: Agent id -> reader module (in ``rulelens.sessions``), for agents whose format is known.
READERS: dict[str, str] = {"grok": "grok", "claude": "claude", "codex": "codex",
                           "gemini": "gemini"}
#: Why an agent's sessions cannot be read, said plainly (research §5, fact 45).
NOTHING_RECORDED: dict[str, str] = {
    "cursor": ("Cursor records nothing RuleLens can read about which instruction files it"
               " loaded (its chats live in the editor's SQLite storage, without the injected"
               " rules)"),
    "copilot": ("GitHub Copilot records nothing RuleLens can read about which instruction"
                " files it loaded (its chats live in the editor or on GitHub)"),
    "boost": ("Laravel Boost is not an agent and keeps no sessions; verify the agent that"
              " reads its rules instead"),
}


def reader(agent: str) -> ModuleType | None:
    """The reader module for an agent family, or None when its format is not known."""
    name = READERS.get(agent.split("@", 1)[0])
    return None if name is None else importlib.import_module(f"rulelens.sessions.{name}")


def describe(agent: str) -> str:
    """One line for docs/agents.md: where the agent's sessions are, what they record about
    instruction files, and how sure that is."""
    mod = reader(agent)
    if mod is not None:
        return f"{mod.WHERE}; records {mod.WHAT}. How sure: {mod.SURE}."
    nothing = NOTHING_RECORDED.get(agent.split("@", 1)[0])
    if nothing is not None:
        return f"{nothing}: `rulelens verify` answers `unknown`."
    return ("not researched yet (where and how it records sessions): `rulelens verify`"
            " answers `unknown`.")
