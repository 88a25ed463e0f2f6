"""A linear-time matcher for the regexes gitignore patterns translate to.

Python's :mod:`re` backtracks: ``a*a*a*a*b`` (``a[^/]*a[^/]*a[^/]*a[^/]*b``) against a
long name of ``a``\\ s takes time exponential in the number of stars, and a repository can
put such a line in its ``.gitignore``. The agent's matcher (Rust ``globset`` over the
``regex`` crate) never backtracks. This module runs the *same* regex (the one
``pathspec`` produces, parsed by :mod:`re`'s own parser) as a Thompson NFA, one set of
states per character: time O(len(text) x len(pattern)), whatever the pattern.

Only what glob translations use is supported (literals, classes, ``.``, repeats,
alternation, non-capturing and named groups, ``^``/``$``/``\\A``/``\\Z``, no flags); for
anything else :class:`Unsupported` is raised at compile time, so a caller can report the
pattern instead of guessing. Only a yes/no answer is given (no groups), which is all
``fullmatch``/``match`` callers in :mod:`rulelens.rules.gitignore` need.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

# re's parser and its opcode constants: stable since Python 3.11 (``re._parser``).
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser as P  # type: ignore[attr-defined]
from typing import Protocol

_CHAR, _SPLIT, _JMP, _ASSERT, _MATCH = range(5)
#: Cached DFA transitions per pattern (cleared when full: memory stays bounded).
_STEP_CACHE = 4096
_BEGIN, _DOLLAR, _END = range(3)
_ASSERTS = {C.AT_BEGINNING: _BEGIN, C.AT_BEGINNING_STRING: _BEGIN,
            C.AT_END: _DOLLAR, C.AT_END_STRING: _END}
#: Instruction: (op, a, b); for _CHAR ``a`` is the character test.
_Instr = tuple[int, object, object]
CharTest = Callable[[str], bool]


class Unsupported(ValueError):
    """The regex uses a construct this matcher does not run (backreferences, flags...)."""


def unbounded_repeats(pattern: str) -> int:
    """An upper bound on the ``*``/``+``/``{m,}`` repeats in ``pattern`` (backtracking
    grows with their number): a scan of the text, no parse, so it costs microseconds.

    Unescaped ``*``, ``+`` and ``{`` outside character classes are counted; escapes and
    class members are skipped. Counting too many only sends a pattern to the linear
    matcher, which is always correct.
    """
    count = 0
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            i += 1
            if i < n and pattern[i] == "^":
                i += 1
            if i < n and pattern[i] == "]":
                i += 1
            while i < n and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
        elif ch in "*+{":
            count += 1
        i += 1
    return count


def _any_char(ch: str) -> bool:
    return True


def _char_test(op: object, av: object, dotall: bool = False) -> CharTest:
    if op is C.LITERAL:
        want = chr(av)  # type: ignore[arg-type]
        return want.__eq__
    if op is C.NOT_LITERAL:
        avoid = chr(av)  # type: ignore[arg-type]
        return avoid.__ne__
    if op is C.ANY:
        return _any_char if dotall else "\n".__ne__
    if op is C.IN:
        return _class_test(av)
    raise Unsupported(f"character construct {op}")


def _class_test(items: object) -> CharTest:
    negate = False
    chars: set[str] = set()
    ranges: list[tuple[int, int]] = []
    for op, av in items:  # type: ignore[attr-defined]
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            chars.add(chr(av))
        elif op is C.RANGE:
            ranges.append((av[0], av[1]))
        else:
            raise Unsupported(f"class member {op}")
    members = frozenset(chars)
    spans = tuple(ranges)

    def test(ch: str) -> bool:
        hit = ch in members
        if not hit and spans:
            o = ord(ch)
            hit = any(lo <= o <= hi for lo, hi in spans)
        return hit != negate

    return test


@dataclass
class _Builder:
    prog: list[list[object]] = field(default_factory=list)
    #: ``re.DOTALL``: ``.`` matches a newline too.
    dotall: bool = False

    def emit(self, op: int, a: object = None, b: object = None) -> int:
        self.prog.append([op, a, b])
        return len(self.prog) - 1

    def seq(self, items: object) -> None:
        for op, av in items:  # type: ignore[attr-defined]
            self.node(op, av)

    def node(self, op: object, av: object) -> None:
        if op in (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN):
            self.emit(_CHAR, _char_test(op, av, self.dotall))
        elif op is C.SUBPATTERN:
            parts: tuple[object, int, int, object] = av  # type: ignore[assignment]
            if parts[1] or parts[2]:
                raise Unsupported("inline flags")
            self.seq(parts[3])
        elif op is C.BRANCH:
            self.branch(av[1])  # type: ignore[index]
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT):
            self.repeat(*av)  # type: ignore[misc]
        elif op is C.AT and av in _ASSERTS:
            self.emit(_ASSERT, _ASSERTS[av])
        else:
            raise Unsupported(f"construct {op} {av}")

    def branch(self, alts: list[object]) -> None:
        jumps: list[int] = []
        for i, alt in enumerate(alts):
            if i < len(alts) - 1:
                split = self.emit(_SPLIT)
                self.prog[split][1] = len(self.prog)
                self.seq(alt)
                jumps.append(self.emit(_JMP))
                self.prog[split][2] = len(self.prog)
            else:
                self.seq(alt)
        for j in jumps:
            self.prog[j][1] = len(self.prog)

    def repeat(self, low: int, high: int, sub: object) -> None:
        if low > 64 or (high != C.MAXREPEAT and high > 64):
            raise Unsupported("large counted repeat")
        for _ in range(low):
            self.seq(sub)
        if high == C.MAXREPEAT:
            loop = self.emit(_SPLIT)
            self.prog[loop][1] = len(self.prog)
            self.seq(sub)
            self.emit(_JMP, loop)
            self.prog[loop][2] = len(self.prog)
            return
        ends: list[int] = []
        for _ in range(high - low):
            split = self.emit(_SPLIT)
            self.prog[split][1] = len(self.prog)
            ends.append(split)
            self.seq(sub)
        for split in ends:
            self.prog[split][2] = len(self.prog)


class LinearPattern:
    """``pattern`` compiled for :meth:`match` and :meth:`fullmatch` without backtracking.

    Raises ``re.error`` for an invalid pattern and :class:`Unsupported` for a valid one
    this matcher cannot run.

    Closures (the states reachable without reading a character) are memoised on the
    object, per state and per kind of position (start, ``$``, end).
    """

    def __init__(self, pattern: str, flags: int = 0) -> None:
        tree = P.parse(pattern, flags)  # re.error for an invalid pattern, as re.compile
        if tree.state.flags & ~(re.UNICODE | re.NOFLAG | re.DOTALL):
            raise Unsupported("global flags")
        builder = _Builder(dotall=bool(tree.state.flags & re.DOTALL))
        builder.seq(tree)
        builder.emit(_MATCH)
        self.pattern = pattern
        #: Characters every match contains (a set test turns most texts away at once).
        self.required = frozenset(_required(tree))
        self._prog: tuple[_Instr, ...] = tuple((i[0], i[1], i[2]) for i in builder.prog)  # type: ignore[misc]
        self._closures: dict[tuple[int, bool, bool, bool], tuple[tuple[int, ...], bool]] = {}
        #: The lazily built DFA: (states, character, at "$", at end) -> (states, matched).
        self._steps: dict[tuple[tuple[int, ...], str, bool, bool],
                          tuple[tuple[int, ...], bool]] = {}

    def _closure(self, pc: int, start: bool, dollar: bool,
                 end: bool) -> tuple[tuple[int, ...], bool]:
        """The character states reachable from ``pc`` by empty moves, and whether the
        match state is among them."""
        key = (pc, start, dollar, end)
        found = self._closures.get(key)
        if found is not None:
            return found
        seen: set[int] = set()
        chars: list[int] = []
        matched = False
        stack = [pc]
        prog = self._prog
        while stack:
            at = stack.pop()
            if at in seen:
                continue
            seen.add(at)
            op, a, b = prog[at]
            if op == _CHAR:
                chars.append(at)
            elif op == _SPLIT:
                stack.append(b)  # type: ignore[arg-type]
                stack.append(a)  # type: ignore[arg-type]
            elif op == _JMP:
                stack.append(a)  # type: ignore[arg-type]
            elif op == _ASSERT:
                if (a == _BEGIN and start) or (a == _DOLLAR and dollar) or (a == _END and end):
                    stack.append(at + 1)
            else:
                matched = True
        found = (tuple(sorted(chars)), matched)
        self._closures[key] = found
        return found

    def _step(self, states: tuple[int, ...], ch: str, at_dollar: bool,
              at_end: bool) -> tuple[tuple[int, ...], bool]:
        """The states after reading ``ch``, and whether the match state is among them;
        memoised, so a text costs one dictionary lookup per character once warm."""
        key = (states, ch, at_dollar, at_end)
        found = self._steps.get(key)
        if found is not None:
            return found
        prog = self._prog
        nxt: set[int] = set()
        matched = False
        for pc in states:
            if prog[pc][1](ch):  # type: ignore[operator]
                more, hit = self._closure(pc + 1, False, at_dollar, at_end)
                nxt.update(more)
                matched = matched or hit
        found = (tuple(sorted(nxt)), matched)
        if len(self._steps) >= _STEP_CACHE:
            self._steps.clear()
        self._steps[key] = found
        return found

    def _run(self, text: str, whole: bool) -> bool:
        if not self.required.issubset(text):
            return False
        n = len(text)
        dollar_at = n - 1 if n and text[-1] == "\n" else n
        states, matched = self._closure(0, True, dollar_at == 0 or n == 0, n == 0)
        if matched and (not whole or n == 0):
            return True
        for pos, ch in enumerate(text, start=1):
            at_end = pos == n
            states, matched = self._step(states, ch, pos >= dollar_at, at_end)
            if matched and (not whole or at_end):
                return True
            if not states:
                return False
        return False

    def match(self, text: str) -> bool:
        """Like ``re.match(...) is not None``: a match starting at 0, ending anywhere."""
        return self._run(text, whole=False)

    def fullmatch(self, text: str) -> bool:
        """Like ``re.fullmatch(...) is not None``."""
        return self._run(text, whole=True)


class Matcher(Protocol):
    """What :func:`compile_bounded` returns: ``re.Pattern`` or :class:`LinearPattern`."""

    def match(self, text: str, /) -> object: ...


#: Unbounded repeats ``re`` may run (backtracking is harmless below this many).
BACKTRACK_SAFE = 2


def compile_bounded(pattern: str, flags: int = 0) -> Matcher:
    """``re.compile(pattern, flags)`` when backtracking cannot explode (at most
    :data:`BACKTRACK_SAFE` unbounded repeats, no alternation), else a
    :class:`LinearPattern`: time linear in the text for any glob translation.
    ``match`` answers truthy/falsy either way. Raises ``re.error``/:class:`Unsupported`.
    """
    if unbounded_repeats(pattern) <= BACKTRACK_SAFE and "|" not in pattern:
        return re.compile(pattern, flags)
    return LinearPattern(pattern, flags)


def _required(items: object) -> set[str]:
    """Literal characters of the mandatory top-level sequence of a parsed regex."""
    out: set[str] = set()
    for op, av in items:  # type: ignore[attr-defined]
        if op is C.LITERAL:
            out.add(chr(av))
        elif op is C.SUBPATTERN:
            out |= _required(av[3])
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT) and av[0] >= 1:
            out |= _required(av[2])
    return out
