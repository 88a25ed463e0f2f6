"""Grok Build's record in the registry; its discovery is Grok's own engine, ``rulelens.rules``.

Grok is modelled exactly (two versions, ``grok@1.0.6`` and ``grok@1.0.45``) by the
:class:`~rulelens.rules.Resolver` one floor up. This module is on the ground floor, which
imports nothing else from ``rulelens`` (the arrow rule), so :func:`view` reaches the engine
through one named import at call time: importing the registry never loads ``rules``.
Multi-agent views (``rulelens.rules.perfile``) do not call :func:`view`; they pass the
session's resolver (its version, trust override and caches) and build the same
:class:`~rulelens.agents.view.AgentView` with ``perfile.grok_view``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from rulelens.agents import profiles
from rulelens.agents.record import Agent, agent_home, home_of, profile_homes
from rulelens.agents.view import AgentView

PROFILE = profiles.GROK_1_0_45
ID = PROFILE.agent
DISPLAY = PROFILE.display
#: The module that holds Grok's engine entry point (``grok_discover``).
ENGINE = "rulelens.rules.perfile"


def view(cwd: str, file: str | None, env: Mapping[str, str]) -> AgentView:
    """Grok's view of ``file`` for a session started in ``cwd``, from a fresh resolver."""
    engine = importlib.import_module(ENGINE)
    found: AgentView = engine.grok_discover(cwd, file, env)
    return found


def homes(env: Mapping[str, str]) -> tuple[str, ...]:
    """``~`` (global git excludes), ``$GROK_HOME`` and ``rules/``, ``~/.claude``,
    ``~/.cursor`` and their ``rules/``: every home root the profile rows scan."""
    out = [home_of(env)]
    for row in (profiles.GROK_1_0_6, PROFILE):
        out += profile_homes(row, env)
    return tuple(dict.fromkeys(out))


def grok_home(env: Mapping[str, str]) -> str:
    """``$GROK_HOME``, else ``~/.grok``."""
    return agent_home(PROFILE, env)


#: This agent's record in :data:`rulelens.agents.registry.AGENTS`.
AGENT = Agent(
    id=ID, short="Grok", display=DISPLAY, profiles=(profiles.GROK_1_0_6, PROFILE),
    markers=(".grok",), formats=("grok-rule", "named"), view=view, homes=homes,
    trust_command=PROFILE.trust.command if PROFILE.trust else None,
    present_by_home=True, engine=True,
)
