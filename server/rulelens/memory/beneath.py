"""Reading and writing memory files beneath a memory root, never outside it.

The memory directories belong to the agent, and anything in them may be a symbolic link
(``sessions/x.md -> /etc/shadow``, a workspace directory linked elsewhere). RuleLens only
reads a file whose resolved location lies beneath a memory root, and the check and the
open are one operation: the path is walked one component at a time from a descriptor of
the root, each component opened with ``O_NOFOLLOW`` relative to its parent's descriptor.
A link is resolved by hand (``readlink`` on the parent descriptor, its target spliced in),
so ``..`` pops a descriptor we opened ourselves and an absolute target is accepted only
when it names the root itself. Swapping a directory for a link between two requests, or
in the middle of one, can therefore never make a read land outside: whatever we open was
reached from the root's descriptor through real directories. (This is Linux
``openat2(RESOLVE_BENEATH)`` done in Python, which has no binding for it.)

The agent itself follows such links (its ``list_memory_files`` uses ``is_file``/``is_dir``
and ``read_dir``, and ``reindex_file`` reads the path as given), so its index can hold a
linked file's content; RuleLens lists those files as skipped with the reason instead.

Writes (``remember``) are stricter: no link anywhere below the root
(:func:`open_dir_for_write`), so a note is never written through a link and a link is never
replaced by a copy.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from rulelens.agents import safeio
from rulelens.agents.safeio import kind_of

__all__ = [
    "MAX_MEMORY_FILE_BYTES",
    "Refused",
    "SkippedFile",
    "entries_beneath",
    "kind_of",
    "listdir_beneath",
    "lstat_beneath",
    "open_beneath",
    "open_dir_for_write",
    "read_beneath",
    "read_fd",
    "read_head_beneath",
    "read_regular",
    "relative_to",
]

#: The most links one path may go through (Linux's MAXSYMLINKS).
LINK_LIMIT = 40
#: A memory file larger than this is not read (the agent has no cap; our index and the
#: editor would hold the whole text): safeio's bound for a text file held whole, 64 MiB.
MAX_MEMORY_FILE_BYTES = safeio.TEXT_LIMIT
#: Opening a directory component: never follow a link, never block.
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
#: Opening the file itself: also O_NONBLOCK and O_NOCTTY (a FIFO or a terminal that
#: appeared after the ``lstat`` must not block or become our controlling terminal).
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
#: A component that changed kind between its ``lstat`` and its ``open`` is retried this often.
_RACE_RETRIES = 8


@dataclass(frozen=True)
class SkippedFile:
    """A memory file RuleLens did not read, and why (``reason`` starts with a short code:
    ``outside-roots``, ``not-a-file``, ``too-large``, ``cannot read``, ``not UTF-8``)."""

    path: str
    reason: str


class Refused(OSError):
    """The path was not opened. ``code`` is a short reason, ``str(exc)`` says it in full."""

    def __init__(self, path: str, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.path = path
        self.code = code
        self.detail = detail

    def skipped(self) -> SkippedFile:
        return SkippedFile(self.path, str(self))


def relative_to(root: str, path: str) -> str | None:
    """``path`` below ``root`` as a relative path (components kept, ``..`` included), or
    None when ``path`` does not start with ``root`` (whole components, as spelled or as
    the root's real path). Nothing is normalised: ``..`` is resolved by the walk itself."""
    for prefix in dict.fromkeys((root, os.path.realpath(root))):
        head = prefix.rstrip(os.sep) + os.sep
        if path == prefix.rstrip(os.sep) or path == prefix:
            return ""
        if path.startswith(head):
            return path[len(head):]
    return None


def _parts(rel: str) -> list[str]:
    return [p for p in rel.split(os.sep) if p not in ("", ".")]


@dataclass
class _Walk:
    """Descriptors from the root down to the current directory (index 0: the root)."""

    root: str
    root_real: str
    path: str
    fds: list[int]
    links: int = 0

    def close(self) -> None:
        while self.fds:
            os.close(self.fds.pop())

    def reset_to_root(self) -> None:
        while len(self.fds) > 1:
            os.close(self.fds.pop())

    def outside(self, detail: str) -> Refused:
        return Refused(self.path, "outside-roots", detail + f", outside the memory root"
                                                            f" {self.root}")

    def follow(self, name: str, pending: list[str]) -> list[str]:
        """Splice the target of the link ``name`` (in the current directory) into the
        components still to walk; an absolute target restarts at the root or is refused."""
        try:
            target = os.readlink(name, dir_fd=self.fds[-1])
        except OSError as exc:            # no longer a link since its lstat
            raise _Changed from exc
        self.links += 1
        if self.links > LINK_LIMIT:
            raise Refused(self.path, "cannot read", "too many levels of symbolic links")
        if not target.startswith(os.sep):
            return _parts(target) + pending
        rest = _beneath_root(self.root_real, target)
        if rest is None:
            raise self.outside(f"a link to {target}")
        self.reset_to_root()
        return rest + pending


def _beneath_root(root_real: str, target: str) -> list[str] | None:
    """The components of absolute ``target`` after its shortest prefix that IS the root
    (``realpath`` only answers "is this prefix the root?"; the rest is walked beneath the
    root's descriptor like any other path), or None when no prefix is the root."""
    parts = _parts(target)
    for i in range(len(parts) + 1):
        if os.path.realpath(os.sep + os.sep.join(parts[:i])) == root_real:
            return parts[i:]
    return None


def _walk(root: str, path: str) -> tuple[_Walk, str, os.stat_result]:
    """Walk ``path`` beneath ``root``: (the walk, whose last descriptor is the parent
    directory, the final name, its ``lstat``). The final entry is not a link (links are
    followed while they stay beneath the root). Raises :class:`Refused`."""
    rel = relative_to(root, path)
    root_real = os.path.realpath(root)
    if rel is None:
        raise Refused(path, "outside-roots", f"not under the memory root {root}")
    try:
        root_fd = os.open(root_real, _DIR_FLAGS & ~os.O_NOFOLLOW)
    except OSError as exc:
        raise Refused(path, "cannot read",
                      f"memory root {root}: {exc.strerror or exc}") from exc
    walk = _Walk(root, root_real, path, [root_fd])
    try:
        pending = _parts(rel)
        if not pending:
            raise Refused(path, "not-a-file", "the memory root itself is a directory")
        retries = 0
        while True:
            name = pending.pop(0)
            if name == "..":
                if len(walk.fds) == 1:
                    raise walk.outside("'..' leaves the root")
                os.close(walk.fds.pop())
                if not pending:
                    raise Refused(path, "not-a-file", "a directory")
                continue
            try:
                st = os.stat(name, dir_fd=walk.fds[-1], follow_symlinks=False)
            except OSError as exc:
                raise _io_refusal(path, exc) from exc
            if stat.S_ISLNK(st.st_mode):
                try:
                    pending = walk.follow(name, pending)
                except _Changed:
                    retries = _retry(path, retries)
                    pending.insert(0, name)
                    continue
                if not pending:  # the link named the root itself
                    raise Refused(path, "not-a-file", "a directory")
                continue
            if not pending:
                return walk, name, st
            if not stat.S_ISDIR(st.st_mode):
                raise Refused(path, "cannot read", f"{name}: not a directory")
            try:
                fd = os.open(name, _DIR_FLAGS, dir_fd=walk.fds[-1])
            except OSError as exc:
                if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
                    raise _io_refusal(path, exc) from exc
                retries = _retry(path, retries)  # it became a link after its lstat
                pending.insert(0, name)
                continue
            walk.fds.append(fd)
    except BaseException:
        walk.close()
        raise


class _Changed(Exception):
    """A component changed kind between two system calls; it is looked at again."""


def _retry(path: str, retries: int) -> int:
    if retries >= _RACE_RETRIES:
        raise Refused(path, "cannot read", "it kept changing while being opened")
    return retries + 1


def _io_refusal(path: str, exc: OSError) -> Refused:
    if exc.errno == errno.ENOENT:
        return Refused(path, "missing", "no such file")
    return Refused(path, "cannot read", exc.strerror or str(exc))


@contextlib.contextmanager
def open_beneath(root: str, path: str) -> Iterator[tuple[int, os.stat_result]]:
    """A read-only descriptor of the regular file ``path`` beneath ``root`` and its
    ``fstat``; refuses (:class:`Refused`) links out of the root and non-regular files,
    which are never opened (a FIFO or device is refused on its ``lstat``)."""
    for _ in range(_RACE_RETRIES):
        walk, name, st = _walk(root, path)
        try:
            if not stat.S_ISREG(st.st_mode):
                raise Refused(path, "not-a-file", kind_of(st.st_mode))
            try:
                fd = os.open(name, _FILE_FLAGS, dir_fd=walk.fds[-1])
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    continue                # replaced by a link since its lstat: walk again
                raise _io_refusal(path, exc) from exc
        finally:
            walk.close()
        try:
            opened = os.fstat(fd)
            if (opened.st_dev, opened.st_ino) != (st.st_dev, st.st_ino):
                continue                    # replaced since its lstat: walk again
            yield fd, opened
            return
        finally:
            os.close(fd)
    raise Refused(path, "cannot read", "it kept changing while being opened")


def lstat_beneath(root: str, path: str) -> os.stat_result:
    """What ``path`` resolves to beneath ``root`` (its ``lstat`` after following links that
    stay beneath), without opening it. Raises :class:`Refused`."""
    walk, _, st = _walk(root, path)
    walk.close()
    return st


def read_fd(fd: int, st: os.stat_result, path: str,
            limit: int = MAX_MEMORY_FILE_BYTES) -> bytes:
    """The whole content of an open regular file, through the one bounded read
    (:func:`rulelens.agents.safeio.read_opened`), refused above ``limit`` bytes."""
    try:
        return safeio.read_opened(fd, st, path, limit)
    except safeio.NotAFileError as exc:
        raise Refused(path, "not-a-file", exc.kind) from exc
    except safeio.TooLargeError as exc:
        raise Refused(path, "too-large", f"{exc.size} bytes; RuleLens reads memory files"
                                         f" up to {limit} bytes") from exc
    except OSError as exc:
        raise _io_refusal(path, exc) from exc


def read_beneath(root: str, path: str, limit: int = MAX_MEMORY_FILE_BYTES
                 ) -> tuple[bytes, os.stat_result]:
    """(content, fstat) of the memory file ``path`` beneath ``root``: the one way memory
    content is read. Raises :class:`Refused`."""
    with open_beneath(root, path) as (fd, st):
        return read_fd(fd, st, path, limit), st


def read_head_beneath(root: str, path: str, limit: int) -> bytes:
    """The first ``limit`` bytes of the memory file ``path`` beneath ``root`` (the rest is
    not read). Raises :class:`Refused`, as :func:`read_beneath` does."""
    with open_beneath(root, path) as (fd, st):
        try:
            return safeio.read_head_opened(fd, st, path, limit)[0]
        except safeio.NotAFileError as exc:
            raise Refused(path, "not-a-file", exc.kind) from exc
        except OSError as exc:
            raise _io_refusal(path, exc) from exc


def read_regular(path: str, limit: int = MAX_MEMORY_FILE_BYTES
                 ) -> tuple[bytes, os.stat_result]:
    """(content, fstat) of a file the user named (no root): opened without blocking, read
    only when the descriptor is a regular file. Raises :class:`Refused`."""
    try:
        with safeio.open_regular(path) as (fd, st):
            return read_fd(fd, st, path, limit), st
    except safeio.NotAFileError as exc:
        raise Refused(path, "not-a-file", exc.kind) from exc
    except Refused:
        raise
    except OSError as exc:
        raise _io_refusal(path, exc) from exc


def open_dir_for_write(root: str, rel_dir: str, create: bool) -> int:
    """A descriptor of the directory ``rel_dir`` beneath ``root`` for a write: no
    component below the root may be a link (even one that stays inside), so a write can
    never go through one. Missing directories are created when ``create``. Raises
    :class:`Refused` (code ``link`` for a link) or ``OSError``."""
    root_real = os.path.realpath(root)
    if create:
        os.makedirs(root_real, exist_ok=True)
    fd = os.open(root_real, _DIR_FLAGS & ~os.O_NOFOLLOW)
    try:
        for name in _parts(rel_dir):
            if name == "..":
                raise Refused(os.path.join(root, rel_dir), "outside-roots", "'..' in the path")
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o755, dir_fd=fd)
                child = _open_child_dir(root, rel_dir, fd, name)
            except OSError as exc:
                if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
                    raise
                child = _open_child_dir(root, rel_dir, fd, name)
            os.close(fd)
            fd = child
        return fd
    except BaseException:
        os.close(fd)
        raise


def _open_child_dir(root: str, rel_dir: str, fd: int, name: str) -> int:
    """Open ``name`` as a directory; a link or another kind of file is refused by name."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=fd)
    except OSError as exc:
        if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
            raise
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        where = os.path.join(root, rel_dir)
        if stat.S_ISLNK(st.st_mode):
            target = os.readlink(name, dir_fd=fd)
            raise Refused(where, "link", f"{name} is a symbolic link (to {target}); RuleLens"
                                         " does not write through links") from exc
        raise Refused(where, "not-a-file", f"{name} is {kind_of(st.st_mode)}, not a"
                                           " directory") from exc


def entries_beneath(root: str, path: str) -> list[tuple[str, int | None]]:
    """(name, mode) of each entry of the directory ``path`` beneath ``root``, the mode from
    the listing itself (no ``stat`` per entry where the file system reports types); None
    for a link, which :func:`lstat_beneath` resolves. ``[]`` when it does not exist."""
    fd = _open_dir_beneath(root, path)
    if fd is None:
        return []
    try:
        with os.scandir(fd) as it:
            return [(e.name, None if e.is_symlink()
                     else stat.S_IFREG if e.is_file(follow_symlinks=False)
                     else e.stat(follow_symlinks=False).st_mode) for e in it]
    finally:
        os.close(fd)


def _open_dir_beneath(root: str, path: str) -> int | None:
    try:
        walk, name, st = _walk(root, path)
    except Refused as exc:
        if exc.code == "missing":
            return None
        raise
    try:
        if not stat.S_ISDIR(st.st_mode):
            raise Refused(path, "not-a-file", f"{kind_of(st.st_mode)}, not a directory")
        try:
            return os.open(name, _DIR_FLAGS, dir_fd=walk.fds[-1])
        except OSError as exc:
            raise _io_refusal(path, exc) from exc
    finally:
        walk.close()


def listdir_beneath(root: str, path: str) -> list[str]:
    """The names in the directory ``path`` beneath ``root`` (links followed while they stay
    beneath); ``[]`` when it does not exist. Raises :class:`Refused` otherwise."""
    fd = _open_dir_beneath(root, path)
    if fd is None:
        return []
    try:
        return os.listdir(fd)
    finally:
        os.close(fd)
