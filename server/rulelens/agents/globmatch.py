"""Scope globs (``paths:``, ``globs:``, ``applyTo:``) matched the picomatch way.

Matched against a ``/``-separated path relative to the glob's base: ``*`` and ``?`` stay
inside one segment, ``**`` spans segments (``a/**/b`` matches ``a/b``), ``{x,y}`` is an
alternation, ``[...]`` a class. A pattern without ``/`` is *not* matched against the
basename alone (``*.py`` matches ``x.py`` but not ``src/x.py``), as in the documented
Copilot example. None of the agents documents its dialect fully; the views say so.

A repository writes these globs, so matching is linear in the name whatever the pattern
(``**/a*a*a*…*b``, ``{a,a}`` x 28): risky translations run on the Thompson NFA of
:mod:`rulelens.agents.linearre`, runs of ``*`` collapse, and a pattern longer than
:data:`MAX_GLOB` characters or nesting braces deeper than :data:`MAX_NESTING` is not
matched at all (:func:`glob_problem` says why).
"""

from __future__ import annotations

import functools
import re

from rulelens.agents.linearre import Matcher, Unsupported, compile_bounded

#: Longest scope glob matched (a real one is a few dozen characters).
MAX_GLOB = 4096
#: Deepest ``{…}`` nesting matched (the regex parser recurses per level).
MAX_NESTING = 32


def split_globs(value: object) -> list[str]:
    """A frontmatter value as a list of globs: a YAML list, or one comma-separated string
    (commas inside ``{}`` do not split)."""
    if isinstance(value, list):
        return [str(v).strip() for v in value if isinstance(v, str) and v.strip()]
    if not isinstance(value, str):
        return []
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in value:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return [g.strip().strip("'\"") for g in out if g.strip().strip("'\"")]


def refused_notes(path: str, key: str, globs: list[str]) -> list[str]:
    """One note per glob of ``path``'s ``key`` that RuleLens will not match, and why."""
    return [f"{path}: {key}: {problem}" for g in globs
            if (problem := glob_problem(g)) is not None]


def glob_problem(pattern: str) -> str | None:
    """Why RuleLens does not match ``pattern`` at all, or ``None``: one line."""
    if len(pattern) > MAX_GLOB:
        return f"a glob of {len(pattern):,} characters (over {MAX_GLOB:,}) is not matched"
    depth = deepest = 0
    for ch in pattern:
        if ch == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == "}":
            depth = max(0, depth - 1)
    if deepest > MAX_NESTING:
        return f"braces nested {deepest} deep (over {MAX_NESTING}) are not matched"
    return None


@functools.lru_cache(maxsize=1024)
def _compile(pattern: str) -> Matcher | None:
    if glob_problem(pattern) is not None:
        return None
    pattern = pattern.strip()
    if pattern.startswith("./"):
        pattern = pattern[2:]
    pattern = pattern.lstrip("/")
    out: list[str] = []
    i, n, brace = 0, len(pattern), 0
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                at_start = i == 0 or pattern[i - 1] == "/"
                j = i + 2
                if at_start and (j == n or pattern[j] == "/"):
                    if j == n:
                        out.append(".*")
                        i = j
                    else:
                        out.append("(?:[^/]*/)*")
                        i = j + 1
                    continue
                if not out or out[-1] != "[^/]*":
                    out.append("[^/]*")
                i = j
                continue
            if not out or out[-1] != "[^/]*":  # `**` inside a segment, `***`: one star
                out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            close = pattern.find("]", i + 2 if pattern[i + 1: i + 2] in ("!", "^") else i + 1)
            if close < 0:
                return None
            body = pattern[i + 1: close]
            if body[:1] in ("!", "^"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = close
        elif c == "{":
            brace += 1
            out.append("(?:")
        elif c == "}" and brace:
            brace -= 1
            out.append(")")
        elif c == "," and brace:
            out.append("|")
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    if brace:
        return None
    try:
        return compile_bounded("".join(out) + r"\Z")
    except (re.error, Unsupported, RecursionError):
        return None


def matches(pattern: str, relpath: str) -> bool:
    """Does ``pattern`` match ``relpath`` (``/``-separated, relative to the glob's base)?"""
    rx = _compile(pattern)
    return bool(rx and rx.match(relpath))


def first_match(patterns: list[str], relpath: str) -> str | None:
    for p in patterns:
        if matches(p, relpath):
            return p
    return None
