"""Guard rails for the one list of agents (issue 21): agent ids appear only in the profile
rows, the registry and the agents' own modules; every profile row belongs to one record;
every list the product shows (CLI help, package.json, Neovim) is derived from the tuple;
importing the registry never loads Grok's engine."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import rulelens
from rulelens.agents import registry
from rulelens.agents.profiles import PROFILES

PACKAGE = Path(rulelens.__file__).parent
ROOT = PACKAGE.parents[1]

#: Files where an id may appear as an id: the rows, the registry, the record type.
HOME_OF_IDS = {"agents/registry.py", "agents/profiles.py", "agents/record.py"}

#: Known uses of an id string outside those files, each with why it is not a list of
#: agents. A use not listed here fails the test; an entry no longer used fails it too.
EXCEPTIONS: dict[str, dict[str, str]] = {
    "agents/compat.py": dict.fromkeys(("cursor", "claude", "codex"),
                                      "Grok's own `[compat.<vendor>]` config table names"),
    "rules/inspect.py": dict.fromkeys(("claude", "cursor"),
                                      "Grok's compat vendors, as `grok inspect` names them"),
    "agents/trust.py": {"claude": "a Grok trust-check item (`.claude/settings*.json`)"},
    "rules/model.py": {"grok": "the Grok engine's default profile id (rules/ is Grok's)"},
    "memory/search.py": {"continue": "an English greeting, not the agent"},
    # Per-feature tables of other issues, keyed by agent id (not lists of agents to show):
    "memory/agentmemory.py": dict.fromkeys(
        ("grok", "claude", "codex", "gemini", "qwen"),
        "memory stores keyed by agent (issue 24); their own table of which agents keep memory"),
    "memory/agentfiles.py": dict.fromkeys(
        ("grok", "claude", "codex", "gemini", "qwen"),
        "per-agent memory file formats (issue 24)"),
    "agents/sessionfacts.py": dict.fromkeys(
        ("grok", "claude", "codex", "gemini", "cursor", "copilot", "boost"),
        "session facts per agent (verify); keys checked against the registry below"),
    "lsp/sessionwatch.py": dict.fromkeys(
        ("grok", "claude", "codex", "gemini"),
        "where each agent's session files are, for the verify watch (would fit sessions/<id>)"),
    "memory/agent_transcripts.py": dict.fromkeys(
        ("claude", "codex"), "the transcript index per agent whose session format it reads"),
    "memory/transcripts.py": {"grok": "Grok's transcript index names the agent of its hits"},
    "sessions/verify.py": dict.fromkeys(("claude", "codex"),
                                        "session-format specifics of verify"),
    "lsp/protocol.py": dict.fromkeys(("grok", "claude", "codex", "gemini", "qwen"),
                                     "the memory requests' `agent` parameter description"),
}


def _agent_module(rel: str) -> str | None:
    """``claude`` for ``agents/claude.py`` or ``sessions/claude.py`` (``continue_.py``
    counts as ``continue``): an agent's own module may name its id."""
    m = re.fullmatch(r"(?:agents|sessions)/(\w+?)_?\.py", rel)
    return m.group(1) if m and m.group(1) in registry.BY_ID else None


def id_pattern() -> re.Pattern[str]:
    """A quoted agent id, with or without ``@version``."""
    ids = "|".join(map(re.escape, sorted(registry.ORDER, key=len, reverse=True)))
    return re.compile(r"""(["'])(""" + ids + r""")(?:@[^"'\s]*)?\1""")


def id_uses() -> dict[str, set[str]]:
    """Every quoted agent id (``"claude"``, ``'grok@1.0.6'``) per file under rulelens/."""
    pattern = id_pattern()
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for m in pattern.finditer(path.read_text(encoding="utf-8")):
            found.setdefault(rel, set()).add(m.group(2))
    return found


def test_agent_ids_appear_only_in_rows_registry_and_agent_modules() -> None:
    offending: dict[str, list[str]] = {}
    used_exceptions: set[tuple[str, str]] = set()
    for rel, ids in id_uses().items():
        if rel in HOME_OF_IDS:
            continue
        own = _agent_module(rel)
        for agent_id in sorted(ids):
            if agent_id == own:
                continue
            if agent_id in EXCEPTIONS.get(rel, {}):
                used_exceptions.add((rel, agent_id))
                continue
            offending.setdefault(rel, []).append(agent_id)
    assert offending == {}, (
        "agent ids outside the registry: derive them from rulelens.agents.registry")
    stale = {(rel, a) for rel, ids in EXCEPTIONS.items() for a in ids} - used_exceptions
    assert stale == set(), "exceptions no longer needed: remove them"


def test_the_id_scan_sees_a_planted_list(tmp_path: Path) -> None:
    """The scan itself works: a hand-kept list in a new module is found."""
    pattern = id_pattern()
    planted = 'AGENTS = ("grok", "claude@2.1", \'codex\')\nTEXT = "grokking cursors"\n'
    assert {m.group(2) for m in pattern.finditer(planted)} == {"grok", "claude", "codex"}
    assert _agent_module("agents/continue_.py") == "continue"
    assert _agent_module("agents/registry.py") is None


def test_tables_keyed_by_agent_name_only_registry_agents() -> None:
    """The per-feature tables allowed above cannot introduce an agent the registry lacks."""
    from rulelens.agents.sessionfacts import SESSIONS

    assert set(SESSIONS) <= set(registry.ORDER)


def test_every_profile_row_belongs_to_exactly_one_record() -> None:
    owners = [row.id for a in registry.AGENTS for row in a.profiles]
    assert sorted(owners) == sorted(p.id for p in PROFILES)
    for a in registry.AGENTS:
        assert {row.agent for row in a.profiles} == {a.id}
        assert a.display == a.profile.display
        assert a.evidence in ("code", "docs") and a.source, a.id


def test_every_list_is_derived_from_the_tuple() -> None:
    ids = tuple(a.id for a in registry.AGENTS)
    assert ids == registry.ORDER
    assert len(set(ids)) == len(ids)
    assert tuple(registry.DISPLAY) == ids and tuple(registry.SHORT) == ids
    assert set(registry.DISCOVERY) == {a.id for a in registry.AGENTS if not a.engine}
    assert [a.id for a in registry.AGENTS if a.engine] == [registry.DEFAULT_AGENT]


def test_cli_agent_help_names_every_agent() -> None:
    out = subprocess.run([sys.executable, "-m", "rulelens", "chain", "--help"],
                         capture_output=True, text=True, check=True).stdout
    flat = " ".join(out.split())
    assert registry.choices() in flat


def test_package_json_enum_matches_the_registry() -> None:
    """VS Code needs a static enum for settings completion; it must equal the registry."""
    manifest = json.loads((ROOT / "vscode-client" / "package.json").read_text("utf-8"))
    setting = manifest["contributes"]["configuration"]["properties"]["rulelens.agents"]
    assert setting["items"]["enum"] == list(registry.ORDER)
    for agent_id in registry.ORDER:
        assert f"`{agent_id}`" in setting["markdownDescription"]


def test_neovim_sidebar_keeps_no_agent_list() -> None:
    """The sidebar asks the server (``rulelens/agents``) instead of listing ids."""
    lua = (ROOT / "nvim" / "lua" / "rulelens" / "sidebar.lua").read_text("utf-8")
    assert "rulelens/agents" in lua
    listed = [a for a in registry.ORDER if re.search("[\"']" + re.escape(a) + "[\"']", lua)]
    assert listed == []


def test_importing_the_registry_does_not_load_grok_engine() -> None:
    """The arrow rule at run time: Grok's record reaches ``rulelens.rules`` only when its
    view is asked for."""
    code = ("import sys, rulelens.agents.registry as r\n"
            "assert not [m for m in sys.modules if m.startswith('rulelens.rules')], 'early'\n"
            "import os, tempfile\n"
            "d = tempfile.mkdtemp()\n"
            "v = r.BY_ID['grok'].view(d, None, {'HOME': d})\n"
            "assert 'rulelens.rules.perfile' in sys.modules\n"
            "print(v.agent)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith("grok@")
