"""Continue (CT-F1..CT-F2) and Aider (AD-F1..AD-F2) profiles, per their docs
(agent-profiles-more.md §8-§9): one test per fact on a real tree with a fake HOME."""

from __future__ import annotations

from pathlib import Path

from agenttree import entry, env_for, git_init, loaded, skipped, write

from rulelens.agents import aider, continue_
from rulelens.agents.view import AgentView


def _continue(ws: Path, home: Path, file: Path | None = None) -> AgentView:
    return continue_.view(str(ws), str(file) if file else None, env_for(home))


def _aider(cwd: Path, home: Path, **env: str) -> AgentView:
    return aider.view(str(cwd), None, env_for(home, **env))


def test_ct_f1_local_rules_then_global_rules(base: Path, home: Path) -> None:
    """CT-F1: local .continue/rules, then global ~/.continue/rules; Hub and ``uses:`` rules
    are named in a note; AGENTS.md is not a Continue rule."""
    ws = base / "ws"
    local = write(ws / ".continue" / "rules" / "a.md", "local")
    glob_rule = write(home / ".continue" / "rules" / "g.md", "global")
    agents = write(ws / "AGENTS.md", "agents")
    v = _continue(ws, home)
    assert loaded(v) == [str(local), str(glob_rule)]
    assert entry(v, glob_rule).role == "home" and skipped(v, agents).reason == "not-read"
    assert any("Hub" in n for n in v.notes) and "per Continue docs" in v.basis_label


def test_ct_f2_always_apply_tri_state(base: Path, home: Path) -> None:
    """CT-F2: true = always (globs ignored); false = on glob match, else the agent may pick
    it; absent = always without globs, on match with globs, else not at all."""
    ws = base / "ws"
    r = ws / ".continue" / "rules"
    always = write(r / "always.md", "---\nalwaysApply: true\nglobs: \"docs/**\"\n---\nA")
    false_hit = write(r / "fh.md", "---\nalwaysApply: false\nglobs: \"src/**/*.ts\"\n---\nB")
    false_miss = write(r / "fm.md", "---\nalwaysApply: false\nglobs: \"docs/**\"\n"
                       "description: Docs style\n---\nC")
    plain = write(r / "plain.md", "D")
    globbed = write(r / "globbed.md", "---\nglobs: [\"src/**\"]\n---\nE")
    missed = write(r / "missed.md", "---\nglobs: \"*.py\"\n---\nF")
    v = _continue(ws, home, write(ws / "src" / "app" / "x.ts", "import a from 'a';\n"))
    assert entry(v, always).when == "start" and "globs are ignored" in entry(v, always).why
    assert entry(v, false_hit).when == "on-read"
    assert entry(v, false_miss).when == "may" and "Docs style" in entry(v, false_miss).why
    assert entry(v, plain).when == "start" and entry(v, globbed).when == "on-read"
    assert skipped(v, missed).reason == "globs-no-match"


def test_ct_f2_regex_matches_file_text(base: Path, home: Path) -> None:
    """CT-F2: ``regex`` is matched against the file's text (with globs, both must match)."""
    ws = base / "ws"
    rx = write(ws / ".continue" / "rules" / "rx.md", "---\nregex: \"^import .* from\"\n---\nR")
    both = write(ws / ".continue" / "rules" / "both.md",
                 "---\nglobs: \"**/*.ts\"\nregex: \"useEffect\"\n---\nS")
    alt = write(ws / ".continue" / "rules" / "alt.md",
                "---\nregex: [\"useEffect|useState\"]\n---\nT")
    v = _continue(ws, home, write(ws / "a.ts", "import x from 'y'\nuseState(1)\n"))
    assert entry(v, rx).when == "on-read"
    assert skipped(v, both).reason == "globs-no-match"
    assert entry(v, alt).when == "on-read" and "useEffect|useState" in entry(v, alt).why


def test_ad_f1_nothing_loads_unless_read_names_it(base: Path, home: Path) -> None:
    """AD-F1: CONVENTIONS.md and AGENTS.md are plain files until ``read:`` names them
    (a string or a list)."""
    repo = git_init(base / "repo")
    conv = write(repo / "CONVENTIONS.md", "conv")
    agents = write(repo / "AGENTS.md", "agents")
    v = _aider(repo, home)
    assert loaded(v) == [] and skipped(v, conv).reason == skipped(v, agents).reason == \
        "not-named"
    write(repo / ".aider.conf.yml", "read: CONVENTIONS.md\n")
    assert loaded(_aider(repo, home)) == [str(conv)]
    write(repo / ".aider.conf.yml", "read:\n  - CONVENTIONS.md\n  - AGENTS.md\n")
    v = _aider(repo, home)
    assert loaded(v, "start") == [str(conv), str(agents)]
    assert "read-only" in entry(v, agents).why


def test_ad_f2_config_search_order_later_wins(base: Path, home: Path) -> None:
    """AD-F2: home, git root, start directory, in that order, later wins; AIDER_CONFIG
    (``--config``) loads only the named file."""
    repo = git_init(base / "repo")
    cwd = repo / "pkg"
    for name in ("HOME.md", "ROOT.md", "CWD.md"):
        write((home if name == "HOME.md" else repo if name == "ROOT.md" else cwd) / name, name)
    write(home / ".aider.conf.yml", f"read: {home / 'HOME.md'}\n")
    assert loaded(_aider(cwd, home)) == [str(home / "HOME.md")]
    write(repo / ".aider.conf.yml", f"read: {repo / 'ROOT.md'}\n")
    assert loaded(_aider(cwd, home)) == [str(repo / "ROOT.md")]
    write(cwd / ".aider.conf.yml", "read: [CWD.md]\n")
    v = _aider(cwd, home)
    assert loaded(v) == [str(cwd / "CWD.md")] and any("later wins" in n for n in v.notes)
    forced = write(base / "only.yml", f"read: {home / 'HOME.md'}\n")
    assert loaded(_aider(cwd, home, AIDER_CONFIG=str(forced))) == [str(home / "HOME.md")]


def test_ct_f2_regex_cannot_hang_the_view(base: Path, home: Path) -> None:
    """A backtracking-prone ``regex`` (``(a+)+$``) over a long line answers at once (the
    linear matcher); ``^`` is the start of the text, as in a JS RegExp without flags."""
    import time

    ws = base / "ws"
    evil = write(ws / ".continue" / "rules" / "evil.md", "---\nregex: \"(a+)+$\"\n---\nE")
    anchored = write(ws / ".continue" / "rules" / "anchored.md", "---\nregex: \"^b\"\n---\nB")
    target = write(ws / "a.txt", "a" * 5000 + "!\nb\n")
    started = time.monotonic()
    v = _continue(ws, home, target)
    assert time.monotonic() - started < 5
    assert skipped(v, evil).reason == "globs-no-match"
    assert skipped(v, anchored).reason == "globs-no-match"
