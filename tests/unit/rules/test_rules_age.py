"""Issue #23 item 5: an instruction file's age next to the code it governs, from real git."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from rulelens.rules.age import describe, file_age, governed


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                   cwd=root, check=True, capture_output=True)


def commit(root: Path, rel: str, text: str, message: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(root, "add", rel)
    git(root, "commit", "-q", "-m", message)


def test_commits_to_the_governed_folder_since_the_last_change(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    commit(tmp_path, "packages/web/AGENTS.md", "# Web\n", "rules")
    commit(tmp_path, "packages/web/src/a.ts", "1\n", "a")
    commit(tmp_path, "packages/web/src/b.ts", "1\n", "b")
    commit(tmp_path, "packages/api/src/c.ts", "1\n", "elsewhere: not governed")
    age = file_age(str(tmp_path / "packages/web/AGENTS.md"), str(tmp_path))
    assert age is not None and age.commits_since == 2 and age.governs == ("packages/web/",)
    assert describe(age, age.last_change + 3600) == \
        "changed today; 2 commits to packages/web/ since"
    commit(tmp_path, "packages/web/AGENTS.md", "# Web\n\nNew.\n", "rules again")
    again = file_age(str(tmp_path / "packages/web/AGENTS.md"), str(tmp_path))
    assert again is not None and again.commits_since == 0  # the file's own change resets it


def test_scoped_rule_counts_commits_to_its_globs(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    commit(tmp_path, ".claude/rules/py.md", "---\npaths: ['src/**/*.py']\n---\nHints.\n", "r")
    commit(tmp_path, "src/a.py", "1\n", "py")
    commit(tmp_path, "src/b.ts", "1\n", "ts: outside the scope")
    rule = str(tmp_path / ".claude/rules/py.md")
    age = file_age(rule, str(tmp_path), ["src/**/*.py"])
    assert age is not None and age.commits_since == 1
    assert governed(rule, str(tmp_path)) == (".",)  # a root rules directory governs the root


def test_outside_git_and_untracked_files_have_no_age(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("# Rules\n")
    assert file_age(str(tmp_path / "AGENTS.md"), str(tmp_path)) is None
    git(tmp_path, "init", "-q")
    assert file_age(str(tmp_path / "AGENTS.md"), str(tmp_path)) is None
    assert os.path.exists(tmp_path / "AGENTS.md")


def test_chain_hover_shows_each_loaded_files_age(tmp_path: Path) -> None:
    from rulelens.lsp.views import chain_hover
    from rulelens.rules import AgentEnvironment, Resolver

    root = tmp_path / "repo"
    root.mkdir()
    home = tmp_path / "home"
    (home / ".grok").mkdir(parents=True)
    git(root, "init", "-q")
    commit(root, "AGENTS.md", "# Rules\n", "rules")
    commit(root, "src/a.py", "1\n", "code")
    env = AgentEnvironment.from_env({"HOME": str(home), "GROK_HOME": str(home / ".grok"),
                                     "PATH": os.environ.get("PATH", "")})
    chain = Resolver(env, trust="trusted").resolve(str(root / "src"))
    text = chain_hover(chain, None)
    assert "**Age** (from git)" in text and "changed today; 1 commit to . since" in text
