"""The server's state: workspace roots, settings, open documents, and the resolver.

Nothing here imports pygls: every question the handlers ask ("may I look at this URI?",
"what is its chain?", "is this a rule file, and does it load?") is answered from plain
paths, so the rules stay testable and the handlers stay a few lines long.

Client paths are untrusted. A URI is served only when it is a ``file:`` URI whose path
(canonicalised) lies inside a workspace folder; everything else answers "nothing here".
A start directory from the ``agentCwd`` setting or a request's ``cwd`` is honoured only
inside a workspace folder (:mod:`rulelens.agents.approval`: canonical, component-wise,
decided before touching the path); anything else is refused with one line naming the
setting, and agent views are built with imports approved against the workspace folders.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from rulelens.agents import registry
from rulelens.agents.approval import Approval, start_problem, workspace
from rulelens.agents.fs import canonical, is_within
from rulelens.agents.profiles import GROK_1_0_45, AgentProfile, UnknownAgent, grok_profile
from rulelens.agents.profiles import profile as agent_profile
from rulelens.agents.view import AgentView
from rulelens.lsp.agentviews import AgentViews, enabled_agents
from rulelens.lsp.settings import Settings, settings_from
from rulelens.rules import AgentEnvironment, AgentsMdTracker, Chain, ConfigError, Resolver
from rulelens.rules.gitignore import walk_unignored
from rulelens.rules.model import RuleFile, Skipped
from rulelens.rules.tracker import DORMANT_NOTE

#: Stop counting files under a rule file's scope after this many (the lens says "N+").
COUNT_CAP = 20_000
_RULE_DIR_VENDORS = (".grok", ".claude", ".cursor")
_NAMED_LOWER = frozenset(os.path.basename(n).lower() for n in GROK_1_0_45.names())
_OTHER_LOWER = frozenset(os.path.basename(n).lower() for n in GROK_1_0_45.foreign_files)
_SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv"})


@dataclass(frozen=True)
class TrackerSplit:
    """Files loaded when a session starts in ``agent_cwd`` vs files the tracker would name."""

    agent_cwd: str
    session_files: tuple[str, ...]
    mentioned_by_path: tuple[str, ...]
    #: In this file's chain but neither loaded at start nor reached by the tracker's walk.
    unreached: tuple[str, ...] = ()
    note: str = DORMANT_NOTE

    def to_json(self) -> dict[str, Any]:
        return {
            "agent_cwd": self.agent_cwd,
            "session_files": list(self.session_files),
            "mentioned_by_path": list(self.mentioned_by_path),
            "note": self.note,
        }


@dataclass(frozen=True)
class RuleStatus:
    """Whether a rule-like file loads, where, and for how many files; or why it doesn't."""

    path: str
    loaded: RuleFile | None
    #: The directory an agent must start in (or below) for the file to load.
    scope: str | None = None
    position: int = 0
    total: int = 0
    files_here: int = 0
    capped: bool = False
    skipped: Skipped | None = None
    git_root: str | None = None


@dataclass
class Session:
    """Per-server state. Thread-safe: handlers run in a thread pool."""

    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    roots: tuple[str, ...] = ()
    agent_cwd_setting: str | None = None
    #: The ``agentCwd`` value as the client sent it (any JSON value), for the refusal.
    agent_cwd_raw: object = None
    #: The ``rulelens`` section as sent (the memory feature reads its own keys from it).
    settings: Mapping[str, Any] = field(default_factory=dict)
    #: The same section, typed and structured once (:mod:`rulelens.lsp.settings`).
    config: Settings = field(default_factory=Settings)
    config_error: str | None = None
    resolver: Resolver | None = None
    #: The ``agent`` setting: the Grok profile the chain views show (``grok`` = newest).
    agent_setting: str | None = None
    _open: dict[str, str] = field(default_factory=dict)
    _counts: dict[str, tuple[int, bool]] = field(default_factory=dict)
    _splits: dict[tuple[str, str], TrackerSplit] = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    #: Every enabled agent's view per (agent, start directory, file); cleared with the rest.
    agent_view_cache: AgentViews = field(init=False)
    _lint_resolver: Resolver | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.agent_view_cache = AgentViews(self.environ)
        if self.resolver is None:
            self.reload_environment()

    # ------------------------------------------------------------ environment
    def reload_environment(self) -> None:
        """Re-read the agent's config (``config.toml`` changed); a bad config is reported."""
        try:
            env = AgentEnvironment.from_env(self.environ)
        except ConfigError as exc:
            with self._lock:
                self.config_error = str(exc)
                self.resolver = None
                self._forget()
            return
        with self._lock:
            self.config_error = None
            self.resolver = Resolver(env, self.profile())
            self._lint_resolver = None
            self._forget()

    def profile(self) -> AgentProfile:
        """The profile the ``agent`` setting names; an unknown id falls back to the default
        (the server logs it once, see :meth:`apply_settings`)."""
        try:
            return grok_profile(self.agent_setting)
        except UnknownAgent:
            return agent_profile(None)

    @property
    def lint_resolver(self) -> Resolver | None:
        """The resolver lint diagnostics reason with: the same profile, in a trusted folder
        (trust belongs to the user's machine, not to the repository). The chain resolver
        itself when the profile has no trust gate."""
        with self._lock:
            resolver = self.resolver
            if resolver is None or resolver.profile.trust is None:
                return resolver
            if self._lint_resolver is None or self._lint_resolver.env is not resolver.env:
                self._lint_resolver = Resolver(resolver.env, resolver.profile, "trusted")
            return self._lint_resolver

    @property
    def env(self) -> AgentEnvironment | None:
        return self.resolver.env if self.resolver is not None else None

    def invalidate(self, paths: Iterable[str] | None = None) -> None:
        """Forget cached chains (for ``paths``' directories, or everything)."""
        with self._lock:
            listed = None if paths is None else list(paths)
            if self.resolver is not None:
                self.resolver.invalidate(listed)
            if self._lint_resolver is not None:
                self._lint_resolver.invalidate(listed)
            self._forget()

    def _forget(self) -> None:
        self._counts.clear()
        self._splits.clear()
        self.agent_view_cache.clear()

    def watched_home_dirs(self) -> list[str]:
        """Agent-home directories whose direct children can change a chain or a view: Grok's
        (it resolves every chain) and every enabled agent's, from the registry."""
        env = self.env
        home = self.environ.get("HOME") or os.path.expanduser("~")
        grok_home = env.grok_home if env else os.path.join(home, ".grok")
        dirs = [home, grok_home, os.path.join(grok_home, "rules")]
        enabled = [a for root in (self.roots or (None,))
                   for a in enabled_agents(self.config.agents, root, self.environ)]
        dirs += registry.home_dirs([registry.DEFAULT_AGENT, *enabled], self.environ)
        dirs = list(dict.fromkeys(dirs))
        if env is not None and self.resolver is not None and self.resolver.profile.extra_rule_dirs:
            dirs += list(env.extra_rule_dirs)  # configured rules directories
        return dirs

    def config_path(self) -> str:
        env = self.env
        if env is not None:
            return env.config_path
        home = self.environ.get("HOME") or os.path.expanduser("~")
        grok_home = self.environ.get("GROK_HOME") or os.path.join(home, ".grok")
        return os.path.join(grok_home, "config.toml")

    # --------------------------------------------------------------- settings
    def set_roots(self, paths: Iterable[str]) -> None:
        roots: list[str] = []
        for p in paths:
            if p and os.path.isabs(p):
                roots.append(os.path.normpath(p))
        with self._lock:
            self.roots = tuple(dict.fromkeys(roots))
            self._splits.clear()
            self.agent_view_cache.clear()  # imports are approved against the roots

    def apply_settings(self, settings: object) -> None:
        """Accept ``{"rulelens": {...}}`` or the section itself; unknown keys are ignored."""
        if not isinstance(settings, Mapping):
            return
        section = settings.get("rulelens", settings)
        if not isinstance(section, Mapping):
            return
        value = section.get("agentCwd")
        agent = section.get("agent")
        agent = agent.strip() if isinstance(agent, str) and agent.strip() else None
        config = settings_from(section)
        with self._lock:
            self.settings = dict(section)
            self.config = config
            self.agent_cwd_raw = value
            self.agent_cwd_setting = value if isinstance(value, str) and value.strip() else None
            self.agent_view_cache.clear()
            self._splits.clear()
            changed = agent != self.agent_setting
            self.agent_setting = agent
        if changed:
            self.reload_environment()

    def agent_problem(self) -> str | None:
        """Why the ``agent`` setting is not used, if it is not."""
        try:
            grok_profile(self.agent_setting)
        except UnknownAgent as exc:
            return f"rulelens.agent: {exc}; using {agent_profile(None).id}"
        return None

    def lint_config(self) -> Mapping[str, Any]:
        """The ``lint`` settings section (``{"disable": [...]}``), as the client sent it."""
        return {"disable": list(self.config.lint.disable)}

    # ------------------------------------------------------------- documents
    def path_of(self, uri: str) -> str | None:
        """The local path of a ``file:`` URI inside a workspace folder, else ``None``."""
        if not isinstance(uri, str):
            return None
        try:
            parts = urlsplit(uri)
        except ValueError:
            return None
        if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
            return None
        path = unquote(parts.path)
        if not path.startswith("/") or "\x00" in path:
            return None
        path = os.path.normpath(path)
        return path if self.root_for(path) is not None else None

    def root_for(self, path: str) -> str | None:
        """The deepest workspace folder holding ``path`` (compared canonically too)."""
        real = os.path.join(canonical(os.path.dirname(path)), os.path.basename(path))
        best: str | None = None
        for root in self.roots:
            for candidate in {root, canonical(root)}:
                if (is_within(path, candidate) or is_within(real, candidate)) and (
                    best is None or len(root) > len(best)
                ):
                    best = root
        return best

    def workspace_for(self, uri: str | None) -> str | None:
        """The workspace folder holding ``uri`` (a ``file:`` URI inside one), else the first
        folder; ``None`` with no folder open."""
        path = self.path_of(uri) if uri else None
        found = self.root_for(path) if path is not None else None
        return found or (self.roots[0] if self.roots else None)

    def open(self, uri: str) -> str | None:
        path = self.path_of(uri)
        with self._lock:
            if path is not None:
                self._open[uri] = path
            else:
                self._open.pop(uri, None)
        return path

    def close(self, uri: str) -> None:
        with self._lock:
            path = self._open.pop(uri, None)
        if path is not None:
            self.agent_view_cache.forget(path)

    def opened(self, uri: str) -> str | None:
        """The path of an open, allowed document; ``None`` for anything else."""
        with self._lock:
            return self._open.get(uri)

    def open_documents(self) -> dict[str, str]:
        with self._lock:
            return dict(self._open)

    # ------------------------------------------------------------------ chains
    def chain(self, path: str) -> Chain | None:
        """The chain an agent started in the file's directory loads (``chain --json``): the
        documented ``rulelens/chain`` contract (docs/protocol.md); the lens names this start
        directory, and the per-agent line names its own (the workspace folder)."""
        resolver = self.resolver
        if resolver is None:
            return None
        cwd = path if os.path.isdir(path) else os.path.dirname(path)
        return resolver.resolve(cwd)

    def approval(self) -> Approval:
        """The workspace folders, as the roots a client-named start directory must be in."""
        return Approval.of(self.roots)

    def agent_cwd(self, path: str) -> str | None:
        """The start directory for ``path``: ``agentCwd`` when it lies inside a workspace
        folder, else (refused: :meth:`agent_cwd_problem` says why) the workspace folder."""
        root = self.root_for(path)
        if self.agent_cwd_setting:
            start, _problem = start_problem("rulelens.agentCwd", self.agent_cwd_setting,
                                            self.approval(),
                                            root or (self.roots[0] if self.roots else None))
            if start is not None:
                return start
        return root

    def agent_cwd_problem(self) -> str | None:
        """One line naming ``rulelens.agentCwd`` when the setting is refused (outside every
        workspace folder, relative to one it leaves, not a string, a NUL byte)."""
        raw = self.agent_cwd_raw
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return None
        approval = self.approval()
        for base in self.roots or (None,):
            _start, problem = start_problem("rulelens.agentCwd", raw, approval, base)
            if problem is not None:
                return problem + "; the workspace folder is used instead"
        return None

    def leaves_workspace(self) -> Callable[[str], bool]:
        """A test, for one request: is a path spelled inside a workspace folder but really
        outside every workspace folder and every agent's own home (a link out of the
        repository, such as ``CLAUDE.md -> ~/.ssh/id_rsa``)? Its text is never shown. The
        allowed roots are worked out once, not per file."""
        home = os.path.realpath(self.environ.get("HOME") or os.path.expanduser("~"))
        homes = [os.path.realpath(d) for d in self.watched_home_dirs()]
        allowed = [canonical(r) for r in self.roots] + [d for d in homes if d != home]
        roots = list(self.roots)

        def leaves(path: str) -> bool:
            if not any(is_within(os.path.abspath(path), r) for r in roots):
                return False
            real = os.path.realpath(path)
            return not any(is_within(real, r) for r in allowed)

        return leaves

    def start_dir(self, cwd: object) -> str | None:
        """A request's ``cwd`` (``None``: the default start directory); raises
        ``ValueError`` with one line when it is not inside a workspace folder."""
        if cwd is None or cwd == "":
            return None
        start, problem = start_problem("cwd", cwd, self.approval(), None)
        if problem is not None:
            raise ValueError(problem)
        return start

    def tracker_split(self, path: str, chain: Chain) -> TrackerSplit | None:
        """Session-start files vs files ``AgentsMdTracker`` would only mention (spec §5)."""
        resolver = self.resolver
        agent_cwd = self.agent_cwd(path)
        if resolver is None or agent_cwd is None:
            return None
        key = (agent_cwd, chain.cwd)
        with self._lock:
            cached = self._splits.get(key)
        if cached is not None:
            return cached
        session = resolver.resolve(agent_cwd)
        tracker = AgentsMdTracker(resolver.env.compat)
        ignore = resolver.gitignore(session.git_root) if session.git_root else None
        tracker.seed([f.path for f in session.files], session.git_root, session.directories,
                     ignore)
        mentioned = tuple(tracker.check_path(path))
        known = {canonical(f.path) for f in session.files} | set(mentioned)
        unreached = tuple(f.path for f in chain.files if f.canonical not in known)
        split = TrackerSplit(session.cwd, tuple(f.path for f in session.files), mentioned,
                             unreached)
        with self._lock:
            self._splits[key] = split
        return split

    # ------------------------------------------------------------ every agent
    def agents_for(self, path: str) -> list[str]:
        """The enabled agents for a document: the ``agents`` setting, else every agent whose
        files exist in its workspace folder (Grok also when its home exists)."""
        return enabled_agents(self.config.agents, self.root_for(path), self.environ)

    def agent_views(self, path: str, agents: list[str] | None = None,
                    cwd: str | None = None) -> list[AgentView] | None:
        """Each agent's view of ``path`` for a session started in ``cwd`` (default: the
        workspace folder or ``agentCwd``); ``None`` without a resolver or start directory."""
        resolver = self.resolver
        start = self.start_dir(cwd) or self.agent_cwd(path)
        if resolver is None or start is None:
            return None
        with workspace(self.roots):
            found = self.agent_view_cache.views(path, start, agents or self.agents_for(path),
                                                resolver.resolve)
        self._keep_if_open(path)
        return found

    def _keep_if_open(self, path: str) -> None:
        """Drop the views just cached for ``path`` unless a document has it open: work
        queued by ``didOpen`` may finish after ``didClose``, and a request may name a file
        no editor opened; nothing of either may remain."""
        with self._lock:
            if path in self._open.values():
                return
        self.agent_view_cache.forget(path)

    def agent_text(self, path: str, kind: str,
                   build: Callable[[list[AgentView]], str]) -> str | None:
        """A string made of the enabled agents' views (lens title, hover table), cached per
        document and start directory; ``None`` when no agent is enabled."""
        resolver = self.resolver
        start = self.agent_cwd(path)
        agents = self.agents_for(path)
        if resolver is None or start is None or not agents:
            return None
        with workspace(self.roots):
            found = self.agent_view_cache.text(kind, path, start, agents, resolver.resolve,
                                               build)
        self._keep_if_open(path)
        return found

    # -------------------------------------------------------------- rule files
    def rule_status(self, path: str) -> RuleStatus | None:
        """For a rule-like file: does it load (where, at which position), or why not."""
        resolver = self.resolver
        if resolver is None or not looks_like_rule_file(path):
            return None
        canon = canonical(path)
        directory = os.path.dirname(path)
        skipped: Skipped | None = None
        chain: Chain | None = None
        for _ in range(4):
            chain = resolver.resolve(directory)
            found = chain.find(canon)
            if found is not None:
                return self._loaded_status(path, found)
            if skipped is None:
                skipped = next((s for s in chain.skipped
                                if s.path == path or canonical(s.path) == canon), None)
            if chain.git_root is not None and canonical(directory) == chain.git_root:
                break
            parent = os.path.dirname(directory)
            if parent == directory or self.root_for(parent) is None:
                break
            directory = parent
        return RuleStatus(path, None, skipped=skipped,
                          git_root=chain.git_root if chain is not None else None)

    def _loaded_status(self, path: str, found: RuleFile) -> RuleStatus:
        assert self.resolver is not None
        scope = found.root if found.role == "project" else self.agent_cwd(path) or found.root
        chain = self.resolver.resolve(scope)
        here = chain.find(found.canonical) or found
        count, capped = self.count_files(scope, chain.git_root)
        return RuleStatus(path, here, scope=chain.cwd, position=here.precedence,
                          total=len(chain.files), files_here=count, capped=capped,
                          git_root=chain.git_root)

    def count_files(self, scope: str, git_root: str | None) -> tuple[int, bool]:
        """Files under ``scope`` an agent could be working on (not gitignored, no ``.git``)."""
        with self._lock:
            cached = self._counts.get(scope)
        if cached is not None:
            return cached
        ignore = self.resolver.gitignore(git_root) if self.resolver and git_root else None
        count = 0
        for _, is_dir in walk_unignored(scope, _SKIP_DIRS, ignore):
            if is_dir is False:  # a file (an entry that cannot be told is not counted)
                count += 1
                if count >= COUNT_CAP:
                    break
        result = (min(count, COUNT_CAP), count >= COUNT_CAP)
        with self._lock:
            self._counts[scope] = result
        return result


def looks_like_rule_file(path: str) -> bool:
    """Named instruction files (any case), other agents' files, or anything in a rules dir."""
    name = os.path.basename(path).lower()
    if name in _NAMED_LOWER or name in _OTHER_LOWER:
        return True
    parts = path.split(os.sep)
    return any(parts[i] in _RULE_DIR_VENDORS and parts[i + 1] == "rules"
               for i in range(len(parts) - 2))
