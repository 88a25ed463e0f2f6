"""Every ``skipped`` reason, each produced by a real file on disk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rulestree import World, git_init, make_world, write

from helpers.unprivileged import NOBODY, world_readable_tmp
from rulelens.rules import SkipReason


def test_reason_values_are_the_contract() -> None:
    assert [str(r) for r in SkipReason] == [
        "gitignored", "not-utf8", "unreadable", "not-a-file", "compat-disabled",
        "nested-in-rules-dir", "unrecognized-name", "duplicate", "untrusted-folder",
        "ignore-unchecked"]


def test_not_utf8(world: World, repo: Path) -> None:
    write(repo / "AGENTS.md", b"caf\xe9\n")
    write(repo / ".grok" / "rules" / "latin1.md", b"\xff\xfe")
    write(repo / "CLAUDE.md", "fine")
    chain = world.resolve(repo)
    assert world.paths(chain) == ["repo/CLAUDE.md"]
    assert world.skipped(chain) == [("repo/AGENTS.md", "not-utf8"),
                                    ("repo/.grok/rules/latin1.md", "not-utf8")]
    assert "byte 3" in chain.skipped[0].detail


def test_not_a_file_in_rules_dir(world: World, repo: Path) -> None:
    (repo / ".grok" / "rules" / "folder.md").mkdir(parents=True)
    chain = world.resolve(repo)
    assert world.skipped(chain) == [("repo/.grok/rules/folder.md", "not-a-file")]


def test_symlink_loops_in_rules_dir(world: World, repo: Path) -> None:
    rules = repo / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "self.md").symlink_to(rules / "self.md")
    (rules / "ping.md").symlink_to(rules / "pong.md")
    (rules / "pong.md").symlink_to(rules / "ping.md")
    (rules / "up").symlink_to(rules)  # a directory loop: the nested scan must terminate
    (rules / "sub").mkdir()
    (rules / "sub" / "back").symlink_to(repo)
    write(rules / "ok.md", "ok")
    (repo / "AGENTS.md").symlink_to(repo / "AGENTS.md")  # loops do not "exist" for the agent
    chain = world.resolve(repo)
    assert world.paths(chain) == ["repo/.cursor/rules/ok.md"]
    assert sorted(world.skipped(chain)) == [("repo/.cursor/rules/ping.md", "unreadable"),
                                            ("repo/.cursor/rules/pong.md", "unreadable"),
                                            ("repo/.cursor/rules/self.md", "unreadable")]
    assert all("symlink loop" in s.detail for s in chain.skipped)


def test_nested_in_rules_dir(world: World, repo: Path) -> None:
    write(repo / ".claude" / "rules" / "frontend" / "react.md", "never read")
    write(repo / ".claude" / "rules" / "frontend" / "deeper" / "x.md", "never read")
    write(repo / ".claude" / "rules" / "frontend" / "notes.txt", "not md")
    chain = world.resolve(repo)
    assert chain.files == ()
    assert sorted(world.skipped(chain)) == [
        ("repo/.claude/rules/frontend/deeper/x.md", "nested-in-rules-dir"),
        ("repo/.claude/rules/frontend/react.md", "nested-in-rules-dir")]
    detail = next(s.detail for s in chain.skipped if s.path.endswith("react.md"))
    assert "frontend/react.md" in detail and "Move it up" in detail


@pytest.mark.parametrize("rel", ["AGENTS.local.md", "agents.md", "Agents.MD", "claude.md",
                                 ".cursorrules", "GEMINI.md", ".github/copilot-instructions.md",
                                 ".windsurfrules", ".clinerules"])
def test_unrecognized_names(world: World, repo: Path, rel: str) -> None:
    write(repo / rel, "instructions Grok never reads")
    chain = world.resolve(repo)
    assert chain.files == ()
    assert world.skipped(chain) == [(f"repo/{rel}", "unrecognized-name")]
    assert "Grok" in chain.skipped[0].detail


def test_unrecognized_lowercase_suggests_the_name(world: World, repo: Path) -> None:
    write(repo / "agents.md", "x")
    write(repo / "claude.md", "x")
    details = {Path(s.path).name: s.detail for s in world.resolve(repo).skipped}
    assert "Rename it to `AGENTS.md`" in details["agents.md"]
    assert "Rename it to `CLAUDE.md`" in details["claude.md"]


def test_unrecognized_extensions_in_rules_dir(world: World, repo: Path) -> None:
    write(repo / ".cursor" / "rules" / "style.mdc", "---\nglobs: *.ts\n---\n")
    write(repo / ".cursor" / "rules" / "long.markdown", "x")
    chain = world.resolve(repo)
    assert sorted(world.skipped(chain)) == [
        ("repo/.cursor/rules/long.markdown", "unrecognized-name"),
        ("repo/.cursor/rules/style.mdc", "unrecognized-name")]
    assert "`.mdc`" in next(s.detail for s in chain.skipped if s.path.endswith(".mdc"))


def test_duplicate_in_two_rules_dirs(world: World, repo: Path) -> None:
    write(repo / ".grok" / "rules" / "shared.md", "once")
    (repo / ".claude" / "rules").mkdir(parents=True)
    (repo / ".claude" / "rules" / "shared.md").symlink_to(repo / ".grok" / "rules" / "shared.md")
    chain = world.resolve(repo)
    assert world.paths(chain) == ["repo/.grok/rules/shared.md"]
    assert world.skipped(chain) == [("repo/.claude/rules/shared.md", "duplicate")]
    assert "already loads" in chain.skipped[0].detail


def test_large_file_loads_whole(world: World, repo: Path) -> None:
    body = ("# rules\n" + "x" * 1000 + "\n") * 2000  # ~2 MB, no cap, no truncation
    write(repo / "AGENTS.md", body)
    f = world.resolve(repo).files[0]
    assert f.content == body and f.bytes == len(body)


# --------------------------------------------------------------- unreadable (setpriv)

_PROBE = """
import json, sys
from rulelens.rules import AgentEnvironment, Resolver
env = json.loads(sys.argv[2])
chain = Resolver(AgentEnvironment.from_env(env)).resolve(sys.argv[1])
print(json.dumps(chain.to_json()))
"""


@pytest.fixture
def shared_world() -> Iterator[World]:
    """A world outside pytest's 0700 tmp dir, so the unprivileged user can reach it."""
    with world_readable_tmp("rulelens-unreadable-") as base:
        yield make_world(base)


def _as_unprivileged(world: World, cwd: Path) -> dict[str, object]:
    cmd = [sys.executable, "-c", _PROBE, str(cwd), json.dumps(world.env)]
    if os.geteuid() == 0:
        cmd = NOBODY + cmd
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def _reasons(result: dict[str, object], base: Path) -> list[tuple[str, str]]:
    skipped = result["skipped"]
    assert isinstance(skipped, list)
    return [(os.path.relpath(s["path"], base), s["reason"]) for s in skipped]


def _loaded(result: dict[str, object], base: Path) -> list[str]:
    files = result["files"]
    assert isinstance(files, list)
    return [os.path.relpath(f["path"], base) for f in files]


def _chmod_tree_readable(base: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(base):
        for d in dirnames:
            os.chmod(os.path.join(dirpath, d), 0o755)
        for f in filenames:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                os.chmod(p, 0o644)


def test_unreadable_file_and_rules_dir(shared_world: World) -> None:
    w = shared_world
    repo = git_init(w.base / "repo")
    _chmod_tree_readable(w.base)
    write(repo / "AGENTS.md", "secret").chmod(0o000)
    write(repo / "CLAUDE.md", "readable").chmod(0o644)
    write(repo / ".grok" / "rules" / "r.md", "locked away")
    _chmod_tree_readable(repo / ".grok")
    (repo / ".grok" / "rules").chmod(0o000)
    result = _as_unprivileged(w, repo)
    assert _loaded(result, w.base) == ["repo/CLAUDE.md"]
    assert sorted(_reasons(result, w.base)) == [("repo/.grok/rules", "unreadable"),
                                                ("repo/AGENTS.md", "unreadable")]
    skipped = result["skipped"]
    assert isinstance(skipped, list)
    assert all("permission denied" in s["detail"] for s in skipped)


def test_unlistable_directory_in_the_chain(shared_world: World) -> None:
    w = shared_world
    repo = git_init(w.base / "repo")
    write(repo / "AGENTS.md", "root")
    write(repo / "mid" / "AGENTS.md", "found by exact name, as the agent probes")
    write(repo / "mid" / ".grok" / "rules" / "r.md", "cannot be listed through mid")
    write(repo / "mid" / "leaf" / "AGENTS.md", "leaf")
    _chmod_tree_readable(w.base)
    (repo / "mid").chmod(0o311)  # searchable, not listable
    result = _as_unprivileged(w, repo / "mid" / "leaf")
    assert _loaded(result, w.base) == ["repo/AGENTS.md", "repo/mid/AGENTS.md",
                                       "repo/mid/.grok/rules/r.md", "repo/mid/leaf/AGENTS.md"]
    assert _reasons(result, w.base) == [("repo/mid", "unreadable")]


def test_unsearchable_directory_in_the_chain(shared_world: World) -> None:
    w = shared_world
    repo = git_init(w.base / "repo")
    write(repo / "AGENTS.md", "root")
    write(repo / "locked" / "sub" / "AGENTS.md", "unreachable")
    _chmod_tree_readable(w.base)
    (repo / "locked").chmod(0o000)
    result = _as_unprivileged(w, repo / "locked" / "sub")
    assert result["git_root"] == str(repo)
    assert _loaded(result, w.base) == ["repo/AGENTS.md"]
    assert ("repo/locked", "unreadable") in _reasons(result, w.base)
