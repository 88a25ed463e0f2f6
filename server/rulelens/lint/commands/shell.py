"""Command lines in an instruction file, split the way a shell would run them.

Commands are taken from fenced code (any indentation: a fence inside a list item counts),
from inline code spans, and, for the unambiguous ``npm|pnpm|yarn|bun run NAME`` form only,
from prose. ``cd DIR && ...`` moves the rest of the line to ``DIR``; environment
assignments and ``sudo``/``time``/``env`` prefixes are dropped. A command shown as what
not to run ("do not run `make x`", a fence after "Wrong:") is left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

#: Words that make the text before a command a negative example.
NEGATIVE = re.compile(
    r"\b(?:do not|don't|dont|never|avoid|instead of|rather than|not|no longer|deprecated"
    r"|removed|wrong|bad|incorrect|won't|cannot|can't|obsolete|legacy|old)\b|❌|✗",
    re.IGNORECASE)
_SPAN = re.compile(r"(`+)([^`\n]+?)\1")
_FENCE_LINE = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$", re.MULTILINE)
_PROSE_RUN = re.compile(r"\b(?:npm|pnpm|yarn|bun)\s+run\s+[A-Za-z0-9_][\w:.@/-]*")
_SEPARATOR = re.compile(r"\s*(?:&&|\|\||;|\||\bthen\b|\bdo\b)\s*")
_WORD = re.compile(r"\"[^\"]*\"|'[^']*'|\S+")
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PREFIXES = frozenset({"sudo", "time", "env", "exec", "command", "nohup", "xargs"})
_REMOTE = frozenset({"docker", "podman", "ssh", "kubectl", "vagrant", "gh"})
_CD_LINE = re.compile(r"^\s*(?:cd|pushd)\s+(\"[^\"]*\"|'[^']*'|[^\s;&|]+)\s*$")
_PROMPT = re.compile(r"^(?:\$|>|%|#\s*\$|PS>)\s+")
#: A word that stands for something the reader fills in.
_PLACEHOLDER = re.compile(r"[<>{}\[\]$*…|]|\.\.\.|^[A-Z][A-Z0-9_-]*$|(?:Here|Name|Your|your)"
                          r"(?:[A-Z_-]|$)|^(?:foo|bar|baz|xxx|example|my-?\w*)$")


@dataclass(frozen=True)
class Word:
    text: str
    at: int  # offset of the word's first character in the document


@dataclass(frozen=True)
class Invocation:
    """One simple command: its words, the directory a preceding ``cd`` moved to (as
    written, relative to where the line runs), and where it was written."""

    words: tuple[Word, ...]
    cd: str | None
    code: bool  # written as code (fence or span), not prose
    fenced: bool  # in a fenced block
    line_start: int  # offset of the line it is on


def placeholder(word: str) -> bool:
    """``<name>``, ``X``, ``EventNameHere``, ``foo``: a slot, not a name."""
    return bool(_PLACEHOLDER.search(word)) or word.endswith((":", "-", "/"))


def code_blocks(text: str, start: int = 0) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the lines inside fenced blocks, fences at any
    indentation (a fence in a list item is still code). ``start`` is a line's start."""
    out: list[tuple[int, int]] = []
    if "```" not in text and "~~~" not in text:
        return out
    opened: tuple[int, str] | None = None
    # Only fence lines are visited (one C-level scan), not every line in Python: 0.26 s
    # -> 0.22 s over the real-repository corpus, 0.03 s -> 0.01 s on the bench tree.
    for m in _FENCE_LINE.finditer(text, start):
        fence = m.group(2)
        if opened is None:
            if not (fence[0] == "`" and "`" in m.group(3)):
                opened = (m.end() + 1, fence)
        elif fence[0] == opened[1][0] and len(fence) >= len(opened[1]) \
                and not m.group(3).strip():
            out.append((opened[0], m.start()))
            opened = None
    if opened is not None:
        out.append((opened[0], len(text)))
    return out


def invocations(text: str, start: int, blocks: list[tuple[int, int]]) -> Iterator[Invocation]:
    """Every simple command of the document (see module doc), negative examples left out."""
    for a, b in blocks:
        before = caption(text, a)
        if NEGATIVE.search(before):
            continue
        pos = a
        # A `cd DIR` line moves the lines after it in the same block, as in a shell
        # session (`cd packages/dev-server` then `npm run dev`); `None` after a `cd` to
        # somewhere unknown (`cd $DIR`): those lines are left out.
        here: str | None = ""
        for line in text[a:b].split("\n"):
            stripped = line.lstrip()
            lead = len(line) - len(stripped)
            m = _PROMPT.match(stripped)
            if m:
                lead += m.end()
                stripped = stripped[m.end():]
            if stripped and not stripped.startswith("#"):
                body = stripped.split(" #", 1)[0]
                comment = stripped[len(body):]
                moved = _CD_LINE.match(body)
                if moved:
                    here = _moved(here, moved.group(1).strip("\"'"))
                elif here is not None and not NEGATIVE.search(comment):
                    yield from _split(body, pos + lead, True, pos, True, here or None)
            pos += len(line) + 1
    inside = _Inside(blocks)
    pos = start
    for line in text[start:].split("\n"):
        # Substring tests first: most lines hold neither a span nor a prose `npm run`
        # (the 1,000-file bench tree: 0.65 s without them, 0.10 s with them).
        span = "`" in line
        prose = "npm" in line or "yarn" in line or "bun" in line
        if (span or prose) and not inside(pos):
            spans = list(_SPAN.finditer(line)) if span else []
            for m in spans:
                if not NEGATIVE.search(_sentence_before(line, m.start())):
                    yield from _split(m.group(2), pos + m.start(2), True, pos, False)
            for m in (_PROSE_RUN.finditer(line) if prose else ()):
                if any(s.start() <= m.start() < s.end() for s in spans):
                    continue
                if not NEGATIVE.search(_sentence_before(line, m.start())):
                    yield from _split(m.group(), pos + m.start(), False, pos, False)
        pos += len(line) + 1


class _Inside:
    def __init__(self, blocks: list[tuple[int, int]]) -> None:
        self.blocks = blocks

    def __call__(self, offset: int) -> bool:
        return any(a - 1 <= offset <= b for a, b in self.blocks)


def _sentence_before(line: str, col: int) -> str:
    head = line[:col]
    cut = max(head.rfind(". "), head.rfind("; "), head.rfind(": "))
    return head[cut + 1:] if cut >= 0 else head


def caption(text: str, block_start: int) -> str:
    """The non-empty line just above a fence's opening line (its caption)."""
    opening = text.rfind("\n", 0, max(block_start - 1, 0))
    lines = text[:max(opening, 0)].split("\n")
    for line in reversed(lines[-3:]):
        if line.strip():
            return line
    return ""


def _moved(here: str | None, target: str) -> str | None:
    """Where ``cd target`` leads from ``here`` (``""``: where the block runs); ``None``
    for a target that is a placeholder (`cd $DIR`: unknown)."""
    if here is None or placeholder(target):
        return None
    if target.startswith(("/", "~")) or not here:
        return target
    return f"{here}/{target}"


def _split(command: str, base: int, code: bool, line_start: int, fenced: bool,
           cd: str | None = None) -> Iterator[Invocation]:
    """The simple commands of one line; ``cd``: where an earlier `cd` line of its block
    moved it (relative to where the block runs)."""
    pos = 0
    for m in [*list(_SEPARATOR.finditer(command)), None]:
        end = m.start() if m is not None else len(command)
        segment = command[pos:end]
        words = [Word(w.group().strip("\"'"), base + pos + w.start())
                 for w in _WORD.finditer(segment)]
        pos = m.end() if m is not None else len(command)
        while words and (_ASSIGN.match(words[0].text) or words[0].text in _PREFIXES
                         or words[0].text in ("(", "{", "!")):
            words = words[1:]
        if not words:
            continue
        if words[0].text in _REMOTE:
            return  # runs in a container or on another machine
        if words[0].text in ("cd", "pushd"):
            cd = _moved(cd or "", words[1].text) if len(words) > 1 else None
            if cd is None:
                return  # `cd $DIR`: where the rest runs is unknown
            continue
        yield Invocation(tuple(words), cd, code, fenced, line_start)
