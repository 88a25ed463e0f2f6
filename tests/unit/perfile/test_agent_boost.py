"""Laravel Boost profile: one test per numbered fact of agent-profiles.md §6, including
the cases of Boost's own ``RuleToolsTest.php``/``ManagedRulesTest.php`` index tests."""

from __future__ import annotations

from pathlib import Path

from agenttree import entry, env_for, loaded, skipped, write

from rulelens.agents import boost
from rulelens.agents.view import AgentView

GUIDE = "<laravel-boost-guidelines>\n## Project Rules\n</laravel-boost-guidelines>\n"


def _project(base: Path) -> Path:
    write(base / "artisan", "#!/usr/bin/env php\n")
    write(base / "CLAUDE.md", GUIDE)
    return base


def _view(base: Path, home: Path, file: Path | None = None) -> AgentView:
    return boost.view(str(base), str(file) if file else None, env_for(home))


def _index(base: Path) -> None:
    files = {p: boost.rule_paths(Path(p).read_text()) for p in boost.rule_files(
        str(base / ".ai" / "rules"))}
    write(base / ".ai" / "rules" / "index.md", boost.index_text(str(base), files))


def test_fact_4_paths_frontmatter_parse() -> None:
    """Fact 4 (``RuleFrontmatter::parse``): CRLF normalised, a scalar is one glob, non-string
    entries dropped, bad YAML or no block means no paths."""
    assert boost.rule_paths("---\r\npaths:\r\n  - app/**\r\n  - 3\r\n---\r\n# x") == ["app/**"]
    assert boost.rule_paths("  ---\npaths: app/Models/*.php\n---\n") == ["app/Models/*.php"]
    assert boost.rule_paths("---\npaths: [unclosed\n---\n") == []
    assert boost.rule_paths("# no frontmatter") == []


def test_fact_5_index_maps_globs_to_rule_files(base: Path) -> None:
    """Fact 5, upstream "regenerates index.md mapping globs to rule files on every write",
    "excludes a rule file with no paths frontmatter from the index" and "includes both root
    and managed rows in the index sorted by path"."""
    rules = base / ".ai" / "rules"
    files = {str(rules / "models.md"): ["app/Models/*.php"],
             str(rules / "controllers.md"): ["app/Http/Controllers/**", "routes/*.php"],
             str(rules / "global.md"): [],
             str(rules / "boost" / "pest.md"): ["tests/**"]}
    assert boost.index_text(str(base), files) == (
        "# Project Rules Index\n\nBefore planning or editing, find the row whose globs match the"
        " file's path and read that rule file.\n\n| Applies to | Rule file |\n| --- | --- |\n"
        "| tests/** | .ai/rules/boost/pest.md |\n"
        "| app/Http/Controllers/**, routes/*.php | .ai/rules/controllers.md |\n"
        "| app/Models/*.php | .ai/rules/models.md |\n")


def test_fact_5_placeholder_index(base: Path) -> None:
    """Fact 5, upstream "writes a placeholder index when no rule files have paths"."""
    text = boost.index_text(str(base), {str(base / ".ai/rules/global.md"): []})
    assert "No rules recorded yet." in text and "| Applies to |" not in text


def test_fact_3_rule_files_are_direct_md_plus_managed(base: Path) -> None:
    """Fact 3: ``.ai/rules/*.md`` without ``index.md`` (not recursive) plus ``boost/*.md``."""
    rules = base / ".ai" / "rules"
    for rel in ("a.md", "index.md", "deep/x.md", "boost/m.md", "notes.txt"):
        write(rules / rel, "x")
    assert boost.rule_files(str(rules)) == [str(rules / "a.md"), str(rules / "boost" / "m.md")]


def test_fact_9_matching_rule_is_advisory(base: Path, home: Path) -> None:
    """Fact 9: the model is told to read rule files whose index globs cover the path: the
    index and the match are *may*, never loaded; a non-matching rule says why."""
    _project(base)
    write(base / ".ai/rules/controllers.md", "---\npaths:\n  - app/Http/Controllers/**\n---\n")
    write(base / ".ai/rules/models.md", "---\npaths: [app/Models/*.php]\n---\n")
    _index(base)
    target = write(base / "app/Http/Controllers/UserController.php", "")
    v = _view(base, home, target)
    assert loaded(v, "start") == [] and loaded(v, "on-read") == []
    assert loaded(v, "may") == [str(base / ".ai/rules/index.md"),
                                str(base / ".ai/rules/controllers.md")]
    assert "advisory" in entry(v, base / ".ai/rules/controllers.md").why
    assert skipped(v, base / ".ai/rules/models.md").reason == "globs-no-match"
    assert any("CLAUDE.md" in n for n in v.notes)


def test_fact_6_hand_edited_rules_make_the_index_stale(base: Path, home: Path) -> None:
    """Fact 6: a rule file added by hand is not in the index until ``boost:update``."""
    _project(base)
    write(base / ".ai/rules/controllers.md", "---\npaths: [app/**]\n---\n")
    _index(base)
    write(base / ".ai/rules/late.md", "---\npaths: [app/**]\n---\n")
    v = _view(base, home, base / "app" / "x.php")
    assert skipped(v, base / ".ai/rules/late.md").reason == "stale-index"
    assert any("stale" in n for n in v.notes)


def test_fact_10_files_without_paths_only_via_grep(base: Path, home: Path) -> None:
    """Fact 10, upstream "excludes a rule file with no paths frontmatter from the index"."""
    _project(base)
    write(base / ".ai/rules/global.md", "# Global\n")
    _index(base)
    v = _view(base, home, base / "app" / "x.php")
    assert skipped(v, base / ".ai/rules/global.md").reason == "no-paths"
    assert "grep" in skipped(v, base / ".ai/rules/global.md").detail


def test_fact_1_no_rules_dir_and_no_guidelines(base: Path, home: Path) -> None:
    """Facts 1 and 9: without ``.ai/rules`` nothing is listed; without the guidelines tag no
    model is told to open the index."""
    write(base / "artisan", "")
    assert _view(base, home).files == ()
    write(base / ".ai/rules/a.md", "---\npaths: [x/**]\n---\n")
    assert any("<laravel-boost-guidelines>" in n for n in _view(base, home).notes)


def test_fact_2_rules_switched_off(base: Path, home: Path) -> None:
    """Fact 2: ``BOOST_RULES_ENABLED=false`` (environment, else the project's ``.env``)."""
    _project(base)
    write(base / ".ai/rules/a.md", "---\npaths: [app/**]\n---\n")
    _index(base)
    write(base / ".env", "APP_NAME=x\nBOOST_RULES_ENABLED=false\n")
    v = _view(base, home, base / "app" / "x.php")
    assert v.files == ()
    assert skipped(v, base / ".ai/rules/a.md").reason == "rules-disabled"
    on = boost.view(str(base), str(base / "app/x.php"), env_for(home, BOOST_RULES_ENABLED="true"))
    assert loaded(on, "may") == [str(base / ".ai/rules/index.md"), str(base / ".ai/rules/a.md")]


def test_facts_7_8_boost_writes_are_stated_not_performed(base: Path, home: Path) -> None:
    """Facts 7-8: ``boost:install`` rewrites ``.ai/rules/boost/`` only with rules and scoped
    guidelines on (else clears it); ``record-rule`` appends to the matching area file (never
    ``boost/`` or ``index.md``) and rewrites the index. RuleLens only reads: the view states
    the writes, labelled with the source, and leaves every file as it was."""
    _project(base)
    rule = write(base / ".ai" / "rules" / "orders.md", "---\npaths: [app/Orders/**]\n---\n# O")
    managed = write(base / ".ai" / "rules" / "boost" / "scoped.md", "---\npaths: [a/**]\n---\n")
    _index(base)
    before = {p: p.read_bytes() for p in (rule, managed, base / ".ai" / "rules" / "index.md")}
    v = _view(base, home, base / "app" / "Orders" / "Order.php")
    note = next(n for n in v.notes if "boost:install" in n)
    assert "deletes and rewrites .ai/rules/boost/" in note
    assert "only when rules and BOOST_RULES_SCOPED_GUIDELINES are on, else clears it" in note
    assert "never into boost/ or index.md, and rewrites index.md" in note
    assert note.endswith("(exact from Laravel Boost source @8d8cb703).")
    assert {p: p.read_bytes() for p in before} == before
