"""Applying fixes: text edits in memory (``rulelens lint --fix`` and ``--diff``), and whole
fixes to files on disk, atomically (the tests; the editor applies its own edits).

Edits are expressed against the text the engine saw; a file is re-read here with the same
decoding (UTF-8, newlines kept as they are) so CRLF files stay CRLF and a BOM stays put.
Each file is written through a temporary file and ``os.replace``; a rename never
overwrites an existing file.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable

from rulelens.agents import safeio
from rulelens.lint.model import FileRename, Fix, TextEdit


class FixError(Exception):
    """A fix could not be applied (target exists, file changed, ...); nothing was written."""


def apply_text_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """Apply non-overlapping edits (positions in ``text``) and return the new text."""
    lines = text.split("\n")
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)

    def offset(line: int, col: int) -> int:
        if line >= len(lines):
            return len(text)
        return starts[line] + min(col, len(lines[line]))

    spans = sorted(((offset(e.range.start.line, e.range.start.character),
                     offset(e.range.end.line, e.range.end.character), e.new_text)
                    for e in edits), reverse=True)
    prev_start = len(text) + 1
    for start, end, new in spans:
        if end > prev_start:
            raise FixError("overlapping edits")
        text = text[:start] + new + text[end:]
        prev_start = start
    return text


def read_text(path: str) -> str:
    """The file as UTF-8 text with its newlines as they are (CRLF stays CRLF)."""
    return safeio.read_bytes(path, safeio.TEXT_LIMIT).decode("utf-8")


def write_atomic(path: str, text: str) -> None:
    import tempfile  # only --fix writes

    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".rulelens-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        with contextlib.suppress(OSError):
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def apply_fix(fix: Fix) -> list[str]:
    """Apply every edit of ``fix``; returns the paths written or created (renames: new path)."""
    by_path: dict[str, list[TextEdit]] = {}
    renames: list[FileRename] = []
    for edit in fix.edits:
        if isinstance(edit, TextEdit):
            by_path.setdefault(edit.path, []).append(edit)
        else:
            renames.append(edit)
    for r in renames:
        if os.path.lexists(r.new) and not _case_only(r.old, r.new):
            raise FixError(f"{r.new} already exists; not overwriting it")
        if not os.path.lexists(r.old):
            raise FixError(f"{r.old} no longer exists")
    new_texts = {}
    for path, edits in by_path.items():
        try:
            new_texts[path] = apply_text_edits(read_text(path), edits)
        except (OSError, UnicodeDecodeError) as exc:
            raise FixError(f"cannot edit {path}: {exc}") from exc
    changed: list[str] = []
    for path, text in new_texts.items():
        write_atomic(path, text)
        changed.append(path)
    for r in renames:
        os.makedirs(os.path.dirname(r.new) or ".", exist_ok=True)
        os.rename(r.old, r.new)
        changed.append(r.new)
    return changed


def _case_only(old: str, new: str) -> bool:
    try:
        return old.lower() == new.lower() and os.path.samefile(old, new)
    except OSError:
        return False
