"""``AgentsMdTracker``: instruction files an agent would *mention by path* when it touches a file.

Grok Build contains this type but, in every public commit, never creates it (spec §5):
no runtime reminder fires. We implement the intended semantics so the editor can show
the difference between files loaded at session start and files the tracker would only
name, and say plainly that the agent does not wire it today.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from rulelens.agents.compat import Compat
from rulelens.agents.fs import canonical, is_within
from rulelens.rules.discovery import has_md_extension
from rulelens.rules.gitignore import GitIgnore

#: The walk visits at most this many directories: the start plus 9 ancestors.
WALK_LIMIT = 10

#: Shown wherever the tracker split is displayed.
DORMANT_NOTE = (
    "Grok Build's current code does not wire AgentsMdTracker: these files are not sent to"
    " the model today. If it were wired, the agent would only mention their paths."
)

COMPACTION_HEADER = (
    "## Discovered Project Instruction Files\nThese project instruction files were found during"
    " the session and may contain relevant coding conventions:\n"
)


class AgentsMdTracker:
    """Runtime discovery state, with the agent's walk limit and never-twice rules."""

    def __init__(self, compat: Compat) -> None:
        self.compat = compat
        self.git_root: str | None = None
        self.gitignore: GitIgnore | None = None
        self.checked_dirs: set[str] = set()
        self.initial_discovery: set[str] = set()
        self.reminded: set[str] = set()

    def seed(self, initial_paths: Iterable[str], git_root: str | None,
             initial_chain: Iterable[str], gitignore: GitIgnore | None) -> None:
        """Mark what the session already loaded (and the cwd→root chain) as known."""
        self.git_root = canonical(git_root) if git_root else None
        self.gitignore = gitignore
        for path in initial_paths:
            key = canonical(path)
            self.initial_discovery.add(key)
            self.checked_dirs.add(os.path.dirname(key))
        for directory in initial_chain:
            self.checked_dirs.add(canonical(directory))

    def check_path(self, target: str) -> list[str]:
        """Newly discovered instruction files for a touched path, deepest directory first."""
        if self.git_root is None:
            return []
        start = target if os.path.isdir(target) else os.path.dirname(target)
        start = canonical(start)
        if not is_within(start, self.git_root):
            return []
        found: list[str] = []
        current = start
        for _ in range(WALK_LIMIT):
            if not is_within(current, self.git_root):
                break
            if current not in self.checked_dirs:
                self.checked_dirs.add(current)
                for path in self._candidates(current):
                    key = canonical(path)
                    if key in self.initial_discovery or key in self.reminded:
                        continue
                    if self.gitignore is not None and self.gitignore.is_ignored(key):
                        continue
                    self.reminded.add(key)
                    found.append(key)
            if current == self.git_root:
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        return found

    def _candidates(self, directory: str) -> list[str]:
        out = [os.path.join(directory, n) for n in self.compat.agent_filenames()
               if os.path.exists(os.path.join(directory, n))]
        for sub in self.compat.project_rules_dirs():
            rules = os.path.join(directory, sub)
            try:
                names = sorted(n for n in os.listdir(rules) if has_md_extension(n))
            except OSError:
                continue
            out += [os.path.join(rules, n) for n in names]
        return out

    def on_compaction(self) -> None:
        """Reminders fire again once per compaction cycle."""
        self.reminded.clear()
        self.checked_dirs.clear()

    @staticmethod
    def compaction_section(paths: Iterable[str]) -> str:
        return COMPACTION_HEADER + "".join(f"- {p}\n" for p in paths)
