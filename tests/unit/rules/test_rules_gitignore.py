"""The gitignore filter (spec §3.4): root .gitignore + global excludes, path and parents."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from rulestree import World, write

from rulelens.rules.gitignore import GitIgnore, walk_unignored


def test_build_dir_pattern_ignores_files_below(world: World, repo: Path) -> None:
    write(repo / ".gitignore", "# build output\nbuild/\n")
    write(repo / "AGENTS.md", "root")
    write(repo / "build" / "AGENTS.md", "build")
    write(repo / "build" / "gen" / "AGENTS.md", "gen")
    write(repo / "build" / "gen" / ".grok" / "rules" / "r.md", "rule")
    chain = world.resolve(repo / "build" / "gen")
    assert world.paths(chain) == ["repo/AGENTS.md"]
    assert world.skipped(chain) == [("repo/build/AGENTS.md", "gitignored"),
                                    ("repo/build/gen/AGENTS.md", "gitignored"),
                                    ("repo/build/gen/.grok/rules/r.md", "gitignored")]
    first = chain.skipped[0]
    assert first.ignore_source == (str(repo / ".gitignore"), 2, "build/")
    assert ".gitignore:2" in first.detail and "`build/`" in first.detail


def test_gitignored_claude_local_is_skipped(world: World, repo: Path) -> None:
    write(repo / ".gitignore", "node_modules/\n*.log\nCLAUDE.local.md\n")
    write(repo / "CLAUDE.md", "shared")
    write(repo / "CLAUDE.local.md", "personal")
    chain = world.resolve(repo)
    assert world.paths(chain) == ["repo/CLAUDE.md"]
    assert chain.skipped[0].ignore_source == (str(repo / ".gitignore"), 3, "CLAUDE.local.md")


def test_negation_reincludes(world: World, repo: Path) -> None:
    write(repo / ".gitignore", "*.local.md\n!CLAUDE.local.md\n")
    write(repo / "CLAUDE.local.md", "kept")
    write(repo / ".claude" / "CLAUDE.local.md", "kept too")
    assert world.paths(world.resolve(repo)) == ["repo/CLAUDE.local.md",
                                                "repo/.claude/CLAUDE.local.md"]


def test_file_level_negation_beats_directory_pattern(world: World, repo: Path) -> None:
    """The agent tests the file before its parents, so a file-level ``!`` wins either way.

    (git itself cannot re-include a file whose directory is excluded.)
    """
    write(repo / "build" / "AGENTS.md", "kept")
    write(repo / "build" / "CLAUDE.md", "ignored")
    for text in ("build/\n!build/AGENTS.md\n", "!build/AGENTS.md\nbuild/\n"):
        write(repo / ".gitignore", text)
        chain = world.resolve(repo / "build")
        assert world.paths(chain) == ["repo/build/AGENTS.md"], text
        assert world.skipped(chain) == [("repo/build/CLAUDE.md", "gitignored")]


def test_last_matching_line_wins_within_one_level(world: World, repo: Path) -> None:
    write(repo / "AGENTS.md", "x")
    write(repo / ".gitignore", "!AGENTS.md\nAGENTS.md\n")
    assert world.paths(world.resolve(repo)) == []
    write(repo / ".gitignore", "AGENTS.md\n!AGENTS.md\n")
    assert world.paths(world.resolve(repo)) == ["repo/AGENTS.md"]


def test_anchored_and_wildcard_patterns(world: World, repo: Path) -> None:
    write(repo / ".gitignore", "/AGENTS.md\ndocs/**\n")
    write(repo / "AGENTS.md", "anchored: ignored at the root only")
    write(repo / "a" / "AGENTS.md", "kept")
    write(repo / "docs" / "x" / "AGENTS.md", "ignored")
    assert world.paths(world.resolve(repo / "a")) == ["repo/a/AGENTS.md"]
    chain = world.resolve(repo / "docs" / "x")
    assert world.paths(chain) == []
    assert [s.ignore_source[2] for s in chain.skipped if s.ignore_source] == [
        "/AGENTS.md", "docs/**"]


def test_comment_and_blank_lines(world: World, repo: Path) -> None:
    write(repo / ".gitignore", "\n# AGENTS.md\n   \n\\#CLAUDE.md\n")
    write(repo / "AGENTS.md", "kept: the line is a comment")
    write(repo / "#CLAUDE.md", "ignored via an escaped #")
    chain = world.resolve(repo)
    assert world.paths(chain) == ["repo/AGENTS.md"]


def test_nested_gitignore_and_info_exclude_are_not_read(world: World, repo: Path) -> None:
    write(repo / "a" / ".gitignore", "AGENTS.md\n")
    write(repo / ".git" / "info" / "exclude", "CLAUDE.md\n")
    write(repo / "a" / "AGENTS.md", "kept")
    write(repo / "CLAUDE.md", "kept")
    assert world.paths(world.resolve(repo / "a")) == ["repo/CLAUDE.md", "repo/a/AGENTS.md"]


def test_core_excludes_file_from_gitconfig(world: World, repo: Path) -> None:
    write(world.home / ".gitconfig", "[user]\n\tname = x\n[core]\n\texcludesFile = ~/my-ignore\n")
    write(world.home / "my-ignore", "CLAUDE.local.md\n")
    write(world.home / ".gitignore", "AGENTS.md\n")  # not used: core.excludesFile is set
    write(repo / "CLAUDE.local.md", "p")
    write(repo / "AGENTS.md", "kept")
    chain = world.resolve(repo)
    assert world.paths(chain) == ["repo/AGENTS.md"]
    assert chain.skipped[0].ignore_source == (str(world.home / "my-ignore"), 1, "CLAUDE.local.md")
    assert str(world.home / "my-ignore") in chain.skipped[0].detail


def test_core_excludes_file_from_xdg_config(world: World, repo: Path) -> None:
    target = write(world.base / "xdg-ignore", "AGENTS.md\n")
    write(world.home / ".config" / "git" / "config", f"[core]\n  excludesfile = {target}\n")
    write(repo / "AGENTS.md", "ignored")
    assert world.skipped(world.resolve(repo)) == [("repo/AGENTS.md", "gitignored")]


def test_configured_but_missing_excludes_file_means_none(world: World, repo: Path) -> None:
    write(world.home / ".gitconfig", "[core]\n\texcludesFile = ~/missing\n")
    write(world.home / ".gitignore", "AGENTS.md\n")
    write(repo / "AGENTS.md", "kept")
    assert world.paths(world.resolve(repo)) == ["repo/AGENTS.md"]


def test_home_gitignore_fallback(world: World, repo: Path) -> None:
    write(world.home / ".gitignore", "AGENTS.md\n")
    write(repo / "AGENTS.md", "ignored")
    chain = world.resolve(repo)
    assert chain.skipped[0].ignore_source == (str(world.home / ".gitignore"), 1, "AGENTS.md")


def test_xdg_default_ignore_is_not_used(world: World, repo: Path) -> None:
    write(world.home / ".config" / "git" / "ignore", "AGENTS.md\n")
    write(repo / "AGENTS.md", "kept: git would ignore it, the agent does not")
    assert world.paths(world.resolve(repo)) == ["repo/AGENTS.md"]


def test_root_and_global_rules_combine(world: World, repo: Path) -> None:
    write(world.home / ".gitignore", "!CLAUDE.md\n")
    write(repo / ".gitignore", "CLAUDE.md\n")
    write(repo / "CLAUDE.md", "global negation comes later, so it wins")
    assert world.paths(world.resolve(repo)) == ["repo/CLAUDE.md"]


def test_paths_outside_the_root_are_never_ignored(world: World, repo: Path) -> None:
    write(world.home / ".gitignore", "AGENTS.md\nrules/\n")
    write(world.home / ".grok" / "AGENTS.md", "home: outside the root")
    write(world.home / ".grok" / "rules" / "r.md", "home rule")
    ws = world.base / "ws"
    write(ws / "x" / "u" / "AGENTS.md", "workspace user dir outside the repo")
    write(repo / "AGENTS.md", "ignored")
    chain = world.resolve(repo, XAI_ROOT=str(ws), XAI_USER="u")
    assert world.paths(chain) == ["home/.grok/AGENTS.md", "home/.grok/rules/r.md",
                                  "ws/x/u/AGENTS.md"]
    assert world.skipped(chain) == [("repo/AGENTS.md", "gitignored")]


def test_no_repository_no_filter(world: World) -> None:
    plain = world.base / "plain"
    write(plain / ".gitignore", "AGENTS.md\n")
    write(world.home / ".gitignore", "AGENTS.md\n")
    write(plain / "AGENTS.md", "kept")
    assert world.paths(world.resolve(plain)) == ["plain/AGENTS.md"]


def test_matcher_unit(world: World, repo: Path) -> None:
    write(repo / ".gitignore", "out/\n*.tmp.md\n!keep.tmp.md\n")
    ig = GitIgnore.build(str(repo), str(world.home), world.env)
    assert ig.is_ignored(str(repo / "out" / "a" / "AGENTS.md"))
    assert ig.is_ignored(str(repo / "x.tmp.md"))
    assert not ig.is_ignored(str(repo / "keep.tmp.md"))
    assert not ig.is_ignored(str(repo / "outside" / "AGENTS.md"))
    assert not ig.is_ignored(str(repo / "out"))  # a *file* named out: dir-only pattern
    assert not ig.is_ignored(str(repo))
    assert not ig.is_ignored(str(world.base / "elsewhere" / "out" / "AGENTS.md"))
    hit = ig.match(str(repo / "out" / "AGENTS.md"))
    assert hit is not None and (hit.line, hit.pattern) == (1, "out/")


def test_walk_unignored_skips_pruned_and_ignored_trees(world: World, repo: Path) -> None:
    write(repo / ".gitignore", "build/\n*.log\n")
    write(repo / "AGENTS.md", "root")
    write(repo / "src" / "a.py", "a")
    write(repo / "src" / "debug.log", "ignored file")
    write(repo / "build" / "out.py", "ignored tree")
    write(repo / "node_modules" / "x" / "AGENTS.md", "pruned tree")
    ignore = GitIgnore.build(str(repo), str(world.home), {})
    seen = {os.path.relpath(e.path, repo): is_dir
            for e, is_dir in walk_unignored(str(repo), frozenset({".git", "node_modules"}),
                                            ignore)}
    # ``build/`` matches what lies below build, as the agent checks a path and its parents;
    # the directory entry itself is probed without its slash, so it is listed (but empty).
    assert seen == {".gitignore": False, "AGENTS.md": False, "src": True,
                    os.path.join("src", "a.py"): False, "build": True}



def test_walk_unignored_does_not_follow_directory_symlinks(repo: Path) -> None:
    write(repo / "real" / "AGENTS.md", "x")
    os.symlink(repo, repo / "real" / "loop")  # a loop back to the top
    seen = {os.path.relpath(e.path, repo): is_dir
            for e, is_dir in walk_unignored(str(repo), frozenset({".git"}), None)}
    assert seen == {"real": True, os.path.join("real", "AGENTS.md"): False,
                    os.path.join("real", "loop"): False}


def test_rules_tried_on_the_last_name_decide_as_on_the_whole_path(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The "could any rule match" test tries name-only rules (``*.pyc``) on the probe's
    last name; every decision must equal the one made with each rule's whole regex on the
    whole path, for names, directories, brackets (``[!x]`` matches ``/`` once translated,
    so it stays whole), escapes, negations and anchored look-alikes."""
    from rulelens.rules import gitignore

    lines = ["*.py[cod]", "*.egg-info/", "a[!x]b", "c?d", "\\#hash", "!keep.pyc", "tmp*",
             "out/", "/top*.log", "docs/**/gen/", "*.map", "!src/**/*.map", "x*y*z*",
             "[Bb]uild/", "**/cache", "name with space", "-dash", "*~", ".#*"]
    write(repo / ".gitignore", "\n".join(lines) + "\n")
    paths = [f"{d}{n}{s}" for d in ("", "src/", "a/", "docs/x/", "deep/a/b/c/")
             for n in ("m.pyc", "keep.pyc", "pkg.egg-info", "a/b", "axb", "ayb", "c/d",
                       "cxd", "#hash", "tmpfile", "out", "top1.log", "gen", "f.map", "xyz",
                       "xAyBz", "build", "Build", "cache", "name with space", "-dash",
                       "f~", ".#f", "plain.txt")
             for s in ("", "/")]
    fast = GitIgnore.build(str(repo), str(repo / "nohome"), {})
    monkeypatch.setattr(gitignore, "_last_name_only", lambda rule: False)
    whole = GitIgnore.build(str(repo), str(repo / "nohome"), {})
    assert fast._any_name is not None and whole._any_name is None  # both paths exercised
    ignored = 0
    for rel in paths:
        a, b = fast._decide(rel), whole._decide(rel)
        assert (a and a.index) == (b and b.index), rel
        ignored += a is not None
    assert 50 < ignored < len(paths) - 50
