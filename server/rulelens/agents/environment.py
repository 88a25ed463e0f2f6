"""The slice of the process environment that discovery depends on, captured once.

Tests build a whole fake home through these variables (``HOME``, ``GROK_HOME``, the
``GROK_*_ENABLED`` compat switches, ``XAI_ROOT``/``XAI_USER``), and the language server
builds one per configuration change.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from rulelens.agents.compat import Compat, ConfigError, read_config, resolve_compat
from rulelens.agents.fs import canonical
from rulelens.agents.paths import display_path


@dataclass(frozen=True)
class AgentEnvironment:
    home: str
    grok_home: str
    compat: Compat
    workspace_user_dir: str | None
    env: Mapping[str, str]
    config_path: str
    #: The parsed ``config.toml`` (``[folder_trust]``, ``[paths]`` are read from it).
    config: Mapping[str, object] = field(default_factory=dict)
    #: ``[paths] extra_rule_dirs``, expanded (addendum §A3.10); read by profiles that
    #: know the key (Grok >= 1.0.45).
    extra_rule_dirs: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> AgentEnvironment:
        """Resolve homes and compat cells; raises ``ConfigError`` for a bad config.toml."""
        environ = dict(os.environ if env is None else env)
        home = environ.get("HOME") or os.path.expanduser("~")
        grok_home = environ.get("GROK_HOME") or os.path.join(canonical(home), ".grok")
        config, config_path = read_config(grok_home)
        compat = resolve_compat(config, config_path, environ)
        return cls(home, grok_home, compat, workspace_user_dir(environ), environ, config_path,
                   config, rule_dirs(config, config_path, environ.get("HOME") or None))


def rule_dirs(config: Mapping[str, object], config_path: str,
              home: str | None) -> tuple[str, ...]:
    """``PathsConfig::rule_dirs(home)`` (addendum §A3.10), in config order.

    ``~`` is home, a ``~/`` prefix is home joined with the rest, anything else (``~rules``,
    ``~user/x``) is verbatim; only absolute results are kept, so without a home ``~``
    entries are dropped. A wrongly typed value fails the agent's config load, so it is a
    :class:`ConfigError` here.
    """
    table = config.get("paths", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{display_path(config_path)}: [paths] must be a table")
    entries = table.get("extra_rule_dirs", [])
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        raise ConfigError(f"{display_path(config_path)}: [paths] extra_rule_dirs must be a list"
                          " of strings")
    out: list[str] = []
    for entry in entries:
        if entry == "~" and home:
            expanded = home
        elif entry.startswith("~/") and home:
            expanded = os.path.join(home, entry[2:])
        else:
            expanded = entry
        if os.path.isabs(expanded):
            out.append(expanded)
    return tuple(out)


def workspace_user_dir(env: Mapping[str, str]) -> str | None:
    """``XAI_ROOT``/``XAI_USER`` (spec §2.2): a bare name ``u`` means ``x/u``."""
    root = env.get("XAI_ROOT") or ""
    user = env.get("XAI_USER") or ""
    if not root or not user:
        return None
    rel = user if ("/" in user or "\\" in user) else os.path.join("x", user)
    path = os.path.join(root, rel)
    return path if os.path.isdir(path) else None
