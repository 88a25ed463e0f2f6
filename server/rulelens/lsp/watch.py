"""Follow the disk: ``watchfiles`` on the workspace folders and the agents' homes.

Two loops run on the event loop: the workspace folders, recursively, and the home
directories that can change a chain or a view (``~``, ``~/.grok``, ``~/.grok/rules``, and
every enabled agent's homes from the registry: ``~/.claude``, ``~/.codex``, ``~/.gemini``,
``~/.copilot``, ...), non-recursively, because a recursive watch on an agent's home would
follow its busy memory and session files. Batches are debounced by watchfiles; the filter
is pure string work (it runs on the event loop) and keeps only paths that can change a
chain or a view: instruction-file names and agents' configuration files (from the
registry), anything under a rules directory, ``.gitignore``, ``config.toml``, and paths
that may be directories (a moved directory can carry rule files with it). A ``git
checkout`` rewriting 10,000 source files therefore yields a small batch, and the consumer
does its work off the event loop.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Awaitable, Callable, Sequence

from watchfiles import Change, DefaultFilter, awatch
from watchfiles._rust_notify import WatchfilesRustInternalError  # not re-exported

from rulelens.agents import registry
from rulelens.agents.safeio import printable
from rulelens.lsp.session import looks_like_rule_file

log = logging.getLogger(__name__)

#: Files whose change can alter a chain even though they are not instruction files
#: (``trusted_folders.toml``: Grok's folder-trust decisions, ``grok --trust``).
TRIGGER_NAMES = frozenset({".gitignore", ".gitconfig", "config.toml", "ignore", "config",
                           "trusted_folders.toml"})

OnBatch = Callable[[set[str]], Awaitable[None]]
#: ``None``: changes were lost (an undecodable name); everything must be re-read.
OnChains = Callable[[set[str] | None], Awaitable[None]]
#: Re-arms in a row after undecodable names before the watch gives up.
_MAX_LOST = 100


class ChainFilter(DefaultFilter):
    """DefaultFilter's ignored directories (``.git``, ``node_modules``, ...) + relevance."""

    def __call__(self, change: Change, path: str) -> bool:
        if not super().__call__(change, path):
            return False
        name = os.path.basename(path)
        if name in TRIGGER_NAMES or looks_like_rule_file(path) or registry.concerns(path):
            return True
        # Might be a directory (created, moved or removed with rule files inside).
        return change == Change.deleted or "." not in name


class Watcher:
    """Runs the watch loops until :meth:`stop`; calls ``on_batch(paths)`` per batch."""

    def __init__(self, roots: Sequence[str], home_dirs: Sequence[str], on_batch: OnChains,
                 debounce_ms: int = 200) -> None:
        self.roots = list(roots)
        self.home_dirs = list(home_dirs)
        self.on_batch = on_batch
        self.debounce_ms = debounce_ms
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        #: Paths whose watch is armed now (``rulelens/serverStatus`` reports them).
        self.armed: set[str] = set()

    def start(self) -> None:
        self._tasks = [asyncio.ensure_future(self._workspace_loop()),
                       asyncio.ensure_future(self._home_loop())]

    def stop(self) -> None:
        self._stop.set()
        for task in self._tasks:
            task.cancel()

    async def _workspace_loop(self) -> None:
        roots = [r for r in self.roots if os.path.isdir(r)]
        if roots:
            await self._run(roots, recursive=True)

    async def _home_loop(self) -> None:
        while not self._stop.is_set():
            dirs = [d for d in self.home_dirs if os.path.isdir(d)]
            if not dirs:
                return
            rearm = await self._run(dirs, recursive=False, rearm_on=set(dirs))
            if not rearm:
                return

    async def _run(self, paths: list[str], recursive: bool,
                   rearm_on: set[str] | None = None) -> bool:
        """Watch ``paths``; returns True when the set of existing home dirs changed.

        watchfiles cannot hand over a path that is not UTF-8 (a file named ``\\xff.md``):
        it fails the whole batch. The watch is then armed again and ``on_batch(None)``
        says "changes were lost: re-read everything", so one such name never ends it.
        """
        lost = 0
        while not self._stop.is_set():
            try:
                # yield_on_timeout: the first (empty) yield says the watch is armed.
                async for changes in awatch(*paths, watch_filter=ChainFilter(),
                                            recursive=recursive, debounce=self.debounce_ms,
                                            step=50, stop_event=self._stop,
                                            yield_on_timeout=True, rust_timeout=250,
                                            ignore_permission_denied=True):
                    self.armed.update(paths)
                    if not changes:
                        continue
                    lost = 0
                    await self._deliver({p for _change, p in changes})
                    if rearm_on is not None:
                        now = {d for d in self.home_dirs if os.path.isdir(d)}
                        if now != rearm_on:
                            self.armed.difference_update(paths)
                            return True
                return False
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not _undecodable(exc) or lost >= _MAX_LOST:
                    log.exception("file watching stopped for %s", paths)
                    return False
                lost += 1
                log.warning("a file name under %s is not valid UTF-8; watching again and"
                            " re-reading every chain", ", ".join(map(printable, paths)))
                await self._deliver(None)
                await asyncio.sleep(self.debounce_ms / 1000)
        return False

    async def _deliver(self, batch: set[str] | None) -> None:
        try:
            await self.on_batch(batch)
        except Exception:  # a failed batch must not end the watch
            log.exception("watch batch failed")


def _undecodable(exc: BaseException) -> bool:
    """watchfiles' error for a path it cannot decode (alone or in a task group)."""
    if isinstance(exc, BaseExceptionGroup):
        return all(_undecodable(e) for e in exc.exceptions)
    return isinstance(exc, WatchfilesRustInternalError) and "decode" in str(exc)


class MemoryFilter(DefaultFilter):
    """Markdown files (the agent's own watcher records only ``*.md``), the root itself, and
    deletions (a removed directory takes its notes with it)."""

    def __init__(self, root: str) -> None:
        super().__init__()
        self.root = root

    def __call__(self, change: Change, path: str) -> bool:
        if path == self.root:
            return True
        if not path.startswith(self.root + os.sep):
            return False
        if path.endswith(".md") or (change == Change.deleted and "." not in os.path.basename(path)):
            return super().__call__(change, path)
        return False


class MemoryWatcher:
    """Watches the global memory directory (and so every workspace directory under it).

    Recursive like the agent's own watcher (spec §7.19), keeping only ``*.md`` paths, so
    the agent's ``index.sqlite`` churn never reaches ``on_batch``. While the directory does
    not exist, its nearest existing ancestor is watched (non-recursively) until it appears;
    when it is removed the watch re-arms the same way.
    """

    def __init__(self, memory_dir: str, on_batch: OnBatch, debounce_ms: int = 200) -> None:
        self.memory_dir = os.path.normpath(memory_dir)
        self.on_batch = on_batch
        self.debounce_ms = debounce_ms
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: True while the memory directory itself (not its waiting point) is watched.
        self.armed = False

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._loop())

    def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            self._task.cancel()

    def _waiting_point(self) -> str | None:
        parent = os.path.dirname(self.memory_dir)
        while parent and not os.path.isdir(parent):
            up = os.path.dirname(parent)
            if up == parent:
                return None
            parent = up
        return parent or None

    async def _loop(self) -> None:
        """Alternate between watching the directory and waiting for it; each switch delivers
        a catch-up batch once the new watch is armed, so nothing in between is lost."""
        catch_up: set[str] = set()
        failures = 0
        while not self._stop.is_set():
            try:
                if os.path.isdir(self.memory_dir):
                    await self._watch(self.memory_dir, recursive=True, catch_up=catch_up,
                                      until=self._gone)
                else:
                    parent = self._waiting_point()
                    if parent is None:
                        return
                    await self._watch(parent, recursive=False, catch_up=catch_up,
                                      until=functools.partial(self._appeared_or_gone, parent),
                                      notify=False)
                failures = 0
            except asyncio.CancelledError:
                raise
            except Exception:  # e.g. the directory vanished while arming: re-arm
                failures += 1
                if failures > 50:
                    log.exception("memory watching stopped for %s", self.memory_dir)
                    return
            self.armed = False
            catch_up = {self.memory_dir}
            if not self._stop.is_set():
                await asyncio.sleep(self.debounce_ms / 1000)

    def _gone(self) -> bool:
        return not os.path.isdir(self.memory_dir)

    def _appeared_or_gone(self, parent: str) -> bool:
        return os.path.isdir(self.memory_dir) or not os.path.isdir(parent)

    async def _deliver(self, batch: set[str]) -> None:
        try:
            await self.on_batch(batch)
        except Exception:  # a failed batch must not end the watch
            log.exception("memory watch batch failed")

    async def _watch(self, path: str, recursive: bool, until: Callable[[], bool],
                     catch_up: set[str], notify: bool = True) -> None:
        """Watch ``path`` until ``until()`` holds after a batch or the watch ends.

        The first yield comes once the watch is armed (changes, or the short Rust timeout),
        and carries ``catch_up`` along even for the waiting (``notify=False``) watch.
        """
        watch_filter = MemoryFilter(self.memory_dir) if notify else _Exactly(self.memory_dir)
        pending = set(catch_up)
        async for changes in awatch(path, watch_filter=watch_filter, recursive=recursive,
                                    debounce=self.debounce_ms, step=50,
                                    stop_event=self._stop, yield_on_timeout=True,
                                    rust_timeout=250, ignore_permission_denied=True):
            self.armed = notify
            batch = pending | ({p for _change, p in changes} if notify else set())
            pending = set()
            if batch:
                await self._deliver(batch)
            if until():
                return


class _Exactly(DefaultFilter):
    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def __call__(self, change: Change, path: str) -> bool:
        return path == self.path
