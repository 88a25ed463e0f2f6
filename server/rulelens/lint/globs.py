"""Scope globs: validity, and whether they match any file of the workspace.

Agents differ in glob dialect (picomatch in Claude, minimatch-like in Cursor and VS Code).
The translation here is deliberately *lenient*: ``**`` spans directories, ``*`` and ``?``
stay within one segment, ``[...]`` and ``{a,b}`` work, and a pattern without ``/`` also
matches a base name anywhere. Lenient matching can only hide a "matches nothing" finding,
never invent one.

A :class:`Workspace` (one per lint session, see :mod:`rulelens.lint.caches`) keeps the
listing of each project root for a few seconds (the language server lints on every
keystroke) until invalidated, and the answers per pattern; the listing prunes ``.git``,
``node_modules`` and directories ignored by the root ``.gitignore``, and stops at a file
budget (past it "matches nothing" is not reported, because it cannot be known).

Matching is linear in the path whatever the repository writes: a translation that could
make ``re`` backtrack (``**/a*a*…*b``, many alternations) runs on the Thompson NFA of
:mod:`rulelens.agents.linearre`, runs of ``*`` collapse, and a pattern over
:data:`MAX_GLOB` characters or nesting braces over :data:`MAX_NESTING` deep is reported
by :func:`problem` and never compiled.
"""

from __future__ import annotations

import os
import re
import threading
import time
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import islice, takewhile

from rulelens.agents.linearre import Matcher, compile_bounded
from rulelens.agents.record import home_of
from rulelens.rules.gitignore import GitIgnore, walk_unignored

_PRUNE = frozenset({".git", "node_modules", ".hg", ".svn", "__pycache__", ".venv"})
_TTL = 5.0
MAX_EXPANSIONS = 1000
#: Longest glob compiled; deepest brace nesting (the regex parser recurses per level).
MAX_GLOB = 4096
MAX_NESTING = 32


def problem(pattern: str) -> str | None:
    """Why ``pattern`` is invalid, or ``None``."""
    if not pattern.strip():
        return "empty pattern"
    if len(pattern) > MAX_GLOB:
        return (f"{len(pattern):,} characters, over the {MAX_GLOB:,} RuleLens matches; not"
                " checked")
    depth = deepest = 0
    i = 0
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            j = i + 1
            if j < n and pattern[j] in "!^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                return f"`[` at position {i + 1} has no closing `]`; the pattern matches nothing"
            i = j + 1
            continue
        if ch == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == "}":
            if depth == 0:
                return f"`}}` at position {i + 1} has no opening `{{`"
            depth -= 1
        i += 1
    if depth:
        return "unbalanced `{`: brace expansion has no closing `}`"
    if deepest > MAX_NESTING:
        return f"braces nested {deepest} deep, over the {MAX_NESTING} RuleLens matches; not checked"
    if _expansions(pattern) > MAX_EXPANSIONS:
        return (f"brace expansion gives more than {MAX_EXPANSIONS} patterns; Claude then uses"
                " the pattern literally and it matches nothing")
    return None


def _expansions(pattern: str) -> int:
    total = 1
    for group in re.findall(r"\{([^{}]*)\}", pattern):
        total *= max(1, group.count(",") + 1)
        if total > MAX_EXPANSIONS:
            break
    return total


def _literal_lead(pattern: str) -> str:
    """The characters every path :func:`compile_glob` matches starts with: the normalised
    pattern up to its first character that is not taken literally."""
    pat = pattern.strip().lstrip("/")
    if pat.startswith("./"):
        pat = pat[2:]
    return _SPECIAL.split(pat, 1)[0]


_SPECIAL = re.compile(r"[*?\[{},\\]")


def compile_glob(pattern: str) -> Matcher:
    """Translate a (valid) glob to an anchored matcher over ``/``-separated relative paths
    (linear in the path: see the module docstring)."""
    pat = pattern.strip().lstrip("/")
    if pat.startswith("./"):
        pat = pat[2:]
    out: list[str] = []
    i = 0
    n = len(pat)
    brace = 0
    while i < n:
        ch = pat[i]
        if ch == "*":
            if pat.startswith("**", i):
                j = i + 2
                while j < n and pat[j] == "*":  # `***`: the same as `**`
                    j += 1
                if j < n and pat[j] == "/":
                    out.append("(?:.*/)?")
                    i = j + 1
                    continue
                if not out or out[-1] != ".*":
                    out.append(".*")
                i = j
                continue
            if not out or out[-1] not in ("[^/]*", ".*"):
                out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            j = pat.find("]", i + 2 if i + 1 < n and pat[i + 1] in "!^]" else i + 1)
            body = pat[i + 1 : j]
            if body[:1] in "!^":
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = j + 1
            continue
        elif ch == "{":
            brace += 1
            out.append("(?:")
        elif ch == "}" and brace:
            brace -= 1
            out.append(")")
        elif ch == "," and brace:
            out.append("|")
        elif ch == "\\" and i + 1 < n:
            out.append(re.escape(pat[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(ch))
        i += 1
    body = "".join(out)
    return compile_bounded(f"(?:{body})(?:/.*)?$", re.DOTALL)


def split_comma(value: str) -> list[str]:
    """Split comma-separated globs, keeping commas inside ``{...}``."""
    if "{" not in value:  # no braces, no nesting: every comma splits
        return [p for p in map(str.strip, value.split(",")) if p]
    parts: list[str] = []
    depth = 0
    cur: list[str] = []
    for ch in value:
        if ch == "{":
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur).strip())
    return [p for p in parts if p]


def glob_list(value: object) -> list[str]:
    """The globs of a scope value: a comma-separated string (:func:`split_comma`) or a list
    of strings (other items skipped); nothing for any other value."""
    if isinstance(value, str):
        return split_comma(value)
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


@dataclass
class _Listing:
    paths: tuple[str, ...]
    names: frozenset[str]
    complete: bool
    at: float
    memo: dict[str, bool | None] = field(default_factory=dict)
    #: ``paths`` sorted, made on the first pattern with a literal lead.
    ordered: tuple[str, ...] | None = None


class Workspace:
    """Relative file paths of project roots, and what each glob pattern matches there."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        #: The environment lint's session captured (``HOME`` for global git excludes).
        self.environ: Mapping[str, str] = {} if environ is None else environ
        self._cache: dict[tuple[str, int], _Listing] = {}
        self._problems: dict[str, str | None] = {}
        self._lock = threading.Lock()

    def problem(self, pattern: str) -> str | None:
        """:func:`problem`, asked once per pattern (a tree repeats its globs)."""
        try:
            return self._problems[pattern]
        except KeyError:
            found = self._problems[pattern] = problem(pattern)
            return found

    def invalidate_paths(self, paths: Iterable[str] | None) -> None:
        """Forget the listings that ``paths`` (files changed on disk) may change."""
        if paths is None:
            self.invalidate()
            return
        for p in paths:
            self.invalidate(p)
            self.invalidate(os.path.dirname(p))

    def invalidate(self, root: str | None = None) -> None:
        with self._lock:
            if root is None:
                self._cache.clear()
            else:
                for key in [k for k in self._cache if k[0] == root]:
                    del self._cache[key]

    def listing(self, root: str, max_files: int) -> _Listing:
        key = (root, max_files)
        with self._lock:
            found = self._cache.get(key)
            if found is not None and time.monotonic() - found.at < _TTL:
                return found
        listing = _walk(root, max_files, self.environ)
        with self._lock:
            self._cache[key] = listing
        return listing

    def matches_any(self, root: str, pattern: str, max_files: int) -> bool | None:
        """Whether ``pattern`` matches a file (or directory) under ``root``; ``None`` = unknown."""
        listing = self.listing(root, max_files)
        if pattern in listing.memo:
            return listing.memo[pattern]
        found = _matches(listing, pattern)
        listing.memo[pattern] = found
        return found


def _matches(listing: _Listing, pattern: str) -> bool | None:
    rx = compile_glob(pattern)
    lead = _literal_lead(pattern)
    if lead:
        # The anchored regex only matches paths that start with the pattern's literal
        # lead (``packages/p3/`` of ``packages/p3/**``): only that slice of the sorted
        # listing is tried.
        ordered = listing.ordered
        if ordered is None:
            ordered = listing.ordered = tuple(sorted(listing.paths))
        candidates: Iterable[str] = takewhile(lambda p: p.startswith(lead),
                                              islice(ordered, bisect_left(ordered, lead), None))
    else:
        candidates = listing.paths
    if any(rx.match(p) for p in candidates):
        return True
    if "/" not in pattern.strip().strip("/") and any(rx.match(n) for n in listing.names):
        return True
    return False if listing.complete else None


def _walk(root: str, max_files: int, environ: Mapping[str, str]) -> _Listing:
    ignore = GitIgnore.build(root, home_of(environ), environ) \
        if os.path.exists(os.path.join(root, ".gitignore")) else None
    paths: list[str] = []
    names: set[str] = set()
    complete = True
    # Entries below a normalised root are ``root/…/name``: relpath is a slice then.
    prefix = len(root) + 1 if root != os.sep and os.path.normpath(root) == root \
        and os.path.isabs(root) and os.sep == "/" else 0
    for entry, _ in walk_unignored(root, _PRUNE, ignore):
        path = entry.path
        rel = path[prefix:] if prefix else os.path.relpath(path, root).replace(os.sep, "/")
        paths.append(rel)
        names.add(entry.name)
        if len(paths) >= max_files:
            complete = False
            break
    return _Listing(tuple(paths), frozenset(names), complete, time.monotonic())
