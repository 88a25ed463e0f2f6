"""Claude Code profile (per Claude Code docs): facts of agent-profiles.md §3 on real trees."""

from __future__ import annotations

import os
from pathlib import Path

from agenttree import entry, env_for, loaded, skipped, write, write_json

from rulelens.agents import claude
from rulelens.agents.view import AgentView


def _view(cwd: Path, home: Path, file: Path | None = None, managed: Path | None = None,
          **extra: str) -> AgentView:
    return claude.view(str(cwd), str(file) if file else None, env_for(home, **extra),
                       managed=str(managed) if managed else "/nonexistent/CLAUDE.md")


def test_facts_1_2_3_5_order_managed_user_then_root_to_cwd(base: Path, home: Path) -> None:
    """Facts 1-5: managed, user file, user rules, then each directory from ``/`` down to the
    start directory: CLAUDE.md, .claude/CLAUDE.md, unscoped rules, CLAUDE.local.md."""
    managed = write(base / "etc" / "CLAUDE.md", "managed")
    write(home / ".claude" / "CLAUDE.md", "user")
    write(home / ".claude" / "rules" / "mine.md", "user rule")
    write(base / "CLAUDE.md", "above the repo")
    repo = base / "repo"
    write(repo / "CLAUDE.md", "root")
    write(repo / ".claude" / "CLAUDE.md", "dot")
    write(repo / ".claude" / "rules" / "sub" / "deep.md", "recursive rule")
    write(repo / "CLAUDE.local.md", "local")
    v = _view(repo, home, managed=managed)
    assert loaded(v, "start") == [
        str(managed), str(home / ".claude/CLAUDE.md"), str(home / ".claude/rules/mine.md"),
        str(base / "CLAUDE.md"), str(repo / "CLAUDE.md"), str(repo / ".claude/CLAUDE.md"),
        str(repo / ".claude/rules/sub/deep.md"), str(repo / "CLAUDE.local.md")]
    assert "per Claude Code docs" in entry(v, repo / "CLAUDE.md").why


def test_fact_7_safe_mode_loads_nothing(base: Path, home: Path) -> None:
    """Fact 7: ``CLAUDE_CODE_SAFE_MODE`` disables CLAUDE.md loading."""
    write(base / "CLAUDE.md", "x")
    v = _view(base, home, CLAUDE_CODE_SAFE_MODE="1")
    assert loaded(v) == [] and "CLAUDE_CODE_SAFE_MODE" in v.notes[0]


def test_fact_8_nested_claude_md_loads_on_read(base: Path, home: Path) -> None:
    """Fact 8: CLAUDE.md and .claude/rules below the start directory load when Claude
    reads a file there; files beside the path do not appear."""
    write(base / "CLAUDE.md", "root")
    write(base / "pkg" / "CLAUDE.md", "pkg")
    write(base / "pkg" / ".claude" / "rules" / "r.md", "pkg rule")
    write(base / "other" / "CLAUDE.md", "unrelated")
    v = _view(base, home, write(base / "pkg" / "mod" / "x.py", ""))
    assert loaded(v, "start") == [str(base / "CLAUDE.md")]
    assert loaded(v, "on-read") == [str(base / "pkg/CLAUDE.md"),
                                    str(base / "pkg/.claude/rules/r.md")]
    assert "nested in pkg/" in entry(v, base / "pkg/CLAUDE.md").why
    assert v.find(str(base / "other/CLAUDE.md")) is None


def test_facts_10_12_paths_rules_fire_on_read_of_a_match(base: Path, home: Path) -> None:
    """Facts 10 and 12: a rule with a YAML list of ``paths`` loads on read of a matching
    file; a non-matching one is not loaded and says which globs it has."""
    rules = base / ".claude" / "rules"
    write(rules / "api.md", "---\npaths:\n  - \"src/api/**/*.ts\"\n---\nAPI rule")
    write(rules / "docs.md", "---\npaths: [\"docs/**\"]\n---\nDocs rule")
    v = _view(base, home, write(base / "src/api/v1/user.ts", ""))
    api = entry(v, rules / "api.md")
    assert api.when == "on-read" and api.content == "API rule"
    assert "paths: src/api/**/*.ts" in api.why
    s = skipped(v, rules / "docs.md")
    assert s.reason == "paths-no-match" and "docs/**" in s.detail


def test_fact_13_imports_relative_not_in_code_four_hops(base: Path, home: Path) -> None:
    """Fact 13: ``@path`` relative to the importing file, not inside code spans or fences,
    up to four hops; the fifth is not loaded with the reason."""
    write(base / "CLAUDE.md", "See @docs/a.md and `@docs/no.md`\n```\n@docs/fenced.md\n```\n")
    write(base / "docs" / "a.md", "A @b.md")
    write(base / "docs" / "b.md", "B @c.md")
    write(base / "docs" / "c.md", "C @d.md")
    write(base / "docs" / "d.md", "D @e.md")
    write(base / "docs" / "e.md", "E")
    v = _view(base, home)
    assert loaded(v, "start") == [str(base / "CLAUDE.md")] + [
        str(base / "docs" / f"{n}.md") for n in "abcd"]
    assert entry(v, base / "docs/a.md").imported_by == str(base / "CLAUDE.md")
    assert skipped(v, base / "docs/e.md").reason == "import-depth"
    assert [e.spec for e in v.imports if e.status == "inlined"] == [
        "docs/a.md", "b.md", "c.md", "d.md"]


def test_fact_13_import_cycles_and_missing_targets(base: Path, home: Path) -> None:
    """Fact 13: a cycle and a missing target are findings, not loads."""
    write(base / "CLAUDE.md", "@a.md @missing.md")
    write(base / "a.md", "@CLAUDE.md")
    v = _view(base, home)
    assert [e.status for e in v.imports] == ["inlined", "cycle", "missing"]
    assert skipped(v, base / "missing.md").reason == "import-missing"


def test_fact_14_imports_outside_the_start_dir_need_approval(base: Path, home: Path) -> None:
    """Fact 14: an import outside the start directory waits for a one-time approval."""
    write(base / "shared.md", "shared")
    write(base / "repo" / "CLAUDE.md", "@../shared.md")
    v = _view(base / "repo", home)
    assert skipped(v, base / "shared.md").reason == "import-needs-approval"


def test_fact_16_block_html_comments_are_hidden(base: Path, home: Path) -> None:
    """Fact 16: block-level HTML comments are hidden; inside code blocks they stay."""
    write(base / "CLAUDE.md", "keep\n<!-- hidden\nnote -->\nafter\n```\n<!-- code -->\n```\n")
    text = entry(_view(base, home), base / "CLAUDE.md").content
    assert "hidden" not in text and "<!-- code -->" in text and "keep\nafter" in text


def test_fact_17_files_over_4_mib_are_skipped(base: Path, home: Path) -> None:
    """Fact 17: a file over 4 MiB is skipped whole."""
    write(base / "CLAUDE.md", b"x" * (4 * 1024 * 1024 + 1))
    assert skipped(_view(base, home), base / "CLAUDE.md").reason == "too-large"


def test_fact_19_claude_md_excludes(base: Path, home: Path) -> None:
    """Fact 19: ``claudeMdExcludes`` (absolute globs, merged over the layers)."""
    write(base / "vendor" / "CLAUDE.md", "vendored")
    write(base / "CLAUDE.md", "root")
    write_json(base / ".claude" / "settings.json",
               {"claudeMdExcludes": [str(base / "vendor") + "/**"]})
    v = _view(base, home, write(base / "vendor" / "lib.py", ""))
    assert skipped(v, base / "vendor/CLAUDE.md").reason == "excluded"
    assert loaded(v) == [str(base / "CLAUDE.md")]


def test_fact_20_21_agents_md_not_read_unless_the_option_says(base: Path, home: Path) -> None:
    """Facts 20-21: AGENTS.md is not read by default; ``claude-md-or-agents-md`` reads it when
    no CLAUDE.md exists; AGENTS.override.md is never read; a CLAUDE.md linked to AGENTS.md
    loads once, under its own name."""
    write(base / "AGENTS.md", "agents")
    write(base / "AGENTS.override.md", "override")
    v = _view(base, home)
    assert loaded(v) == [] and skipped(v, base / "AGENTS.md").reason == "not-read"
    assert skipped(v, base / "AGENTS.override.md").reason == "not-read"
    write_json(home / ".claude" / "settings.json", {"pluginConfigs": {"agents-md@builtin": {
        "options": {"instructionFiles": "claude-md-or-agents-md"}}}})
    assert loaded(_view(base, home)) == [str(base / "AGENTS.md")]
    os.symlink("AGENTS.md", base / "CLAUDE.md")
    v = _view(base, home)
    assert loaded(v) == [str(base / "CLAUDE.md")]
    assert skipped(v, base / "AGENTS.md").reason == "same-file"


def test_fact_23_render_frames_each_start_file(base: Path, home: Path) -> None:
    """Fact 23 (observed framing): ``Contents of <path> (<kind>):`` per start-up file."""
    write(home / ".claude" / "CLAUDE.md", "user")
    write(base / "CLAUDE.md", "project")
    r = _view(base, home).rendered or ""
    assert r.startswith("<system-reminder>\nAs you answer the user's questions")
    assert (f"Contents of {home}/.claude/CLAUDE.md (user's private global instructions for all"
            " projects):\n\nuser") in r
    assert f"Contents of {base}/CLAUDE.md (project instructions, checked into the codebase)" in r


def test_fact_15_binary_files_are_not_imported(base: Path, home: Path) -> None:
    """Fact 15 (CHANGELOG): binary files are not included via imports."""
    write(base / "CLAUDE.md", "See @logo.png and @notes.md")
    write(base / "logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    write(base / "notes.md", "notes")
    v = _view(base, home)
    assert skipped(v, base / "logo.png").reason == "import-binary"
    assert entry(v, base / "notes.md").imported_by == str(base / "CLAUDE.md")


def test_fact_6_add_dir_claude_md_only_with_the_env_switch(base: Path, home: Path) -> None:
    """Fact 6: ``--add-dir`` directories contribute CLAUDE.md only with
    ``CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD=1``; RuleLens cannot see the flag, so the
    view says so when the switch is on, labelled per the docs, and says nothing otherwise."""
    write(base / "CLAUDE.md", "project")
    on = _view(base, home, CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD="1")
    note = next(n for n in on.notes if "--add-dir" in n)
    assert note.startswith("CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD=1: directories added")
    assert note.endswith("(per Claude Code docs, 2026-08).")
    assert not any("--add-dir" in n for n in _view(base, home).notes)
    off = _view(base, home, CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD="0")
    assert not any("--add-dir" in n for n in off.notes)


def test_fact_9_nested_files_say_how_they_are_framed(base: Path, home: Path) -> None:
    """Fact 9: a nested CLAUDE.md is attached after the tool result as
    ``Contents of <path>:``, once per conversation; its reason says so and it is not part of
    the start-up render."""
    write(base / "CLAUDE.md", "root")
    write(base / "pkg" / "CLAUDE.md", "NESTED")
    v = _view(base, home, base / "pkg" / "a.py")
    f = entry(v, base / "pkg" / "CLAUDE.md")
    assert f.when == "on-read"
    assert ("attached after the tool result as `Contents of <path>:`, once per conversation"
            " until compaction or /clear (per Claude Code docs, 2026-08)") in f.why
    assert "NESTED" not in (v.rendered or "")


def test_fact_11_nested_rules_note_the_setting_sources_gate(base: Path, home: Path) -> None:
    """Fact 11: nested ``.claude/rules`` files do not load when the setting sources exclude
    project settings; a view that loads one says so; a view without one does not."""
    write(base / "pkg" / ".claude" / "rules" / "r.md", "nested rule")
    v = _view(base, home, base / "pkg" / "a.py")
    assert entry(v, base / "pkg" / ".claude" / "rules" / "r.md").when == "on-read"
    assert ("Nested .claude/rules files do not load when the setting sources exclude project"
            " settings (per Claude Code docs, 2026-08).") in v.notes
    write(base / ".claude" / "rules" / "top.md", "start-dir rule")
    assert not any("setting sources" in n for n in _view(base, home, base / "a.py").notes)


def test_fact_18_too_long_warning_threshold_is_stated(base: Path, home: Path) -> None:
    """Fact 18: the "CLAUDE.md is too long" warning scales with the context window; older
    builds used 40,000 characters. A file over that gets the note; one under it does not."""
    write(base / "CLAUDE.md", "x" * 40_000)
    assert not any("too long" in n for n in _view(base, home).notes)
    write(base / "CLAUDE.md", "x" * 40_001)
    note = next(n for n in _view(base, home).notes if "too long" in n)
    assert note.startswith(f"{base}/CLAUDE.md: over 40,000 characters")
    assert "scale that warning with the context window (per Claude Code docs, 2026-08)" in note


def test_fact_22_with_both_files_only_claude_md_is_read(base: Path, home: Path) -> None:
    """Fact 22 (third-party report on 2.1.277): when CLAUDE.md and AGENTS.md both exist,
    Claude reads only CLAUDE.md — also under the agents-md fallback option."""
    write(base / "CLAUDE.md", "claude")
    write(base / "AGENTS.md", "agents")
    for opts in ({}, {"instructionFiles": "claude-md-or-agents-md"},
                 {"projectInstructions": "agents-fallback"}):
        write_json(home / ".claude" / "settings.json",
                   {"pluginConfigs": {"agents-md@builtin": {"options": opts}}})
        v = _view(base, home)
        assert loaded(v) == [str(base / "CLAUDE.md")], opts
        s = skipped(v, base / "AGENTS.md")
        assert s.reason == "not-read"
        assert "read it only when no CLAUDE.md exists" in s.detail


def test_fact_23_managed_kind_string_is_unconfirmed(base: Path, home: Path) -> None:
    """Fact 23: the managed file's kind string is UNCONFIRMED; the render marks it instead
    of inventing one, and a note says so."""
    managed = write(base / "etc" / "CLAUDE.md", "managed")
    cwd = base / "repo"
    cwd.mkdir()
    v = _view(cwd, home, managed=managed)
    assert (f"Contents of {managed} (kind string unconfirmed for the managed file):\n\nmanaged"
            in (v.rendered or ""))
    assert ("The kind string Claude Code prints for the managed file is unconfirmed; the"
            " render marks it (per Claude Code docs, 2026-08).") in v.notes
    assert not any("kind string" in n for n in _view(cwd, home).notes)
