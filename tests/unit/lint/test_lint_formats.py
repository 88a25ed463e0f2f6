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
