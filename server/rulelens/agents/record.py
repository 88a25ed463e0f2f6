"""One record per agent: everything the rest of RuleLens needs to know to list, find, show
and watch it.

Each agent module (``rulelens.agents.claude``, ``.codex``, …, ``.grok``) defines its
``AGENT = Agent(...)`` next to its ``view``; ``rulelens.agents.registry.AGENTS`` lists the
records once, and every other list of agents (column order, names, markers, ``--agent``
choices, watched homes, the clients' agent lists) is derived from that tuple.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rulelens.agents.formats import FORMATS, Format
from rulelens.agents.fs import home_of
from rulelens.agents.profiles import AgentProfile, Evidence, version_key
from rulelens.agents.view import AgentView

__all__ = ["Agent", "Discover", "Evidence", "Homes", "agent_home", "home_of", "profile_homes"]

#: ``view(cwd, file, environment) -> AgentView``: an agent's discovery.
Discover = Callable[[str, str | None, Mapping[str, str]], AgentView]
#: ``homes(environment) -> directories``: where edits outside the workspace change a view.
Homes = Callable[[Mapping[str, str]], tuple[str, ...]]


def agent_home(row: AgentProfile, env: Mapping[str, str]) -> str:
    """The agent's own home: ``$<home_env>`` when set, else ``~/<home_default>``."""
    return env.get(row.home_env) or os.path.join(home_of(env), row.home_default)


def profile_homes(row: AgentProfile, env: Mapping[str, str]) -> tuple[str, ...]:
    """The home roots a profile row names, each with its rules directory: the directories
    whose direct children can change what the agent loads."""
    out: list[str] = []
    for h in row.home_roots:
        base = agent_home(row, env) if h.base == "agent-home" else home_of(env)
        root = os.path.join(base, h.path) if h.path else base
        out.append(root)
        if h.rules_dir:
            out.append(os.path.join(root, h.rules_dir))
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class Agent:
    """One agent: names, profile rows, markers, formats, discovery, homes and trust."""

    #: The id every list, setting and ``--agent`` uses: ``claude``.
    id: str
    #: Column header: ``Claude``.
    short: str
    #: Name in sentences: ``Claude Code``.
    display: str
    #: Profile rows, one per modelled version, any order; :attr:`profile` is the newest.
    profiles: tuple[AgentProfile, ...]
    #: Files or directories at a workspace root that show the agent is used there.
    markers: tuple[str, ...]
    #: ``view(cwd, file, environment)``.
    view: Discover
    #: The rule-file formats (``agents/formats.py`` kinds) this agent owns.
    formats: tuple[str, ...] = ()
    #: Directories to watch outside the workspace; ``None``: the profile rows' home roots.
    homes: Homes | None = None
    #: What a user runs (or does) to trust a folder, where the agent gates on trust.
    trust_command: str | None = None
    #: The agent counts as used when its own home exists (Grok: ``~/.grok``), not only
    #: when the workspace has its markers.
    present_by_home: bool = False
    #: Discovery runs in ``rulelens.rules`` (Grok's Resolver): multi-agent views pass the
    #: session's resolver instead of calling :attr:`view` (which builds a fresh one).
    engine: bool = False
    #: Names of configuration files (not instruction files) whose change alters discovery:
    #: ``config.toml``, ``settings.json``, ``opencode.json``; the watcher reacts to them.
    config_files: tuple[str, ...] = ()

    @property
    def profile(self) -> AgentProfile:
        """The newest profile row."""
        return max(self.profiles, key=lambda row: version_key(row.version))

    @property
    def evidence(self) -> Evidence:
        """How sure the newest row is: ``code`` or ``docs``."""
        return self.profile.evidence

    @property
    def source(self) -> str:
        """Where the newest row's facts come from (``repo@commit:path`` or URL and date)."""
        return self.profile.source

    @property
    def format_rows(self) -> tuple[Format, ...]:
        return tuple(f for f in FORMATS if f.kind in self.formats)

    def home_dirs(self, env: Mapping[str, str]) -> tuple[str, ...]:
        """Directories outside the workspace whose changes can change this agent's views."""
        if self.homes is not None:
            return self.homes(env)
        out: list[str] = []
        for row in self.profiles:
            out += profile_homes(row, env)
        return tuple(dict.fromkeys(out))

    def file_names(self) -> frozenset[str]:
        """Every file the rows name, the on-read names and the configuration files, as
        written (``AGENTS.md``, ``.claude/settings.json``): a change to one of them can
        change this agent's views."""
        names = set(self.config_files)
        for row in self.profiles:
            names.update(n.name for n in row.named_files)
            if row.on_read is not None:
                names.update(row.on_read.names)
        return frozenset(names)

    def rules_dirs(self) -> tuple[str, ...]:
        """Every rules directory the rows name, relative to a project root or to ``~``
        (an agent-home root counts as ``~/<home_default>``)."""
        out = [d.path for row in self.profiles for d in row.rules_dirs]
        for row in self.profiles:
            for h in row.home_roots:
                if h.rules_dir:
                    base = row.home_default if h.base == "agent-home" else ""
                    out.append(os.path.join(base, h.path, h.rules_dir))
        return tuple(dict.fromkeys(out))

    def used_in(self, workspace: str | None, env: Mapping[str, str]) -> bool:
        """Whether the workspace holds one of the markers (or, for an agent whose home
        marks it as used, that home exists)."""
        if workspace and any(os.path.lexists(os.path.join(workspace, m)) for m in self.markers):
            return True
        if self.present_by_home:
            return any(os.path.isdir(agent_home(row, env)) for row in self.profiles)
        return False

    def to_json(self, present: bool | None = None) -> dict[str, object]:
        """The ``rulelens/agents`` entry for this agent."""
        out: dict[str, object] = {"id": self.id, "short": self.short, "display": self.display,
                                  "evidence": self.evidence, "source": self.source,
                                  "profiles": [row.id for row in self.profiles]}
        if present is not None:
            out["present"] = present
        return out
