"""Which paths an ``@import`` (or a start directory from a client) may make RuleLens touch.

A repository's instruction file can write ``@/etc/shadow`` or ``@../../../.ssh/id_rsa``;
a workspace setting can name ``/`` as the start directory. RuleLens reads, stats or shows
such a target only when it lies inside an *approved root*: the workspace folders (the
start directory on the command line) and the agent's own home roots (``~/.claude``,
``~/.gemini``). The decision comes **before any filesystem access** to the target:

1. the spelled path (made absolute and lexically normalised, as the agents' own
   ``path.resolve`` does) must be a NUL-free string lexically inside a root or one of its
   ancestors on the way down; anything else is refused without a system call;
2. its components are then resolved one by one from the root's canonical path, and only
   components already inside a root are ``lstat``-ed or ``readlink``-ed: a symlink whose
   target leaves the roots is refused at that point, never followed.

The result is the canonical real path (read that, not the spelling), or ``None`` (outside:
list it "needs approval" by its spelled path only). Whether an outside path exists can
therefore never change an answer. Ground floor: standard library only.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

#: Symlinks followed while resolving one path (Linux's own limit).
MAX_LINKS = 40
#: Import expansion per view: at most this many import edges followed ...
MAX_IMPORTS = 1000
#: ... and this many bytes of imported files read (real instruction trees stay far below;
#: a Gemini "diamond" of six 2 KB files, each importing the next 16 times, would otherwise
#: expand a million times).
MAX_IMPORT_BYTES = 8 * 1024 * 1024
#: The workspace folders of the language server's request being answered (``None`` on the
#: command line, where the start directory the user names is the workspace).
_WORKSPACE: ContextVar[tuple[str, ...] | None] = ContextVar("rulelens_workspace", default=None)


@contextlib.contextmanager
def workspace(roots: Iterable[str]) -> Iterator[None]:
    """Views built inside this block approve imports inside ``roots`` (the server's
    workspace folders) rather than the default the view chooses."""
    token = _WORKSPACE.set(tuple(roots))
    try:
        yield
    finally:
        _WORKSPACE.reset(token)


def workspace_roots() -> tuple[str, ...] | None:
    """The workspace folders set by :func:`workspace`, or ``None`` (the command line)."""
    return _WORKSPACE.get()


class ImportBudget:
    """Total import edges and imported bytes of one view; ``stopped`` says why it ended."""

    def __init__(self, max_imports: int = MAX_IMPORTS,
                 max_bytes: int = MAX_IMPORT_BYTES) -> None:
        self.max_imports = max_imports
        self.max_bytes = max_bytes
        self.imports = 0
        self.bytes = 0
        self.stopped: str | None = None

    def take_import(self) -> bool:
        """Count one more import edge; ``False`` (and ``stopped`` set) past the bound."""
        if self.stopped is None and self.imports >= self.max_imports:
            self.stopped = (f"import expansion stopped: more than {self.max_imports:,}"
                            " imports in this view; the rest are not shown")
        if self.stopped is not None:
            return False
        self.imports += 1
        return True

    def take_bytes(self, size: int) -> bool:
        """Count ``size`` more imported bytes; ``False`` (and ``stopped`` set) past it."""
        if self.stopped is None and self.bytes + size > self.max_bytes:
            self.stopped = (f"import expansion stopped: more than {self.max_bytes:,} bytes"
                            " of imported text in this view; the rest are not shown")
        if self.stopped is not None:
            return False
        self.bytes += size
        return True


def _within(path: str, root: str) -> bool:
    """Component-wise containment (``/a/bc`` is not inside ``/a/b``)."""
    if path == root or root == "/":
        return True
    return path.startswith(root.rstrip("/") + "/")


def clean(path: object) -> str | None:
    """``path`` if it is a usable absolute path string (no NUL), lexically normalised."""
    if not isinstance(path, str) or not path or "\x00" in path or not os.path.isabs(path):
        return None
    return os.path.normpath(path)


@dataclass(frozen=True)
class Approval:
    """Approved roots as ``(spelled, canonical)`` pairs; see the module docstring."""

    roots: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, roots: Iterable[str]) -> Approval:
        """Roots RuleLens itself chose (workspace folders, ``--cwd``, agent homes); each is
        canonicalised once. Unusable entries are dropped."""
        pairs: list[tuple[str, str]] = []
        for r in roots:
            spelled = clean(r)
            if spelled is None:
                continue
            pairs.append((spelled, os.path.realpath(spelled)))
        return cls(tuple(dict.fromkeys(pairs)))

    def canonical(self, root: str) -> str:
        """The canonical path of one of the roots (its spelling when it is none)."""
        for given, real in self.roots:
            if root in (given, real):
                return real
        return self.resolve(root) or root

    def inside(self, path: str) -> bool:
        """``path`` (canonical) lies inside a root's canonical path."""
        return any(_within(path, real) for _, real in self.roots)

    def _on_the_way(self, path: str) -> bool:
        """``path`` is a canonical root's ancestor (its components are real directories)."""
        return any(_within(real, path) for _, real in self.roots)

    def lexically_inside(self, path: str) -> bool:
        """The spelling alone is inside a root (no filesystem access)."""
        return any(_within(path, s) or _within(path, r) for s, r in self.roots)

    def resolve(self, path: object) -> str | None:
        """The canonical path of ``path`` when it stays inside a root, else ``None``."""
        spelled = clean(path)
        if spelled is None or not self.lexically_inside(spelled):
            return None
        start, rest = "/", spelled
        for given, real in sorted(self.roots, key=lambda p: -len(p[0])):
            if _within(spelled, given):
                start, rest = real, spelled[len(given):]
                break
        parts = [p for p in rest.split("/") if p]
        current, links = start, 0
        while parts:
            part = parts.pop(0)
            if part == ".":
                continue
            if part == "..":
                current = os.path.dirname(current)  # current is canonical: exact
                continue
            candidate = os.path.join(current, part)
            if not self.inside(candidate):
                if self._on_the_way(candidate):
                    current = candidate
                    continue
                return None
            try:
                st = os.lstat(candidate)
            except OSError:  # missing from here on: the rest stays lexical, below it
                current = candidate
                continue
            if stat.S_ISLNK(st.st_mode):
                links += 1
                if links > MAX_LINKS:
                    return None
                try:
                    target = os.readlink(candidate)
                except OSError:
                    return None
                if os.path.isabs(target):
                    current = "/"
                parts = [p for p in target.split("/") if p] + parts
                continue
            current = candidate
        return current if self.inside(current) else None


def start_problem(setting: str, value: object, approval: Approval,
                  base: str | None) -> tuple[str | None, str | None]:
    """``(start directory, None)`` for a start directory a client or setting gives (a
    relative one joined to ``base``; returned as spelled, normalised, once its real path is
    known to stay inside a root), or ``(None, one-line refusal naming setting)``. The
    refusal is the same whether the path exists or not."""
    if not isinstance(value, str) or "\x00" in value:
        return None, f"{setting}: not a usable path (a string without NUL bytes)"
    text = os.path.expanduser(value.strip())
    if not os.path.isabs(text):
        if base is None:
            return None, f"{setting}: {value!r} is not an absolute path"
        text = os.path.join(base, text)
    if approval.resolve(text) is None:
        return None, (f"{setting}: {value!r} is outside the workspace folders; RuleLens"
                      " starts agents only inside a workspace folder")
    return os.path.normpath(text), None
