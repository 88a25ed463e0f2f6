"""How old an instruction file is next to the code it governs (issue #23 item 5).

For a loaded instruction file: when it last changed (its last commit) and how many commits
touched the paths it governs since then (its folder for a named file such as
``packages/web/AGENTS.md``; its scope globs for a scoped rule), the file itself left out.
Information for the hover, not a lint finding.

Read from ``git`` (``git log`` / ``git rev-list``, no shell, arguments never from a
shell string), each call bounded by :data:`TIMEOUT` seconds and the count by
:data:`MAX_COUNT`; outside a git repository, for an untracked file, or when git is
missing or slow, the answer is ``None`` (the hover shows nothing).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

#: Seconds one git call may take.
TIMEOUT = 2.0
#: Commits counted at most ("1000+").
MAX_COUNT = 1000
#: Settings that keep git from running repository-configured programs for a read.
_SAFE = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
         "-c", "diff.external=")


@dataclass(frozen=True)
class Age:
    """``last_change``: Unix time of the file's last commit; ``commits_since``: commits
    touching what it governs after that (capped at :data:`MAX_COUNT`)."""

    path: str
    last_change: int
    commits_since: int
    governs: tuple[str, ...]

    @property
    def capped(self) -> bool:
        return self.commits_since >= MAX_COUNT


def _git(root: str, *args: str) -> str | None:
    try:
        proc = subprocess.run(["git", *_SAFE, "-C", root, *args], capture_output=True,
                              text=True, timeout=TIMEOUT, check=False,
                              env={**os.environ, "GIT_OPTIONAL_LOCKS": "0",
                                   "GIT_TERMINAL_PROMPT": "0"})
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def governed(path: str, root: str, scopes: Sequence[str] = ()) -> tuple[str, ...]:
    """Pathspecs of what ``path`` governs: its scope globs (relative to the repository)
    or, for a named file, its folder (a rules directory's file: its owner folder)."""
    if scopes:
        return tuple(f":(glob){s.strip().lstrip('/')}" for s in scopes if s.strip())
    directory = os.path.dirname(path)
    parts = os.path.relpath(directory, root).split(os.sep)
    for i, part in enumerate(parts):  # `.cursor/rules/x.mdc` governs the folder above
        if part.startswith(".") and part not in (".", ".."):
            parts = parts[:i]
            break
    rel = "/".join(p for p in parts if p not in ("", "."))
    return (rel + "/",) if rel else (".",)


def file_age(path: str, root: str, scopes: Sequence[str] = ()) -> Age | None:
    """The :class:`Age` of the instruction file at ``path`` in the repository at
    ``root``; ``None`` outside git, for an untracked file, or when git does not answer
    in time."""
    rel = os.path.relpath(path, root)
    if rel.startswith(".."):
        return None
    out = _git(root, "log", "-1", "--format=%H %ct", "--", rel)
    fields = out.split() if out else []
    if len(fields) != 2 or not fields[1].isdigit():
        return None
    commit, last = fields[0], int(fields[1])
    specs = governed(path, root, scopes)
    counted = _git(root, "rev-list", "--count", f"--max-count={MAX_COUNT}",
                   f"{commit}..HEAD", "--", *specs, f":(exclude){rel}")
    if counted is None or not counted.strip().isdigit():
        return None
    return Age(path, last, int(counted.strip()), specs)


def describe(age: Age, now: float) -> str:
    """``changed 3 months ago; 42 commits to packages/web/ since``."""
    days = max(0, int((now - age.last_change) // 86400))
    when = "today" if days == 0 else f"{days} day{'s' if days != 1 else ''} ago" \
        if days < 60 else f"{days // 30} months ago"
    count = f"{MAX_COUNT}+" if age.capped else str(age.commits_since)
    where = ", ".join(s.removeprefix(":(glob)") for s in age.governs)
    return f"changed {when}; {count} commit{'' if count == '1' else 's'} to {where} since"
