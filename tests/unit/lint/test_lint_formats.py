"""Format-specific behaviour beyond the one-fixture-per-check table."""

from __future__ import annotations

import os

from lintrepo import Repo, codes, problems

from rulelens.lint.model import FileRename


def test_cursor_reader_is_lenient_about_unquoted_globs(repo: Repo) -> None:
    repo.files({"src/a.py": "", "README.md": "",
                ".cursor/rules/py.mdc": "---\ndescription: Py\nglobs: **/*.py, *.md\n---\nHi.\n"})
    found = repo.lint(".cursor/rules/py.mdc")
    assert problems(found) == [], [(f.code, f.message) for f in found]
    repo.write(".cursor/rules/rs.mdc", "---\ndescription: Rust\nglobs: **/*.rs\n---\nHi.\n")
    (f,) = [f for f in repo.lint(".cursor/rules/rs.mdc") if f.code == "RL114"]
    assert (f.range.start.line, f.range.start.character) == (2, 7)


def test_cursor_lenient_reader_still_reports_garbage(repo: Repo) -> None:
    repo.write(".cursor/rules/x.mdc", "---\ndescription: [unclosed\nnot a key line\n---\nHi.\n")
    assert "RL101" in codes(repo.lint(".cursor/rules/x.mdc"))


def test_copilot_apply_to_list_is_a_type_error(repo: Repo) -> None:
    repo.files({"src/a.py": "", ".github/instructions/a.instructions.md":
                '---\napplyTo:\n  - "src/**"\n---\nHi.\n'})
    (f,) = [f for f in repo.lint(".github/instructions/a.instructions.md") if f.code == "RL105"]
    assert "one string" in f.message


def test_boost_rules_use_paths_not_globs(repo: Repo) -> None:
    repo.files({"app/Models/User.php": "", ".ai/rules/models.md":
                '---\nglobs:\n  - "app/Models/**"\n---\nUse casts.\n'})
    (f,) = [f for f in repo.lint(".ai/rules/models.md") if f.code == "RL106"]
    assert "index.md" in f.message and f.safe_fix is not None


def test_codex_drops_files_after_the_budget_is_used(repo: Repo) -> None:
    repo.files({"AGENTS.md": "a" * 40_000, "pkg/AGENTS.md": "pkg\n"})
    (f,) = [f for f in repo.lint("pkg/AGENTS.md") if f.code == "RL303"]
    assert "drops" in f.message and f.related[0].path == repo.path("AGENTS.md")
    (root,) = [f for f in repo.lint("AGENTS.md") if f.code == "RL303"]
    assert "truncates" in root.message and root.range.start.character == 32768


def test_codex_skips_agents_md_shadowed_by_override(repo: Repo) -> None:
    repo.files({"AGENTS.md": "a" * 40_000, "AGENTS.override.md": "short\n"})
    assert "RL303" not in codes(repo.lint("AGENTS.md"))


def test_codex_budget_is_silent_for_agents_md_in_a_skill_folder(repo: Repo) -> None:
    """Issue 23 (b11/b12/b22/b53): an AGENTS.md beside a SKILL.md, or below a folder with
    one, is a skill's reference read whole; Codex never starts inside a skill folder."""
    big = "rule line\n" * 4000  # 40,000 bytes: over the 32 KiB budget on its own
    skill = ".agents/skills/react"
    repo.files({"AGENTS.md": "root rules\n" * 100, f"{skill}/SKILL.md": "---\nname: r\n---\n",
                f"{skill}/AGENTS.md": big, f"{skill}/refs/AGENTS.md": big})
    assert "RL303" not in codes(repo.lint(f"{skill}/AGENTS.md"))
    assert "RL303" not in codes(repo.lint(f"{skill}/refs/AGENTS.md"))
    # The same files without the SKILL.md are Codex's chain again, and cut.
    os.remove(repo.path(f"{skill}/SKILL.md"))
    (f,) = [f for f in repo.lint(f"{skill}/AGENTS.md") if f.code == "RL303"]
    assert "truncates" in f.message
    (g,) = [f for f in repo.lint(f"{skill}/refs/AGENTS.md") if f.code == "RL303"]
    assert "drops" in g.message


def test_codex_budget_still_reports_a_sibling_of_a_skill_folder(repo: Repo) -> None:
    """A SKILL.md in another folder (a sibling, or below the file) does not silence a real
    truncation; nor does a folder merely named ``skills``."""
    big = "rule line\n" * 4000
    repo.files({"skills/lint/SKILL.md": "---\nname: lint\n---\n",
                "pkg/deeper/SKILL.md": "---\nname: d\n---\n",
                "pkg/AGENTS.md": big, "skills/AGENTS.md": big})
    for rel in ("pkg/AGENTS.md", "skills/AGENTS.md"):
        (f,) = [f for f in repo.lint(rel) if f.code == "RL303"]
        assert "only the first 32768 bytes of this file are read" in f.message, rel
        assert (f.range.start.line, f.range.start.character) == (3276, 8), rel


def test_token_budget_is_silent_for_a_chain_started_in_a_skill_folder(repo: Repo) -> None:
    """RL308 claims the chain is injected into every conversation started in that folder;
    nobody starts an agent inside a skill's folder (its own, or one below a SKILL.md), so
    there is nothing to report there, as for RL303."""
    big = "rule line\n" * 800  # ~2,000 tokens: over the 1,500-token budget on its own
    a, b = ".agents/skills/a", ".agents/skills/b"
    repo.files({"AGENTS.md": "root rules\n" * 20, f"{a}/SKILL.md": "---\nname: a\n---\n",
                f"{a}/AGENTS.md": big, f"{b}/SKILL.md": "---\nname: b\n---\n",
                f"{b}/AGENTS.md": "skill notes\n", f"{b}/refs/AGENTS.md": big})
    assert "RL308" not in codes(repo.lint(f"{a}/AGENTS.md"))
    assert "RL308" not in codes(repo.lint(f"{b}/refs/AGENTS.md"))
    # The same files without the SKILL.md files are ordinary folders' chains, over budget.
    os.remove(repo.path(f"{a}/SKILL.md"))
    os.remove(repo.path(f"{b}/SKILL.md"))
    for rel in (f"{a}/AGENTS.md", f"{b}/refs/AGENTS.md"):
        (f,) = [f for f in repo.lint(rel) if f.code == "RL308"]
        assert "crosses the 1500-token always-on budget here" in f.message, rel


def test_token_budget_still_reports_a_sibling_of_a_skill_folder(repo: Repo) -> None:
    """A SKILL.md in a sibling folder or below the file does not silence RL308; nor does a
    folder merely named ``skills``."""
    big = "rule line\n" * 800
    repo.files({"AGENTS.md": "root rules\n" * 20, "skills/lint/SKILL.md": "---\nname: l\n---\n",
                "pkg/deeper/SKILL.md": "---\nname: d\n---\n",
                "pkg/AGENTS.md": big, "skills/AGENTS.md": big})
    for rel in ("pkg/AGENTS.md", "skills/AGENTS.md"):
        (f,) = [f for f in repo.lint(rel) if f.code == "RL308"]
        assert "in 2 file(s)" in f.message and "~2000 in it" in f.message, rel


def test_cursor_line_count_matches_the_lines_of_the_file(repo: Repo) -> None:
    """Issue 23 (b23/b56): a 564-line file ending in a newline is 564 lines, not 565;
    exactly the limit is silent, one over is reported, a file without a final newline
    counts its last line."""
    head = "---\ndescription: Python style\nglobs: src/**/*.py\nalwaysApply: false\n---\n"
    body = "".join(f"line {i}\n" for i in range(564 - 5))
    repo.files({"src/a.py": "", ".cursor/rules/py.mdc": head + body})
    (f,) = [f for f in repo.lint(".cursor/rules/py.mdc") if f.code == "RL304"]
    assert f.message.startswith("564 lines;") and f.range.start.line == 500
    at_limit = head + "".join(f"line {i}\n" for i in range(500 - 5))
    repo.write(".cursor/rules/py.mdc", at_limit)
    assert at_limit.count("\n") == 500
    assert "RL304" not in codes(repo.lint(".cursor/rules/py.mdc"))
    repo.write(".cursor/rules/py.mdc", at_limit + "one more")  # no final newline
    (f,) = [f for f in repo.lint(".cursor/rules/py.mdc") if f.code == "RL304"]
    assert f.message.startswith("501 lines;")


def test_duplicate_paragraph_points_at_the_first_copy_on_disk(repo: Repo) -> None:
    para = "Run the whole suite with `pytest -q` before every commit, no exceptions."
    repo.files({"AGENTS.md": f"# Root\n\nIntro.\n\n{para}\n",
                ".grok/rules/testing.md": f"---\nx: 1\n---\n\n# Tests\n\n{para}\n"})
    (f,) = [f for f in repo.lint(".grok/rules/testing.md") if f.code == "RL402"]
    assert f.range.start.line == 6
    assert f.related[0].path == repo.path("AGENTS.md") and f.related[0].range.start.line == 4
    # The first copy is not reported: it loads first.
    assert "RL402" not in codes(repo.lint("AGENTS.md"))


def test_home_heading_is_shallower_than_project(repo: Repo) -> None:
    os.makedirs(os.path.join(repo.home, ".grok"), exist_ok=True)
    with open(os.path.join(repo.home, ".grok", "AGENTS.md"), "w") as fh:
        fh.write("# Mine\n\n## Commits\n\nSmall ones.\n")
    repo.write("AGENTS.md", "# Project\n\n## Commits\n\nConventional commits.\n")
    (f,) = [f for f in repo.lint("AGENTS.md") if f.code == "RL403"]
    assert f.related[0].path == os.path.join(repo.home, ".grok", "AGENTS.md")


def test_heading_in_code_block_is_not_a_heading(repo: Repo) -> None:
    repo.files({"AGENTS.md": "# Root\n\n## Setup\n\nok\n",
                "src/AGENTS.md": "# Src\n\n```sh\n## Setup\nmake\n```\n"})
    assert "RL403" not in codes(repo.lint("src/AGENTS.md"))


def test_named_file_frontmatter_can_move_to_grok_rules(repo: Repo) -> None:
    repo.write("CLAUDE.md", "---\nname: x\n---\nRules.\n")
    (f,) = [f for f in repo.lint("CLAUDE.md") if f.code == "RL115"]
    moves = [e for fix in f.fixes for e in fix.edits if isinstance(e, FileRename)]
    assert moves and moves[0].new == repo.path(".grok/rules/claude.md")
    assert all(fix.safety == "unsafe" for fix in f.fixes)


def test_findings_without_a_chain(repo: Repo) -> None:
    """The engine works on a buffer alone (no chain): chain checks are simply skipped."""
    from rulelens.lint import lint_document
    from rulelens.lint.config import DEFAULT

    found = lint_document(repo.path(".claude/rules/x.md"), '---\npaths: "src/**"\n---\nx\n',
                          None, DEFAULT)
    assert codes(found) == {"RL104"}


def test_directory_named_like_an_instruction_file_is_not_also_empty(repo: Repo) -> None:
    os.makedirs(repo.path("AGENTS.md"))
    assert codes(repo.lint("AGENTS.md")) == {"RL204"}


def test_boost_bom_before_frontmatter_is_reported_with_a_fix(repo: Repo) -> None:
    repo.files({"app/Models/User.php": "", ".ai/rules/models.md":
                '\ufeff---\npaths:\n  - "app/Models/**"\n---\nUse casts.\n'})
    (f,) = [f for f in repo.lint(".ai/rules/models.md") if f.code == "RL117"]
    assert "byte-order mark" in f.message and f.safe_fix is not None
    # Claude accepts the BOM: no finding there.
    repo.files({"src/a.py": "",
                ".claude/rules/py.md": '\ufeff---\npaths:\n  - "src/**"\n---\nHi.\n'})
    assert "RL117" not in codes(repo.lint(".claude/rules/py.md"))


def test_missing_opener_is_said_by_cause_not_add_frontmatter(repo: Repo) -> None:
    repo.files({"src/a.py": "", ".github/instructions/a.instructions.md":
                'applyTo: "src/**"\nexcludeAgent: code-review\n---\nHi.\n'})
    found = codes(repo.lint(".github/instructions/a.instructions.md"))
    assert "RL119" in found and "RL111" not in found
    # A "Note:" line above a horizontal rule is body text, not a lost block.
    repo.files({".github/instructions/b.instructions.md": 'Note: be brief\n---\nHi.\n'})
    assert "RL119" not in codes(repo.lint(".github/instructions/b.instructions.md"))
