"""The file system as the checks see it: stats, either live or remembered for one run.

A few checks look at files other than the document (Codex's chain of ``AGENTS.md``
sizes, the line of a related file, a case twin next to it). In the editor each lint sees
the disk as it is now (:data:`LIVE`). A ``rulelens lint`` run over a tree asks the same
questions for hundreds of documents that share directories — every ``AGENTS.md`` below a
package asks for the sizes of the same ancestors' files — so the CLI gives every document
of one run one :class:`Snapshot`, which answers each question once; ``--fix`` takes a new
snapshot after each change it makes.
"""

from __future__ import annotations

import os
import stat


class Disk:
    """Live answers: every call asks the operating system."""

    def stat(self, path: str) -> os.stat_result | None:
        """``os.stat`` (following symlinks), or ``None`` when it fails."""
        try:
            return os.stat(path)
        except (OSError, ValueError):
            return None

    def regular_size(self, path: str) -> int | None:
        """The size of ``path`` if it is a regular file (``os.path.isfile``), else ``None``."""
        st = self.stat(path)
        return st.st_size if st is not None and stat.S_ISREG(st.st_mode) else None

    def same_file(self, a: str, b: str) -> bool | None:
        """``os.path.samefile``; ``None`` when either cannot be stat'ed (where samefile
        raises)."""
        sa, sb = self.stat(a), self.stat(b)
        if sa is None or sb is None:
            return None
        return sa.st_ino == sb.st_ino and sa.st_dev == sb.st_dev


class Snapshot(Disk):
    """Answers remembered for the life of the object: one lint run over a tree.

    No lock: one dictionary store is atomic, and two threads racing on a first question
    store the same answer."""

    def __init__(self) -> None:
        self._stats: dict[str, os.stat_result | None] = {}

    def stat(self, path: str) -> os.stat_result | None:
        try:
            return self._stats[path]
        except KeyError:
            pass
        found = self._stats[path] = super().stat(path)
        return found


LIVE = Disk()
