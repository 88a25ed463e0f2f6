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


def _env(repo: Repo) -> dict[str, str]:
    """The repository's environment with a private result-cache directory."""
    return repo.env | {"PYTHONPATH": os.environ.get("PYTHONPATH", ""),
                       "XDG_CACHE_HOME": os.path.join(repo.home, "cache")}


def lint(repo: Repo, *args: str) -> list[dict[str, Any]]:
    env = _env(repo)
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
    assert os.listdir(os.path.join(tree.home, "cache", "rulelens", "lint-v3"))
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


@pytest.mark.parametrize(("name", "before_text", "after_text"), [
    # the configuration: RL506 switched off
    (".rulelens.toml", 'disable = ["RL301"]\n', 'disable = ["RL506"]\n'),
    # the ignore file: `apps/` ignored, so its AGENTS.md is no longer walked (the replay)
    (".gitignore", "*.log\n", "apps/\n"),
])
def test_a_file_edited_in_place_changes_the_cached_findings(
        tree: Repo, name: str, before_text: str, after_text: str) -> None:
    """Same directory listing (no tree change): only the file's hash can tell."""
    tree.write(name, before_text)
    before = lint(tree)
    assert ("apps/web/AGENTS.md", "RL506") in pairs(before)
    lint(tree)
    with open(os.path.join(tree.root, name), "w", encoding="utf-8") as fh:
        fh.write(after_text)
    after = lint(tree)
    assert ("apps/web/AGENTS.md", "RL506") not in pairs(after)
    assert after == lint(tree, "--no-cache")


def test_a_bad_grok_config_written_after_a_warm_run_is_still_an_error(tree: Repo) -> None:
    """Grok's ``config.toml`` (outside the tree) is a dependency of every entry."""
    lint(tree)
    with open(os.path.join(tree.home, ".grok", "config.toml"), "w", encoding="utf-8") as fh:
        fh.write("[paths]\nextra_rule_dirs = 3\n")
    env = _env(tree)
    proc = subprocess.run([sys.executable, "-m", "rulelens", "lint", "."], cwd=tree.root,
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 2 and "extra_rule_dirs" in proc.stderr, proc.stderr


def _loaded(repo: Repo, fmt: str = "json") -> str:
    """The ``rulelens.*`` modules a ``rulelens lint --format FMT .`` run imported."""
    env = _env(repo)
    probe = (f"import runpy, sys; sys.argv = ['rulelens', 'lint', '--format', '{fmt}', '.'];"
             " code = 0\ntry: runpy.run_module('rulelens', run_name='__main__')\n"
             "except SystemExit as e: code = e.code\n"
             "print(sorted(m for m in sys.modules if m.startswith('rulelens.')),"
             " file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=repo.root, capture_output=True,
                          text=True, timeout=120, env=env)
    return proc.stderr


def test_a_run_answered_from_the_cache_does_not_load_the_engine(tree: Repo) -> None:
    """Issue #23: a re-run over unchanged files only hashes and prints: the same command
    line is answered from its record (lint.replay) without even the walker; another
    output format over the same files walks and reads the per-file results."""
    assert "rulelens.lint.engine" in _loaded(tree)  # cold: everything is linted
    replayed = _loaded(tree)
    assert "rulelens.lint.replay" in replayed, replayed
    assert "rulelens.lint.walk" not in replayed and "rulelens.lint.engine" not in replayed
    other = _loaded(tree, "text")
    assert "rulelens.lint.walk" in other and "rulelens.lint.engine" not in other, other
    tree.write("apps/web/AGENTS.md", "# Web\n\nRun `npm run test`.\n")
    assert "rulelens.lint.engine" in _loaded(tree)  # a changed file is linted again


def _run(repo: Repo, *args: str) -> tuple[int, str, str]:
    env = _env(repo)
    proc = subprocess.run([sys.executable, "-m", "rulelens", "lint", *args], cwd=repo.root,
                          capture_output=True, text=True, timeout=120, env=env)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_a_replayed_run_prints_and_exits_exactly_as_a_fresh_one(tree: Repo, fmt: str) -> None:
    """stdout, stderr (the nested-repository note) and the exit status (1: an error)."""
    tree.files({".github/instructions/x.instructions.md":
                '---\napplyTo: "**"\nexcludeAgent: "robots"\n---\nBe brief.\n'})
    os.makedirs(os.path.join(tree.root, "vendor", "lib", ".git"))
    first = _run(tree, "--format", fmt, ".")
    assert first[0] == 1 and "nested git" in first[2], first
    assert _run(tree, "--format", fmt, ".") == first == _run(tree, "--format", fmt,
                                                             "--no-cache", ".")


def test_a_file_added_in_an_ignored_folder_is_seen_by_the_replay(tree: Repo) -> None:
    """The walk peeks into an ignored folder for named files; that folder's listing is
    part of the record, so an AGENTS.md dropped there is linted (and reported)."""
    tree.write(".gitignore", "build/\n")
    tree.write("build/out.txt", "")
    before = lint(tree)
    lint(tree)
    tree.write("build/AGENTS.md", "# Build\n\nRun `npm run nothing-here`.\n")
    after = lint(tree)
    assert any(f["path"] == "build/AGENTS.md" for f in after), after
    assert after != before and after == lint(tree, "--no-cache")


@pytest.mark.parametrize("argv", [["lint", "--fix", "."], ["lint", "--diff"],
                                  ["lint", "--no-cache", "."], ["lint", "--help"],
                                  ["explain", "RL101"], ["chain", "."]])
def test_runs_that_write_or_skip_the_cache_are_never_replayed(argv: list[str]) -> None:
    from rulelens.lint.replay import replayable

    assert not replayable(argv)
