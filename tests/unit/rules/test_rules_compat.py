"""[compat] cells: the agent's boolean parsing, env > TOML > default, and what cells imply."""

from __future__ import annotations

from pathlib import Path

import pytest
from rulestree import World, write

from rulelens.agents.compat import (
    BASE_FILENAMES,
    SURFACES,
    VENDORS,
    env_bool,
    env_var_name,
)
from rulelens.rules import AgentEnvironment, ConfigError


@pytest.mark.parametrize("raw", ["1", "true", "TRUE", " yes ", "On", "enabled", "\ttrue\n",
                                 "\u00a0true\u3000"])
def test_env_bool_true_spellings(raw: str) -> None:
    assert env_bool(raw) is True


@pytest.mark.parametrize("raw", ["0", "false", "No", " OFF", "disabled", "DISABLED\n"])
def test_env_bool_false_spellings(raw: str) -> None:
    assert env_bool(raw) is False


@pytest.mark.parametrize("raw", [None, "", "  ", "2", "y", "n", "t", "enable", "truee",
                                 "\x1ctrue"])
def test_env_bool_anything_else_is_unset(raw: str | None) -> None:
    # "\x1c" is not Unicode White_Space: Rust trim keeps it, so the value is not "true".
    assert env_bool(raw) is None


def test_env_var_names() -> None:
    assert env_var_name("claude", "rules") == "GROK_CLAUDE_RULES_ENABLED"
    assert env_var_name("cursor", "agents") == "GROK_CURSOR_AGENTS_ENABLED"
    assert env_var_name("codex", "sessions") == "GROK_CODEX_SESSIONS_ENABLED"


def test_eighteen_cells_default_on(world: World) -> None:
    compat = AgentEnvironment.from_env(world.env).compat
    assert len(compat.cells) == 18 == len(VENDORS) * len(SURFACES)
    assert all(c.enabled and c.origin == "default" for c in compat.cells.values())


def _config(world: World, text: str) -> Path:
    return write(world.home / ".grok" / "config.toml", text)


def test_toml_switches_a_cell_off(world: World) -> None:
    cfg = _config(world, "[compat.claude]\nrules = false\n")
    cell = AgentEnvironment.from_env(world.env).compat.cell("claude", "rules")
    assert cell.enabled is False
    assert "[compat.claude] rules = false" in cell.origin and str(cfg) in cell.origin
    assert AgentEnvironment.from_env(world.env).compat.enabled("claude", "agents")


def test_env_beats_toml(world: World) -> None:
    _config(world, "[compat.claude]\nrules = false\n")
    env = {**world.env, "GROK_CLAUDE_RULES_ENABLED": " Yes "}
    cell = AgentEnvironment.from_env(env).compat.cell("claude", "rules")
    assert cell.enabled is True
    assert "GROK_CLAUDE_RULES_ENABLED" in cell.origin and "environment" in cell.origin


def test_unparseable_env_falls_through_to_toml(world: World) -> None:
    _config(world, "[compat.cursor]\nrules = false\n")
    env = {**world.env, "GROK_CURSOR_RULES_ENABLED": "maybe"}
    cell = AgentEnvironment.from_env(env).compat.cell("cursor", "rules")
    assert cell.enabled is False and "config.toml" in cell.origin


def test_unparseable_env_falls_through_to_default(world: World) -> None:
    env = {**world.env, "GROK_CURSOR_RULES_ENABLED": ""}
    assert AgentEnvironment.from_env(env).compat.cell("cursor", "rules").origin == "default"


def test_env_switches_off_without_toml(world: World) -> None:
    env = {**world.env, "GROK_CLAUDE_AGENTS_ENABLED": "off"}
    compat = AgentEnvironment.from_env(env).compat
    assert compat.enabled("claude", "agents") is False


def test_config_read_from_grok_home_env(world: World) -> None:
    other = world.base / "elsewhere"
    write(other / "config.toml", "[compat.cursor]\nagents = false\n")
    _config(world, "[compat.cursor]\nagents = true\n")  # ~/.grok is not used when GROK_HOME is
    env = {**world.env, "GROK_HOME": str(other)}
    assert AgentEnvironment.from_env(env).compat.enabled("cursor", "agents") is False


def test_agent_filenames_order_and_claude_additions(world: World) -> None:
    compat = AgentEnvironment.from_env(world.env).compat
    assert BASE_FILENAMES == ("Agents.md", "Claude.md", "CLAUDE.md", "CLAUDE.local.md",
                              "AGENT.md", "AGENTS.md")
    assert compat.agent_filenames() == (*BASE_FILENAMES, ".claude/CLAUDE.md",
                                        ".claude/CLAUDE.local.md")
    off = AgentEnvironment.from_env({**world.env, "GROK_CLAUDE_AGENTS_ENABLED": "0"}).compat
    assert off.agent_filenames() == BASE_FILENAMES


def test_project_rules_dirs_follow_cells(world: World) -> None:
    def dirs(**env: str) -> tuple[str, ...]:
        return AgentEnvironment.from_env({**world.env, **env}).compat.project_rules_dirs()

    assert dirs() == (".grok/rules", ".claude/rules", ".cursor/rules")
    assert dirs(GROK_CLAUDE_RULES_ENABLED="false") == (".grok/rules", ".cursor/rules")
    assert dirs(GROK_CURSOR_RULES_ENABLED="false") == (".grok/rules", ".claude/rules")
    assert dirs(GROK_CLAUDE_RULES_ENABLED="no", GROK_CURSOR_RULES_ENABLED="no") == (
        ".grok/rules",)


@pytest.mark.parametrize("text, fragment", [
    ("[compat\nclaude = 1", "invalid TOML"),
    ("compat = 3\n", "[compat] must be a table"),
    ("[compat]\nclaude = 'no'\n", "[compat.claude] must be a table"),
    ("[compat.claude]\nrules = 'no'\n", "rules must be true or false"),
])
def test_malformed_config_is_a_config_error(world: World, text: str, fragment: str) -> None:
    _config(world, text)
    with pytest.raises(ConfigError) as info:
        AgentEnvironment.from_env(world.env)
    assert fragment in str(info.value) and "config.toml" in str(info.value)


def test_non_utf8_config_is_a_config_error(world: World) -> None:
    write(world.home / ".grok" / "config.toml", b"[compat]\n\xff\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        AgentEnvironment.from_env(world.env)


def test_config_directory_is_a_config_error(world: World) -> None:
    (world.home / ".grok" / "config.toml").mkdir(parents=True)
    with pytest.raises(ConfigError, match="is a directory"):
        AgentEnvironment.from_env(world.env)


def test_unrelated_config_sections_are_fine(world: World) -> None:
    _config(world, "[memory]\nenabled = true\n[compat.claude]\nskills = false\n")
    compat = AgentEnvironment.from_env(world.env).compat
    assert compat.enabled("claude", "rules") and not compat.enabled("claude", "skills")


def test_grok_home_default_is_canonical_home(world: World) -> None:
    link = world.base / "homelink"
    link.symlink_to(world.home)
    env = AgentEnvironment.from_env({**world.env, "HOME": str(link)})
    assert env.grok_home == str(world.home / ".grok")
    assert env.home == str(link)  # ~/.claude and ~/.cursor use $HOME as given


def test_grok_home_verbatim_and_empty_means_unset(world: World) -> None:
    raw = str(world.base / "gh" / ".." / "gh")
    assert AgentEnvironment.from_env({**world.env, "GROK_HOME": raw}).grok_home == raw
    assert AgentEnvironment.from_env({**world.env, "GROK_HOME": ""}).grok_home == str(
        world.home / ".grok")
