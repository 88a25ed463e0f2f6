"""Lint follows the agent profiles (issue 13 item 4): who reads a file Grok skips, each
agent's own budget from its own config, and each agent's import depth limit.

Real repositories on disk, a real home with the agents' config files, no mocks.
"""

from __future__ import annotations

import os

import pytest
from lintrepo import Repo, codes, problems

from rulelens.lint.model import Finding

CURSOR_MDC = ('---\ndescription: Python style\nglobs: src/**/*.py\nalwaysApply: false\n---\n'
              'Use hints.\n')
COPILOT_SCOPED = '---\napplyTo: "src/**"\n---\nUse type hints.\n'


def _one(found: list[Finding], code: str) -> Finding:
    (f,) = [f for f in found if f.code == code]
    return f


# ------------------------------------------------------------------ RL208 readers
def test_gemini_md_names_every_agent_that_does_and_does_not_read_it(repo: Repo) -> None:
    repo.files({"GEMINI.md": "Rules.\n"})
    f = _one(repo.lint("GEMINI.md"), "RL208")
    # Zed reads GEMINI.md when no earlier name of its nine exists (ZD-F1).
    assert f.message.startswith("GEMINI.md: read by Gemini CLI, Zed; not by Grok, Claude Code,"
                                " Codex CLI, Cursor, GitHub Copilot, Laravel Boost,")
    assert f.message.count("Zed") == 1 and "Windsurf" in f.message


def test_nested_gemini_md_is_read_on_read_so_gemini_still_reads_it(repo: Repo) -> None:
    repo.files({"src/app.py": "x = 1\n", "src/GEMINI.md": "Rules.\n"})
    f = _one(repo.lint("src/GEMINI.md"), "RL208")
    assert f.message.startswith("src/GEMINI.md: read by Gemini CLI; not by Grok")


def test_a_scoped_cursor_rule_is_read_by_cursor_for_matching_files(repo: Repo) -> None:
    # The rule's globs do not match the rule file itself: Cursor still reads it (for .py files).
    repo.files({"src/app.py": "x = 1\n", ".cursor/rules/py.mdc": CURSOR_MDC})
    f = _one(repo.lint(".cursor/rules/py.mdc"), "RL208")
    assert f.message.startswith(".cursor/rules/py.mdc: read by Cursor (for matching files),"
                                " Cline; not by Grok, Claude Code")
    assert "Grok reads only `*.md` files in `.cursor/rules`." in f.message


def test_agents_override_is_codex_only(repo: Repo) -> None:
    repo.files({"AGENTS.override.md": "Override.\n"})
    f = _one(repo.lint("AGENTS.override.md"), "RL208")
    assert f.message.startswith("AGENTS.override.md: read by Codex CLI; not by Grok")


def test_a_tool_without_a_profile_is_named_first(repo: Repo) -> None:
    repo.files({".windsurfrules": "Rules.\n", "AGENTS.local.md": "Mine.\n"})
    f = _one(repo.lint(".windsurfrules"), "RL208")
    # Windsurf (its legacy root file), and Cline and Zed, which read it as Windsurf's.
    assert f.message.startswith(".windsurfrules: read by Cline, Windsurf, Zed; not by Grok,"
                                " Claude Code")
    assert f.message.count("Windsurf") == 1
    local = _one(repo.lint("AGENTS.local.md"), "RL208")
    assert local.message.startswith("AGENTS.local.md: read by none of Grok, Claude Code,")
    assert "use CLAUDE.local.md" in local.message


def test_copilot_repo_instructions_name_copilot_and_the_advice(repo: Repo) -> None:
    repo.files({".github/copilot-instructions.md": "Use hints.\n"})
    f = _one(repo.lint(".github/copilot-instructions.md"), "RL208")
    # Zed too: its fifth name, the first present here (ZD-F1).
    assert f.message.startswith(".github/copilot-instructions.md: read by GitHub Copilot, Zed;"
                                " not by Grok")
    assert f.message.endswith("Put instructions for Grok in AGENTS.md.")


# ------------------------------------------------------------ RL303 Codex's config
def _codex_config(repo: Repo, body: str) -> None:
    path = os.path.join(repo.home, ".codex", "config.toml")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(body)


def test_codex_budget_comes_from_its_config(repo: Repo) -> None:
    """Codex fact: ``project_doc_max_bytes`` in $CODEX_HOME/config.toml is the shared
    budget; 3,000 bytes of AGENTS.md are fine under the default 32 KiB and cut under 2,000."""
    repo.files({"AGENTS.md": "root rules\n" * 150, "pkg/AGENTS.md": "pkg rules\n" * 150})
    assert "RL303" not in codes(repo.lint("pkg/AGENTS.md"))
    _codex_config(repo, "project_doc_max_bytes = 2000\n")
    f = _one(repo.lint("pkg/AGENTS.md"), "RL303")
    assert "over the 2000-byte `project_doc_max_bytes` budget (set in ~/.codex/config.toml)" \
        in f.message
    assert "only the first 350 bytes of this file are read" in f.message
    # The root file (1,650 bytes) fits: the budget fires at the crossing file only.
    assert "RL303" not in codes(repo.lint("AGENTS.md"))


def test_codex_home_env_and_a_bad_value_fall_back_to_the_default(
        repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    other = os.path.join(repo.home, "codex-home")
    os.makedirs(other)
    with open(os.path.join(other, "config.toml"), "w", encoding="utf-8") as fh:
        fh.write("project_doc_max_bytes = -5\n")
    monkeypatch.setenv("CODEX_HOME", other)
    _codex_config(repo, "project_doc_max_bytes = 100\n")  # not read: CODEX_HOME wins
    repo.files({"AGENTS.md": "root rules\n" * 150})
    assert "RL303" not in codes(repo.lint("AGENTS.md"))


# ----------------------------------------------------------- RL504 per-agent depth
def _chain(n: int) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {f"d/{i}.md": f"@{i + 1}.md\n" for i in range(1, n)}
    files[f"d/{n}.md"] = "Deep.\n"
    return files


def test_gemini_md_follows_five_hops_claude_md_four(repo: Repo) -> None:
    repo.files({**_chain(5), "GEMINI.md": "# Rules\n\n@d/1.md\n", "CLAUDE.md": "# R\n\n@d/1.md\n"})
    assert "RL504" not in codes(repo.lint("GEMINI.md"))
    f = _one(repo.lint("CLAUDE.md"), "RL504")
    assert "Claude Code follows at most 4" in f.message


def test_gemini_md_past_five_hops_names_gemini(repo: Repo) -> None:
    repo.files({**_chain(6), "GEMINI.md": "# Rules\n\n@d/1.md\n"})
    f = _one(repo.lint("GEMINI.md"), "RL504")
    assert "6 hops" in f.message and "Gemini CLI follows at most 5" in f.message
    assert f.range.start.line == 2  # on the importing line


def test_an_import_in_a_code_span_of_an_imported_file_is_not_followed(repo: Repo) -> None:
    # b.md mentions `@a.md` as code: no cycle (the agents' scanner skips code spans).
    repo.files({"CLAUDE.md": "# Rules\n\n@docs/a.md\n", "docs/a.md": "A.\n\n@b.md\n",
                "docs/b.md": "Write imports as `@a.md`.\n"})
    assert "RL503" not in codes(repo.lint("CLAUDE.md"))


# -------------------------------------------------- a real-looking multi-agent repo
def test_multi_agent_repo_has_no_warning_noise(repo: Repo) -> None:
    """CLAUDE.md -> AGENTS.md symlink, .cursor/rules, .github/instructions, GEMINI.md with
    an import, Codex override in a package: hints and info only, no warning or error."""
    repo.files({
        "src/app.py": "x = 1\n", "src/web/page.ts": "export {}\n",
        "AGENTS.md": "# Project\n\nRun `pytest -q` before committing.\n",
        "GEMINI.md": "# Gemini\n\n@docs/style.md\n", "docs/style.md": "# Style\n\nShort lines.\n",
        ".cursor/rules/py.mdc": CURSOR_MDC,
        ".github/instructions/py.instructions.md": COPILOT_SCOPED,
        ".github/copilot-instructions.md": "Use type hints.\n",
        "src/AGENTS.override.md": "# Src\n\nPrefer small functions.\n",
    })
    os.symlink("AGENTS.md", repo.path("CLAUDE.md"))
    for rel in ("AGENTS.md", "CLAUDE.md", "GEMINI.md", ".cursor/rules/py.mdc",
                ".github/instructions/py.instructions.md", ".github/copilot-instructions.md",
                "src/AGENTS.override.md"):
        found = repo.lint(rel)
        assert problems(found) == [], (rel, [(f.code, f.message) for f in problems(found)])


def test_codex_budget_walk_follows_its_root_markers_and_fallback_names(repo: Repo) -> None:
    """Issue 21: lint's RL303 asks the Codex module, so Codex's ``project_root_markers``
    (agent-profiles.md §1 fact 7: an inner ``.git`` is not a root when ``.codex-root`` is the
    marker) and ``project_doc_fallback_filenames`` (fact 12) decide the chain — the second,
    partial walk lint kept before ignored both."""
    _codex_config(repo, 'project_doc_max_bytes = 2000\nproject_root_markers = [".codex-root"]\n'
                  'project_doc_fallback_filenames = ["CONTEXT.md"]\n')
    repo.files({".codex-root": "", "CONTEXT.md": "root context\n" * 150,
                "inner/.git/HEAD": "ref: refs/heads/main\n",
                "inner/pkg/AGENTS.md": "pkg rules\n" * 100})
    f = _one(repo.lint("inner/pkg/AGENTS.md"), "RL303")
    # 1,950 bytes of the root's CONTEXT.md come first: 50 bytes of this file are left.
    assert "only the first 50 bytes of this file are read" in f.message
    assert [r.path for r in f.related] == [repo.path("CONTEXT.md")]
    # The fallback name is Codex's file too: over the budget by itself it is cut.
    _codex_config(repo, 'project_doc_max_bytes = 1000\nproject_root_markers = [".codex-root"]\n'
                  'project_doc_fallback_filenames = ["CONTEXT.md"]\n')
    assert "RL303" in codes(repo.lint("CONTEXT.md"))


def test_lint_never_reads_os_environ() -> None:
    """Lint reads the environment its session captured (``LintCaches.environ``)."""
    import ast
    import pathlib

    import rulelens.lint

    found = []
    for path in pathlib.Path(rulelens.lint.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv")
                    and isinstance(node.value, ast.Name) and node.value.id == "os") or (
                    isinstance(node, ast.Attribute) and node.attr == "expanduser"):
                found.append(f"{path.name}:{node.lineno}")
    assert found == []


def test_clinerules_readers_come_from_the_registry_once(repo: Repo) -> None:
    """Cline and Windsurf are registry agents now: each is named once, from its module."""
    repo.files({".clinerules": "Rules.\n", ".windsurfrules": "Rules.\n"})
    cline = _one(repo.lint(".clinerules"), "RL208").message
    assert cline.startswith(".clinerules: read by Cline; not by Grok")
    assert cline.count("Cline") == 1
    windsurf = _one(repo.lint(".windsurfrules"), "RL208").message
    assert windsurf.startswith(".windsurfrules: read by Cline, Windsurf, Zed; not by Grok")
