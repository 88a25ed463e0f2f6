"""The one model of a chain: what loads, in which order, and what does not load and why.

Every surface (CLI text and JSON, hovers, code lenses, sidebars, lint) renders these
values; nothing about precedence is computed anywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from rulelens.agents.trust import Trust

Role = Literal["home", "project"]
Kind = Literal["named", "rule"]
#: Where a loaded file came from (Grok >= 1.0.45's ``InstructionSource``): a ``configured``
#: file (``[paths] extra_rule_dirs``) has role ``home`` for compatibility.
Source = Literal["home", "configured", "project"]


class SkipReason(StrEnum):
    """Machine-readable reasons why an instruction-like file does not load."""

    GITIGNORED = "gitignored"
    NOT_UTF8 = "not-utf8"
    UNREADABLE = "unreadable"
    NOT_A_FILE = "not-a-file"
    COMPAT_DISABLED = "compat-disabled"
    NESTED_IN_RULES_DIR = "nested-in-rules-dir"
    UNRECOGNIZED_NAME = "unrecognized-name"
    DUPLICATE = "duplicate"
    UNTRUSTED_FOLDER = "untrusted-folder"
    #: Not an instruction file: an ignore file RuleLens could not apply in full (too
    #: large, too many patterns, a FIFO), so some verdicts above may differ from the agent's.
    IGNORE_UNCHECKED = "ignore-unchecked"


@dataclass(frozen=True)
class RuleFile:
    """One file the agent injects.

    ``path`` is the spelling the agent reports (``root.join(name)``, not canonicalised; the
    last spelling that won de-duplication). ``content`` is exactly what is injected:
    verbatim for named files, frontmatter-stripped for rule files. A file too large to
    hold (see :mod:`rulelens.rules.large`) has ``held=False`` and empty ``content``; its
    ``bytes`` and ``tokens`` are still the real ones.
    """

    path: str
    canonical: str
    name: str
    role: Role
    kind: Kind
    precedence: int
    bytes: int
    tokens: int
    content: str
    root: str
    source: Source = "project"
    held: bool = True

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": self.path,
            "name": self.name,
            "role": self.role,
            "source": self.source,
            "kind": self.kind,
            "precedence": self.precedence,
            "bytes": self.bytes,
            "tokens": self.tokens,
            "content": self.content,
        }
        if not self.held:
            data["held"] = False
        return data


@dataclass(frozen=True)
class Skipped:
    """A candidate that does not load, with a reason a user can act on."""

    path: str
    reason: SkipReason
    detail: str
    #: For ``gitignored``: ``(ignore file, 1-based line, pattern)``.
    ignore_source: tuple[str, int, str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "reason": str(self.reason), "detail": self.detail}


@dataclass(frozen=True)
class Chain:
    """The instruction files an agent started in ``cwd`` would load.

    ``files`` are in load order: precedence 1 is injected first; the highest precedence
    (the deepest project file) wins on conflicts.
    """

    cwd: str
    git_root: str | None
    files: tuple[RuleFile, ...]
    skipped: tuple[Skipped, ...]
    #: Chain directories, root first (what the tracker seeds as already checked).
    directories: tuple[str, ...] = field(default=())
    #: The profile that produced this chain (``grok@1.0.45``).
    agent: str = "grok@1.0.6"
    #: The folder-trust verdict, for profiles whose trust gates project files.
    trust: Trust | None = None

    @property
    def withheld(self) -> tuple[Skipped, ...]:
        """Files that would load once the folder is trusted."""
        return tuple(s for s in self.skipped if s.reason is SkipReason.UNTRUSTED_FOLDER)

    @property
    def total_bytes(self) -> int:
        return sum(f.bytes for f in self.files)

    @property
    def total_tokens(self) -> int:
        return sum(f.tokens for f in self.files)

    def deepest(self) -> RuleFile | None:
        return self.files[-1] if self.files else None

    def find(self, canonical: str) -> RuleFile | None:
        for f in self.files:
            if f.canonical == canonical:
                return f
        return None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "agent": self.agent,
            "cwd": self.cwd,
            "git_root": self.git_root,
            "files": [f.to_json() for f in self.files],
            "skipped": [s.to_json() for s in self.skipped],
        }
        if self.trust is not None:
            out["trust"] = self.trust.to_json()
        return out
