"""How old each loaded instruction file is, for the line-0 hover (issue 23 item 5).

Two ``git`` calls per file (:mod:`rulelens.rules.age`) are too slow for a hover, so ages are
read in the background: the hover shows the ages already known and says how many are still
being read; the next hover has them. :class:`Ages` is owned by the server for its
lifetime and keyed by the file's size and modification time, so an edit is read again.
No pygls here.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor

from rulelens.agents.paths import display_path

#: Files whose age one hover shows at most (two git calls each, in the background).
MAX_AGED = 8
#: Ages kept at once (one per file version; dropped oldest first).
MAX_KEPT = 512

Key = tuple[str, int, int]


class Ages:
    """Ages already read, and the reads under way, for the files the hovers show."""

    def __init__(self, pool: Executor) -> None:
        self._pool = pool
        self._known: dict[Key, str | None] = {}
        self._pending: set[Key] = set()
        self._lock = threading.Lock()

    def lines(self, files: Sequence[str], root: str | None, base: str | None,
              on_ready: Callable[[], None] | None = None) -> list[str]:
        """``**Age**`` lines for ``files`` (the first :data:`MAX_AGED`): the ages known now,
        and one line for those still being read from git; none outside git."""
        if root is None:
            return []
        shown, waiting = [], 0
        now = time.time()
        for path in list(dict.fromkeys(files))[:MAX_AGED]:
            key = _key(path)
            if key is None:
                continue
            with self._lock:
                if key in self._known:
                    text = self._known[key]
                    if text is not None:
                        shown.append(f"- `{display_path(path, base)}`: {text}")
                    continue
                waiting += 1
                if key in self._pending:
                    continue
                self._pending.add(key)
            self._pool.submit(self._read, key, root, now, on_ready)
        if waiting:
            shown.append(f"- reading the git history of {waiting} more file"
                         f"{'s' if waiting != 1 else ''}… (hover again)")
        return ["**Age** (from git)", "", *shown] if shown else []

    def _read(self, key: Key, root: str, now: float,
              on_ready: Callable[[], None] | None) -> None:
        from rulelens.rules.age import describe, file_age

        try:
            age = file_age(key[0], root)
            text = describe(age, now) if age is not None else None
        except Exception:  # a git that fails is "no age", never a broken hover
            text = None
        with self._lock:
            self._pending.discard(key)
            self._known[key] = text
            while len(self._known) > MAX_KEPT:
                self._known.pop(next(iter(self._known)))
        if on_ready is not None:
            on_ready()


def _key(path: str) -> Key | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (path, st.st_size, st.st_mtime_ns)
