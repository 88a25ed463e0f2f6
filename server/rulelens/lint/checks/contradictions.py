"""Contradictions between two files one agent loads together (RL406).

Claims are read per file on four subjects: the package manager, the test runner, the
formatter and the indentation, plus "always X" / "never X" on the same action and object.
A sentence that names two choices ("npm for the docs site, pnpm elsewhere"), or limits
itself (``when``, ``unless``, ``except``, ``only``, ``in `dir```), is scoped wording and
claims nothing. A file that claims two choices itself is not judged on that subject.

Partners are the instruction files that can load with this one: named files of the same
and every ancestor folder and the rule files of those folders' rules directories (sibling
folders never load together). A pair is reported once, on the deeper file (or, in one
folder, the later name), and only when some agent of the registry loads both for a file
in the deeper file's folder: the message names both files and lines and, per agent that
loads both, which one it sees last (its view's order: deeper last for Grok and Codex,
OpenCode's deepest-first merge, Zed's single file never pairs). A file reached under two
names (``CLAUDE.md -> AGENTS.md``) is one file: compared once, under its first name, and
a symbolic link to a file the partners hold reports nothing (that file does).

Work per run: each text's claims are read once (:class:`TextClaims`, kept by the
session's :attr:`~rulelens.lint.caches.LintCaches.claims`), only on lines where a claim
can start; each folder's files are listed and indexed by subject once, so a document is
compared only with the files that claim something against it.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass

from rulelens.agents.profiles import PROFILES
from rulelens.lint.checks.agents import agent_env
from rulelens.lint.context import Context
from rulelens.lint.formats import RULE_DIRS, SCOPE_KEY
from rulelens.lint.globs import compile_glob, glob_list
from rulelens.lint.model import Range, Related

CODES = ("RL406",)

_SUBJECTS: dict[str, tuple[str, ...]] = {
    "package manager": ("npm", "pnpm", "yarn", "bun"),
    "test runner": ("jest", "vitest", "mocha", "ava", "pytest", "unittest"),
    "formatter": ("prettier", "biome", "black", "dprint", "ruff format", "yapf", "autopep8"),
}
#: "use `pnpm exec x`", "do not use `pnpm add`": a command of the tool, not a choice of it.
_SUBCOMMANDS = (r"(?:add|exec|install|i|run|dlx|x|test|build|remove|update|link|publish"
                r"|audit|why|ci|format|check|lint)")
_CHOICE = {s: re.compile(
    r"\b(?:use|uses|using|prefer|run (?:tests |it |them )?with|written (?:in|with)|"
    r"managed (?:by|with)|(?:" + re.escape(s) + r")\s*(?:is|:))\s+`?("
    + "|".join(re.escape(c) for c in cs) + r")(?:`|(?![\w-])(?!\s+" + _SUBCOMMANDS + r"\b))",
    re.IGNORECASE)
    for s, cs in _SUBJECTS.items()}
_NEVER_CHOICE = {s: re.compile(
    r"\b(?:never|do not|don't|must not|avoid|no)\s+(?:use\s+)?`?("
    + "|".join(re.escape(c) for c in cs) + r")(?:`|(?![\w-])(?!\s+" + _SUBCOMMANDS + r"\b))",
    re.IGNORECASE)
    for s, cs in _SUBJECTS.items()}
_INDENT = re.compile(r"\bindent\w*\b[^.\n]*?\b(?:with\s+)?(\d)[- ]spaces?\b|\b(\d)[- ]spaces?\b"
                     r"[^.\n]*?\bindent|\bindent\w*\b[^.\n]*?\b(tabs)\b", re.IGNORECASE)
_VERB = (r"(use|run|add|commit|call|import|write|include|enable|disable|create|edit|modify"
         r"|delete|push|mock|install)")
_ACTION = _VERB + (r"\s+(?:(?:a|an|the|any|new|your|this|that|these)\s+)?"
                   r"(`[^`\n]+`|[\w@./:-]{3,})")
_ALWAYS = re.compile(r"\b(?:always|must)\s+" + _ACTION, re.IGNORECASE)
_NEVER = re.compile(r"\b(?:never|must not|mustn't|do not|don't)\s+" + _ACTION, re.IGNORECASE)
_SCOPED = re.compile(r"\b(?:when|unless|except|only|if|for the|inside|under|in `|elsewhere"
                     r"|otherwise|instead of|rather than|but)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_POLARITY = re.compile(r"\b(?:always|never|must|mustn't|don't|do not)\b", re.IGNORECASE)
#: Findings per document at most (a file that contradicts a whole rules directory says so
#: in a few lines, not hundreds).
_MAX = 5
#: Instruction files a folder's partner listing may hold for every agent's load order to
#: be computed there (see _loaded_together); past it, Grok's chain alone answers. A bound
#: on the folder, not on the run, so the findings never depend on `--jobs`.
MAX_VIEW_FILES = 150
#: Files of the workspace listing tried for a target that two scoped rules both apply to.
MAX_TARGETS = 5_000
#: Larger texts are not read for claims (bounded work per file; a rule file is short).
MAX_CLAIM_CHARS = 64 * 1024
#: Lines worth splitting into sentences: one search per line, most lines have none.
_TRIGGER = re.compile(r"\b(?:use[sd]?|using|prefer|always|never|must|mustn't|don't|do not"
                      r"|avoid|indent\w*|written|managed|runner|formatter|package manager)\b",
                      re.IGNORECASE)
_ANY_CHOICE = re.compile(r"(?<![\w-])(?:" + "|".join(
    re.escape(c) for cs in _SUBJECTS.values() for c in cs) + r")(?![\w-])", re.IGNORECASE)
_NAMED = {s: re.compile(r"(?<![\w-])(" + "|".join(re.escape(c) for c in cs) + r")(?![\w-])",
                        re.IGNORECASE) for s, cs in _SUBJECTS.items()}

#: Where a claim can be: a choice, an indentation, always / never before an action. Each
#: sentence test above matches only where this does, so a line without it claims nothing.
_CANDIDATE = re.compile(_ANY_CHOICE.pattern + r"|ndent|\b(?:always|must(?:[^\S\n]+not)?"
                        r"|never|mustn't|do not|don't)[^\S\n]+" + _VERB + r"[^\S\n]",
                        re.IGNORECASE)
#: The same in lowered ASCII text, boundaries left out (3x faster: a literal alternation
#: without look-behind); the choices only when one of :data:`_WORDS` occurs.
_RULE_LOW = re.compile(r"(?:always|must(?:[^\S\n]+not)?|never|mustn't|do not|don't)[^\S\n]+"
                       + _VERB + r"[^\S\n]")
_WORDS = (*(c for cs in _SUBJECTS.values() for c in cs), "ndent")
_CANDIDATE_LOW = re.compile(_RULE_LOW.pattern + "|" + "|".join(re.escape(w) for w in _WORDS))
#: :data:`_WORDS` less those holding another (``pnpm`` holds ``npm``): one scan each.
_NEEDLES = tuple(w for w in _WORDS if not any(o != w and o in w for o in _WORDS))
#: The characters ``IGNORECASE`` matches to an ASCII letter that ``lower()`` does not
#: lower to it (``İ`` lowers to two characters), mapped to ones it does.
_FOLD_ODD = {0x130: "I", 0x131: "i", 0x17F: "s"}


@dataclass(frozen=True)
class Claim:
    subject: str  # "package manager", "always: use foo", ...
    value: str  # "pnpm", "yes"/"no" for always/never
    line: int
    text: str


def claims(text: str) -> list[Claim]:
    """Unscoped claims of ``text``, fenced code left out; subjects with two values in the
    same file dropped."""
    return _settle(_raw_claims(text, _fence_lines(text)))


def _settle(raw: list[Claim]) -> list[Claim]:
    """``raw`` without the subjects it gives two values."""
    by_subject: dict[str, set[str]] = {}
    for c in raw:
        by_subject.setdefault(c.subject, set()).add(c.value)
    return [c for c in raw if len(by_subject[c.subject]) == 1]


def _raw_claims(text: str, fences: list[int]) -> list[Claim]:
    """Every unscoped claim outside the fences (lines ``fences`` open or close), in order.

    Only lines where a claim can start are split into sentences: word-salad text says
    "always" on every line and an action after it on few."""
    out: list[Claim] = []
    low = _lowered(text)
    if len(low) != len(text):  # positions must agree (they do with today's Unicode tables)
        low, found = text, _CANDIDATE
    else:
        found = _CANDIDATE_LOW if any(w in low for w in _NEEDLES) else _RULE_LOW
    pos = counted = n = 0
    while (m := found.search(low, pos)) is not None:
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.start())
        end = len(text) if end < 0 else end
        n += text.count("\n", counted, start)
        counted = start
        pos = end + 1
        k = bisect_left(fences, n)
        if k % 2 or (k < len(fences) and fences[k] == n):
            continue  # inside a fence, or a fence line
        line = text[start:end]
        if not _TRIGGER.search(line):
            continue
        # Where claims can start on this line; a sentence without one claims nothing (no
        # match holds a sentence's end, so each lies in one sentence).
        at = [c.start() - start for c in found.finditer(low, m.start(), end)]
        for s in _SENTENCE.finditer(line):
            if any(s.start() <= a < s.end() for a in at):
                sentence = s.group()
                if not _SCOPED.search(sentence):
                    out.extend(_sentence_claims(sentence, n, found is not _RULE_LOW))
    return out


def _lowered(text: str) -> str:
    """``text`` lowered, position for position, so that a plain search finds at least
    what an ``IGNORECASE`` one finds (``İ``, ``ı`` and ``ſ`` match ``i``/``s`` there)."""
    if not text.isascii() and any(chr(c) in text for c in _FOLD_ODD):
        text = text.translate(_FOLD_ODD)
    return text.lower()


def _fence_lines(text: str) -> list[int]:
    """Numbers of the lines that open or close a fence (``` or ~~~ after white space
    only), in order."""
    starts: set[int] = set()
    for marker in ("```", "~~~"):
        i = text.find(marker)
        while i >= 0:
            start = text.rfind("\n", 0, i) + 1
            if start == i or text[start:i].isspace():
                starts.add(start)
            end = text.find("\n", i)
            i = -1 if end < 0 else text.find(marker, end + 1)
    out: list[int] = []
    n = counted = 0
    for start in sorted(starts):
        n += text.count("\n", counted, start)
        counted = start
        out.append(n)
    return out


def _sentence_claims(sentence: str, n: int, choices: bool = True) -> Iterator[Claim]:
    """The claims of one sentence (``choices``: whether the text names a tool at all)."""
    if choices and _ANY_CHOICE.search(sentence):
        for subject in _SUBJECTS:
            named = {m.lower() for m in _NAMED[subject].findall(sentence)}
            if len(named) != 1:
                continue  # none, or a contrast of two ("npm for docs, pnpm elsewhere")
            neg = _NEVER_CHOICE[subject].search(sentence)
            if neg:
                yield Claim(f"not {subject}", neg.group(1).lower(), n, sentence.strip())
                continue
            pos = _CHOICE[subject].search(sentence)
            if pos:
                yield Claim(subject, pos.group(1).lower(), n, sentence.strip())
    if "ndent" in sentence:
        m = _INDENT.search(sentence)
        if m:
            yield Claim("indentation", (m.group(1) or m.group(2) or "tabs").lower(), n,
                        sentence.strip())
    if len(_POLARITY.findall(sentence)) != 1:
        return  # none, or "never always run x": no rule claim
    always = list(_ALWAYS.finditer(sentence))
    never = list(_NEVER.finditer(sentence))
    if len(always) + len(never) == 1:
        for m in always:
            yield Claim(f"rule: {_key(m)}", "always", n, sentence.strip())
        for m in never:
            yield Claim(f"rule: {_key(m)}", "never", n, sentence.strip())


def _key(m: re.Match[str]) -> str:
    return f"{m.group(1).lower()} {m.group(2).strip('`').rstrip('.,;:!?').lower()}"


Index = dict[str, dict[str, Claim]]


def index(claims_: list[Claim]) -> Index:
    """Subject -> value -> the first claim saying it (what :func:`conflicts` looks up)."""
    out: Index = {}
    for c in claims_:
        out.setdefault(c.subject, {}).setdefault(c.value, c)
    return out


def conflicts(mine: list[Claim], theirs: Index) -> Iterator[tuple[Claim, Claim, str]]:
    """``(my claim, their claim, subject)`` for each pair that cannot both hold: two
    values of one subject, or a value one file chooses and the other forbids; one per
    subject."""
    seen: set[str] = set()
    for a in mine:
        negative = a.subject.startswith("not ")
        subject = a.subject.removeprefix("not ")
        if subject in seen:
            continue
        found: Claim | None = None
        if negative:
            found = theirs.get(subject, {}).get(a.value)
        else:
            found = next((b for v, b in theirs.get(subject, {}).items() if v != a.value), None)
            if found is None:
                found = theirs.get(f"not {subject}", {}).get(a.value)
        if found is not None:
            seen.add(subject)
            yield a, found, subject


class TextClaims:
    """One text's claims, read once per session (a file is a document once and a partner
    of every file below it; :attr:`~rulelens.lint.caches.LintCaches.claims` holds them)."""

    __slots__ = ("_index", "fences", "raw", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.fences = _fence_lines(text)
        self.raw = _raw_claims(text, self.fences)
        self._index: Index | None = None

    def index(self) -> Index:
        """The whole text's claims by subject and value (as a partner sees them)."""
        if self._index is None:
            self._index = index(_settle(self.raw))
        return self._index

    def body(self, line: int, offset: int) -> list[Claim]:
        """:func:`claims` of the text from ``line`` (at ``offset``) on, numbered from there."""
        if line == 0:
            return _settle(self.raw)
        if self.fences and self.fences[0] < line:
            return claims(self.text[offset:])  # a fence opened above reads differently
        return _settle([Claim(c.subject, c.value, c.line - line, c.text)
                        for c in self.raw if c.line >= line])


def text_claims(held: dict[str, list[TextClaims]], path: str, text: str) -> TextClaims:
    """The claims of ``path`` read as ``text``, made once per text (the editor's text and
    the disk's may differ: the last two are kept)."""
    seen = held.setdefault(path, [])
    for t in seen:
        if t.text is text or t.text == text:
            return t
    made = TextClaims(text)
    seen.insert(0, made)
    del seen[2:]
    return made


@dataclass(frozen=True)
class _Entry:
    """An instruction file of one folder: as spelled, its real path, its owner folder and
    whether the name itself is a symbolic link."""

    path: str
    real: str
    owner: str
    link: bool


class _Folder:
    """One folder's instruction files and (made when first asked) their claims by subject."""

    def __init__(self, entries: list[_Entry]) -> None:
        self.entries = entries
        self.claims: list[Index] = []
        #: Subject -> value -> positions in :attr:`entries` of the files claiming it.
        self.by_subject: dict[str, dict[str, list[int]]] | None = None

    def subjects(self, ctx: Context) -> dict[str, dict[str, list[int]]]:
        if self.by_subject is None:
            self.by_subject = {}
            for i, e in enumerate(self.entries):
                text = ctx.caches.related.get(e.path, ctx.disk).text
                found = text_claims(ctx.caches.claims, e.path, text).index() \
                    if len(text) <= MAX_CLAIM_CHARS else {}
                self.claims.append(found)
                for subject, values in found.items():
                    by_value = self.by_subject.setdefault(subject, {})
                    for value in values:
                        by_value.setdefault(value, []).append(i)
        return self.by_subject


class _Partners:
    """The files that can load with a document of one folder: the named files and rule
    files of that folder and of each ancestor up to the repository root, in that order
    (listed once per folder and session)."""

    def __init__(self, owner: str, folders: list[_Folder]) -> None:
        self.folders = folders
        self.entries = [e for f in folders for e in f.entries]
        #: Files above this folder (reported on the deeper file: always partners).
        self.above = [e.path for e in self.entries
                      if e.owner != owner and len(owner) > len(e.owner)]
        #: This folder's own files, by path (a partner when its path sorts first).
        self.here = sorted(e.path for e in self.entries if e.owner == owner)
        self.by_real: dict[str, list[_Entry]] = {}
        for e in self.entries:
            self.by_real.setdefault(e.real, []).append(e)

    def of(self, ctx: Context, mine: str) -> list[str]:
        """The partners of the document (real path ``mine``): files above, and files of
        its folder whose path sorts before its own, the document itself left out."""
        out = self.above + self.here[:bisect_left(self.here, ctx.doc.path)]
        same = {e.path for e in self.by_real.get(mine, ())}
        return [p for p in out if p not in same] if same else out

    def reporter(self, real: str) -> str | None:
        """The spelling that reports a file reached under several: the file itself, else
        the one nearest the root (its folder's chain holds the others' partners)."""
        spellings = self.by_real.get(real)
        if not spellings:
            return None
        return next((e.path for e in spellings if not e.link), spellings[-1].path)

    def conflicting(self, ctx: Context, mine: list[Claim]) -> list[tuple[_Entry, Index]]:
        """The files (in partner order) with a claim that contradicts one of ``mine``, with
        their claims: what :func:`conflicts` would find, looked up by subject."""
        hits: set[tuple[int, int]] = set()
        for k, folder in enumerate(self.folders):
            by_subject = folder.subjects(ctx)
            for a in mine:
                if a.subject.startswith("not "):
                    hits.update((k, i) for i in by_subject.get(a.subject[4:], {})
                                .get(a.value, ()))
                    continue
                for value, ids in by_subject.get(a.subject, {}).items():
                    if value != a.value:
                        hits.update((k, i) for i in ids)
                hits.update((k, i) for i in by_subject.get("not " + a.subject, {})
                            .get(a.value, ()))
        return [(self.folders[k].entries[i], self.folders[k].claims[i]) for k, i in sorted(hits)]


def _partners(ctx: Context) -> _Partners:
    """The partner listing for the document's folder, made once per folder and session."""
    owner = ctx.doc.fmt.owner
    key = ("RL406 partners", owner)
    found = ctx.caches.memo.get(key)
    if not isinstance(found, _Partners):
        found = ctx.caches.memo[key] = _Partners(owner, _folders(ctx))
    return found


def _folders(ctx: Context) -> list[_Folder]:
    """The document's folder and each ancestor up to the repository root."""
    root = ctx.git_root
    if root is None:
        return []
    out: list[_Folder] = []
    directory = ctx.doc.fmt.owner
    root = os.path.normpath(root)
    while True:
        out.append(_folder(ctx, directory))
        if os.path.normpath(directory) == root or not directory.startswith(root):
            break
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return out


def _folder(ctx: Context, directory: str) -> _Folder:
    """One folder's instruction files, listed once per session (every document below it
    asks again)."""
    key = ("RL406 folder", directory)
    found = ctx.caches.memo.get(key)
    if isinstance(found, _Folder):
        return found
    try:  # one listing instead of a probe per name (~30 per folder); any case (macOS)
        listed = {e.lower() for e in os.listdir(directory)}
    except OSError:
        listed = None  # not listable: probe every name

    def present(name: str) -> bool:
        return listed is None or name.split("/", 1)[0].lower() in listed

    # The registry's agents' rows (not the registry: importing every agent's module costs
    # ~30 ms, and a run with no contradiction needs none of them).
    names = sorted({n.name for row in PROFILES for n in row.named_files})
    paths = [os.path.join(directory, n) for n in names
             if present(n) and os.path.isfile(os.path.join(directory, n))]
    for container, sub, _ in RULE_DIRS:
        if not present(container):
            continue
        rules = os.path.join(directory, container, sub) if sub else \
            os.path.join(directory, container)
        try:
            entries = sorted(os.listdir(rules))
        except OSError:
            continue
        paths.extend(os.path.join(rules, e) for e in entries
                     if e.endswith((".md", ".mdc")) and os.path.isfile(os.path.join(rules, e)))
    links = {p: os.path.islink(p) for p in paths}
    found = ctx.caches.memo[key] = _Folder([
        _Entry(p, _real(ctx, p, link), ctx.caches.format_of(p).owner, link)
        for p, link in links.items()])
    return found


def _real(ctx: Context, path: str, link: bool | None = None) -> str:
    """``os.path.realpath(path)``, with each directory resolved once per session (``link``:
    whether ``path`` is a symbolic link, if known)."""
    if not os.path.isabs(path) or os.path.normpath(path) != path or (
            os.path.islink(path) if link is None else link):
        return os.path.realpath(path)
    directory, name = os.path.split(path)
    key = ("RL406 real", directory)
    found = ctx.caches.memo.get(key)
    if not isinstance(found, str):
        found = ctx.caches.memo[key] = os.path.realpath(directory)
    return os.path.join(found, name)


def run(ctx: Context) -> None:
    doc = ctx.doc
    if doc.fmt.kind == "other" or not ctx.config.enabled("RL406") or "RL406" in doc.disabled:
        return
    text = doc.text
    low = text.lower()
    if not any(w in low for w in ("use", "always", "never", "indent", "must", "don't",
                                  "do not")):
        return
    if len(text) > MAX_CLAIM_CHARS:
        return
    base = doc.body_line
    mine = text_claims(ctx.caches.claims, doc.path, text).body(
        base, doc.offset_of_line(base) if base else 0)
    if not mine:
        return
    partners = _partners(ctx)
    me = ctx.canonical_path
    reporter = partners.reporter(me)
    if reporter is not None and reporter != doc.path:
        return  # a second name of a file the partners hold: that file reports (once)
    ctx.caches.deps.update(partners.of(ctx, me))
    owner = doc.fmt.owner
    seen: set[str] = {me}
    for other, theirs in partners.conflicting(ctx, mine):
        if other.real in seen or not (len(owner) > len(other.owner) if owner != other.owner
                                      else doc.path > other.path):
            continue  # itself, a second name of a file already compared, or reported there
        seen.add(other.real)
        for a, b, subject in conflicts(mine, theirs):
            readers = _loaded_together(ctx, other)
            if not readers:
                continue  # no agent loads both: not a contradiction anyone sees
            if sum(f.code == "RL406" for f in ctx.findings) >= _MAX:
                return
            rel = ctx.rel(other.path)
            line = a.line + base
            about = f"`{subject[6:]}` (always / never)" if subject.startswith("rule: ") \
                else f"the {subject}"
            ctx.emit("RL406", f"Contradicts {rel}:{b.line + 1} on {about}:"
                     f" line {line + 1} says \"{_short(a.text)}\", {rel} says"
                     f" \"{_short(b.text)}\". Loaded together by {readers}.",
                     doc.line_range(line),
                     related=[Related(other.path, Range.of(b.line, 0, b.line, len(b.text)),
                                      "the other side")])


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _loaded_together(ctx: Context, other: _Entry) -> str:
    """``Grok (AGENTS.md last), Codex CLI (…)`` for each agent whose view, for some file
    of the document's folder (the deeper one), holds both files; ``""`` when none does.

    The views are asked for the document itself; when either file is a scoped rule
    (``applyTo``, ``globs``, ``paths``) and no view holds both, for a file of the
    workspace both scopes match (two rules with disjoint scopes never load together)."""
    cwd = ctx.doc.fmt.owner
    found = _readers(ctx, other, _cached_orders(ctx, cwd, ctx.doc.path))
    if found or not _every_agent(ctx):
        return found  # (past the bound only Grok answers, and Grok has no scopes)
    target = _shared_target(ctx, other)
    if target is None:
        return ""
    return _readers(ctx, other, _cached_orders(ctx, cwd, target))


def _readers(ctx: Context, other: _Entry, orders: list[tuple[str, dict[str, int]]]) -> str:
    mine = ctx.canonical_path
    parts: list[str] = []
    for display, order in orders:
        at, theirs = order.get(mine), order.get(other.real)
        if at is not None and theirs is not None:
            parts.append(f"{display} ({ctx.rel(ctx.doc.path if at > theirs else other.path)}"
                         " last)")
    return ", ".join(parts)


def _cached_orders(ctx: Context, cwd: str, target: str) -> list[tuple[str, dict[str, int]]]:
    """:func:`_orders` once per session, folder and target (for the document itself, any
    file of the folder: the views differ only in scope)."""
    key = ("RL406 orders", cwd, None if target == ctx.doc.path else target)
    cached = ctx.caches.memo.get(key)
    if cached is None:
        cached = ctx.caches.memo[key] = _orders(ctx, cwd, target, everyone=_every_agent(ctx))
    assert isinstance(cached, list)
    return cached


def _every_agent(ctx: Context) -> bool:
    """Whether every agent's order is computed for the document's folder: each view reads
    every rules directory (~60 ms for 400 rule files), so past ``MAX_VIEW_FILES`` files in
    the folder's partner listing Grok's chain alone answers."""
    return len(_partners(ctx).entries) <= MAX_VIEW_FILES


def _scope(ctx: Context, path: str) -> list[str] | None:
    """The globs a scoped rule file applies to; ``None`` for a file without a scope key
    (it loads wherever its folder's files do)."""
    key = SCOPE_KEY.get(ctx.caches.format_of(path).kind)
    if key is None:
        return None
    from rulelens.agents.meta import yaml_meta  # only scoped pairs: lint imports no YAML

    fields, _, _ = yaml_meta(ctx.caches.related.get(path, ctx.disk).text)
    value = fields.get(key)
    return glob_list(value) if isinstance(value, str | list) else None


def _shared_target(ctx: Context, other: _Entry) -> str | None:
    """A file of the workspace that both files' scopes match (at least one is scoped),
    or ``None``."""
    scopes = [g for g in (_scope(ctx, ctx.doc.path), _scope(ctx, other.path)) if g is not None]
    owner = ctx.doc.fmt.owner
    if not scopes or ctx.caches.format_of(other.path).owner != owner:
        return None
    key = ("RL406 target", owner, tuple(tuple(g) for g in scopes))
    if key in ctx.caches.memo:
        found = ctx.caches.memo[key]
        return found if isinstance(found, str) else None
    globs = ctx.caches.globs
    if any(globs.problem(g) is not None for scope in scopes for g in scope):
        ctx.caches.memo[key] = None
        return None
    matchers = [[compile_glob(g) for g in scope] for scope in scopes]
    listing = globs.listing(owner, MAX_TARGETS)
    target = next((os.path.join(owner, p) for p in listing.paths
                   if all(any(m.match(p) for m in scope) for scope in matchers)), None)
    ctx.caches.memo[key] = target
    return target


def _orders(ctx: Context, cwd: str, deeper: str, everyone: bool = True
            ) -> list[tuple[str, dict[str, int]]]:
    """Each agent's load order (real path -> first place) for ``deeper`` in a session at
    ``cwd``, once per session and folder (the views read every rules directory)."""
    from rulelens.agents.registry import AGENTS

    env = agent_env(ctx)
    out: list[tuple[str, dict[str, int]]] = []
    for agent in AGENTS:
        if agent.engine:
            # Grok: the chain lint already resolved for this folder (trusted, as lint
            # judges a repository its maintainers work in), canonical paths included.
            if ctx.chain is None or cwd != ctx.doc.fmt.owner:
                continue
            reals = [f.canonical for f in ctx.chain.files]
        elif not everyone:
            continue
        else:
            try:
                view = agent.view(cwd, deeper, env)
            except Exception:  # one agent's model failing must not stop lint
                continue
            reals = [_real(ctx, f.path) for f in view.files]
        order: dict[str, int] = {}
        for i, real in enumerate(reals):
            order.setdefault(real, i)
        out.append((agent.display, order))
    return out
