"""``[compat]`` cells, their environment overrides, and the names and directories they imply.

Grok reads other agents' files only through 18 switches (vendor x surface, spec §2.3).
Each cell resolves env var → ``$GROK_HOME/config.toml`` → default on. We also remember
*where* a cell was switched off, so a skipped file can name the switch.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field

from rulelens.agents import bounded, safeio
from rulelens.agents.paths import display_path
from rulelens.agents.profiles import GROK_1_0_6
from rulelens.agents.rusttext import trim

VENDORS = ("cursor", "claude", "codex")
SURFACES = ("skills", "rules", "agents", "mcps", "hooks", "sessions")

#: Named files every root is scanned for, in this exact order (before compat additions),
#: and those appended when ``claude.agents`` is on: read from the Grok profile rows.
BASE_FILENAMES = GROK_1_0_6.base_names
CLAUDE_FILENAMES = tuple(n.name for n in GROK_1_0_6.named_files if n.gate == ("claude", "agents"))

_TRUE = frozenset({"1", "true", "yes", "on", "enabled"})
_FALSE = frozenset({"0", "false", "no", "off", "disabled"})


class ConfigError(Exception):
    """The agent's ``config.toml`` cannot be read or is malformed."""


def env_bool(value: str | None) -> bool | None:
    """The agent's ``env_bool``: Rust trim + lowercase; unknown or empty means unset (``None``).

    Rust ``trim`` strips Unicode White_Space only, so ``"\x1ctrue"`` stays unset here as it
    does in the agent (Python's ``strip`` would accept it).
    """
    if value is None:
        return None
    v = trim(value).lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    return None


def env_var_name(vendor: str, surface: str) -> str:
    return f"GROK_{vendor.upper()}_{surface.upper()}_ENABLED"


@dataclass(frozen=True)
class Cell:
    vendor: str
    surface: str
    enabled: bool
    #: Human description of where the value came from: ``default``, an env assignment,
    #: or ``[compat.claude] rules = false in /path/config.toml``.
    origin: str


@dataclass(frozen=True)
class Compat:
    cells: Mapping[tuple[str, str], Cell] = field(default_factory=dict)

    def cell(self, vendor: str, surface: str) -> Cell:
        found = self.cells.get((vendor, surface))
        return found if found is not None else Cell(vendor, surface, True, "default")

    def enabled(self, vendor: str, surface: str) -> bool:
        return self.cell(vendor, surface).enabled

    def agent_filenames(self) -> tuple[str, ...]:
        names: tuple[str, ...] = BASE_FILENAMES
        if self.enabled("claude", "agents"):
            names += CLAUDE_FILENAMES
        return names

    def project_rules_dirs(self) -> tuple[str, ...]:
        return tuple(r.path for r in GROK_1_0_6.rules_dirs
                     if r.gate is None or self.enabled(*r.gate))


def read_config(grok_home: str) -> tuple[dict[str, object], str]:
    """Parse ``$GROK_HOME/config.toml``; a missing file is an empty config.

    Read through :mod:`~rulelens.agents.safeio` (a FIFO, a device or a 200,000-deep
    array is a :class:`ConfigError` with one line, never a hang or a traceback).
    """
    path = os.path.join(grok_home, "config.toml")
    shown = display_path(path)  # `~/.grok/config.toml`: no absolute path in messages
    try:
        raw = safeio.read_bytes(path, safeio.CONFIG_LIMIT)
    except FileNotFoundError:
        return {}, path
    except safeio.NotAFileError as exc:
        raise ConfigError(f"{shown}: is {exc.kind}, not a TOML file") from None
    except safeio.TooLargeError as exc:
        raise ConfigError(f"{shown}: too large for a config file ({exc.size} bytes;"
                          f" RuleLens reads at most {exc.limit})") from None
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot read ({safeio.describe(exc)})") from None
    try:
        return bounded.toml_loads(raw.decode("utf-8")), path
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{shown}: not UTF-8 (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{shown}: invalid TOML: {exc}") from None
    except bounded.TooDeep:  # scanned before tomllib, which recurses once per level
        raise ConfigError(f"{shown}: invalid TOML: arrays or tables nested too deeply"
                          " to parse") from None


def resolve_compat(
    config: Mapping[str, object], config_path: str, env: Mapping[str, str]
) -> Compat:
    """Resolve every cell with the agent's precedence: env, then TOML, then default on.

    A wrongly typed ``[compat]`` value makes the agent's config loading fail, so it is a
    :class:`ConfigError` here too.
    """
    table = config.get("compat", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{display_path(config_path)}: [compat] must be a table")
    cells: dict[tuple[str, str], Cell] = {}
    for vendor in VENDORS:
        vtable = table.get(vendor, {})
        if not isinstance(vtable, dict):
            raise ConfigError(f"{display_path(config_path)}: [compat.{vendor}] must be a table")
        for surface in SURFACES:
            name = env_var_name(vendor, surface)
            from_env = env_bool(env.get(name))
            if from_env is not None:
                cells[(vendor, surface)] = Cell(
                    vendor, surface, from_env, f"{name}={env.get(name)} in the environment"
                )
                continue
            if surface in vtable:
                value = vtable[surface]
                if not isinstance(value, bool):
                    raise ConfigError(
                        f"{display_path(config_path)}: [compat.{vendor}] {surface} must be"
                        f" true or false, not {value!r}"
                    )
                cells[(vendor, surface)] = Cell(
                    vendor,
                    surface,
                    value,
                    f"[compat.{vendor}] {surface} = {str(value).lower()} in {config_path}",
                )
                continue
            cells[(vendor, surface)] = Cell(vendor, surface, True, "default")
    return Compat(cells)
