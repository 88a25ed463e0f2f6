"""The values the linter returns: findings, their ranges, related locations and fixes.

Everything is immutable so a finding can be cached, compared in tests and handed across
threads (positions and ranges are named tuples: a lint makes thousands of them). Positions
are 0-based lines and 0-based columns counted in Unicode code points of the text the engine
was given (a ``\\r`` of a CRLF line belongs to the line but never to a range end). The
language server converts columns to the client's encoding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

Severity = Literal["error", "warning", "info", "hint"]
Safety = Literal["safe", "unsafe"]

SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "info": 2, "hint": 3}


class Position(NamedTuple):
    line: int
    character: int


class Range(NamedTuple):
    start: Position
    end: Position

    @classmethod
    def of(cls, line: int, col: int, end_line: int, end_col: int) -> Range:
        return cls(Position(line, col), Position(end_line, end_col))

    @classmethod
    def point(cls, line: int, col: int = 0) -> Range:
        return cls.of(line, col, line, col)


@dataclass(frozen=True)
class TextEdit:
    """Replace ``range`` of the file at ``path`` (as the engine saw its text) by ``new_text``."""

    path: str
    range: Range
    new_text: str


@dataclass(frozen=True)
class FileRename:
    """Rename or move a file; never applied when ``new`` already exists."""

    old: str
    new: str


Edit = TextEdit | FileRename


@dataclass(frozen=True)
class Fix:
    """One way to resolve a finding.

    ``safe`` fixes keep what the author meant and are applied by ``rulelens lint --fix``;
    ``unsafe`` ones change behaviour or other files (``.gitignore``) and are only offered,
    shown as an edit the user confirms.
    """

    title: str
    safety: Safety
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Related:
    path: str
    range: Range
    message: str


@dataclass(frozen=True)
class Finding:
    code: str
    severity: Severity
    message: str
    range: Range
    path: str = ""
    related: tuple[Related, ...] = ()
    fixes: tuple[Fix, ...] = ()

    @property
    def fixable(self) -> bool:
        return bool(self.fixes)

    @property
    def safe_fix(self) -> Fix | None:
        return next((f for f in self.fixes if f.safety == "safe"), None)
