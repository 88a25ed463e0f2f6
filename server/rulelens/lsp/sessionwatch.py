"""Watch the agents' session directories: a new session refreshes its verdict.

Where each agent records its sessions comes from its reader (``rulelens.sessions``): the
watch covers only the sessions of the start directories RuleLens shows, non-recursively
where the layout allows it:

- Claude Code: ``~/.claude/projects/<slug of the start dir>/`` (one ``.jsonl`` per session);
- Codex CLI: today's ``$CODEX_HOME/sessions/YYYY/MM/DD/`` (local and UTC date), with the
  year and month folders above it so that a new day's folder is seen and watched;
- Gemini CLI: ``~/.gemini/tmp/<project>/chats/`` of the projects tied to the start dir;
- Grok: ``$GROK_HOME/sessions/<encoded start dir>/``, recursively (one folder per session,
  its files written after the folder appears).

The folders above each of these (the agent's home and the folder it is in, ``projects/``,
``tmp/``, ...) are watched non-recursively for the next folder down only, so the busy rest
of an agent's home (settings, caches, todos) never triggers anything. Batches are
debounced; when the set of existing folders changes (a first session here, a new day),
the watch is armed again. ``on_change(agents)`` gets the agent families whose sessions changed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from watchfiles import Change, DefaultFilter, awatch

log = logging.getLogger(__name__)

OnAgents = Callable[[set[str]], Awaitable[None]]
#: Session files are appended to while an agent works: a longer debounce than the chains'.
DEBOUNCE_MS = 500


@dataclass
class Plan:
    """What to watch: per directory, whether recursively, and which agent it serves."""

    #: Directories watched for their files (non-recursive) -> agent family.
    flat: dict[str, str] = field(default_factory=dict)
    #: Directories watched with everything below them -> agent family.
    deep: dict[str, str] = field(default_factory=dict)
    #: Directories above those, watched for these children only -> agent family.
    steps: dict[str, str] = field(default_factory=dict)
    wanted: dict[str, str] = field(default_factory=dict)
    #: Steps where any new child may be one to watch (its name is not known in advance).
    open_steps: dict[str, str] = field(default_factory=dict)

    def key(self) -> tuple[object, ...]:
        return (sorted(self.flat), sorted(self.deep), sorted(self.steps))

    def agent_of(self, path: str) -> str | None:
        """The agent whose sessions ``path`` may belong to, or None when it is noise."""
        parent = os.path.dirname(path)
        if parent in self.flat:
            return self.flat[parent]
        for d, agent in self.deep.items():
            if path == d or path.startswith(d + os.sep):
                return agent
        if path in self.wanted:
            return self.wanted[path]
        return self.open_steps.get(parent)


def _chain(plan: Plan, agent: str, top: str, parts: Iterable[str]) -> str:
    """Steps from ``top`` down through ``parts`` (each wanted below the one above); the
    deepest path, which the caller watches as a leaf."""
    here = top
    for part in parts:
        plan.steps[here] = agent
        nxt = os.path.join(here, part)
        plan.wanted[nxt] = agent
        here = nxt
    return here


def plan_for(agents: Iterable[str], cwds: Iterable[str], env: Mapping[str, str],
             now: datetime | None = None) -> Plan:
    """The directories to watch for ``agents``' sessions started in ``cwds``."""
    from rulelens.sessions import reader

    plan = Plan()
    cwds = list(dict.fromkeys(cwds))
    for agent in dict.fromkeys(a.split("@", 1)[0] for a in agents):
        mod = reader(agent)
        if mod is None:
            continue
        home = str(mod.home(env))
        # The agent's home may not exist yet (installed later): its parent sees it appear.
        _chain(plan, agent, os.path.dirname(home), [os.path.basename(home)])
        if agent == "claude":
            for cwd in cwds:
                leaf = _chain(plan, agent, home, ["projects", mod.slug(cwd)])
                plan.flat[leaf] = agent
        elif agent == "codex":
            when = now or datetime.now().astimezone()
            for day in {when.strftime("%Y/%m/%d"), when.astimezone(UTC).strftime("%Y/%m/%d")}:
                leaf = _chain(plan, agent, home, ["sessions", *day.split("/")])
                plan.flat[leaf] = agent
                for up in (os.path.dirname(leaf), os.path.dirname(os.path.dirname(leaf))):
                    plan.open_steps[up] = agent  # a new day or month folder
        elif agent == "gemini":
            tmp = _chain(plan, agent, home, ["tmp"])
            plan.open_steps[tmp] = agent
            plan.wanted[os.path.join(home, "projects.json")] = agent
            folders = {mod.project_hash(c) for c in cwds}
            folders |= {name for name, roots in mod._roots_by_folder(env).items()
                        if any(r in cwds for r in roots)}
            for name in sorted(folders):
                plan.flat[_chain(plan, agent, tmp, [name, "chats"])] = agent
        elif agent == "grok":
            top = _chain(plan, agent, home, ["sessions"])
            plan.open_steps[top] = agent
            try:
                groups = [e.name for e in os.scandir(top) if e.is_dir(follow_symlinks=False)]
            except OSError:
                groups = []
            for name in groups:
                if urllib.parse.unquote(name) in cwds or name in cwds:
                    plan.deep[os.path.join(top, name)] = agent
    # A directory is watched once, as what it is closest to (a leaf wins over a step).
    for d in list(plan.steps):
        if d in plan.flat or d in plan.deep:
            del plan.steps[d]
    return plan


class _Filter(DefaultFilter):
    def __init__(self, plan: Plan) -> None:
        super().__init__(ignore_dirs=())
        self.plan = plan

    def __call__(self, change: Change, path: str) -> bool:
        return self.plan.agent_of(path) is not None


class SessionWatcher:
    """Runs until :meth:`stop`; ``on_change(agents)`` per debounced batch of session
    changes. ``plan()`` is asked again whenever the existing directories may have changed."""

    def __init__(self, plan: Callable[[], Plan], on_change: OnAgents,
                 debounce_ms: int = DEBOUNCE_MS) -> None:
        self.plan = plan
        self.on_change = on_change
        self.debounce_ms = debounce_ms
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: Session directories whose watch is armed now (``rulelens/serverStatus``).
        self.armed: set[str] = set()

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._loop())

    def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            self._task.cancel()

    async def _loop(self) -> None:
        failures = 0
        while not self._stop.is_set():
            plan = self.plan()
            flat = [d for d in [*plan.flat, *plan.steps] if os.path.isdir(d)]
            deep = [d for d in plan.deep if os.path.isdir(d)]
            if not flat and not deep:
                return
            try:
                await self._watch(plan, flat, deep)
                failures = 0
            except asyncio.CancelledError:
                raise
            except Exception:  # e.g. a folder vanished while arming: arm again
                failures += 1
                if failures > 50:
                    log.exception("session watching stopped")
                    return
                await asyncio.sleep(self.debounce_ms / 1000)
            self.armed.clear()

    async def _watch(self, plan: Plan, flat: list[str], deep: list[str]) -> None:
        """Watch until a batch changes which planned directories exist (then re-plan)."""
        existing = {d for d in [*plan.flat, *plan.deep, *plan.steps] if os.path.isdir(d)}
        streams = []
        if flat:
            streams.append(self._stream(plan, flat, recursive=False))
        if deep:
            streams.append(self._stream(plan, deep, recursive=True))
        queue: asyncio.Queue[set[str]] = asyncio.Queue()
        tasks = [asyncio.ensure_future(self._pump(s, queue)) for s in streams]
        try:
            while not self._stop.is_set():
                batch = await queue.get()
                if not batch:
                    if all(t.done() for t in tasks):
                        return
                    continue
                agents = {a for p in batch if (a := plan.agent_of(p)) is not None}
                if agents:
                    try:
                        await self.on_change(agents)
                    except Exception:  # a failed batch must not end the watch
                        log.exception("session watch batch failed")
                now = {d for d in [*plan.flat, *plan.deep, *plan.steps] if os.path.isdir(d)}
                if now != existing or self.plan().key() != plan.key():
                    return
        finally:
            for t in tasks:
                t.cancel()

    async def _pump(self, stream: AsyncIterator[set[str]], queue: asyncio.Queue[set[str]]
                    ) -> None:
        try:
            async for batch in stream:
                await queue.put(batch)
        finally:
            await queue.put(set())

    async def _stream(self, plan: Plan, paths: list[str], recursive: bool
                      ) -> AsyncIterator[set[str]]:
        async for changes in awatch(*paths, watch_filter=_Filter(plan), recursive=recursive,
                                    debounce=self.debounce_ms, step=50, stop_event=self._stop,
                                    yield_on_timeout=True, rust_timeout=250,
                                    ignore_permission_denied=True):
            self.armed.update(paths)
            yield {p for _change, p in changes}
