"""``/remember``: normalise a note like the agent and append it atomically (spec §7.17).

The only place RuleLens writes a memory file. The append is a whole-file replace (temp
file in the same directory, fsync, rename) so a crash leaves the old or the new file, never
half of one; and it refuses when the file changed after the caller read it, so a note is
never appended onto text the user has not seen (or onto an edit made in another window).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass

from rulelens.rusttext import byte_len, trim


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
    if old:
        try:
            old.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RememberError(f"{path} is not UTF-8; refusing to append to it") from exc
    data = old + (b"\n\n" if old else b"") + normalised.encode("utf-8")
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
