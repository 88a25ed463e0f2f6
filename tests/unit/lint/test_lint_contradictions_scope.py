"""Issue #23 item 3: scoped rule files contradict only where one agent loads both.

Copilot's ``.github/instructions/*.instructions.md`` attach by ``applyTo``; Cursor's
``.mdc`` rules by ``alwaysApply``/``globs``. Two files whose scopes never meet are never
loaded together, so opposite advice in them is no contradiction; overlapping scopes are.
"""

from __future__ import annotations

from lintrepo import Repo


def rl406(repo: Repo, rel: str) -> list[str]:
    return [f.message for f in repo.lint(rel) if f.code == "RL406"]


def copilot(apply_to: str, text: str) -> str:
    return f'---\napplyTo: "{apply_to}"\n---\n# Rule\n\n{text}\n'


def test_disjoint_apply_to_is_no_contradiction(repo: Repo) -> None:
    repo.files({".github/instructions/web.instructions.md": copilot("apps/web/**", "Use npm."),
                ".github/instructions/api.instructions.md": copilot("apps/api/**", "Use pnpm."),
                "apps/web/src/a.ts": "", "apps/api/src/b.ts": ""})
    assert rl406(repo, ".github/instructions/web.instructions.md") == []
    assert rl406(repo, ".github/instructions/api.instructions.md") == []


def test_overlapping_apply_to_contradicts_for_copilot(repo: Repo) -> None:
    repo.files({".github/instructions/all.instructions.md": copilot("**", "Use pnpm."),
                ".github/instructions/web.instructions.md": copilot("apps/web/**", "Use npm."),
                "apps/web/src/a.ts": ""})
    found = (rl406(repo, ".github/instructions/web.instructions.md")
             + rl406(repo, ".github/instructions/all.instructions.md"))
    assert len(found) == 1, found  # once, not once per file
    assert "Copilot" in found[0] and "package manager" in found[0], found


def test_two_always_applied_cursor_rules_contradict(repo: Repo) -> None:
    head = "---\ndescription: x\nalwaysApply: true\n---\n"
    repo.files({".cursor/rules/a.mdc": head + "# A\n\nTests use vitest.\n",
                ".cursor/rules/b.mdc": head + "# B\n\nWe use jest for tests.\n"})
    found = rl406(repo, ".cursor/rules/a.mdc") + rl406(repo, ".cursor/rules/b.mdc")
    assert len(found) == 1 and "Cursor" in found[0] and "test runner" in found[0], found


def test_findings_do_not_depend_on_the_number_of_processes(repo: Repo) -> None:
    """A tree linted on several cores (200 files or more) reports exactly what one process
    reports, contradictions in many folders included (a per-run folder budget made the
    two differ)."""
    import json
    import os
    import subprocess
    import sys

    files = {"AGENTS.md": "# Rules\n\nUse pnpm for everything.\n",
             ".claude/rules/style.md": "# Style\n\nIndent with 2 spaces.\n"}
    for i in range(110):
        files[f"packages/p{i}/AGENTS.md"] = f"# P{i}\n\nAlways use npm here.\n"
        files[f"packages/p{i}/CLAUDE.md"] = f"# P{i}\n\nIndent with 4 spaces.\n"
    repo.files(files)
    env = repo.env | {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}

    def lint(jobs: str) -> list[dict[str, object]]:
        proc = subprocess.run([sys.executable, "-m", "rulelens", "lint", "--no-cache",
                               "--format", "json", "--jobs", jobs, "."], cwd=repo.root,
                              capture_output=True, text=True, timeout=300, env=env)
        assert proc.returncode in (0, 1), proc.stderr
        found: list[dict[str, object]] = json.loads(proc.stdout)
        return found

    one = lint("1")
    assert sum(f["code"] == "RL406" for f in one) >= 110
    assert lint("2") == one
