"""The gitignore filter exactly as the agent builds it (spec §3.4), with the matching line.

One matcher rooted at the git root, from ``<root>/.gitignore`` then the global excludes
file (``core.excludesFile`` from the global, XDG or system git config; else
``~/.gitignore``; git's own ``~/.config/git/ignore`` default is *not* used). Nested
``.gitignore`` files and ``.git/info/exclude`` are ignored, as the agent ignores them.
Paths outside the root are never ignored. A path is tested, then each parent directory;
the first of those with a matching pattern decides (the ``ignore`` crate's
``matched_path_or_any_parents``). Within one path, the last matching pattern wins.
Because the file itself is tested first, ``!build/AGENTS.md`` re-includes that file even
when ``build/`` ignores its directory, whichever line comes first; git itself would not.

Pattern semantics come from ``pathspec``'s gitignore implementation; its agreement with
the Rust ``ignore`` crate on exotic patterns is not proven (spec §11).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from rulelens.agents.fs import is_within
from rulelens.agents.rusttext import lines


@dataclass(frozen=True)
class IgnoreRule:
    source: str
    line: int
    pattern: str
    include: bool
    regex: re.Pattern[str]
    #: ``pathspec`` regexes match a path *or anything below it*; the agent's matcher tests
    #: each level on its own (``matched_path_or_any_parents``), so a match must end at the
    #: end of the probe. Only patterns ending in ``/**`` really match descendants.
    exact: bool = True

    def matches(self, probe: str) -> bool:
        if self.exact:
            return self.regex.fullmatch(probe) is not None
        return self.regex.match(probe) is not None


@functools.lru_cache(maxsize=4096)
def _compile(line: str) -> tuple[bool, re.Pattern[str], bool] | None:
    """One gitignore line to ``(include, regex, exact)``; ``None`` for no pattern.

    A pure function of the line's text, memoised like :mod:`re` memoises compiled
    patterns: it hides no file-system state.
    """
    try:
        pat = GitIgnoreSpecPattern(line)
    except Exception:
        return None
    if pat.include is None or pat.regex is None:
        return None
    return bool(pat.include), pat.regex, "ps_d" in pat.regex.pattern


@functools.lru_cache(maxsize=256)
def _any_rule(patterns: tuple[tuple[str, bool], ...]) -> re.Pattern[str] | None:
    """One regex that matches a probe iff at least one rule does (a fast "no" path)."""
    if not patterns:
        return None
    parts = []
    for pattern, exact in patterns:
        body = _GROUP_NAME.sub("(?:", pattern[1:] if pattern.startswith("^") else pattern)
        parts.append("(?:" + body + (r")\Z" if exact else ")"))
    try:
        return re.compile("^(?:" + "|".join(parts) + ")")
    except re.error:
        return None


_GROUP_NAME = re.compile(r"\(\?P<[^>]+>")


@dataclass(frozen=True)
class IgnoreMatch:
    """Which line of which file decided that a path is ignored."""

    source: str
    line: int
    pattern: str


def _read_patterns(path: str) -> list[IgnoreRule]:
    """Patterns of one ignore file, like the ``ignore`` crate's ``add_line``.

    Lines are Rust ``lines``; a line starting with ``#`` is a comment (leading blanks are
    part of a pattern, as in git); a pattern the matcher cannot compile never matches.
    """
    try:
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return []
    rules: list[IgnoreRule] = []
    for number, line in enumerate(lines(text), start=1):
        if line.startswith("#"):
            continue
        compiled = _compile(line)
        if compiled is None:
            continue
        include, regex, exact = compiled
        rules.append(IgnoreRule(path, number, line, include, regex, exact))
    return rules


def _git_config_excludes_file(home: str, env: Mapping[str, str]) -> str | None:
    """``core.excludesFile`` from the global, XDG or system git config (global wins)."""
    xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    candidates = [
        os.path.join(home, ".gitconfig"),
        os.path.join(xdg, "git", "config"),
        "/etc/gitconfig",
    ]
    for cfg in candidates:
        value = _read_core_excludes(cfg)
        if value is not None:
            if value.startswith("~/"):
                value = os.path.join(home, value[2:])
            return value
    return None


def _read_core_excludes(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return None
    section = ""
    found: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line[1:].split("]", 1)[0].strip().lower()
            continue
        if section == "core" and "=" in line:
            key, value = line.split("=", 1)
            if key.strip().lower() == "excludesfile":
                found = value.strip().strip('"')
    return found


class GitIgnore:
    """The agent's gitignore matcher for one repository."""

    def __init__(self, root: str, rules: list[IgnoreRule]) -> None:
        self.root = root
        self.rules = rules
        self._prefix = root if root.endswith("/") else root + "/"
        self._any = _any_rule(tuple((r.regex.pattern, r.exact) for r in rules))
        #: Decisions per probe; parent directories are shared by every file below them.
        self._decided: dict[str, IgnoreRule | None] = {}

    @classmethod
    def build(cls, git_root: str, home: str, env: Mapping[str, str]) -> GitIgnore:
        rules = _read_patterns(os.path.join(git_root, ".gitignore"))
        excludes = _git_config_excludes_file(home, env) or os.path.join(home, ".gitignore")
        if os.path.isfile(excludes):
            rules += _read_patterns(excludes)
        return cls(git_root, rules)

    def _decide(self, rel: str) -> IgnoreRule | None:
        """The last rule matching ``rel`` exactly at this level, if any."""
        try:
            return self._decided[rel]
        except KeyError:
            pass
        found: IgnoreRule | None = None
        if self._any is None or self._any.match(rel) is not None:
            for rule in reversed(self.rules):
                if rule.matches(rel):
                    found = rule
                    break
        self._decided[rel] = found
        return found

    def match(self, path: str) -> IgnoreMatch | None:
        """The pattern that ignores ``path`` (as spelled, not canonicalised), or ``None``."""
        if not self.rules:
            return None
        if path.startswith(self._prefix):
            rel = path[len(self._prefix):]
        elif is_within(path, self.root) and path != self.root:
            rel = os.path.relpath(path, self.root)
        else:
            return None
        rel = rel.replace(os.sep, "/")
        probe = rel
        is_directory = False
        while probe and probe != ".":
            rule = self._decide(probe + "/" if is_directory else probe)
            if rule is not None:
                if rule.include:
                    return IgnoreMatch(rule.source, rule.line, rule.pattern)
                return None
            probe = probe.rpartition("/")[0]
            is_directory = True
        return None

    def is_ignored(self, path: str) -> bool:
        return self.match(path) is not None


def walk_unignored(top: str, prune: frozenset[str],
                   ignore: GitIgnore | None) -> Iterator[tuple[os.DirEntry[str], bool | None]]:
    """Entries below ``top``, depth first, each with whether it is a directory (``None``
    when that cannot be told; such an entry is not entered).

    Names in ``prune`` and paths ``ignore`` matches are skipped with everything below
    them; a directory that cannot be listed is passed over. Leave the loop to stop early.
    One walk for the lint workspace listing ("glob matches no file") and the language
    server's count of files an agent could work on: both see the tree the agent sees.
    """
    stack = [top]
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.name in prune:
                continue
            if ignore is not None and ignore.match(entry.path) is not None:
                continue
            is_dir: bool | None
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = None
            if is_dir:
                stack.append(entry.path)
            yield entry, is_dir
