"""Pure core: which instruction files an agent loads for a directory, and why others don't.

Typical use::

    env = AgentEnvironment.from_env()
    chain = Resolver(env).resolve("/repo/src")
    text = render(chain.files)  # from rulelens.rules.render
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulelens.lazy import exports

if TYPE_CHECKING:
    from rulelens.agents.compat import Compat, ConfigError
    from rulelens.agents.environment import AgentEnvironment
    from rulelens.rules.discovery import Resolver
    from rulelens.rules.model import Chain, RuleFile, Skipped, SkipReason
    from rulelens.rules.tracker import AgentsMdTracker

#: Public name -> the module that defines it, imported when first used (PEP 562): a
#: module of this package (``rules.gitignore`` for lint's walk) does not load the resolver.
__getattr__ = exports(globals(), {
    **dict.fromkeys(("Compat", "ConfigError"), "rulelens.agents.compat"),
    "AgentEnvironment": "rulelens.agents.environment",
    "Resolver": "rulelens.rules.discovery",
    **dict.fromkeys(("Chain", "RuleFile", "Skipped", "SkipReason"), "rulelens.rules.model"),
    "AgentsMdTracker": "rulelens.rules.tracker",
})


__all__ = [
    "AgentEnvironment",
    "AgentsMdTracker",
    "Chain",
    "Compat",
    "ConfigError",
    "Resolver",
    "RuleFile",
    "SkipReason",
    "Skipped",
]


def chain_for(path: str, env: AgentEnvironment | None = None) -> Chain:
    """Convenience: the chain for a file or directory (a file's chain is its directory's)."""
    import os

    from rulelens.agents.environment import AgentEnvironment
    from rulelens.rules.discovery import Resolver

    cwd = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    return Resolver(env or AgentEnvironment.from_env()).resolve(cwd)
