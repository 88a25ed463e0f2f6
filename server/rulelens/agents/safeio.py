"""Safe reads of files that others control: never block, never read without end.

Every read RuleLens makes of a candidate file (instruction files, rules directories,
``config.toml``, ``.gitignore``, lint targets, memory notes) goes through this module.
A repository can name a FIFO ``AGENTS.md`` (a plain ``open`` waits forever for a writer),
point ``CLAUDE.md`` at ``/dev/zero`` (a plain ``read`` never ends) or at
``/proc/self/mem``, so a read here:

1. opens with ``O_NONBLOCK`` (a FIFO opens at once), ``O_NOCTTY`` and ``O_CLOEXEC``;
2. ``fstat``s the *opened descriptor* (never the name, which can change in between) and
   refuses anything that is not a regular file with :class:`NotAFileError`, naming what
   it is; a regular file on ``/proc`` or ``/sys`` is a kernel pseudo-file and refused too
   (their sizes say 0 and their reads may never end or fail);
3. reads at most the caller's bound: :func:`read_bytes` raises :class:`TooLargeError`
   above it, :func:`read_head` returns the first bytes and whether there were more.

Ground floor: imports nothing from the rest of ``rulelens``; standard library only.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator

#: Bound for a text file RuleLens holds whole (an instruction file, a rule, a note). The
#: agent has no cap: a 50 MB AGENTS.md loads, and RuleLens shows it; a sparse 100 GB one
#: must not exhaust memory.
TEXT_LIMIT = 64 * 1024 * 1024
#: Bound for a configuration file (``config.toml``, ``.gitignore``, a git config).
CONFIG_LIMIT = 4 * 1024 * 1024
_CHUNK = 1 << 20
_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
          | getattr(os, "O_CLOEXEC", 0))
#: Mount points of the kernel's pseudo file systems, whose "regular" files are not files.
_PSEUDO_MOUNTS = ("/proc", "/sys")


class NotAFileError(OSError):
    """The path opened (or exists) but is not a regular file; ``kind`` says what it is."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(errno.EINVAL, f"it is {kind}, not a regular file", path)
        self.path = path
        self.kind = kind


class TooLargeError(OSError):
    """A regular file larger than the caller's bound; ``size`` is what ``fstat`` said."""

    def __init__(self, path: str, size: int, limit: int) -> None:
        super().__init__(errno.EFBIG, f"it is larger than {limit} bytes ({size} bytes)", path)
        self.path = path
        self.size = size
        self.limit = limit


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words: ``a FIFO``, ``a socket``, ..."""
    for test, name in ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "a special file"


def _pseudo_kind(st: os.stat_result) -> str | None:
    """``a kernel pseudo-file (/proc)`` when ``st`` lives on /proc or /sys, else None."""
    for mount in _PSEUDO_MOUNTS:
        try:
            if os.stat(mount).st_dev == st.st_dev:
                return f"a kernel pseudo-file ({mount})"
        except OSError:
            continue
    return None


@contextlib.contextmanager
def open_regular(path: str) -> Iterator[tuple[int, os.stat_result]]:
    """An open descriptor of a regular file and its ``fstat``; closed on exit.

    Raises :class:`NotAFileError` for anything else (a socket, which cannot be opened at
    all, is named from a ``stat`` of the path), ``OSError`` for every other failure
    (missing, permission, symlink loop) and never blocks.
    """
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.EOPNOTSUPP, errno.ENODEV):
            try:
                mode = os.stat(path).st_mode
            except OSError:
                raise exc from None
            raise NotAFileError(path, kind_of(mode)) from None
        raise
    except ValueError as exc:  # an embedded NUL
        raise OSError(errno.EINVAL, "not a valid path", path) from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotAFileError(path, kind_of(st.st_mode))
        # Kernel files that never end or fail on read (/proc/self/mem, /proc/kmsg) say
        # size 0; an ordinary file with content costs no extra stat. (A /sys attribute
        # says 4096 and reads a line; a pseudo-file elsewhere honours O_NONBLOCK.)
        pseudo = _pseudo_kind(st) if st.st_size == 0 else None
        if pseudo is not None:
            raise NotAFileError(path, pseudo)
        yield fd, st
    finally:
        os.close(fd)


def _read_up_to(fd: int, limit: int) -> bytes:
    """At most ``limit`` bytes from ``fd``, to its end (a file may grow or shrink)."""
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        try:
            chunk = os.read(fd, min(left, _CHUNK))
        except BlockingIOError:  # a mandatory lock or similar: no data now
            break
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_bytes(path: str, limit: int = TEXT_LIMIT) -> bytes:
    """The whole content of a regular file of at most ``limit`` bytes.

    Raises :class:`NotAFileError`, :class:`TooLargeError` (also when the file grew past
    the bound while being read) or ``OSError``.
    """
    with open_regular(path) as (fd, st):
        return read_opened(fd, st, path, limit)


def read_opened(fd: int, st: os.stat_result, path: str, limit: int = TEXT_LIMIT) -> bytes:
    """:func:`read_bytes` for a descriptor the caller opened itself (relative to a
    directory descriptor, say, as the memory reads beneath a root do); ``st`` is its
    ``fstat``. The same refusals: not a regular file, a kernel pseudo-file, over ``limit``.
    """
    check_opened(st, path)
    if st.st_size > limit:
        raise TooLargeError(path, st.st_size, limit)
    data = _read_up_to(fd, limit + 1)
    if len(data) > limit:
        raise TooLargeError(path, len(data), limit)
    return data


def check_opened(st: os.stat_result, path: str) -> None:
    """Refuse a descriptor the caller opened whose ``fstat`` (``st``) is not a regular
    file or is a kernel pseudo-file (:class:`NotAFileError`), as :func:`open_regular` does."""
    if not stat.S_ISREG(st.st_mode):
        raise NotAFileError(path, kind_of(st.st_mode))
    pseudo = _pseudo_kind(st) if st.st_size == 0 else None
    if pseudo is not None:
        raise NotAFileError(path, pseudo)


def read_head_opened(fd: int, st: os.stat_result, path: str, limit: int
                     ) -> tuple[bytes, bool]:
    """:func:`read_head` for a descriptor the caller opened (same refusals)."""
    check_opened(st, path)
    data = _read_up_to(fd, limit + 1)
    return data[:limit], len(data) > limit


def iter_opened(fd: int, st: os.stat_result, path: str, offset: int = 0,
                chunk: int = _CHUNK) -> Iterator[bytes]:
    """:func:`iter_chunks` for a descriptor the caller opened, from byte ``offset`` (read
    with ``pread``: the descriptor's position is left alone). Same refusals."""
    check_opened(st, path)
    while True:
        try:
            data = os.pread(fd, chunk, offset)
        except BlockingIOError:
            return
        if not data:
            return
        offset += len(data)
        yield data


def read_head(path: str, limit: int) -> tuple[bytes, bool]:
    """The first ``limit`` bytes of a regular file, and whether there are more."""
    with open_regular(path) as (fd, _st):
        data = _read_up_to(fd, limit + 1)
    return data[:limit], len(data) > limit


def read_text(path: str, limit: int = TEXT_LIMIT, errors: str = "strict") -> str:
    """:func:`read_bytes` decoded as UTF-8 (``errors`` as for :meth:`bytes.decode`)."""
    return read_bytes(path, limit).decode("utf-8", errors)


def iter_chunks(path: str, chunk: int = _CHUNK) -> Iterator[bytes]:
    """A regular file's content in chunks, however large (for streaming it out)."""
    with open_regular(path) as (fd, _st):
        while True:
            try:
                data = os.read(fd, chunk)
            except BlockingIOError:
                return
            if not data:
                return
            yield data


def describe(exc: OSError) -> str:
    """A short reason for a failed read: ``it is a FIFO, not a regular file``, ..."""
    if isinstance(exc, NotAFileError | TooLargeError):
        return str(exc.strerror)
    if exc.errno == errno.ELOOP:
        return "it is a symlink loop"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.ENOENT:
        return "it does not exist (dangling symlink?)"
    return exc.strerror or str(exc)


def printable(text: str) -> str:
    """``text`` (a path, a query) with what is not UTF-8 shown as ``\\xff`` escapes.

    A file name is any bytes; Python holds undecodable ones as lone surrogates, which
    cannot be encoded for a terminal, JSON or an editor. Valid text is returned unchanged.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return text
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # surrogates that are no escaped bytes
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
