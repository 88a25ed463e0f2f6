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
OpenCode's deepest-first merge, Zed's single file never pairs).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

from rulelens.lint.checks.agents import agent_env
from rulelens.lint.context import Context
from rulelens.lint.formats import RULE_DIRS, classify
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
_ACTION = (r"(use|run|add|commit|call|import|write|include|enable|disable|create|edit|modify"
           r"|delete|push|mock|install)\s+(?:(?:a|an|the|any|new|your|this|that|these)\s+)?"
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
#: Folders per session whose every agent's load order is computed (see _loaded_together).
MAX_FOLDERS = 4
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


@dataclass(frozen=True)
class Claim:
    subject: str  # "package manager", "always: use foo", ...
    value: str  # "pnpm", "yes"/"no" for always/never
    line: int
    text: str


def claims(text: str) -> list[Claim]:
    """Unscoped claims of ``text``, fenced code left out; subjects with two values in the
    same file dropped."""
    out: list[Claim] = []
    in_fence = False
    for n, line in enumerate(text.split("\n")):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence or not _TRIGGER.search(line):
            continue
        for m in _SENTENCE.finditer(line):
            sentence = m.group()
            if _SCOPED.search(sentence):
                continue
            out.extend(_sentence_claims(sentence, n))
    by_subject: dict[str, set[str]] = {}
    for c in out:
        by_subject.setdefault(c.subject, set()).add(c.value)
    return [c for c in out if len(by_subject[c.subject]) == 1]


def _sentence_claims(sentence: str, n: int) -> Iterator[Claim]:
    if _ANY_CHOICE.search(sentence):
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


def _partners(ctx: Context) -> list[str]:
    """Instruction files of this folder and its ancestors (up to the repository root)
    that can load with this one, the document itself left out (listed once per folder
    and session)."""
    key = ("RL406 partners", ctx.doc.fmt.owner)
    found = ctx.caches.memo.get(key)
    if found is None:
        found = ctx.caches.memo[key] = _list_partners(ctx)
    assert isinstance(found, list)
    mine = ctx.canonical_path
    owner = ctx.doc.fmt.owner
    # Reported once: on the deeper file, or in one folder on the later path.
    return [p for p, real, theirs in found if real != mine and (
        len(owner) > len(theirs) if owner != theirs else ctx.doc.path > p)]


def _list_partners(ctx: Context) -> list[tuple[str, str, str]]:
    """``(path, real path, owner)`` of the named files and rule files of the document's
    folder and each ancestor up to the repository root."""
    root = ctx.git_root
    if root is None:
        return []
    out: list[tuple[str, str, str]] = []
    directory = ctx.doc.fmt.owner
    root = os.path.normpath(root)
    while True:
        out.extend(_folder_files(ctx, directory))
        if os.path.normpath(directory) == root or not directory.startswith(root):
            break
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return list(dict.fromkeys(out))


def _folder_files(ctx: Context, directory: str) -> list[tuple[str, str, str]]:
    """One folder's instruction files, listed once per session (every document below it
    asks again)."""
    key = ("RL406 folder", directory)
    found = ctx.caches.memo.get(key)
    if isinstance(found, list):
        return found
    from rulelens.agents.registry import AGENTS

    names = sorted({n.name for a in AGENTS for row in a.profiles for n in row.named_files})
    paths = [os.path.join(directory, n) for n in names
             if os.path.isfile(os.path.join(directory, n))]
    for container, sub, _ in RULE_DIRS:
        rules = os.path.join(directory, container, sub) if sub else \
            os.path.join(directory, container)
        try:
            entries = sorted(os.listdir(rules))
        except OSError:
            continue
        paths.extend(os.path.join(rules, e) for e in entries
                     if e.endswith((".md", ".mdc")) and os.path.isfile(os.path.join(rules, e)))
    found = [(p, os.path.realpath(p), classify(p).owner) for p in paths]
    ctx.caches.memo[key] = found
    return found


def _reported_here(ctx: Context, other: str) -> bool:
    """A pair is reported on the deeper file, or in one folder on the later path."""
    mine, theirs = ctx.doc.fmt.owner, classify(other).owner
    if mine != theirs:
        return len(mine) > len(theirs)
    return ctx.doc.path > other


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
    mine = claims(text[doc.offset_of_line(doc.body_line):] if doc.body_line else text)
    if not mine:
        return
    base = doc.body_line
    partners = _partners(ctx)
    ctx.caches.deps.update(partners)
    for other in partners:
        related = ctx.caches.related.get(other, ctx.disk)
        theirs = related.memo.get("claims")
        if theirs is None:
            theirs = related.memo["claims"] = index(claims(related.text)) \
                if len(related.text) <= MAX_CLAIM_CHARS else {}
        assert isinstance(theirs, dict)
        for a, b, subject in conflicts(mine, theirs):
            readers = _loaded_together(ctx, other)
            if not readers:
                continue  # no agent loads both: not a contradiction anyone sees
            if sum(f.code == "RL406" for f in ctx.findings) >= _MAX:
                return
            rel = ctx.rel(other)
            line = a.line + base
            about = f"`{subject[6:]}` (always / never)" if subject.startswith("rule: ") \
                else f"the {subject}"
            ctx.emit("RL406", f"Contradicts {rel}:{b.line + 1} on {about}:"
                     f" line {line + 1} says \"{_short(a.text)}\", {rel} says"
                     f" \"{_short(b.text)}\". Loaded together by {readers}.",
                     doc.line_range(line),
                     related=[Related(other, Range.of(b.line, 0, b.line, len(b.text)),
                                      "the other side")])


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _loaded_together(ctx: Context, other: str) -> str:
    """``Grok (AGENTS.md last), Codex CLI (…)`` for each agent whose view, for a file in
    the deeper folder, holds both files; ``""`` when none does."""
    mine_real = os.path.realpath(ctx.doc.path)
    other_real = os.path.realpath(other)
    deeper = ctx.doc.path if _reported_here(ctx, other) else other
    cwd = classify(deeper).owner
    key = ("RL406 orders", cwd)  # any file of the folder: the views differ only in scope
    cached = ctx.caches.memo.get(key)
    if cached is None:
        folders = ctx.caches.memo.get("RL406 folders", 0)
        assert isinstance(folders, int)
        ctx.caches.memo["RL406 folders"] = folders + 1
        # Every agent's view reads every rules directory (~0.25 s for 400 rule files):
        # past MAX_FOLDERS folders a run names Grok's order only (bench/lint.py's
        # word-salad tree contradicts itself in all 101 folders).
        cached = ctx.caches.memo[key] = _orders(ctx, cwd, deeper,
                                                everyone=folders < MAX_FOLDERS)
    assert isinstance(cached, list)
    parts: list[str] = []
    for display, order in cached:
        if mine_real in order and other_real in order:
            last = ctx.doc.path if order.index(mine_real) > order.index(other_real) else other
            parts.append(f"{display} ({ctx.rel(last)} last)")
    return ", ".join(parts)


def _orders(ctx: Context, cwd: str, deeper: str, everyone: bool = True
            ) -> list[tuple[str, list[str]]]:
    """Each agent's load order (real paths) for ``deeper`` in a session at ``cwd``, once
    per session and folder (the views read every rules directory)."""
    from rulelens.agents.registry import AGENTS

    env = agent_env(ctx)
    out: list[tuple[str, list[str]]] = []
    for agent in AGENTS:
        if agent.engine:
            # Grok: the chain lint already resolved for this folder (trusted, as lint
            # judges a repository its maintainers work in).
            if ctx.chain is None or cwd != ctx.doc.fmt.owner:
                continue
            order = [os.path.realpath(f.path) for f in ctx.chain.files]
        elif not everyone:
            continue
        else:
            try:
                view = agent.view(cwd, deeper, env)
            except Exception:  # one agent's model failing must not stop lint
                continue
            order = [os.path.realpath(f.path) for f in view.files]
        out.append((agent.display, order))
    return out
