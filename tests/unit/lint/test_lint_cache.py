"""Issue #23 item 6: results kept between runs must equal fresh ones.

Each test runs the real CLI twice in fresh processes with a private ``XDG_CACHE_HOME``,
changes one kind of dependency in between (the file, a file of its chain, the
``package.json`` its commands are checked against, the configuration, a file added to
the tree) and checks the findings follow, and equal a ``--no-cache`` run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from lintrepo import Repo


def lint(repo: Repo, *args: str) -> list[dict[str, Any]]:
    env = repo.env | {"PYTHONPATH": os.environ.get("PYTHONPATH", ""),
                      "XDG_CACHE_HOME": os.path.join(repo.home, "cache")}
    proc = subprocess.run([sys.executable, "-m", "rulelens", "lint", "--format", "json",
                           "--jobs", "1", *args, "."], cwd=repo.root, capture_output=True,
                          text=True, timeout=120, env=env)
    assert proc.returncode in (0, 1), proc.stderr
    found: list[dict[str, Any]] = json.loads(proc.stdout)
    return found


def pairs(found: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(f["path"], f["code"]) for f in found}


@pytest.fixture
def tree(repo: Repo) -> Repo:
    repo.files({
        "package.json": '{"scripts": {"test": "jest"}}\n',
        "AGENTS.md": "# Rules\n\nRun `npm run test`.\n",
        "apps/web/AGENTS.md": "# Web\n\nRun `npm run build` and see `src/main.ts`.\n",
        "apps/web/src/app.ts": "",
    })
    return repo


def test_warm_run_equals_cold_run_and_is_stored_outside_the_repository(tree: Repo) -> None:
    cold = lint(tree)
    assert ("apps/web/AGENTS.md", "RL506") in pairs(cold)
    assert os.listdir(os.path.join(tree.home, "cache", "rulelens", "lint-v1"))
    assert lint(tree) == cold == lint(tree, "--no-cache")
    untracked = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=tree.root,
                               capture_output=True, text=True).stdout
    assert "cache" not in untracked and "rulelens" not in untracked


DEPENDENCIES = {
    # the file itself
    "file": lambda r: r.write("apps/web/AGENTS.md", "# Web\n\nRun `npm run test`.\n"),
    # the package.json its commands were checked against
    "package.json": lambda r: r.write("package.json",
                                      '{"scripts": {"test": "jest", "build": "tsc"}}\n'),
    # the configuration
    "config": lambda r: r.write(".rulelens.toml", 'disable = ["RL506"]\n'),
    # a file the text names appears (the tree changes)
    "tree": lambda r: r.write("apps/web/src/main.ts", ""),
}


@pytest.mark.parametrize("kind", sorted(DEPENDENCIES))
def test_changing_a_dependency_changes_the_cached_findings(tree: Repo, kind: str) -> None:
    before = lint(tree)
    lint(tree)  # warm
    DEPENDENCIES[kind](tree)
    after = lint(tree)
    assert after != before, kind
    assert after == lint(tree, "--no-cache")


def test_changing_a_file_of_the_chain_changes_the_cached_findings(repo: Repo) -> None:
    """A deeper file's contradiction (RL406) depends on its ancestor's text."""
    repo.files({"AGENTS.md": "# Rules\n\nUse pnpm for everything.\n",
                "apps/web/AGENTS.md": "# Web\n\nAlways use npm here.\n"})
    assert ("apps/web/AGENTS.md", "RL406") in pairs(lint(repo))
    lint(repo)
    # Same size, same directory listing: only the content hash can tell.
    repo.write("AGENTS.md", "# Rules\n\nUse  npm for everything.\n")
    after = lint(repo)
    assert ("apps/web/AGENTS.md", "RL406") not in pairs(after)
    assert after == lint(repo, "--no-cache")
