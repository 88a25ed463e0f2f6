"""``/remember``: normalise a note like the agent and append it atomically (spec §7.17).

The only place RuleLens writes a memory file. The append is a whole-file replace (temp
file in the same directory, fsync, rename) so a crash leaves the old or the new file, never
half of one; and it refuses when the file changed after the caller read it, so a note is
never appended onto text the user has not seen (or onto an edit made in another window).

:func:`plan_note` is the dry run behind a confirmation dialog: the exact text the append
would add and whether the agent's search could ever return it, computed with the agent's
own chunker and content-free filter so that no client re-implements either.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass

from rulelens.agents.rusttext import byte_len, lines, trim
from rulelens.memory.chunker import Chunk, chunk_markdown
from rulelens.memory.search import is_content_free, is_scaffold, is_structurally_empty


class RememberError(Exception):
    """The note was not written; the message says why and nothing was lost."""


def normalize_memory_content(text: str) -> str:
    """``normalize_memory_content``: ``#`` text as is, one line -> ``## line``, else a title.

    Several lines: a first line of at most 80 bytes becomes the ``##`` title and the rest
    (trimmed) the body; a longer first line gives ``## Note`` and the whole text as body.
    Empty input gives ``""`` (nothing is written).
    """
    t = trim(text)
    if not t:
        return ""
    if t.startswith("#"):
        return t
    pos = t.find("\n")
    if pos < 0:
        return f"## {t}"
    first = trim(t[:pos])
    if byte_len(first) <= 80:
        return f"## {first}\n\n{trim(t[pos:])}"
    return f"## Note\n\n{t}"


@dataclass(frozen=True)
class FileSnapshot:
    """What the caller saw: None for a missing file, else the exact bytes."""

    path: str
    content: bytes | None

    @classmethod
    def read(cls, path: str) -> FileSnapshot:
        try:
            with open(path, "rb") as fh:
                return cls(path, fh.read())
        except FileNotFoundError:
            return cls(path, None)
        except OSError as exc:
            raise RememberError(f"{path}: cannot read ({exc.strerror or exc})") from exc


@dataclass(frozen=True)
class Remembered:
    path: str
    text: str  # the normalised note as appended


def appended_text(existing: bytes | None, normalised: str) -> str:
    """What an append adds after ``existing``: ``\\n\\n`` + note, or the note alone when the
    file is missing or empty (spec §7.17), so the file always ends with the note itself."""
    return ("\n\n" if existing else "") + normalised


def _checked_utf8(path: str, content: bytes | None) -> str:
    """The file's text; a file that is not UTF-8 is refused (appending would hide it)."""
    try:
        return (content or b"").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RememberError(f"{path} is not UTF-8; refusing to append to it") from exc


@dataclass(frozen=True)
class Findability:
    """Whether the agent's ``memory_search`` could return a note once appended.

    ``searchable`` is False when every chunk holding the note's lines is content-free
    (spec §7.9), now or once the file outgrows a single chunk; ``warning`` says why, in
    one line for the user (None when searchable).
    """

    searchable: bool
    warning: str | None = None


#: The message for a note whose chunk is only headings (a one-line note becomes ``## line``).
HEADING_ONLY = ("A one-line note becomes a heading; the agent's search skips heading-only"
                " chunks — add a second line to make it findable")
#: The note itself holds a marker phrase of the agent's templates (spec §7.9).
SCAFFOLD_NOTE = ("The note contains a phrase of the agent's MEMORY.md template; the agent's"
                 " search skips such chunks — reword it to make it findable")
#: The note shares a chunk with the untouched template (under 500 bytes, marker included).
SCAFFOLD_FILE = ("This MEMORY.md is still the agent's template: under 500 bytes with its"
                 " placeholder comment, the agent's search skips it as a template — write a"
                 " longer note or delete the placeholder comment to make it findable")


def _note_chunks(chunks: list[Chunk], start: int, end: int) -> list[Chunk]:
    """Chunks whose 0-based, end-exclusive line range meets the note's ``[start, end)``."""
    return [c for c in chunks
            if max(c.start_line, start) < min(c.end_line, end)
            or (c.start_line == c.end_line and start <= c.start_line < end)]


def note_findability(existing: str, appended: str, source: str, max_bytes: int,
                     overlap_chars: int) -> Findability:
    """Chunk the file as it would be after the append, as the agent's index does, and ask
    the agent's content-free filter about the chunks that hold the note.

    Why not just look at the note: whether ``## line`` is hidden depends on its file. Under
    a top-level heading (the agent's templates start with ``# Global Memory`` /
    ``# Project Memory``) its chunk gets a ``[Context: …]`` line, which counts as content;
    in a new file, or one without such a heading, the chunk is the heading alone. A file
    under ``max_bytes`` is one chunk (so the note rides along with the rest of the file)
    until it grows, so the split-by-headers chunking is checked too: it is what the same
    chunker gives with the limit just below the file's size. And an evergreen chunk under
    500 bytes holding a template marker is hidden whatever it says: the agent's pristine
    global template plus a short note is exactly that.
    """
    after = existing + appended
    separator = appended[:len(appended) - len(appended.lstrip("\n"))]
    start = len(lines(existing + separator))  # the note's first line, 0-based
    end = len(lines(after))
    size = byte_len(after)
    limits = [max_bytes] + ([size - 1] if 1 < size <= max_bytes else [])
    for limit in limits:
        held = _note_chunks(chunk_markdown(after, limit, overlap_chars), start, end)
        if held and all(is_content_free(c.text, source) for c in held):
            if all(is_structurally_empty(c.text) for c in held):
                why = HEADING_ONLY
            else:
                why = SCAFFOLD_NOTE if is_scaffold(appended) else SCAFFOLD_FILE
            later = ("" if limit == max_bytes else
                     f" (found for now only: the file is one chunk until it passes {max_bytes}"
                     " bytes)")
            return Findability(False, why + later)
    return Findability(True)


@dataclass(frozen=True)
class NotePlan:
    """A dry run of :func:`append_note`: nothing is written.

    ``text`` is exactly what the append would add (separator included), ``note`` the
    normalised note, ``seen`` the file as read (its hash is the ``expectedSha256`` for the
    real append, which is refused if the file changed in between).
    """

    path: str
    note: str
    text: str
    seen: FileSnapshot
    findability: Findability


def plan_note(path: str, note: str, source: str, max_bytes: int,
              overlap_chars: int) -> NotePlan:
    """What :func:`append_note` would do to ``path`` now; the same refusals, no write."""
    normalised = normalize_memory_content(note)
    if not normalised:
        raise RememberError("the note is empty; nothing would be written")
    seen = FileSnapshot.read(path)
    existing = _checked_utf8(path, seen.content)
    text = appended_text(seen.content, normalised)
    return NotePlan(path, normalised, text, seen,
                    note_findability(existing, text, source, max_bytes, overlap_chars))


def append_note(path: str, note: str, seen: FileSnapshot | None = None) -> Remembered:
    """Append ``note`` (already normalised or not) to ``path`` atomically.

    ``seen`` is the snapshot the user looked at; when given and the file differs now, the
    write is refused. Without it the file is read once just before writing.
    """
    normalised = normalize_memory_content(note)
    if not normalised:
        raise RememberError("the note is empty; nothing was written")
    snapshot = seen if seen is not None else FileSnapshot.read(path)
    current = FileSnapshot.read(path)
    if current.content != snapshot.content:
        raise RememberError(f"{path} changed since it was read; reload it and try again")
    old = snapshot.content or b""
    _checked_utf8(path, old)
    data = old + appended_text(old, normalised).encode("utf-8")
    directory = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(directory, exist_ok=True)
        mode = os.stat(path).st_mode & 0o777 if snapshot.content is not None else 0o644
        fd, tmp = tempfile.mkstemp(prefix=".MEMORY.md.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise RememberError(f"{path}: cannot write ({exc.strerror or exc})") from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        if FileSnapshot.read(path).content != snapshot.content:
            raise RememberError(f"{path} changed while writing; nothing was written")
        os.replace(tmp, path)
        with contextlib.suppress(OSError):
            dfd = os.open(directory, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        if isinstance(exc, OSError):
            raise RememberError(f"{path}: cannot write ({exc.strerror or exc})") from exc
        raise
    return Remembered(path, normalised)
