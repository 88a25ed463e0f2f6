"""Pure core: which instruction files an agent loads for a directory, and why others don't.

Typical use::

    env = AgentEnvironment.from_env()
    chain = Resolver(env).resolve("/repo/src")
    text = render(chain.files)
"""

from rulelens.agents.compat import Compat, ConfigError
from rulelens.agents.environment import AgentEnvironment
from rulelens.rules.discovery import Resolver
from rulelens.rules.model import Chain, RuleFile, Skipped, SkipReason
from rulelens.rules.render import neutralize, render
from rulelens.rules.tracker import AgentsMdTracker

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
    "neutralize",
    "render",
]


def chain_for(path: str, env: AgentEnvironment | None = None) -> Chain:
    """Convenience: the chain for a file or directory (a file's chain is its directory's)."""
    import os

    cwd = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    return Resolver(env or AgentEnvironment.from_env()).resolve(cwd)
