"""Cursor profile (per Cursor docs): one test per numbered fact of agent-profiles.md §4."""

from __future__ import annotations

from pathlib import Path

from agenttree import entry, env_for, loaded, skipped, write

from rulelens.agents import cursor
from rulelens.agents.view import AgentView


def _view(base: Path, home: Path, file: Path | None = None) -> AgentView:
    return cursor.view(str(base), str(file) if file else None, env_for(home))


def test_fact_5_four_rule_types(base: Path, home: Path) -> None:
    """Fact 5: Always, Auto Attached (globs), Agent Requested (description), Manual."""
    rules = base / ".cursor" / "rules"
    write(rules / "always.mdc", "---\nalwaysApply: true\n---\nAlways.")
    write(rules / "ts.mdc", "---\nglobs: **/*.ts\n---\nTS.")
    write(rules / "py.mdc", "---\nglobs: \"*.py, src/**/*.py\"\n---\nPY.")
    write(rules / "agent.mdc", "---\ndescription: Database migrations\n---\nDB.")
    write(rules / "manual.mdc", "---\n---\nManual.")
    target = write(base / "src" / "app.ts", "")
    v = _view(base, home, target)
    assert entry(v, rules / "always.mdc").when == "start"
    ts = entry(v, rules / "ts.mdc")
    assert ts.when == "on-read" and "globs: **/*.ts" in ts.why and ts.content == "TS."
    assert entry(v, rules / "agent.mdc").when == "may"
    assert skipped(v, rules / "py.mdc").reason == "globs-no-match"
    assert skipped(v, rules / "manual.mdc").reason == "manual"
    assert "per Cursor docs" in v.basis_label and "per Cursor docs" in ts.why


def test_fact_4_always_apply_string_is_not_true(base: Path, home: Path) -> None:
    """Fact 4: ``alwaysApply: "true"`` (a string) is not true."""
    write(base / ".cursor/rules/q.mdc", "---\nalwaysApply: \"true\"\n---\nq")
    s = skipped(_view(base, home), base / ".cursor/rules/q.mdc")
    assert s.reason == "manual" and "string" in s.detail


def test_fact_2_plain_md_is_ignored(base: Path, home: Path) -> None:
    """Fact 2: a plain ``.md`` in ``.cursor/rules`` is ignored by current Cursor."""
    write(base / ".cursor/rules/old.md", "---\nalwaysApply: true\n---\n")
    assert skipped(_view(base, home), base / ".cursor/rules/old.md").reason == "wrong-extension"


def test_fact_3_6_nested_rules_scoped_to_their_folder(base: Path, home: Path) -> None:
    """Facts 3 and 6: a nested ``.cursor/rules`` applies to files below its folder; a glob
    that matches only relative to that folder says the base is unconfirmed."""
    write(base / "web/.cursor/rules/always.mdc", "---\nalwaysApply: true\n---\nweb")
    write(base / "web/.cursor/rules/tsx.mdc", "---\nglobs: src/*.tsx\n---\ntsx")
    target = write(base / "web/src/App.tsx", "")
    v = _view(base, home, target)
    assert entry(v, base / "web/.cursor/rules/always.mdc").when == "on-read"
    assert "unconfirmed" in entry(v, base / "web/.cursor/rules/tsx.mdc").why
    assert loaded(_view(base, home, write(base / "api" / "x.py", ""))) == []


def test_facts_7_8_agents_md_and_legacy_cursorrules(base: Path, home: Path) -> None:
    """Facts 7-8: root AGENTS.md and ``.cursorrules`` load at start; CLAUDE.md does not."""
    write(base / "AGENTS.md", "a")
    write(base / ".cursorrules", "legacy")
    write(base / "CLAUDE.md", "c")
    v = _view(base, home)
    assert loaded(v, "start") == [str(base / "AGENTS.md"), str(base / ".cursorrules")]
    assert skipped(v, base / "CLAUDE.md").reason == "not-read"


def test_facts_1_10_user_rules_are_not_files_and_the_frame_is_unknown(base: Path,
                                                                      home: Path) -> None:
    """Fact 1: User and Team rules live in settings (said, not shown); fact 10: the framing
    is unconfirmed, so there is no rendered text."""
    write(base / "AGENTS.md", "a")
    v = _view(base, home)
    assert any("User and Team rules" in n for n in v.notes)
    assert v.rendered is None and v.basis == "docs"


def test_fact_9_tab_and_inline_edit_use_no_rules(base: Path, home: Path) -> None:
    """Fact 9 (third-party guide): rules are not used by Tab or inline edit. RuleLens cannot
    observe Tab; the view says so, naming the source as third-party, not Cursor's docs."""
    write(base / ".cursor" / "rules" / "a.mdc", "---\nalwaysApply: true\n---\nalways")
    v = _view(base, home, base / "x.ts")
    assert ("Rules are not used by Tab completion or inline edit (per a third-party Cursor"
            " guide, hktitan/cursor-sdk): this view is for Agent and Chat.") in v.notes
    assert "per Cursor docs" not in cursor.TAB_NOTE
