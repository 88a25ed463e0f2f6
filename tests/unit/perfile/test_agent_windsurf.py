"""Windsurf profile (per Windsurf docs): one test per fact of agent-profiles-more.md §4."""

from __future__ import annotations

from pathlib import Path

from agenttree import entry, env_for, git_init, loaded, skipped, write

from rulelens.agents import windsurf
from rulelens.agents.view import AgentView, check_consistent
from rulelens.multichain import view_json
from rulelens.rules.perfile import with_source


def _view(base: Path, home: Path, file: Path | None = None, cwd: Path | None = None) -> AgentView:
    v = windsurf.view(str(cwd or base), str(file) if file else None, env_for(home))
    check_consistent(v)
    return v


def test_ws_f1_agents_md_root_always_on_subdirectory_glob(base: Path, home: Path) -> None:
    """WS-F1: root AGENTS.md is always on; a subdirectory's is a ``<dir>/**`` glob rule,
    applied only for files below it."""
    write(base / "AGENTS.md", "root")
    write(base / "web" / "AGENTS.md", "web")
    write(base / "api" / "AGENTS.md", "api")
    target = write(base / "web" / "src" / "App.tsx", "")
    v = _view(base, home, target)
    assert entry(v, base / "AGENTS.md").when == "start"
    web = entry(v, base / "web" / "AGENTS.md")
    assert web.when == "on-read" and "web/**" in web.why and "per Windsurf docs" in web.why
    assert v.find(str(base / "api" / "AGENTS.md")) is None
    lower = base / "pkg"
    write(lower / "agents.md", "lower")
    assert entry(_view(lower, home), lower / "agents.md").when == "start"


def test_ws_f2_four_triggers(base: Path, home: Path) -> None:
    """WS-F2: always_on → start, glob → on-read when its globs match, model_decision → may,
    manual → only when @-mentioned."""
    rules = base / ".windsurf" / "rules"
    write(rules / "always.md", "---\ntrigger: always_on\n---\nAlways.")
    write(rules / "ts.md", "---\ntrigger: glob\nglobs: \"**/*.ts\"\n---\nTS.")
    write(rules / "py.md", "---\ntrigger: glob\nglobs: [\"*.py\"]\n---\nPY.")
    write(rules / "db.md", "---\ntrigger: model_decision\ndescription: Migrations\n---\nDB.")
    write(rules / "manual.md", "---\ntrigger: manual\n---\nM.")
    target = write(base / "src" / "app.ts", "")
    v = _view(base, home, target)
    assert entry(v, rules / "always.md").when == "start"
    ts = entry(v, rules / "ts.md")
    assert ts.when == "on-read" and ts.content == "TS." and "**/*.ts" in ts.why
    assert skipped(v, rules / "py.md").reason == "globs-no-match"
    assert entry(v, rules / "db.md").when == "may"
    m = skipped(v, rules / "manual.md")
    assert m.reason == "manual" and "@manual" in m.detail
    assert v.basis == "docs" and v.rendered is None


def test_ws_f2_missing_trigger_is_not_counted_as_applied(base: Path, home: Path) -> None:
    """WS-F2: the docs define four triggers and no default; a rule without one (or with a
    misspelt one) is not shown as loaded, and says why."""
    rules = base / ".windsurf" / "rules"
    write(rules / "none.md", "No frontmatter.")
    write(rules / "typo.md", "---\ntrigger: always\n---\nx")
    v = _view(base, home)
    assert skipped(v, rules / "none.md").reason == "no-trigger"
    assert "'always' is not one of" in skipped(v, rules / "typo.md").detail


def test_ws_f2_devin_rules_and_parent_directories_up_to_git_root(base: Path, home: Path) -> None:
    """WS-F2: ``.devin/rules`` too, and rules in parent directories up to the git root (not
    above it)."""
    git_init(base / "repo")
    write(base / ".windsurf/rules/above.md", "---\ntrigger: always_on\n---\nabove")
    write(base / "repo/.windsurf/rules/root.md", "---\ntrigger: always_on\n---\nroot")
    write(base / "repo/pkg/.devin/rules/devin.md", "---\ntrigger: always_on\n---\ndevin")
    cwd = base / "repo" / "pkg"
    v = _view(base, home, cwd=cwd)
    assert loaded(v, "start") == [str(base / "repo/.windsurf/rules/root.md"),
                                  str(cwd / ".devin/rules/devin.md")]
    assert v.find(str(base / ".windsurf/rules/above.md")) is None
    assert "from ../" in entry(v, base / "repo/.windsurf/rules/root.md").why


def test_ws_f2_rules_in_subdirectories_and_wrong_extension(base: Path, home: Path) -> None:
    """WS-F2: a subdirectory's ``.windsurf/rules`` on the way to the file is discovered; its
    globs are tried against the workspace and then its own folder (base undocumented)."""
    write(base / "web/.windsurf/rules/tsx.md", "---\ntrigger: glob\nglobs: src/*.tsx\n---\nt")
    write(base / ".windsurf/rules/notes.txt", "not a rule")
    target = write(base / "web/src/App.tsx", "")
    v = _view(base, home, target)
    tsx = entry(v, base / "web/.windsurf/rules/tsx.md")
    assert tsx.when == "on-read" and "not documented" in tsx.why
    assert skipped(v, base / ".windsurf/rules/notes.txt").reason == "wrong-extension"


def test_ws_f2_global_rules_and_character_limits(base: Path, home: Path) -> None:
    """WS-F2: ``global_rules.md`` is always on; over 12,000 characters (6,000 for the global
    file) a note says so."""
    g = write(home / ".codeium/windsurf/memories/global_rules.md", "g" * 6001)
    write(base / ".windsurf/rules/big.md", "---\ntrigger: always_on\n---\n" + "x" * 12_001)
    v = _view(base, home)
    ge = entry(v, g)
    assert ge.when == "start" and ge.role == "home"
    assert any("6,000" in n for n in v.notes)
    assert any("12,000" in n and "big.md" in n for n in v.notes)


def test_ws_f2_glob_without_globs(base: Path, home: Path) -> None:
    """WS-F2: a glob trigger with no patterns matches nothing."""
    write(base / ".windsurf/rules/empty.md", "---\ntrigger: glob\n---\nx")
    assert skipped(_view(base, home, write(base / "a.py")),
                   base / ".windsurf/rules/empty.md").reason == "no-globs"


def test_ws_f3_memories_are_not_modelled(base: Path, home: Path) -> None:
    """WS-F3: auto-generated memories are per workspace and not shown; the view says so."""
    assert any("memories" in n for n in _view(base, home).notes)


def test_legacy_windsurfrules_is_shown_with_its_caveat(base: Path, home: Path) -> None:
    """Not a research fact: the legacy root file of older builds, which Cline (CL-F11) and
    Zed (ZD-F1) read as Windsurf's; the current docs no longer mention it, and the line says
    so."""
    write(base / ".windsurfrules", "legacy")
    e = entry(_view(base, home), base / ".windsurfrules")
    assert e.when == "start" and "do not say it stopped being read" in e.why


def test_every_windsurf_line_is_docs_with_its_page(base: Path, home: Path) -> None:
    """Closed source: every line is ``docs``; AGENTS.md lines cite the agents-md page (WS-F1),
    rule lines the memories page (WS-F2)."""
    write(base / "AGENTS.md", "a")
    write(base / ".windsurf/rules/m.md", "---\ntrigger: manual\n---\nm")
    out = view_json(with_source(_view(base, home)))
    lines = {e["path"]: e for e in [*out["files"], *out["skipped"]]}
    assert {e["evidence"] for e in lines.values()} == {"docs"}
    assert "cascade/agents-md" in lines[str(base / "AGENTS.md")]["evidence_source"]
    assert "cascade/memories" in lines[str(base / ".windsurf/rules/m.md")]["evidence_source"]
