"""AgentsMdTracker (spec §5): walk limit, git-root bound, never twice, seed, compaction."""

from __future__ import annotations

from pathlib import Path

from rulestree import World, write

from rulelens.rules import AgentEnvironment, AgentsMdTracker, Resolver
from rulelens.rules.tracker import WALK_LIMIT


def _tracker(world: World, cwd: Path, **env: str) -> AgentsMdTracker:
    agent_env = AgentEnvironment.from_env({**world.env, **env})
    resolver = Resolver(agent_env)
    chain = resolver.resolve(str(cwd))
    tracker = AgentsMdTracker(agent_env.compat)
    ignore = resolver.gitignore(chain.git_root) if chain.git_root else None
    tracker.seed([f.path for f in chain.files], chain.git_root, chain.directories, ignore)
    return tracker


def test_walk_limit_is_ten_directories(world: World, repo: Path) -> None:
    assert WALK_LIMIT == 10
    deep = repo
    for i in range(1, 13):
        deep = deep / f"d{i}"
        write(deep / "AGENTS.md", f"level {i}")
    tracker = _tracker(world, repo)
    found = tracker.check_path(str(deep / "main.py"))
    # start d12 plus 9 ancestors: d12 .. d3, deepest first; d2 and d1 are out of reach.
    assert [Path(p).parent.name for p in found] == [f"d{i}" for i in range(12, 2, -1)]
    # Another touch just below d2 now finds d2 and d1 (the rest was checked already).
    again = tracker.check_path(str(repo / "d1" / "d2" / "x.py"))
    assert [Path(p).parent.name for p in again] == ["d2", "d1"]


def test_never_twice_and_compaction(world: World, repo: Path) -> None:
    write(repo / "AGENTS.md", "initial")
    write(repo / "pkg" / "AGENTS.md", "pkg")
    write(repo / "pkg" / ".grok" / "rules" / "b.md", "b")
    write(repo / "pkg" / ".grok" / "rules" / "a.md", "a")
    write(repo / "pkg" / ".grok" / "rules" / "skip.txt", "not md")
    tracker = _tracker(world, repo)
    target = str(repo / "pkg" / "mod.py")
    expected = [str(repo / "pkg" / "AGENTS.md"), str(repo / "pkg" / ".grok" / "rules" / "a.md"),
                str(repo / "pkg" / ".grok" / "rules" / "b.md")]
    assert tracker.check_path(target) == expected
    assert tracker.check_path(target) == []
    assert tracker.check_path(str(repo / "pkg")) == []
    tracker.on_compaction()
    # Reminders fire again once per compaction cycle; the initial files never do.
    assert tracker.check_path(target) == expected
    assert tracker.initial_discovery == {str(repo / "AGENTS.md")}


def test_seeded_chain_and_initial_files_are_not_reported(world: World, repo: Path) -> None:
    write(repo / "AGENTS.md", "root")
    write(repo / "a" / "AGENTS.md", "a")
    write(repo / "a" / "b" / "AGENTS.md", "b")
    tracker = _tracker(world, repo / "a")
    found = tracker.check_path(str(repo / "a" / "b" / "c.py"))
    assert found == [str(repo / "a" / "b" / "AGENTS.md")]
    tracker.on_compaction()
    # After compaction the chain directories are unchecked again, but the initial files
    # stay known and are still never reported.
    assert tracker.check_path(str(repo / "a" / "x.py")) == []


def test_bounded_by_the_git_root(world: World, repo: Path) -> None:
    write(world.base / "AGENTS.md", "above the root")
    outside = world.base / "outside"
    write(outside / "AGENTS.md", "outside")
    tracker = _tracker(world, repo)
    assert tracker.check_path(str(outside / "f.py")) == []
    write(repo / "sub" / "AGENTS.md", "sub")
    assert tracker.check_path(str(repo / "sub" / "f.py")) == [str(repo / "sub" / "AGENTS.md")]


def test_no_git_root_reports_nothing(world: World) -> None:
    plain = world.base / "plain"
    write(plain / "sub" / "AGENTS.md", "x")
    tracker = _tracker(world, plain)
    assert tracker.check_path(str(plain / "sub" / "f.py")) == []


def test_gitignored_files_are_not_reported(world: World, repo: Path) -> None:
    write(repo / ".gitignore", "gen/\nCLAUDE.local.md\n")
    write(repo / "gen" / "AGENTS.md", "generated")
    write(repo / "lib" / "CLAUDE.local.md", "personal")
    write(repo / "lib" / "CLAUDE.md", "shared")
    tracker = _tracker(world, repo)
    assert tracker.check_path(str(repo / "gen" / "x.py")) == []
    assert tracker.check_path(str(repo / "lib" / "x.py")) == [str(repo / "lib" / "CLAUDE.md")]


def test_missing_target_counts_as_a_file(world: World, repo: Path) -> None:
    write(repo / "pkg" / "AGENTS.md", "pkg")
    tracker = _tracker(world, repo)
    # pkg/new does not exist: a stat error counts as a file, so the start is pkg.
    assert tracker.check_path(str(repo / "pkg" / "new")) == [str(repo / "pkg" / "AGENTS.md")]


def test_tracker_follows_compat(world: World, repo: Path) -> None:
    write(repo / "pkg" / ".claude" / "rules" / "c.md", "c")
    write(repo / "pkg" / ".claude" / "CLAUDE.md", "c")
    tracker = _tracker(world, repo, GROK_CLAUDE_RULES_ENABLED="0", GROK_CLAUDE_AGENTS_ENABLED="0")
    assert tracker.check_path(str(repo / "pkg" / "f.py")) == []


def test_compaction_section_text() -> None:
    text = AgentsMdTracker.compaction_section(["/r/a/AGENTS.md", "/r/b/CLAUDE.md"])
    assert text == (
        "## Discovered Project Instruction Files\nThese project instruction files were found"
        " during the session and may contain relevant coding conventions:\n"
        "- /r/a/AGENTS.md\n- /r/b/CLAUDE.md\n")
