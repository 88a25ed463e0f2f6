"""What ``memory status`` reports: roots, files, index freshness and the dream gates.

Read-only: nothing here writes a memory file or the agent's index.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import asdict, dataclass, field

from rulelens.memory.beneath import SkippedFile
from rulelens.memory.index import MemoryIndex, agent_orphans
from rulelens.memory.settings import MemorySettings
from rulelens.memory.workspace import MemoryLocation


@dataclass(frozen=True)
class DreamGates:
    """The agent's consolidation gates (spec §7.21), cheapest first."""

    enabled: bool
    last_consolidation: int | None  # .dream-lock mtime, None when missing (epoch is used)
    hours_since: int
    min_hours: int
    sessions_since: int
    min_sessions: int
    would_run: bool
    reason: str


def dream_gates(location: MemoryLocation, settings: MemorySettings, now: float | None = None,
                current_sid8: str | None = None) -> DreamGates:
    now = time.time() if now is None else now
    d = settings.dream
    try:
        last: float | None = os.stat(location.dream_lock).st_mtime
    except OSError:
        last = None
    base = last if last is not None else 0.0
    hours = math.floor((now - base) / 3600)
    sessions = 0
    for path in location.session_files():
        stem = os.path.splitext(os.path.basename(path))[0]
        if current_sid8 and stem.endswith(current_sid8):
            continue
        try:
            if os.stat(path).st_mtime > base:
                sessions += 1
        except OSError:
            continue
    if not d.enabled:
        run, reason = False, "dream is disabled ([memory.dream] enabled = false)"
    elif hours < d.min_hours:
        run = False
        reason = f"too soon: {hours} h since the last consolidation, needs {d.min_hours}"
    elif sessions < d.min_sessions:
        run = False
        reason = f"too few sessions: {sessions} since the last one, needs {d.min_sessions}"
    else:
        run, reason = True, "a consolidation would run at the next session end or timer tick"
    return DreamGates(d.enabled, None if last is None else int(last), hours, d.min_hours,
                      sessions, d.min_sessions, run, reason)


@dataclass(frozen=True)
class FileStatus:
    path: str
    source: str
    bytes: int
    indexed: bool
    fresh: bool


@dataclass(frozen=True)
class MemoryStatus:
    cwd: str
    global_dir: str
    workspace_dir: str
    workspace_name: str
    identity: str | None
    hash_input: str
    remote_url: str | None
    ephemeral: bool
    memory_enabled: bool
    files: list[FileStatus]
    index_path: str | None
    chunks: int
    vectors: int
    embedder: str
    last_sync: int | None
    agent_index: str | None
    agent_orphans: list[str]
    dream: DreamGates
    notes: list[str] = field(default_factory=list)
    #: Files the agent lists that RuleLens does not read (links out of the memory root,
    #: FIFOs, devices, directories named ``*.md``), each with the reason.
    skipped: list[SkippedFile] = field(default_factory=list)

    @property
    def stale_files(self) -> list[str]:
        return [f.path for f in self.files if not f.fresh]

    def to_json(self) -> dict[str, object]:
        out = asdict(self)
        out["stale_files"] = self.stale_files
        return out


def memory_status(location: MemoryLocation, settings: MemorySettings,
                  index: MemoryIndex | None, embedder: str, now: float | None = None
                  ) -> MemoryStatus:
    states = index.file_states() if index is not None else {}
    stats = index.stats() if index is not None else {}
    files: list[FileStatus] = []
    scan = location.scan()
    for mf in scan.files:
        try:
            st = os.stat(mf.path)
        except OSError:
            continue
        state = states.get(mf.path)
        files.append(FileStatus(mf.path, mf.source, st.st_size, state is not None,
                                state == (st.st_mtime_ns, st.st_size, mf.source)))
    agent = location.agent_index if os.path.isfile(location.agent_index) else None
    orphans = agent_orphans(location, index.agent_scratch if index else None) if agent else []
    notes = []
    if orphans:
        notes.append(f"the agent's own index still holds {len(orphans)} deleted file(s);"
                     " RuleLens dropped them from its index, the agent keeps them until its"
                     " watcher or maintenance path runs")
    if location.ephemeral:
        notes.append("this folder is under a temp directory: the agent skips workspace"
                     " memory writes here (reads and indexing still happen)")
    last_sync = stats.get("last_sync")
    return MemoryStatus(
        location.cwd, location.global_dir, location.workspace_dir, location.workspace.name,
        location.workspace.identity, location.workspace.hash_input,
        location.workspace.remote_url, location.ephemeral, settings.enabled, files,
        index.path if index is not None else None, int(str(stats.get("chunks", 0))),
        int(str(stats.get("vectors", 0))), embedder,
        int(str(last_sync)) if last_sync is not None else None, agent, orphans,
        dream_gates(location, settings, now), notes, list(scan.skipped))
