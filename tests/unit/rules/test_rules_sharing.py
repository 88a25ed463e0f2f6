"""Chains of sibling directories share the files of their common roots, and edits still show.

The resolver hands every chain below a root the same :class:`RuleFile` values for that
root's files (the linter's per-file caches rely on it); these tests pin that sharing, and
that an invalidated file is read again in every chain that holds it, including chains
that de-duplicate a file found twice.
"""

from __future__ import annotations

import os
from pathlib import Path

from rulestree import World, write

from rulelens.rules import AgentEnvironment, Resolver


def _resolver(world: World) -> Resolver:
    return Resolver(AgentEnvironment.from_env(world.env))


def _tree(repo: Path) -> None:
    write(repo / "AGENTS.md", "root rules\n")
    write(repo / ".grok" / "rules" / "style.md", "---\npaths: x\n---\n\nUse tabs.\n")
    write(repo / ".claude" / "rules" / "tests.md", "Run the tests.\n")
    write(repo / "a" / "AGENTS.md", "package a\n")
    write(repo / "b" / "AGENTS.md", "package b\n")


def test_sibling_chains_share_the_root_files(world: World, repo: Path) -> None:
    _tree(repo)
    resolver = _resolver(world)
    a = resolver.resolve(str(repo / "a"))
    b = resolver.resolve(str(repo / "b"))
    assert [f.name for f in a.files] == ["AGENTS.md", "style.md", "tests.md", "AGENTS.md"]
    for fa, fb in zip(a.files[:3], b.files[:3], strict=True):
        assert fa is fb  # the same objects, not just equal ones
    assert a.files[3].content == "package a\n" and b.files[3].content == "package b\n"
    assert a.files[1].content == "Use tabs.\n"  # frontmatter stripped once, for both
    assert a == _resolver(world).resolve(str(repo / "a"))


def test_invalidated_root_file_is_reread_in_every_chain(world: World, repo: Path) -> None:
    _tree(repo)
    resolver = _resolver(world)
    before = resolver.resolve(str(repo / "a"))
    resolver.resolve(str(repo / "b"))
    style = repo / ".grok" / "rules" / "style.md"
    write(style, "Use spaces, four of them.\n")
    resolver.invalidate([str(style)])
    for d in ("a", "b"):
        chain = resolver.resolve(str(repo / d))
        assert chain.files[1].content == "Use spaces, four of them.\n"
        assert chain.files[1].tokens == 7 and chain.files[1].bytes == 26
        assert chain == _resolver(world).resolve(str(repo / d))
    assert before.files[1].content == "Use tabs.\n"  # earlier values are never mutated


def test_a_file_found_twice_loads_once_and_follows_edits(world: World, repo: Path) -> None:
    _tree(repo)
    os.symlink(repo / "AGENTS.md", repo / ".grok" / "rules" / "again.md")
    resolver = _resolver(world)
    chain = resolver.resolve(str(repo / "a"))
    assert [f.name for f in chain.files] == ["AGENTS.md", "style.md", "tests.md", "AGENTS.md"]
    assert [(os.path.basename(s.path), str(s.reason)) for s in chain.skipped] == [
        ("again.md", "duplicate")]
    write(repo / "AGENTS.md", "root rules, edited\n")
    resolver.invalidate([str(repo / "AGENTS.md")])
    chain = resolver.resolve(str(repo / "a"))
    assert chain.files[0].content == "root rules, edited\n"
    assert chain == _resolver(world).resolve(str(repo / "a"))


def test_loaded_text_is_what_a_chain_read(world: World, repo: Path) -> None:
    _tree(repo)
    write(repo / "CLAUDE.md", b"\xff not utf-8\n")
    resolver = _resolver(world)
    path = str(repo / ".grok" / "rules" / "style.md")
    assert resolver.loaded_text(path) is None  # nothing resolved yet
    resolver.resolve(str(repo))
    assert resolver.loaded_text(path) == "---\npaths: x\n---\n\nUse tabs.\n"  # as on disk
    assert resolver.loaded_text(str(repo / "CLAUDE.md")) is None  # skipped: not UTF-8
    assert resolver.loaded_text(str(repo / "a" / "AGENTS.md")) is None  # not in this chain
    resolver.invalidate([path])
    assert resolver.loaded_text(path) is None
