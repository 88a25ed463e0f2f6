"""The slice of the process environment that discovery depends on, captured once.

Tests build a whole fake home through these variables (``HOME``, ``GROK_HOME``, the
``GROK_*_ENABLED`` compat switches, ``XAI_ROOT``/``XAI_USER``), and the language server
builds one per configuration change.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from rulelens.agents.compat import Compat, read_config, resolve_compat
from rulelens.agents.fs import canonical


@dataclass(frozen=True)
class AgentEnvironment:
    home: str
    grok_home: str
    compat: Compat
    workspace_user_dir: str | None
    env: Mapping[str, str]
    config_path: str

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> AgentEnvironment:
        """Resolve homes and compat cells; raises ``ConfigError`` for a bad config.toml."""
        environ = dict(os.environ if env is None else env)
        home = environ.get("HOME") or os.path.expanduser("~")
        grok_home = environ.get("GROK_HOME") or os.path.join(canonical(home), ".grok")
        config, config_path = read_config(grok_home)
        compat = resolve_compat(config, config_path, environ)
        return cls(home, grok_home, compat, workspace_user_dir(environ), environ, config_path)


def workspace_user_dir(env: Mapping[str, str]) -> str | None:
    """``XAI_ROOT``/``XAI_USER`` (spec §2.2): a bare name ``u`` means ``x/u``."""
    root = env.get("XAI_ROOT") or ""
    user = env.get("XAI_USER") or ""
    if not root or not user:
        return None
    rel = user if ("/" in user or "\\" in user) else os.path.join("x", user)
    path = os.path.join(root, rel)
    return path if os.path.isdir(path) else None
