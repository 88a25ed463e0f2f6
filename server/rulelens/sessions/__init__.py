"""What agents recorded in their own session files, read to check RuleLens's prediction.

One reader module per agent whose format is known (``codex``, ``grok``, ``gemini``,
``claude``; which agent has which is ``rulelens.agents.sessionfacts``), each with the same
functions: ``home(env)``, ``root(env)`` (the directory its session files are opened
beneath), ``sessions(env, hint)`` (every recorded session, header only),
``ref_of(path, env, hint)`` (one named session) and ``read(ref, env)`` (what it injected,
streamed line by line in bounded memory; :mod:`rulelens.sessions.jsonl`). Session files are
read-only: nothing is written in or next to them. :mod:`rulelens.sessions.verify` compares
a record with the agent's view. Importing this package loads no reader.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from rulelens.agents.sessionfacts import SESSIONS, describe, facts

#: Why an agent's sessions cannot be read, said plainly (research §5, fact 45).
NOTHING_RECORDED: dict[str, str] = {a: f.nothing for a, f in SESSIONS.items()
                                    if f.nothing is not None}

__all__ = ["NOTHING_RECORDED", "describe", "reader"]


def reader(agent: str) -> ModuleType | None:
    """The reader module for an agent family, or None when its format is not known."""
    name = facts(agent).reader
    return None if name is None else importlib.import_module(f"rulelens.sessions.{name}")
