"""The profile rows are true, not only documentation (issue 21): for every agent in the
registry, every named file, rules directory and home root its rows name is found by the
agent's own discovery (``Agent.view``) on a real tree that has it — loaded, or listed as
not loaded with a reason. A row naming a file the module never looks at fails here."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from agenttree import env_for, git_init, write

from rulelens.agents.profiles import AgentProfile
from rulelens.agents.record import Agent, agent_home, home_of
from rulelens.agents.registry import AGENTS

#: File names a rules directory may hold, one of which each agent's format accepts.
RULE_NAMES = ("rule.md", "rule.mdc", "rule.instructions.md")
RULE_TEXT = "---\ndescription: a rule\n---\n# rule\n"

CASES = [(a, row) for a in AGENTS for row in a.profiles]
#: Only rows that claim a rules directory / a home root have something to check there.
RULES_CASES = [(a, row) for a, row in CASES if row.rules_dirs]
HOME_CASES = [(a, row) for a, row in CASES if row.home_roots]


def _env(home: Path, base: Path) -> dict[str, str]:
    """The default environment the rows describe: ``HOME`` only, and a ``PATH`` without
    helper programs (Cline asks ``xdg-user-dir`` for the Documents folder when it exists)."""
    empty = base / "bin"
    empty.mkdir(exist_ok=True)
    return {**env_for(home), "PATH": str(empty)}


def _found(a: Agent, row: AgentProfile, cwd: Path, file: Path, env: dict[str, str],
           paths: list[Path]) -> list[str]:
    """Which of ``paths`` the agent's view names (as loaded or as not loaded)."""
    view = a.view(str(cwd), str(file), env) if not a.engine else _engine_view(row, cwd, file,
                                                                              env)
    return [str(p) for p in paths if view.find(str(p)) is not None]


def _engine_view(row: AgentProfile, cwd: Path, file: Path, env: dict[str, str]):  # type: ignore[no-untyped-def]
    from rulelens.rules.perfile import grok_discover

    return grok_discover(str(cwd), str(file), env, row.id)


@pytest.mark.parametrize(("agent", "row"), CASES, ids=[row.id for _, row in CASES])
def test_every_named_file_in_the_row_is_found(agent: Agent, row: AgentProfile, base: Path,
                                              home: Path) -> None:
    repo = git_init(base / "repo")
    file = write(repo / "src" / "app.py")
    named = [write(repo / n.name, "# named\n") for n in row.named_files]
    env = _env(home, base)
    missing = []
    for path in named:  # one at a time: a sibling may shadow it (Codex's override)
        for other in named:
            if other != path and other.exists():
                other.unlink()
        write(path, "# named\n")
        if not _found(agent, row, repo, file, env, [path]):
            missing.append(str(path.relative_to(repo)))
    assert missing == [], f"{row.id} names files its module never looks at"


@pytest.mark.parametrize(("agent", "row"), RULES_CASES, ids=[r.id for _, r in RULES_CASES])
def test_every_rules_directory_in_the_row_is_found(agent: Agent, row: AgentProfile,
                                                   base: Path, home: Path) -> None:
    repo = git_init(base / "repo")
    file = write(repo / "src" / "app.py")
    env = _env(home, base)
    missing = []
    for d in row.rules_dirs:
        candidates = [write(repo / d.path / n, RULE_TEXT) for n in RULE_NAMES]
        if not _found(agent, row, repo, file, env, candidates):
            missing.append(d.path)
    assert missing == [], f"{row.id} names rules directories its module never reads"


@pytest.mark.parametrize(("agent", "row"), HOME_CASES, ids=[r.id for _, r in HOME_CASES])
def test_every_home_root_in_the_row_is_found(agent: Agent, row: AgentProfile, base: Path,
                                             home: Path) -> None:
    repo = git_init(base / "repo")
    file = write(repo / "src" / "app.py")
    env = _env(home, base)
    missing = []
    for h in row.home_roots:
        root = Path(agent_home(row, env) if h.base == "agent-home" else home_of(env))
        root = root / h.path if h.path else root
        paths = []
        if h.named:
            names = h.names if h.names is not None else [n.name for n in row.named_files]
            paths += [write(root / n, "# home\n") for n in names]
        if h.rules_dir:
            paths += [write(root / h.rules_dir / n, RULE_TEXT) for n in RULE_NAMES]
        if paths and not _found(agent, row, repo, file, env, paths):
            missing.append(str(root.relative_to(home)))
        # The record watches this root (or, for a rules-only root, its rules directory):
        # an edit there must reach the views.
        watched = agent.home_dirs(env)
        assert str(root) in watched or (
            not h.named and str(root / (h.rules_dir or "")) in watched), (row.id, str(root))
    assert missing == [], f"{row.id} names home roots its module never reads"


def test_the_check_catches_a_false_row(base: Path, home: Path) -> None:
    """A row naming a file its module does not read is caught (the check can fail)."""
    from rulelens.agents import claude
    from rulelens.agents.profiles import NamedFile, RulesDir

    false_row = replace(claude.PROFILE, named_files=(NamedFile("NOT_READ.md"),),
                        rules_dirs=(RulesDir(".nobody/rules"),))
    repo = git_init(base / "repo")
    file = write(repo / "src" / "app.py")
    planted = [write(repo / "NOT_READ.md"), write(repo / ".nobody/rules/rule.md", RULE_TEXT)]
    assert _found(claude.AGENT, false_row, repo, file, _env(home, base), planted) == []
