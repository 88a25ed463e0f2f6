"""Issue #23 item 3: contradictions between two files one agent loads together (RL406).

Real repositories on disk; which agent loads both, and which file it sees last, comes
from the agents' own views (Grok from lint's chain).
"""

from __future__ import annotations

import os

import pytest
from lintrepo import Repo

from rulelens.lint.checks.contradictions import TextClaims, claims
from rulelens.lint.session import LintSession
from rulelens.rules import AgentEnvironment


def rl406(repo: Repo, rel: str) -> list[str]:
    return [f.message for f in repo.lint(rel) if f.code == "RL406"]


PAIRS = {
    "package-manager": ("Use pnpm for everything.", "Always use npm here.", "package manager"),
    "test-runner": ("Tests use vitest.", "We use jest for tests.", "test runner"),
    "formatter": ("Format with prettier; we use prettier.", "We use biome.", "formatter"),
    "indentation": ("Indent with 2 spaces.", "Indent with 4 spaces.", "indentation"),
    "always-never": ("Always run `make lint` before pushing.",
                     "Never run `make lint`; it is slow.", "`run make lint` (always / never)"),
    "never-the-manager": ("Use yarn.", "Never use yarn in this repository.",
                          "package manager"),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_root_and_nested_file_contradict(repo: Repo, name: str) -> None:
    root, nested, subject = PAIRS[name]
    repo.files({"AGENTS.md": f"# Rules\n\n{root}\n", "apps/web/AGENTS.md": f"# Web\n\n{nested}\n"})
    found = rl406(repo, "apps/web/AGENTS.md")
    assert len(found) == 1, found
    msg = found[0]
    about = subject if subject.startswith("`") else "the " + subject
    assert f"Contradicts AGENTS.md:3 on {about}" in msg, msg
    # Deeper wins for Grok and Codex; OpenCode merges deepest first (the root last).
    assert "Grok (apps/web/AGENTS.md last)" in msg and "Codex CLI (apps/web/AGENTS.md last)" in msg
    assert "OpenCode (AGENTS.md last)" in msg and "Zed" not in msg
    assert rl406(repo, "AGENTS.md") == []  # reported once, on the deeper file


def test_two_claude_rules_must_and_must_not(repo: Repo) -> None:
    """The issue's deadlock: two unconditional `.claude/rules` files, MUST and MUST NOT."""
    repo.files({".claude/rules/a-testing.md": "# Testing\n\nYou must mock `fetch` in tests.\n",
                ".claude/rules/b-network.md": "# Network\n\nYou must not mock `fetch`.\n"})
    found = rl406(repo, ".claude/rules/b-network.md")
    assert len(found) == 1 and "Claude Code" in found[0], found
    assert ".claude/rules/a-testing.md:3" in found[0]
    assert rl406(repo, ".claude/rules/a-testing.md") == []


LOOK_ALIKES = {
    "scoped": ("Use pnpm, except npm for the docs site.", "Use npm when editing docs."),
    "command-not-choice": ("Use pnpm.", "Do not use `pnpm add`; edit package.json instead."),
    "same-choice": ("Use pnpm.", "Always use pnpm here too."),
    "different-objects": ("Always add a changeset.", "Do not add a second query."),
    "fenced": ("Use pnpm.", "```sh\n# use npm\nnpm install\n```"),
}


@pytest.mark.parametrize("name", sorted(LOOK_ALIKES))
def test_look_alikes_are_no_contradiction(repo: Repo, name: str) -> None:
    root, nested = LOOK_ALIKES[name]
    repo.files({"AGENTS.md": f"# Rules\n\n{root}\n", "apps/web/AGENTS.md": f"# Web\n\n{nested}\n"})
    assert rl406(repo, "apps/web/AGENTS.md") == []


def test_sibling_folders_never_load_together(repo: Repo) -> None:
    repo.files({"apps/web/AGENTS.md": "# Web\n\nUse npm.\n",
                "apps/api/AGENTS.md": "# API\n\nUse pnpm.\n"})
    assert rl406(repo, "apps/web/AGENTS.md") == [] and rl406(repo, "apps/api/AGENTS.md") == []


def test_files_no_agent_loads_together_are_not_compared(repo: Repo) -> None:
    """GEMINI.md and AGENTS.md in one folder: no modelled agent's default view holds both."""
    repo.files({"AGENTS.md": "# Rules\n\nUse pnpm.\n", "GEMINI.md": "# Gemini\n\nUse npm.\n"})
    assert rl406(repo, "GEMINI.md") == [] and rl406(repo, "AGENTS.md") == []


def test_a_symlinked_name_reports_nothing_the_real_file_reports(repo: Repo) -> None:
    """`CLAUDE.md -> AGENTS.md` in one folder: the pair is the real file's, reported once."""
    repo.files({"AGENTS.md": "# Rules\n\nUse pnpm for everything.\n",
                "apps/web/AGENTS.md": "# Web\n\nAlways use npm here.\n"})
    os.symlink("AGENTS.md", repo.path("apps/web/CLAUDE.md"))
    found = rl406(repo, "apps/web/AGENTS.md")
    assert len(found) == 1 and "Contradicts AGENTS.md:3 on the package manager" in found[0]
    assert rl406(repo, "apps/web/CLAUDE.md") == []


def test_a_partner_under_two_names_is_compared_once(repo: Repo) -> None:
    """The root's `CLAUDE.md -> AGENTS.md`: the nested file contradicts one file, once."""
    repo.files({"AGENTS.md": "# Rules\n\nUse pnpm for everything.\n",
                "apps/web/AGENTS.md": "# Web\n\nAlways use npm here.\n"})
    os.symlink("AGENTS.md", repo.path("CLAUDE.md"))
    found = rl406(repo, "apps/web/AGENTS.md")
    assert len(found) == 1, found
    assert "Contradicts AGENTS.md:3" in found[0]
    # Claude Code reads the root file through CLAUDE.md: still the same file, seen first.
    assert "Claude Code" not in found[0] or "Claude Code (apps/web/AGENTS.md last)" in found[0]


def test_a_rule_linked_to_an_ancestor_file_is_that_file(repo: Repo) -> None:
    """`pkg/.claude/rules/shared.md -> ../../../AGENTS.md`: the root file's pairs are the
    root's; the folder's own file contradicts it once."""
    repo.files({"AGENTS.md": "# Rules\n\nUse pnpm for everything.\n",
                ".grok/rules/style.md": "Always use npm here.\n",
                "pkg/CLAUDE.md": "# Pkg\n\nUse yarn.\n"})
    os.makedirs(repo.path("pkg/.claude/rules"))
    os.symlink("../../../AGENTS.md", repo.path("pkg/.claude/rules/shared.md"))
    assert rl406(repo, "pkg/.claude/rules/shared.md") == []
    assert len(rl406(repo, "AGENTS.md")) == 1  # root AGENTS.md vs .grok/rules/style.md
    found = rl406(repo, "pkg/CLAUDE.md")
    # Against the two root files, the shared rule counted once (as the nearer name).
    assert len(found) == 2, found
    assert sum("AGENTS.md" in m or "shared.md" in m for m in found) == 1, found


def test_one_session_answers_as_a_fresh_one_for_each_file(repo: Repo) -> None:
    """Claims and partner listings are kept per session (each file read once): linting a
    tree in one session finds what a fresh session finds file by file, and an edited text
    is read again."""
    repo.files({"AGENTS.md": "# Rules\n\nUse pnpm for everything.\nIndent with 2 spaces.\n",
                ".claude/rules/a.md": "# A\n\nYou must mock `fetch` in tests.\n",
                ".claude/rules/b.md": "# B\n\nYou must not mock `fetch`.\n",
                "apps/web/AGENTS.md": "# Web\n\nAlways use npm here.\nIndent with 4 spaces.\n",
                "apps/web/CLAUDE.md": "# Web\n\nUse yarn.\n",
                "apps/api/AGENTS.md": "# API\n\nUse bun.\n"})
    rels = ["AGENTS.md", ".claude/rules/a.md", ".claude/rules/b.md", "apps/web/AGENTS.md",
            "apps/web/CLAUDE.md", "apps/api/AGENTS.md"]
    session = LintSession(AgentEnvironment.from_env(repo.env))
    together = {rel: [f.message for f in session.lint(repo.path(rel)) if f.code == "RL406"]
                for rel in rels}
    assert together == {rel: rl406(repo, rel) for rel in rels}
    assert {rel: len(found) for rel, found in together.items()} == {
        "AGENTS.md": 0, ".claude/rules/a.md": 0, ".claude/rules/b.md": 1,
        "apps/web/AGENTS.md": 2, "apps/web/CLAUDE.md": 2, "apps/api/AGENTS.md": 1}, together
    edited = session.lint_text(repo.path("apps/api/AGENTS.md"), "# API\n\nUse pnpm.\n")
    assert [f for f in edited if f.code == "RL406"] == []


@pytest.mark.parametrize(("text", "claim"), [
    ("USE PNPM FOR EVERYTHING.", ("package manager", "pnpm")),  # upper case
    ("Uſe pnpm for everything.", ("package manager", "pnpm")),  # IGNORECASE: ſ is s
    ("Alwayſ run `make lint` first.", ("rule: run make lint", "always")),
    ("İ" * 30 + "\nUse pnpm.\n" + "x" * 10, ("package manager", "pnpm")),  # İ: 2 when lowered
    ("Intro.\n\n```sh\nnpm i\n```\n\n  Use pnpm for everything.", ("package manager", "pnpm")),
])
def test_claims_found_case_insensitively(text: str, claim: tuple[str, str]) -> None:
    """The line search runs on lowered text; it finds what a case-insensitive reading
    finds (``ſ`` and ``İ`` included) and skips fences as before."""
    found = claims(text)
    assert [(c.subject, c.value) for c in found] == [claim], found


def test_body_claims_equal_a_fresh_reading_of_the_body() -> None:
    """A rule file's body claims are taken from its whole-text reading, unless a fence
    marker above the body changes how the body reads (then it is read again)."""
    plain = "---\ndescription: rules\n---\n# R\n\nUse pnpm.\n\n```\nUse npm.\n```\n"
    fenced = "---\nnote: |\n  ```\n---\n# R\n\nUse pnpm.\n"
    for text in (plain, fenced):
        offset = text.index("# R")
        line = text[:offset].count("\n")
        assert TextClaims(text).body(line, offset) == claims(text[offset:])
    assert claims(fenced[fenced.index("# R"):]) != []  # the marker above does not hide it
