"""Which files ``rulelens lint DIR`` lints: instruction files in the tree, minus ignored trees.

Directories ignored by the repository's ``.gitignore`` (root file plus global excludes, as
the agent applies them) are pruned, so ``node_modules/**/AGENTS.md`` is not linted. But an
instruction file that is itself gitignored *is* linted, because that is exactly what the
user needs to hear about (Grok skips it). Ignored instruction containers (``.grok/``,
``.claude/``, ...) are still entered for their rules, and an ignored directory is peeked
into one level for named files. A directory below the top that holds its own ``.git`` (a
nested repository, a submodule, a worktree) is another project and is not entered; the
caller is told which (``nested``) so it can say so.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from rulelens.agents.fs import discover_git_root
from rulelens.lint.formats import NAMED_FILES, RULE_DIRS, is_instruction_file
from rulelens.rules.gitignore import GitIgnore

_ALWAYS_PRUNE = frozenset({".git", ".hg", ".svn"})
_CONTAINERS = frozenset(c for c, _, _ in RULE_DIRS)


def iter_instruction_files(top: str, home: str, env: dict[str, str],
                           dirs: list[tuple[str, int]] | None = None,
                           nested: list[str] | None = None) -> Iterator[str]:
    """Absolute paths of instruction files under ``top`` (a directory), sorted per directory;
    each directory walked and its mtime are appended to ``dirs`` (the result cache's tree
    signature: a file added or removed changes its directory's mtime; an ignored directory
    peeked into is one too), and each nested git repository left out to ``nested``."""
    top = os.path.abspath(top)
    root = discover_git_root(top)
    ignore = GitIgnore.build(root, home, env) if root is not None else None
    seen_dirs: set[tuple[int, int]] = set()
    stack: list[tuple[str, bool]] = [(top, False)]
    while stack:
        directory, ignored_zone = stack.pop()
        try:
            st = os.stat(directory)
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) in seen_dirs:
            continue
        seen_dirs.add((st.st_dev, st.st_ino))
        if dirs is not None:
            dirs.append((directory, st.st_mtime_ns))
        subdirs: list[tuple[str, bool]] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            path = entry.path
            if is_dir:
                if entry.name in _ALWAYS_PRUNE:
                    continue
                if _is_repository(path):
                    if nested is not None:
                        nested.append(path)
                    continue
                if ignore is not None and not ignored_zone and _dir_ignored(ignore, path):
                    if entry.name in _CONTAINERS:
                        subdirs.append((path, True))
                    else:
                        yield from _peek(path, dirs)
                    continue
                if ignored_zone and not _in_container(path, top):
                    continue
                subdirs.append((path, ignored_zone))
                # A directory with the exact name of a file the agent probes is a candidate
                # too (RL204); any other directory is only walked (``.clinerules/`` is a
                # directory format whose files are linted; ``app/[lang]/agents.md/`` is a
                # web route, not a misspelt AGENTS.md).
                if entry.name in NAMED_FILES and not ignored_zone:
                    yield path
                continue
            if is_instruction_file(path) or entry.name.endswith(".instructions.md"):
                yield path  # an `*.instructions.md` anywhere: RL213 says where it loads
        stack.extend(reversed(subdirs))


def _is_repository(directory: str) -> bool:
    """Whether ``directory`` has its own ``.git`` (a directory, or a file for submodules
    and worktrees)."""
    return os.path.lexists(os.path.join(directory, ".git"))


def _dir_ignored(ignore: GitIgnore, path: str) -> bool:
    """Like ``GitIgnore.match`` but for a directory, so ``build/``-style patterns apply
    (the matcher's indexed, cached decisions: a rule-by-rule scan per directory cost 1 s on
    trigger.dev's 1,500 directories)."""
    return ignore.is_ignored_dir(path)


def _in_container(path: str, top: str) -> bool:
    rel = os.path.relpath(path, top).replace(os.sep, "/").split("/")
    return any(part in _CONTAINERS for part in rel)


def _peek(directory: str, dirs: list[tuple[str, int]] | None) -> Iterator[str]:
    """Named instruction files directly in an ignored ``directory`` (which joins ``dirs``
    with its mtime, as a walked one does)."""
    try:
        if dirs is not None:
            dirs.append((directory, os.stat(directory).st_mtime_ns))
        names = sorted(os.listdir(directory))
    except OSError:
        return
    for name in names:
        path = os.path.join(directory, name)
        if is_instruction_file(path) and os.path.isfile(path):
            yield path
