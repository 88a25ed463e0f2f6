"""File-system helpers with the agent's semantics (canonicalisation, git discovery)."""

from __future__ import annotations

import os
from collections.abc import Mapping


def canonical(path: str) -> str:
    """``dunce::canonicalize`` with the agent's fallback: the raw path when it fails."""
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, ValueError):
        return path


def is_dir(path: str) -> bool:
    try:
        return os.path.isdir(path)
    except (OSError, ValueError):
        return False


def exists(path: str) -> bool:
    """Rust ``Path::exists``: follows symlinks; any error counts as missing."""
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def _looks_like_bare_repo(path: str) -> bool:
    return (
        os.path.isfile(os.path.join(path, "HEAD"))
        and os.path.isdir(os.path.join(path, "objects"))
        and os.path.isdir(os.path.join(path, "refs"))
        and os.path.basename(path) != ".git"
    )


def discover_git_root(cwd: str) -> str | None:
    """The worktree root libgit2's ``Repository::discover(cwd).workdir()`` would give.

    Walks up from ``cwd`` looking for a ``.git`` directory or file (linked worktrees and
    submodules have a ``.git`` file); the nearest one wins, so nested repositories and
    submodules stop the walk. A bare repository has no worktree: ``None``. The result is
    canonical (symlinks resolved), without the trailing slash libgit2 adds.
    """
    current = canonical(cwd)
    while True:
        dot_git = os.path.join(current, ".git")
        if os.path.isdir(dot_git) or os.path.isfile(dot_git):
            return current
        if _looks_like_bare_repo(current):
            return None
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def is_within(path: str, root: str) -> bool:
    """Path-component prefix test (``Path::starts_with``)."""
    if path == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path.startswith(prefix)


def home_of(env: Mapping[str, str]) -> str:
    """``$HOME`` from ``env`` (the captured environment), else the process's ``~``."""
    return env.get("HOME") or os.path.expanduser("~")


def captured_environ() -> dict[str, str]:
    """A copy of the process environment, taken once by a shell (``rulelens lint``) and
    handed to everything it runs; the lint package itself never reads ``os.environ``."""
    return dict(os.environ)
