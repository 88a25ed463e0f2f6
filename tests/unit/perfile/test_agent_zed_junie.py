"""Zed (agent-profiles-more.md §6, code + docs) and JetBrains Junie (§7, docs): one test per
fact, on real trees."""

from __future__ import annotations

from pathlib import Path

from agenttree import entry, env_for, loaded, skipped, write

from rulelens.agents import junie, zed
from rulelens.agents.view import AgentView, check_consistent
from rulelens.multichain import view_json
from rulelens.rules.perfile import with_source


def _zed(base: Path, home: Path, file: Path | None = None) -> AgentView:
    v = zed.view(str(base), str(file) if file else None, env_for(home))
    check_consistent(v)
    return v


def _junie(base: Path, home: Path, file: Path | None = None) -> AgentView:
    v = junie.view(str(base), str(file) if file else None, env_for(home))
    check_consistent(v)
    return v


ZD_ORDER = [".rules", ".cursorrules", ".windsurfrules", ".clinerules",
            ".github/copilot-instructions.md", "AGENT.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"]


def test_zd_f1_first_match_wins_in_the_documented_order(base: Path, home: Path) -> None:
    """ZD-F1: of the nine names, the first that exists at the worktree root is the one
    rules file; removing it promotes the next, in the docs' order."""
    for name in ZD_ORDER:
        write(base / name, f"{name}\n")
    for i, name in enumerate(ZD_ORDER):
        v = _zed(base, home)
        assert loaded(v) == [str(base / name)], name
        assert entry(v, base / name).content == name  # trimmed
        for later in ZD_ORDER[i + 1:]:
            assert skipped(v, base / later).reason == "shadowed"
        (base / name).unlink()
    assert loaded(_zed(base, home)) == []


def test_zd_f1_the_contested_order_is_graded_docs(base: Path, home: Path) -> None:
    """ZD-F1: AGENT.md before CLAUDE.md is the docs' order (older code had CLAUDE.md first):
    the skip says its grade; a decision the code fixes says code."""
    write(base / "AGENT.md", "a")
    write(base / "CLAUDE.md", "c")
    write(base / "GEMINI.md", "g")
    v = _zed(base, home)
    assert "per Zed docs" in skipped(v, base / "CLAUDE.md").detail
    assert "from Zed's code" in skipped(v, base / "GEMINI.md").detail


def test_zd_f1_no_nesting_and_no_frontmatter(base: Path, home: Path) -> None:
    """ZD-F1: subdirectories are not read; frontmatter is not interpreted (text as is)."""
    write(base / "AGENTS.md", "---\nglobs: '*.py'\n---\nroot")
    write(base / "pkg" / "AGENTS.md", "nested")
    target = write(base / "pkg" / "mod.py", "")
    v = _zed(base, home, target)
    assert entry(v, base / "AGENTS.md").content.startswith("---\nglobs")
    assert skipped(v, base / "pkg" / "AGENTS.md").reason == "below-root"


def test_zd_f1_personal_agents_md_and_rules_library_note(base: Path, home: Path) -> None:
    """ZD-F1 (docs, v1.4.0+): ``~/.config/zed/AGENTS.md`` in every conversation, before the
    project rules; the Rules Library is not modelled (said in a note)."""
    p = write(home / ".config" / "zed" / "AGENTS.md", "personal")
    write(base / ".rules", "project")
    v = _zed(base, home)
    assert loaded(v, "start") == [str(p), str(base / ".rules")]
    assert entry(v, p).role == "home"
    assert any("Rules Library" in n for n in v.notes)


def test_ju_f1_guidelines_file_at_the_project_root(base: Path, home: Path) -> None:
    """JU-F1: ``.junie/guidelines.md`` at the project root is always given to Junie; one file
    per project, nothing below the root; the Guidelines path setting is named in a note."""
    g = write(base / ".junie" / "guidelines.md", "guide")
    write(base / "sub" / ".junie" / "guidelines.md", "nested")
    v = _junie(base, home, write(base / "sub" / "x.kt"))
    assert loaded(v, "start") == [str(g)]
    assert skipped(v, base / "sub" / ".junie" / "guidelines.md").reason == "below-root"
    assert any("Guidelines path" in n for n in v.notes)
    assert "per JetBrains Junie docs" in entry(v, g).why


def test_ju_f1_agents_md_in_newer_builds(base: Path, home: Path) -> None:
    """JU-F1: newer builds accept AGENTS.md; with both present the documented default
    (guidelines) is shown and the unsettled precedence is said."""
    write(base / "AGENTS.md", "agents")
    assert loaded(_junie(base, home)) == [str(base / "AGENTS.md")]
    write(base / ".junie" / "guidelines.md", "guide")
    v = _junie(base, home)
    s = skipped(v, base / "AGENTS.md")
    assert s.reason == "one-file" and "not stated firmly" in s.detail


def _lines(v: AgentView) -> dict[str, dict[str, object]]:
    out = view_json(with_source(v))
    return {e["path"]: e for e in [*out["files"], *out["skipped"]]}


def test_zd_f1_each_line_says_code_or_docs(base: Path, home: Path) -> None:
    """ZD-F1 graded per line: what the code fixes (first regular file, shadowing by an
    uncontested name, root only) is ``code`` at @0023f768; the personal file and the
    AGENT.md-before-CLAUDE.md order are ``docs`` (@00111873)."""
    p = write(home / ".config/zed/AGENTS.md", "personal")
    write(base / "AGENT.md", "a")
    write(base / "CLAUDE.md", "c")
    write(base / "GEMINI.md", "g")
    lines = _lines(_zed(base, home))
    assert lines[str(p)]["evidence"] == "docs"
    assert lines[str(base / "AGENT.md")]["evidence"] == "docs"
    assert lines[str(base / "CLAUDE.md")]["evidence"] == "docs"
    gem = lines[str(base / "GEMINI.md")]
    assert gem["evidence"] == "code" and "0023f768" in str(gem["evidence_source"])
    (base / "AGENT.md").unlink()
    (base / "CLAUDE.md").unlink()
    write(base / ".rules", "r")
    lines = _lines(_zed(base, home))
    assert lines[str(base / ".rules")]["evidence"] == "code"
