"""Applying fixes: text edits in memory (``rulelens lint --fix`` and ``--diff``), and whole
fixes to files on disk (the tests; the editor applies its own edits).

Edits are expressed against the text the engine saw; a file is re-read here with the same
decoding (UTF-8, newlines kept as they are) so CRLF files stay CRLF and a BOM stays put.

Every write to a user's file is compare-and-swap (:func:`write_if_unchanged`): under an
exclusive ``flock`` on the file, its bytes are re-read and written over only when they are
still the bytes that were linted. An editor or agent appending to the same file takes no
lock of ours, so the write is made under a kernel write lease (``F_SETLEASE``): the lease is
granted only while no other process has the file open, and any ``open`` by another
process waits until it is released, so the check and the write are one step for every
other writer; the file is then written in place (an appender's later ``O_APPEND`` write
lands after the new text, on the same inode). Where a lease cannot be had (a file owned by
someone else, a file system without leases) the new text goes through a temporary file,
``fsync`` and ``os.replace`` (mode kept), with the bytes checked again right before the
replace and the replaced inode's growth copied back after it; the window left is an
appender that opened the file before the replace and writes after that check.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import signal
import stat
import time
from collections.abc import Iterable

from rulelens.agents import safeio
from rulelens.lint.model import FileRename, Fix, TextEdit


class FixError(Exception):
    """A fix could not be applied (target exists, file changed, ...); nothing was written."""


#: How long a write waits for another RuleLens writer's lock, or for another program to
#: close the file, before it gives up (nothing written).
WAIT_S = 2.0
_WFLAGS = (os.O_RDWR | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
           | getattr(os, "O_CLOEXEC", 0))


def changed_message(path: str) -> str:
    """The one line printed when a file is no longer what was linted."""
    return f"{path}: changed since it was linted — nothing written; re-run"


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


def write_if_unchanged(path: str, linted: bytes, new: bytes) -> str | None:
    """Write ``new`` over ``path`` only if it still holds ``linted``: ``None`` when written,
    else the one-line reason nothing was written."""
    try:
        fd = os.open(path, _WFLAGS)
    except (OSError, ValueError) as exc:
        return f"{path}: cannot be written ({_describe(exc)}) — nothing written"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            what = safeio.describe(safeio.NotAFileError(path, safeio.kind_of(st.st_mode)))
            return f"{path}: {what} — nothing written"
        if not _flock(fd):
            return f"{path}: another RuleLens run is writing it — nothing written; re-run"
        leased = _lease(fd)
        if leased is None:
            return f"{path}: open in another program — nothing written; re-run"
        try:
            if not _same_file(fd, path) or _read_all(fd, len(linted)) != linted:
                return changed_message(path)
            if leased:
                _write_in_place(fd, new)
                return None
            return _replace_checked(fd, path, linted, new)
        finally:
            if leased:
                fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
    except OSError as exc:
        return f"{path}: cannot be written ({_describe(exc)}) — nothing written"
    finally:
        os.close(fd)  # also drops the flock


def _describe(exc: BaseException) -> str:
    return safeio.describe(exc) if isinstance(exc, OSError) else "not a valid path"


def _flock(fd: int) -> bool:
    """An exclusive ``flock`` on ``fd`` within :data:`WAIT_S` (another RuleLens writer)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)


def _lease(fd: int) -> bool | None:
    """A write lease on ``fd``: ``True`` held, ``False`` not available here (not the
    file's owner, no lease support, the lease-break signal is taken), ``None`` another
    program kept the file open for :data:`WAIT_S`.

    A lease break is signalled to the holder; it is sent as ``SIGURG`` (ignored by
    default) so that no handler is needed, in any thread.
    """
    urg = getattr(signal, "SIGURG", None)
    setsig = getattr(fcntl, "F_SETSIG", None)
    if urg is None or setsig is None or not hasattr(fcntl, "F_SETLEASE"):
        return False
    try:
        if signal.getsignal(urg) not in (signal.SIG_DFL, signal.SIG_IGN):
            return False
        fcntl.fcntl(fd, setsig, urg)
    except (OSError, ValueError):
        return False
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
            return True
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EBUSY):
                return False
            if time.monotonic() > deadline:
                return None
            time.sleep(0.005)


def _same_file(fd: int, path: str) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (not replaced meanwhile)."""
    a, b = os.fstat(fd), os.stat(path)
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _read_all(fd: int, expected: int) -> bytes:
    """The file's bytes from offset 0, at most ``expected + 1`` (enough to tell)."""
    chunks: list[bytes] = []
    offset = 0
    while offset <= expected:
        chunk = os.pread(fd, min(1 << 20, expected + 1 - offset), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _write_in_place(fd: int, new: bytes) -> None:
    """``new`` as the file's whole content, on the same inode, then ``fsync``."""
    done = 0
    while done < len(new):
        done += os.pwrite(fd, new[done:], done)
    os.ftruncate(fd, len(new))
    os.fsync(fd)


def _replace_checked(fd: int, path: str, linted: bytes, new: bytes) -> str | None:
    """Without a lease: temporary file, ``fsync``, re-check, ``os.replace``, then copy
    back whatever was appended to the old inode between the re-check and the replace."""
    import tempfile  # only writes without a lease

    path = os.path.realpath(path)  # a link stays a link: its target is replaced
    directory = os.path.dirname(path)
    tfd, tmp = tempfile.mkstemp(prefix=".rulelens-", dir=directory)
    try:
        with os.fdopen(tfd, "wb") as fh:
            fh.write(new)
            fh.flush()
            os.fchmod(fh.fileno(), os.fstat(fd).st_mode & 0o7777)
            os.fsync(fh.fileno())
        if not _same_file(fd, path) or _read_all(fd, len(linted)) != linted:
            os.unlink(tmp)
            return changed_message(path)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    tail = os.pread(fd, safeio.TEXT_LIMIT, len(linted))
    if tail:  # appended after the re-check: keep it, after the new text
        out = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        try:
            os.write(out, tail)
            os.fsync(out)
        finally:
            os.close(out)
    return None


def write_atomic(path: str, text: str, linted: bytes) -> None:
    """:func:`write_if_unchanged` for text; :class:`FixError` when nothing was written."""
    problem = write_if_unchanged(path, linted, text.encode("utf-8", "surrogateescape"))
    if problem is not None:
        raise FixError(problem)


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
            raw = safeio.read_bytes(path, safeio.TEXT_LIMIT)
            new_texts[path] = (raw, apply_text_edits(raw.decode("utf-8"), edits))
        except (OSError, UnicodeDecodeError) as exc:
            raise FixError(f"cannot edit {path}: {exc}") from exc
    changed: list[str] = []
    for path, (raw, text) in new_texts.items():
        write_atomic(path, text, raw)
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
