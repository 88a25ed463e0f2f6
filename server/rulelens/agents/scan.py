"""Per-session results of directory walks and file reads the discovery modules repeat.

The language server asks every enabled agent (16 of them) for its view of each file it
opens, all from the same start directory: without this, each view lists the same folders
and reads the same ``AGENTS.md`` and configuration files again. A :class:`ScanCache` is
owned by the session's :class:`~rulelens.lsp.agentviews.AgentViews`, active only while it
builds views (:func:`using`), and cleared with it (the watcher's invalidation, a settings
or workspace change). Outside that block (the command line, lint, tests) :func:`cached`
computes every time, so a module's answer never depends on whether a cache is active.
Values stored must be immutable (tuples, strings, frozen records).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")

#: Results kept at once (least recently used dropped first): directory listings and
#: instruction-file texts of one workspace.
MAX_ENTRIES = 4096
#: Bytes of file content (``bytes``/``str`` results) kept at once.
MAX_BYTES = 32 * 1024 * 1024


class ScanCache:
    """A bounded, thread-safe map from ``(what, arguments)`` to a computed result."""

    def __init__(self, limit: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES) -> None:
        self.limit = limit
        self.max_bytes = max_bytes
        self._items: OrderedDict[Hashable, object] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        #: Bumped by :meth:`clear`: a result computed before a clear is not stored after it.
        self._generation = 0

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The result stored for ``key``, else ``compute()`` stored (unless the cache was
        cleared while it ran: the disk changed meanwhile, so the result may be stale)."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]  # type: ignore[return-value]
            generation = self._generation
        value = compute()
        with self._lock:
            if generation == self._generation and key not in self._items:
                self._items[key] = value
                self._bytes += _size(value)
            while self._items and (len(self._items) > self.limit
                                   or self._bytes > self.max_bytes):
                self._bytes -= _size(self._items.popitem(last=False)[1])
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0
            self._generation += 1

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


def _size(value: object) -> int:
    return len(value) if isinstance(value, bytes | str) else 0


_ACTIVE: ContextVar[ScanCache | None] = ContextVar("rulelens_scan_cache", default=None)


@contextmanager
def using(cache: ScanCache) -> Iterator[None]:
    """Discovery inside this block stores and reuses results in ``cache``."""
    token = _ACTIVE.set(cache)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def cached(key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, reused from the active :class:`ScanCache` when one is active."""
    cache = _ACTIVE.get()
    return compute() if cache is None else cache.get(key, compute)
