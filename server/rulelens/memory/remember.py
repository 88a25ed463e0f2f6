"""``/remember``: normalise a note like the agent and append it safely (spec §7.17).

The only place RuleLens writes a memory file. The append is made in place, under a lock:

* **a real lock**: ``fcntl.flock`` on a descriptor of the memory file's directory (it
  creates no file, and every RuleLens process and thread shares it whatever its cache
  directory), taken with a timeout; a writer that cannot get it in time answers "busy";
* **re-checked under the lock**: the file is read again once the lock is held and the note
  refused when it differs from what the caller saw (``seen`` / ``expectedSha256``), so a
  note is never appended onto text the user has not seen;
* **appended with one ``O_APPEND`` write**: the agent's own ``/remember`` appends to the
  same file without our lock (``OpenOptions::append``). A whole-file replace (temp file +
  rename) would silently drop whatever it appended between our read and our rename; an
  ``O_APPEND`` write goes at the end of the file as it is at that instant, so neither
  writer's text is lost. The data is fsynced; a write the disk refuses is truncated away
  again when nothing was appended after it;
* **never through a link**: every component below the memory root is opened with
  ``O_NOFOLLOW``, so a symlinked ``MEMORY.md`` or workspace directory is refused with a
  message, never written through and never replaced by a copy.

:func:`plan_note` is the dry run behind a confirmation dialog: the exact text the append
would add and whether the agent's search could ever return it, computed with the agent's
own chunker and content-free filter so that no client re-implements either.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from rulelens.agents.paths import display_path
from rulelens.agents.rusttext import byte_len, lines, trim
from rulelens.memory.beneath import (
    MAX_MEMORY_FILE_BYTES,
    Refused,
    kind_of,
    open_dir_for_write,
    relative_to,
)
from rulelens.memory.chunker import Chunk, chunk_markdown
from rulelens.memory.search import is_content_free, is_scaffold, is_structurally_empty

#: How long ``remember`` waits for another writer of the same file before answering busy.
LOCK_TIMEOUT_S = 10.0


class RememberError(Exception):
    """The note was not written; the message says why and nothing was lost."""


class RememberBusy(RememberError):
    """Another RuleLens held the file's lock for longer than the timeout."""


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
    def read(cls, path: str, root: str | None = None) -> FileSnapshot:
        """The file as :func:`append_note` would see it (same refusals: a link, a FIFO)."""
        with _memory_dir(path, root, create=False) as dfd:
            if dfd is None:
                return cls(path, None)
            fd = _open_memory_file(path, dfd, os.O_RDONLY)
            if fd is None:
                return cls(path, None)
            try:
                return cls(path, _read_all(path, fd))
            finally:
                os.close(fd)


@dataclass(frozen=True)
class Remembered:
    path: str
    text: str  # the normalised note as appended
    sha256: str = ""  # of the whole file right after the append (read under the lock)


def appended_text(existing: bytes | None, normalised: str) -> str:
    """What an append adds after ``existing``: ``\\n\\n`` + note, or the note alone when the
    file is missing or empty (spec §7.17), so the file always ends with the note itself."""
    return ("\n\n" if existing else "") + normalised


def _checked_utf8(path: str, content: bytes | None) -> str:
    """The file's text; a file that is not UTF-8 is refused (appending would hide it)."""
    try:
        return (content or b"").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RememberError(f"{display_path(path)} is not UTF-8; refusing to append to it") from exc


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
              overlap_chars: int, root: str | None = None) -> NotePlan:
    """What :func:`append_note` would do to ``path`` now; the same refusals, no write."""
    normalised = normalize_memory_content(note)
    if not normalised:
        raise RememberError("the note is empty; nothing would be written")
    seen = FileSnapshot.read(path, root)
    existing = _checked_utf8(path, seen.content)
    text = appended_text(seen.content, normalised)
    return NotePlan(path, normalised, text, seen,
                    note_findability(existing, text, source, max_bytes, overlap_chars))


def sha256_hex(content: bytes | None) -> str:
    """Hex SHA-256 of a file's bytes; ``""`` for a missing file (what ``remember`` compares)."""
    return "" if content is None else hashlib.sha256(content).hexdigest()


def append_note(path: str, note: str, seen: FileSnapshot | None = None, *,
                expected_sha256: str | None = None, root: str | None = None,
                timeout_s: float = LOCK_TIMEOUT_S) -> Remembered:
    """Append ``note`` (already normalised or not) to ``path``, in place, under the lock.

    ``seen`` is the snapshot the user looked at, ``expected_sha256`` the hash of the bytes
    they saw (``""``: no file); when the file differs now (checked under the lock), nothing
    is written. ``root`` is the memory root: nothing below it may be a link (default: the
    file's own directory).
    """
    normalised = normalize_memory_content(note)
    if not normalised:
        raise RememberError("the note is empty; nothing was written")
    with _memory_dir(path, root, create=True) as dfd:
        if dfd is None:  # not with create=True; kept for the type checker
            raise RememberError(f"{display_path(path)}: no directory; nothing was written")
        with _locked(path, dfd, timeout_s):
            return _append_locked(path, dfd, normalised, seen, expected_sha256)


def _append_locked(path: str, dfd: int, normalised: str, seen: FileSnapshot | None,
                   expected_sha256: str | None) -> Remembered:
    """The checks and the append, with the lock held."""
    for _ in range(3):
        fd = _open_memory_file(path, dfd, os.O_RDWR | os.O_APPEND)
        created = fd is None
        if fd is None:
            try:
                fd = os.open(os.path.basename(path), os.O_RDWR | os.O_APPEND | os.O_CREAT
                             | os.O_EXCL | _NO_FOLLOW, 0o644, dir_fd=dfd)
            except FileExistsError:
                continue               # someone (the agent) created it just now
        try:
            current = None if created else _settled(path, fd)
            _check_unchanged(path, current, seen, expected_sha256)
            _checked_utf8(path, current)
            _append(path, fd, appended_text(current, normalised).encode("utf-8"))
            if created:
                with contextlib.suppress(OSError):
                    os.fsync(dfd)
            return Remembered(path, normalised, sha256_hex(_read_all(path, fd)))
        finally:
            os.close(fd)
    raise RememberError(f"{display_path(path)}"
                        " kept appearing and disappearing; nothing was written")


def append_in_place(path: str, suffix_for: Callable[[bytes | None], bytes], *, root: str,
                    timeout_s: float = LOCK_TIMEOUT_S) -> bytes:
    """Append ``suffix_for(file as it is under the lock)`` to ``path`` (another agent's
    format), with the same lock, link refusals and single ``O_APPEND`` write as
    :func:`append_note`; returns the bytes written. ``suffix_for`` may raise
    :class:`RememberError` to refuse (nothing is written)."""
    with _memory_dir(path, root, create=True) as dfd:
        if dfd is None:  # not with create=True; kept for the type checker
            raise RememberError(f"{display_path(path)}: no directory; nothing was written")
        with _locked(path, dfd, timeout_s):
            for _ in range(3):
                fd = _open_memory_file(path, dfd, os.O_RDWR | os.O_APPEND)
                created = fd is None
                if fd is None:
                    try:
                        fd = os.open(os.path.basename(path), os.O_RDWR | os.O_APPEND
                                     | os.O_CREAT | os.O_EXCL | _NO_FOLLOW, 0o644, dir_fd=dfd)
                    except FileExistsError:
                        continue
                try:
                    current = None if created else _settled(path, fd)
                    _checked_utf8(path, current)
                    data = suffix_for(current)
                    _append(path, fd, data)
                    if created:
                        with contextlib.suppress(OSError):
                            os.fsync(dfd)
                    return data
                finally:
                    os.close(fd)
    raise RememberError(f"{display_path(path)}"
                        " kept appearing and disappearing; nothing was written")


#: Opening a memory file for ``remember``: no link, no blocking on a FIFO, no tty.
_NO_FOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY


@contextlib.contextmanager
def _memory_dir(path: str, root: str | None, create: bool) -> Iterator[int | None]:
    """A descriptor of ``path``'s directory, reached from ``root`` without links (None:
    it does not exist and ``create`` is false)."""
    directory = os.path.dirname(os.path.abspath(path))
    root = directory if root is None else root
    rel = relative_to(root, directory)
    if rel is None:
        raise RememberError(f"{display_path(path)}"
                            f" is outside the memory root {display_path(root)}; refusing to write")
    try:
        dfd = open_dir_for_write(root, rel, create)
    except FileNotFoundError:
        if create:
            raise RememberError(f"{display_path(path)}"
                                ": its directory vanished; nothing was written") from None
        yield None
        return
    except Refused as exc:
        raise RememberError(f"{display_path(path)}: refusing to write: {exc.detail}") from exc
    except OSError as exc:
        raise RememberError(f"{display_path(path)}: cannot write ({exc.strerror or exc})") from exc
    try:
        yield dfd
    finally:
        os.close(dfd)


def _open_memory_file(path: str, dfd: int, flags: int) -> int | None:
    """``MEMORY.md`` in the directory ``dfd``, never through a link; None when missing."""
    name = os.path.basename(path)
    try:
        fd = os.open(name, flags | _NO_FOLLOW, dir_fd=dfd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            target = os.readlink(name, dir_fd=dfd)
            raise RememberError(
                f"{path} is a symbolic link (to {target}); RuleLens does not write through"
                " links (it would not replace the link with a copy either): add the note to"
                " the target itself, or replace the link with the file") from exc
        if exc.errno == errno.ENXIO:       # a FIFO without a reader
            raise RememberError(f"{display_path(path)}"
                                " is a FIFO, not a file; refusing to write") from exc
        raise RememberError(f"{display_path(path)}: cannot open ({exc.strerror or exc})") from exc
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise RememberError(f"{display_path(path)}"
                            f" is {kind_of(st.st_mode)}, not a file; refusing to write")
    return fd


#: How long a file that ends mid-line on a page boundary is watched for the rest of the
#: line (see :func:`_settled`).
_SETTLE_S = 0.05


def _settled(path: str, fd: int) -> bytes:
    """The file's bytes; when they end mid-line exactly on a page boundary, read again
    until the line completes or ``_SETTLE_S`` has passed.

    An agent appends with plain ``O_APPEND`` and no lock. A line that straddles a page is
    copied in page by page, and the file's size covers the first part before the rest is
    there; if the writer is preempted then, a read sees the file end mid-line for as long
    as it waits, and a note appended after "the missing final newline" would leave an
    empty line once that line completes (1 in ~30 runs of the racing-writer test)."""
    current = _read_all(path, fd)
    page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
    deadline = time.monotonic() + _SETTLE_S
    while current and not current.endswith(b"\n") and len(current) % page == 0 \
            and time.monotonic() < deadline:
        time.sleep(0.001)  # no event to wait on: the writer is another process
        current = _read_all(path, fd)
    return current


def _read_all(path: str, fd: int) -> bytes:
    size = os.fstat(fd).st_size
    if size > MAX_MEMORY_FILE_BYTES:
        raise RememberError(f"{display_path(path)}"
                            f" is {size} bytes; RuleLens appends to memory files up to"
                            f" {MAX_MEMORY_FILE_BYTES} bytes")
    out: list[bytes] = []
    offset = 0
    while True:
        block = os.pread(fd, 1 << 20, offset)
        if not block:
            return b"".join(out)
        out.append(block)
        offset += len(block)


def _check_unchanged(path: str, current: bytes | None, seen: FileSnapshot | None,
                     expected_sha256: str | None) -> None:
    if seen is not None and current != seen.content:
        raise RememberError(f"{display_path(path)}"
                            " changed since it was read; reload it and try again")
    if expected_sha256 is not None and sha256_hex(current) != expected_sha256.lower():
        raise RememberError(f"{display_path(path)} changed since it was read; nothing was written"
                            " (reload it and try again)")


def _append(path: str, fd: int, data: bytes) -> None:
    """One ``O_APPEND`` write of ``data`` (looping only on a short write), then fsync. On
    failure the file is cut back to its old length unless someone appended after us."""
    start = os.fstat(fd).st_size
    written = 0
    try:
        while written < len(data):
            written += os.write(fd, data[written:])
        os.fsync(fd)
    except OSError as exc:
        undone = False
        with contextlib.suppress(OSError):
            if written and os.fstat(fd).st_size == start + written:
                os.ftruncate(fd, start)
                undone = True
        tail = ("nothing was written" if not written or undone
                else f"{written} of {len(data)} bytes were written and could not be removed")
        raise RememberError(f"{display_path(path)}"
                            f": cannot write ({exc.strerror or exc}); {tail}") from exc


@contextlib.contextmanager
def _locked(path: str, dfd: int, timeout_s: float) -> Iterator[None]:
    """``flock`` the memory file's directory (a descriptor of its own, so threads of one
    process exclude each other too), waiting at most ``timeout_s``."""
    fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=dfd)
    try:
        deadline = time.monotonic() + timeout_s
        delay = 0.001
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise RememberBusy(
                        f"{path} is busy: another RuleLens has been writing it for"
                        f" {timeout_s:g} s; nothing was written, try again") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
