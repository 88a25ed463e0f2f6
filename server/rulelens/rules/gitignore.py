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
from dataclasses import dataclass, field
from typing import Protocol

from rulelens.agents import safeio
from rulelens.agents.fs import is_within
from rulelens.agents.linearre import LinearPattern, Unsupported, unbounded_repeats
from rulelens.agents.rusttext import lines

#: Patterns with more unbounded repeats (``*``, ``**``) than this run on the linear
#: matcher: Python's backtracking ``re`` takes time exponential in their number.
_BACKTRACK_SAFE = 2
#: The most pattern lines of one ignore file RuleLens evaluates (the rest are reported).
MAX_PATTERNS = 50_000
#: The most wildcard patterns (compiled regexes) RuleLens applies per repository.
MAX_GLOBS = 5_000
#: The most patterns needing the linear matcher RuleLens applies per repository.
MAX_LINEAR = 1_000
#: The most bytes of one ignore file RuleLens reads (the rest are reported).
MAX_IGNORE_BYTES = safeio.CONFIG_LIMIT


class _Matcher(Protocol):
    def match(self, text: str, /) -> object: ...
    def fullmatch(self, text: str, /) -> object: ...


@dataclass(frozen=True)
class IgnoreRule:
    source: str
    line: int
    pattern: str
    include: bool
    #: The pattern's regex (``pathspec``'s translation), as text.
    regex: str
    #: ``pathspec`` regexes match a path *or anything below it*; the agent's matcher tests
    #: each level on its own (``matched_path_or_any_parents``), so a match must end at the
    #: end of the probe. Only patterns ending in ``/**`` really match descendants.
    exact: bool = True
    #: Position in the matcher's rule list (later rules win).
    index: int = 0
    #: Run on :class:`~rulelens.agents.linearre.LinearPattern` (too many repeats for ``re``).
    linear: bool = False
    #: For a literal pattern: ``(literal, anchored, dir_only)``; looked up, not matched.
    literal: tuple[str, bool, bool] | None = None
    #: ``re.Pattern`` or ``LinearPattern``, compiled on first use.
    _compiled: list[_Matcher] = field(default_factory=list, compare=False, repr=False)

    def _matcher(self) -> _Matcher:
        if not self._compiled:
            self._compiled.append(LinearPattern(self.regex) if self.linear
                                  else re.compile(self.regex))
        return self._compiled[0]

    def matches(self, probe: str) -> bool:
        m = self._matcher()
        found = m.fullmatch(probe) if self.exact else m.match(probe)
        return found is not None and found is not False


@dataclass(frozen=True)
class _Parsed:
    """One gitignore line: ``(include, regex, exact)`` and, for a literal pattern, the
    literal and its form (``name``: any directory level; ``path``: from the root)."""

    include: bool
    regex: str
    exact: bool
    literal: str | None = None
    anchored: bool = False
    dir_only: bool = False
    #: Too many repeats for the backtracking ``re``: runs on the linear matcher.
    linear: bool = False


_ANY_DIRS = "^(?:.+/)?"
_END_ANY = "(?:(?P<ps_d>/)|$)"
_END_DIR = "(?P<ps_d>/)"
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def _literal_form(regex: str) -> tuple[str, bool, bool] | None:
    """``(literal, anchored, dir_only)`` when ``regex`` is a plain name or path, which
    then matches by string comparison: exactly when ``re.escape(literal)`` gives the
    regex body back, so the comparison means what the regex means."""
    for head, anchored in ((_ANY_DIRS, False), ("^", True)):
        if not regex.startswith(head):
            continue
        for tail, dir_only in ((_END_ANY, False), (_END_DIR, True)):
            if not regex.endswith(tail):
                continue
            body = regex[len(head):len(regex) - len(tail)]
            literal = _ESCAPE.sub(r"\1", body)
            if literal and re.escape(literal) == body and (anchored or "/" not in literal):
                return literal, anchored, dir_only
        return None
    return None


#: A line that is a plain name or path (``node_modules/``, ``/build``, ``!docs/x.md``):
#: no glob character, no blank, no empty segment.
_PLAIN = re.compile(r"(!?)(/?)([A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)*)(/?)\Z")


@functools.lru_cache(maxsize=4096)
def _compile(line: str) -> _Parsed | None:
    """One gitignore line translated; ``None`` for no pattern (or one that cannot be).

    A pure function of the line's text, memoised like :mod:`re` memoises compiled
    patterns: it hides no file-system state. A plain line is translated here, to the
    very value :func:`_translate` gives it (a test checks), 40 times faster: a
    100,000-line ``.gitignore`` of file names costs a fraction of a second.
    """
    plain = _PLAIN.match(line)
    if plain is None:
        return _translate(line)
    negated, lead, body, trail = plain.groups()
    anchored = bool(lead) or "/" in body
    regex = ("^" if anchored else _ANY_DIRS) + re.escape(body) + (
        _END_DIR if trail else _END_ANY)
    return _Parsed(not negated, regex, True, body, anchored, bool(trail))


def _translate(line: str) -> _Parsed | None:
    """:func:`_compile` through ``pathspec``'s translation (any line)."""
    # Imported on first use (~25 ms): a run over a tree without .gitignore never needs it.
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    try:
        regex, include = GitIgnoreSpecPattern.pattern_to_regex(line)
    except Exception:
        return None
    if include is None or not isinstance(regex, str):
        return None
    exact = "ps_d" in regex
    form = _literal_form(regex) if exact else None
    if form is not None:
        return _Parsed(bool(include), regex, exact, *form)
    return _Parsed(bool(include), regex, exact,
                   linear=unbounded_repeats(regex) > _BACKTRACK_SAFE)


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


def _last_name_only(rule: IgnoreRule) -> bool:
    """Whether ``rule`` can match a probe only through its last name (plus the ``/`` of a
    directory probe): a pattern with no ``/`` but a trailing one and no ``**`` is
    translated to ``(?:.+/)?`` + a body that matches no ``/`` + an end that allows one
    ``/`` at the very end (``\\Z``, an exact rule). Its regex minus that lead, tried
    on the last name, then decides exactly as the whole regex on the whole probe.
    Escapes and negated brackets are left out: ``[!x]`` becomes ``[^x]``, which matches
    ``/``."""
    text = rule.pattern.rstrip("/")
    return (rule.exact and rule.regex.startswith(_ANY_DIRS) and "/" not in text
            and not any(c in text for c in ("**", "\\", "[!", "[^")))


@dataclass(frozen=True)
class IgnoreMatch:
    """Which line of which file decided that a path is ignored."""

    source: str
    line: int
    pattern: str


@dataclass(frozen=True)
class IgnoreProblem:
    """Why RuleLens could not evaluate (all of) an ignore file as the agent does."""

    source: str
    detail: str


@dataclass
class _Loaded:
    """The patterns of one ignore file, with what could not be evaluated."""

    lines: list[tuple[int, str, _Parsed]] = field(default_factory=list)
    problems: list[IgnoreProblem] = field(default_factory=list)


def _read_patterns(path: str) -> _Loaded:
    """Patterns of one ignore file, like the ``ignore`` crate's ``add_line``.

    Lines are Rust ``lines``; a line starting with ``#`` is a comment (leading blanks are
    part of a pattern, as in git); a pattern the matcher cannot compile never matches.
    A FIFO or device is not read; a file over :data:`MAX_IGNORE_BYTES` or with more than
    :data:`MAX_PATTERNS` patterns is evaluated up to that bound, and the rest reported.
    """
    out = _Loaded()
    try:
        raw, truncated = safeio.read_head(path, MAX_IGNORE_BYTES)
    except safeio.NotAFileError as exc:
        if exc.kind != "a directory":
            out.problems.append(IgnoreProblem(path, f"{exc.strerror}; its patterns are not"
                                              " applied"))
        return out
    except OSError:
        return out
    if truncated:
        raw = raw[:raw.rfind(b"\n") + 1]
        out.problems.append(IgnoreProblem(
            path, f"larger than {MAX_IGNORE_BYTES} bytes; RuleLens applies only the lines"
            f" in the first {MAX_IGNORE_BYTES} bytes, the agent applies them all"))
    text = raw.decode("utf-8", "replace")
    for number, line in enumerate(lines(text), start=1):
        if line.startswith("#"):
            continue
        parsed = _compile(line)
        if parsed is None:
            continue
        if len(out.lines) == MAX_PATTERNS:
            out.problems.append(IgnoreProblem(
                path, f"more than {MAX_PATTERNS} patterns; RuleLens applies lines 1-"
                f"{out.lines[-1][0]}, the agent applies them all"))
            break
        out.lines.append((number, line, parsed))
    return out


def _git_configs(home: str, env: Mapping[str, str]) -> list[str]:
    """The global, XDG and system git configs, in the order their settings win."""
    xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config"),
            "/etc/gitconfig"]


def ignore_inputs(git_root: str, home: str, env: Mapping[str, str]) -> list[str]:
    """Every file :meth:`GitIgnore.build` reads or probes (present or not): whoever keeps
    a decision of it (``rulelens.lint.replay``) checks these for changes."""
    excludes = _git_config_excludes_file(home, env) or os.path.join(home, ".gitignore")
    return [os.path.join(git_root, ".gitignore"), *_git_configs(home, env), excludes]


def _git_config_excludes_file(home: str, env: Mapping[str, str]) -> str | None:
    """``core.excludesFile`` from the global, XDG or system git config (global wins)."""
    for cfg in _git_configs(home, env):
        value = _read_core_excludes(cfg)
        if value is not None:
            if value.startswith("~/"):
                value = os.path.join(home, value[2:])
            return value
    return None


def _read_core_excludes(path: str) -> str | None:
    try:
        text = safeio.read_head(path, safeio.CONFIG_LIMIT)[0].decode("utf-8", "replace")
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
    """The agent's gitignore matcher for one repository.

    Literal patterns (``node_modules/``, ``/build``, ``secret.md``) are looked up by name
    or path; the others are regexes, run by :mod:`re` when they backtrack harmlessly and
    by :class:`~rulelens.agents.linearre.LinearPattern` otherwise, so no line of any
    ``.gitignore`` can make a lookup take more than linear time.
    """

    def __init__(self, root: str, rules: list[IgnoreRule],
                 problems: tuple[IgnoreProblem, ...] = ()) -> None:
        self.root = root
        self.rules = rules
        self.problems = problems
        self._prefix = root if root.endswith("/") else root + "/"
        #: Literal rules by (literal, dir_only): every index, in order.
        self._names: dict[tuple[str, bool], list[int]] = {}
        self._paths: dict[tuple[str, bool], list[int]] = {}
        self._globs: list[IgnoreRule] = []
        tame: list[tuple[str, bool]] = []
        #: Tame rules that can only match a probe's last name (``*.pyc``, ``*.egg-info/``)
        #: are tested on that name alone: typespec's 44 globs over 18,500 paths,
        #: 0.78 s -> 0.13 s, most of the tree listing RL114 needs.
        tame_names: list[tuple[str, bool]] = []
        for rule in rules:
            if rule.literal is not None:
                literal, anchored, dir_only = rule.literal
                table = self._paths if anchored else self._names
                table.setdefault((literal, dir_only), []).append(rule.index)
                continue
            self._globs.append(rule)
            if rule.linear:
                continue
            if _last_name_only(rule):
                tame_names.append(("^" + rule.regex[len(_ANY_DIRS):], True))
            else:
                tame.append((rule.regex, rule.exact))
        self._any = _any_rule(tuple(tame))
        self._any_name = _any_rule(tuple(tame_names))
        self._any_failed = (bool(tame) and self._any is None) or (
            bool(tame_names) and self._any_name is None)
        #: Decisions per probe; parent directories are shared by every file below them.
        self._decided: dict[str, IgnoreRule | None] = {}

    @classmethod
    def build(cls, git_root: str, home: str, env: Mapping[str, str]) -> GitIgnore:
        rules: list[IgnoreRule] = []
        problems: list[IgnoreProblem] = []
        linear_count = glob_count = 0
        sources = [os.path.join(git_root, ".gitignore")]
        excludes = _git_config_excludes_file(home, env) or os.path.join(home, ".gitignore")
        if os.path.isfile(excludes):
            sources.append(excludes)
        for source in sources:
            loaded = _read_patterns(source)
            problems += loaded.problems
            for number, line, parsed in loaded.lines:
                linear = parsed.linear
                literal = (None if parsed.literal is None
                           else (parsed.literal, parsed.anchored, parsed.dir_only))
                rule = IgnoreRule(source, number, line, parsed.include, parsed.regex,
                                  parsed.exact, len(rules), linear, literal)
                if literal is None and not linear:
                    if glob_count == MAX_GLOBS:
                        problems.append(IgnoreProblem(source, (
                            f"more than {MAX_GLOBS} wildcard patterns; RuleLens does not"
                            f" apply line {number} and the wildcard ones after it, the"
                            " agent does")))
                    glob_count += 1
                    if glob_count > MAX_GLOBS:
                        continue
                if linear and linear_count == MAX_LINEAR:
                    problems.append(IgnoreProblem(source, (
                        f"more than {MAX_LINEAR} complex patterns (three or more `*`);"
                        f" RuleLens does not apply line {number} and the complex ones after"
                        " it, the agent does")))
                    linear_count += 1
                if linear and linear_count > MAX_LINEAR:
                    continue
                linear_count += linear
                if linear and not _runs_linear(rule):
                    problems.append(IgnoreProblem(source, (
                        f"line {number} (`{line}`) is too complex to match in bounded time;"
                        " RuleLens does not apply it, the agent does")))
                    continue
                rules.append(rule)
        return cls(git_root, rules, tuple(problems))

    def _literal_hit(self, rel: str) -> int:
        """The index of the last literal rule matching ``rel``, or -1."""
        is_dir = rel.endswith("/")
        core = rel[:-1] if is_dir else rel
        parent, slash, name = core.rpartition("/")
        best = -1
        for dir_only in (False, True) if is_dir else (False,):
            hits = self._paths.get((core, dir_only))
            if hits:
                best = max(best, hits[-1])
            # ``(?:.+/)?`` before the name: no parent, or one of >= 1 character, no "\n".
            if not slash or (parent and "\n" not in parent):
                hits = self._names.get((name, dir_only))
                if hits:
                    best = max(best, hits[-1])
        return best

    def _decide(self, rel: str) -> IgnoreRule | None:
        """The last rule matching ``rel`` exactly at this level, if any."""
        try:
            return self._decided[rel]
        except KeyError:
            pass
        best = self._literal_hit(rel) if (self._names or self._paths) else -1
        found: IgnoreRule | None = self.rules[best] if best >= 0 else None
        if self._globs:
            tame_may = self._any_failed or (
                self._any is not None and self._any.match(rel) is not None) or (
                self._any_name is not None
                and self._any_name.match(rel[rel.rfind("/", 0, len(rel) - 1) + 1:]) is not None)
            for rule in reversed(self._globs):
                if rule.index < best:
                    break
                if (rule.linear or tame_may) and rule.matches(rel):
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

    def is_ignored_dir(self, path: str) -> bool:
        """Whether the directory ``path`` is ignored (``build/``-style patterns apply), by
        the same cached per-level decisions as :meth:`match`."""
        if not self.rules:
            return False
        if path.startswith(self._prefix):
            rel = path[len(self._prefix):]
        elif is_within(path, self.root) and path != self.root:
            rel = os.path.relpath(path, self.root)
        else:
            return False
        probe = rel.replace(os.sep, "/").rstrip("/")
        while probe and probe != ".":
            rule = self._decide(probe + "/")
            if rule is not None:
                return rule.include
            probe = probe.rpartition("/")[0]
        return False


def _runs_linear(rule: IgnoreRule) -> bool:
    """Whether the linear matcher can run ``rule`` (an invalid regex never matches, as
    before; a construct it does not support is reported)."""
    try:
        rule._matcher()
    except Unsupported:
        return False
    except re.error:
        return True
    return True


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
