"""The reads the per-agent discovery modules make, in one place.

Every function returns a value instead of raising: a file that cannot be read is an
error string the view shows as a reason. Reads go through ``agents/safeio.py`` (non-blocking,
regular files only), so a FIFO named ``AGENTS.md`` cannot hang discovery.
"""

from __future__ import annotations

import os
import stat

from rulelens.agents import safeio, scan
from rulelens.agents.fs import exists, is_dir

__all__ = ["exists", "is_dir"]  # re-exported: the discovery modules read through fsio only

#: The most any discovery module reads of one file (Claude skips files over 4 MiB whole;
#: nothing else needs more to decide).
READ_CAP = 4 * 1024 * 1024 + 1


#: Reads :func:`read_bytes` keeps in the language server's per-session scan cache: the
#: instruction and configuration files every agent's view reads again.
CACHED_READ = 256 * 1024


def read_bytes(path: str, cap: int = READ_CAP) -> bytes | str:
    """Up to ``cap`` bytes of a regular file (through :mod:`rulelens.agents.safeio`: never
    blocks, regular files only), or a one-line reason it cannot be read."""
    read: list[bytes | str] = []

    def small() -> bytes | str | None:  # a large file is not kept: read again when asked
        read.append(_read_bytes(path, cap))
        return read[0] if len(read[0]) <= CACHED_READ else None

    # 16 cold views of a file read the same few files: +65 % without (A/B as cline.py).
    found = scan.cached(("read", path, cap), small)
    if found is not None:
        return found
    return read[0] if read else _read_bytes(path, cap)


def _read_bytes(path: str, cap: int) -> bytes | str:
    try:
        data, _more = safeio.read_head(path, cap)
    except OSError as exc:
        return safeio.describe(exc)
    except ValueError:
        return "not a valid path"
    return data


def read_text(path: str, cap: int = READ_CAP) -> str | None:
    """UTF-8 text (lossy), or ``None`` when it cannot be read."""
    data = read_bytes(path, cap)
    return None if isinstance(data, str) else data.decode("utf-8", errors="replace")


def size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


def is_file(path: str) -> bool:
    """``metadata().is_file()``: follows symlinks; errors count as no."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def readable(path: str) -> bool:
    """``fs.access(path, R_OK)``."""
    try:
        return os.access(path, os.R_OK) and exists(path)
    except (OSError, ValueError):
        return False


def listdir(path: str) -> list[str]:
    """Sorted entry names; empty on any error."""
    try:
        return sorted(os.listdir(path))
    except (OSError, ValueError):
        return []


def walk_files(top: str, suffix: str, limit: int = 2000) -> list[str]:
    """Files below ``top`` whose name ends with ``suffix``, sorted, following directory
    symlinks once (a cycle is cut by remembering each directory's identity)."""
    out: list[str] = []
    seen: set[tuple[int, int]] = set()
    stack = [top]
    while stack and len(out) < limit:
        d = stack.pop()
        try:
            st = os.stat(d)
        except (OSError, ValueError):
            continue
        if (st.st_dev, st.st_ino) in seen:
            continue
        seen.add((st.st_dev, st.st_ino))
        subdirs = []
        for name in listdir(d):
            p = os.path.join(d, name)
            if is_dir(p):
                subdirs.append(p)
            elif name.endswith(suffix) and is_file(p):
                out.append(p)
        stack.extend(reversed(subdirs))
    return sorted(out)


def ancestors(start: str, stop: str | None = None) -> list[str]:
    """``start`` and its parents (lexically), up to and including ``stop`` (or ``/``)."""
    out = []
    current = start
    while True:
        out.append(current)
        if stop is not None and current == stop:
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return out


def between(top: str, bottom: str) -> list[str]:
    """Directories strictly below ``top`` down to ``bottom`` inclusive, top first; empty
    when ``bottom`` is not below ``top``."""
    if not is_below(bottom, top) or bottom == top:
        return []
    rel = os.path.relpath(bottom, top).split(os.sep)
    return [os.path.join(top, *rel[: i + 1]) for i in range(len(rel))]


def is_below(path: str, root: str) -> bool:
    """Path-component prefix test (``path`` equals ``root`` or lies inside it)."""
    if path == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path.startswith(prefix)


def rel_below(file: str | None, base: str) -> str | None:
    """``file`` relative to ``base`` with ``/`` separators, or ``None`` unless strictly
    below it (the form scope globs are matched against)."""
    if file is None or file == base or not is_below(file, base):
        return None
    return os.path.relpath(file, base).replace(os.sep, "/")


def repo_root(cwd: str) -> str | None:
    """Nearest ancestor-or-self of ``cwd`` holding ``.git`` (directory or file)."""
    for d in ancestors(cwd):
        if os.path.lexists(os.path.join(d, ".git")):
            return d
    return None
