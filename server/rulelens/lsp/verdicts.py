"""The last session's verdict per agent, for the hover (no pygls here).

A verdict reads session files (possibly gigabytes), so it is never computed in a lens or
hover thread: :meth:`Verdicts.get` returns what is cached for (agent, start directory,
file) and, when nothing is cached or the entry is older than :data:`TTL_S`, schedules one
computation on the server's verify pool (at most one per key in flight). The server also
watches the agents' session directories (:mod:`rulelens.lsp.sessionwatch`): a change there
calls :meth:`Verdicts.refresh` for that agent, and a verdict that comes out different calls
``on_change`` (the server then re-sends ``rulelens/chainChanged``), so a new session shows
up without waiting for :data:`TTL_S`.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor
from datetime import datetime
from typing import Any

#: Seconds a verdict is shown before it is computed again.
TTL_S = 30.0
#: Verdicts kept at once (oldest dropped first).
MAX_VERDICTS = 512
Key = tuple[str, str, str]


class Verdicts:
    """Cached ``rulelens verify`` objects per (agent, start dir, file); thread-safe."""

    def __init__(self, pool: Executor, compute: Callable[[str, str, str], dict[str, Any] | None],
                 ttl: float = TTL_S,
                 on_change: Callable[[Key, dict[str, Any] | None, dict[str, Any] | None],
                                     None] | None = None) -> None:
        self._pool = pool
        self._compute = compute
        self._ttl = ttl
        self._on_change = on_change
        self._cache: dict[Key, tuple[float, dict[str, Any] | None]] = {}
        self._pending: set[Key] = set()
        #: Keys asked to refresh while their computation ran: computed once more after it.
        self._again: set[Key] = set()
        self._lock = threading.Lock()

    def get(self, agent: str, cwd: str, path: str) -> tuple[bool, dict[str, Any] | None]:
        """(known, verdict): ``known`` is False until the first computation finished."""
        key = (agent, cwd, path)
        with self._lock:
            hit = self._cache.get(key)
            stale = hit is None or time.monotonic() - hit[0] > self._ttl
            if stale:
                self._schedule(key)
        return (hit is not None, hit[1] if hit is not None else None)

    def peek(self, agent: str, cwd: str, path: str) -> dict[str, Any] | None:
        """The cached verdict, scheduling nothing (for payloads built right after ``get``)."""
        with self._lock:
            hit = self._cache.get((agent, cwd, path))
        return hit[1] if hit is not None else None

    def refresh(self, agents: set[str] | None = None) -> int:
        """Compute again every cached verdict of ``agents`` (families; None: all) now, e.g.
        because a session file changed; how many were scheduled."""
        n = 0
        with self._lock:
            for key in list(self._cache):
                if agents is None or key[0].split("@", 1)[0] in agents:
                    self._schedule(key)
                    n += 1
        return n

    def _schedule(self, key: Key) -> None:
        """(under the lock) One computation of ``key``; a second request while it runs is
        remembered and runs after it (the session may have changed after it was read)."""
        if key in self._pending:
            self._again.add(key)
            return
        self._pending.add(key)
        try:
            self._pool.submit(self._run, key)
        except RuntimeError:  # the pool is shut down
            self._pending.discard(key)

    def _run(self, key: Key) -> None:
        try:
            result = self._compute(*key)
        except Exception:  # a verdict that fails is shown as unknown, never raised
            result = None
        with self._lock:
            self._pending.discard(key)
            before = self._cache.get(key)
            self._cache[key] = (time.monotonic(), result)
            while len(self._cache) > MAX_VERDICTS:
                self._cache.pop(next(iter(self._cache)))
            if key in self._again:
                self._again.discard(key)
                self._schedule(key)
        if self._on_change is not None and (before is None or before[1] != result):
            with contextlib.suppress(Exception):  # telling the client must not lose it
                self._on_change(key, before[1] if before is not None else None, result)

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()


def _when(started: str | None) -> str:
    if not started:
        return "(no start time)"
    try:
        return datetime.fromisoformat(started.replace("Z", "+00:00")).strftime(
            "%Y-%m-%d %H:%M UTC")
    except ValueError:
        return started


def verdict_line(display: str, known: bool, result: dict[str, Any] | None,
                 base: str | None = None) -> str:
    """``✓ matches your Codex CLI session of 2026-09-01 14:02 UTC`` / ``⚠ differs: …`` /
    ``no session here yet`` / ``checking the last session…``."""
    if not known:
        return "checking the last session…"
    if result is None:
        return "? the last session could not be read"
    session = result.get("session")
    verdict = result.get("verdict")
    if verdict == "match" and session:
        stale = sum(1 for o in result.get("observed", []) if not o.get("matches_disk"))
        edited = f" ({stale} file(s) edited since)" if stale else ""
        return f"✓ matches your {display} session of {_when(session.get('started'))}{edited}"
    if verdict == "differs":
        parts = []
        for d in result.get("differences", [])[:3]:
            p = str(d.get("path", ""))
            if base and p.startswith(base.rstrip("/") + "/"):
                p = p[len(base.rstrip("/")) + 1:]
            parts.append(f"{p} predicted {d.get('predicted')}, {d.get('observed')} in the"
                         " session")
        more = len(result.get("differences", [])) - len(parts)
        return ("⚠ differs: " + "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")
                + f" — your session of {_when(session.get('started') if session else None)}")
    if session is None and str(result.get("reason", "")).startswith("No "):
        return "no session here yet"
    reason = str(result.get("reason", "")).split(": ", 1)[-1]
    return "? nothing to compare: " + reason.split(". ")[0].rstrip(".")


def hover_block(lines: list[tuple[str, str]]) -> str:
    """The hover's last block: one line per agent whose sessions RuleLens reads."""
    if not lines:
        return ""
    out = ["**Last session, per agent** (`rulelens verify`)", ""]
    out += [f"- {display}: {line}" for display, line in lines]
    return "\n".join(out)
