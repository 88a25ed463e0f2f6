"""Moved to :mod:`rulelens.agents.compat`; kept as a re-export while importers move."""

from rulelens.agents.compat import (
    BASE_FILENAMES,
    CLAUDE_FILENAMES,
    SURFACES,
    VENDORS,
    Cell,
    Compat,
    ConfigError,
    env_bool,
    env_var_name,
    read_config,
    resolve_compat,
)

__all__ = ["BASE_FILENAMES", "CLAUDE_FILENAMES", "SURFACES", "VENDORS", "Cell", "Compat",
           "ConfigError", "env_bool", "env_var_name", "read_config", "resolve_compat"]
