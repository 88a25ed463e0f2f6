"""Which instruction files an agent started in ``cwd`` loads, in order, and which it skips.

This reproduces Grok Build's ``read_agents_config_with_paths`` (spec §3) and adds what
the agent never says: a :class:`~rulelens.rules.model.Skipped` record, with a reason, for
every instruction-like file that does not load.

The agent probes each candidate with ``Path::exists``. We list each directory once and
look names up in the listing (a ``stat`` confirms the few hits, so a dangling symlink
still counts as missing). One listing per directory is cheaper than a dozen ``stat``
calls, is cached per directory, and shows the near-misses (``agents.md``,
``AGENTS.local.md``, ``.mdc`` files) we report as skipped. When a directory cannot be
listed but can be searched, we fall back to probing each name, as the agent does.
Known difference: on a case-insensitive file system the agent reports a file under the
first list spelling that matches (``Agents.md``), we report the on-disk spelling.

The working directory is canonicalised first: an agent's cwd comes from ``getcwd``,
which already resolves symlinks.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from rulelens.agents import safeio
from rulelens.agents import trust as folder_trust
from rulelens.agents.environment import AgentEnvironment
from rulelens.agents.fs import canonical, exists, is_within
from rulelens.agents.profiles import GROK_1_0_6, AgentProfile, Cell
from rulelens.rules.frontmatter import strip_for_agent
from rulelens.rules.gitignore import GitIgnore, IgnoreProblem
from rulelens.rules.large import HEAD_CHARS, Unheld, read_unheld
from rulelens.rules.model import Chain, Role, RuleFile, Skipped, SkipReason, Source
from rulelens.rules.render import estimate_tokens_counted, estimate_tokens_for

#: Files other agents read that Grok does not, with who reads them (grok@1.0.6 wording).
OTHER_AGENT_FILES: dict[str, str] = {
    name: GROK_1_0_6.foreign(name) or "" for name in GROK_1_0_6.foreign_files}

_NESTED_LIMIT = 200
_NESTED_DEPTH = 6


@dataclass(frozen=True)
class Root:
    path: str
    scan_named: bool
    rules_subdirs: tuple[str, ...]
    role: Role
    #: Names/subdirectories a compat cell switched off here, for ``compat-disabled``.
    disabled_named: tuple[tuple[str, tuple[str, str]], ...] = ()
    disabled_subdirs: tuple[tuple[str, tuple[str, str]], ...] = ()
    #: ``home``, ``configured`` (an ``extra_rule_dirs`` entry: the root *is* its rules
    #: directory, ``rules_subdirs == ("",)``) or ``project``.
    source: Source = "project"
    #: Whether the repository's gitignore filters this root (not for configured roots).
    gitignore: bool = True


@dataclass(frozen=True)
class _Found:
    """A candidate found by scanning one root: spelled path, canonical key, rule or named."""

    path: str
    key: str
    is_rule: bool


@dataclass(frozen=True)
class _RootScan:
    """Everything one root contributes; cached, since every chain below it shares it."""

    found: tuple[_Found, ...]
    skipped: tuple[Skipped, ...]


class _Filtered(NamedTuple):
    """One root's scan seen through one repository's gitignore; cached per scan and root.

    ``verdicts`` has one entry per found candidate (the gitignore record, or ``None`` when
    it is kept); ``keys`` are the canonical keys of the kept ones and ``unique`` says that
    no two of them are the same file, so a chain whose roots are unique and pairwise
    disjoint needs no de-duplication at all. Immutable; a NamedTuple because a cold lookup
    makes one per root and a frozen dataclass costs several times more to build.
    """

    scan: _RootScan
    ignore: GitIgnore | None
    verdicts: tuple[Skipped | None, ...]
    #: ``scan.skipped`` followed by the gitignore records, in scan order.
    skipped: tuple[Skipped, ...]
    kept: tuple[_Found, ...]
    keys: frozenset[str]
    unique: bool


@dataclass
class _Candidate:
    path: str
    key: str
    is_rule: bool
    role: Role
    root: str
    source: Source


#: A directory listing, or why it could not be listed.
_Listing = frozenset[str] | OSError
_UNSET = object()
_NO_KEYS: frozenset[str] = frozenset()
_BARE_MARKERS = frozenset({"HEAD", "objects", "refs"})


def has_md_extension(name: str) -> bool:
    """Rust ``Path::extension() == "md"`` (case-insensitive): ``.md`` alone has no extension."""
    stem, dot, ext = name.rpartition(".")
    return bool(dot) and stem != "" and ext.lower() == "md"


def _join(directory: str, name: str) -> str:
    """``os.path.join`` for the hot path: one relative name, POSIX separators."""
    if os.sep != "/" or name.startswith("/"):
        return os.path.join(directory, name)
    return directory + name if directory.endswith("/") else directory + "/" + name


def _missing(exc: OSError) -> bool:
    return exc.errno in (errno.ENOENT, errno.ENOTDIR)


@dataclass
class Resolver:
    """Resolves chains for one agent environment, caching per directory.

    Layers of cache, each safe to share between lookups: directory listings and
    canonical spellings; one :class:`_RootScan` per discovery root (a directory's named
    files, rules directories and near-misses), and its gitignore verdicts per repository;
    file contents, their injected form and the :class:`RuleFile` made of them. A chain is
    then assembled from the scans of its roots, and cached per working directory.

    The 100 package chains of a repository share its root's hundreds of rule files: when
    no file of a chain is a duplicate of another (the common case), each root contributes
    a *segment* of ready :class:`RuleFile` values, cached per root and first precedence,
    so sibling chains hold the very same objects (the linter's per-file caches then hit
    by identity) and nothing is re-stripped, re-matched or rebuilt per chain.

    What loads is the ``profile``'s (names, rules directories, home roots, boundary,
    gitignore, trust, wording); ``trust`` overrides the folder-trust verdict for "what if"
    views and for lint, which reasons about a trusted folder.

    Thread-safe for concurrent ``resolve`` calls. Call :meth:`invalidate` when files
    change; the language server's watcher does.
    """

    env: AgentEnvironment
    profile: AgentProfile = GROK_1_0_6
    trust: folder_trust.Override = "auto"
    _listings: dict[str, _Listing] = field(default_factory=dict)
    _canon: dict[str, str] = field(default_factory=dict)
    _scans: dict[Root, _RootScan] = field(default_factory=dict)
    _contents: dict[str, tuple[int, str] | Unheld | Skipped] = field(default_factory=dict)
    _git_roots: dict[str, str | None] = field(default_factory=dict)
    _ignores: dict[str, GitIgnore] = field(default_factory=dict)
    _chains: dict[str, Chain] = field(default_factory=dict)
    #: Keyed by ``id`` of the scan (resp. filtered scan) they were made from, which the
    #: entry holds: hashing a :class:`Root` per lookup costs more than the whole check.
    _filtered: dict[tuple[int, str | None], _Filtered] = field(default_factory=dict)
    _injected: dict[tuple[str, bool], tuple[str, str, int]] = field(default_factory=dict)
    _rule_files: dict[tuple[str, str, bool, Role, int, str, Source], RuleFile] = field(
        default_factory=dict)
    _segments: dict[tuple[int, int], tuple[_Filtered, tuple[RuleFile, ...],
                                             tuple[Skipped, ...]]] = field(
        default_factory=dict)
    _aliases: dict[str, str] = field(default_factory=dict)
    #: Folder trust (profiles with a trust gate): workspace key per canonical directory,
    #: the store as loaded, and its verdict per key.
    _trust_keys: dict[str, str] = field(default_factory=dict)
    _trust_store: folder_trust.TrustStore | None = None
    _trust_verdicts: dict[str, tuple[bool, str] | None] = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock)

    def __post_init__(self) -> None:
        profile, compat = self.profile, self.env.compat

        def on(cell: Cell | None) -> bool:
            return cell is None or compat.enabled(*cell)

        self._names = tuple(n.name for n in profile.named_files if on(n.gate))
        self._subdirs = tuple(r.path for r in profile.rules_dirs if on(r.gate))
        self._disabled_named = tuple((n.name, n.gate) for n in profile.named_files
                                     if n.gate is not None and not on(n.gate))
        self._disabled_sub = tuple((r.path, r.gate) for r in profile.rules_dirs
                                   if r.gate is not None and not on(r.gate))
        base_names = profile.base_names
        self._base_names = base_names
        self._lower_names = {n.lower(): n for n in base_names}
        #: Lower-cased names worth a closer look in a listing (wrong case, other agents').
        self._near_miss = frozenset(self._lower_names) | {
            n.lower() for n in profile.foreign_files if "/" not in n}
        home_roots = []
        for home in profile.home_roots:
            base = self.env.grok_home if home.base == "agent-home" else self.env.home
            path = _join(base, home.path) if home.path else base
            named_on = home.named and on(home.named_gate)
            rules_on = home.rules_dir is not None and on(home.rules_gate)
            disabled_named: tuple[tuple[str, Cell], ...] = ()
            if home.named and home.named_gate is not None and not named_on:
                disabled_named = tuple((n, home.named_gate) for n in self._names)
            disabled_subdirs: tuple[tuple[str, Cell], ...] = ()
            if home.rules_dir is not None and home.rules_gate is not None and not rules_on:
                disabled_subdirs = ((home.rules_dir, home.rules_gate),)
            home_roots.append(Root(path, named_on,
                                   (home.rules_dir,) if rules_on and home.rules_dir else (),
                                   "home", disabled_named + self._disabled_named,
                                   disabled_subdirs, "home"))
        configured: list[Root] = []
        if profile.extra_rule_dirs:
            seen: set[str] = set()
            for d in self.env.extra_rule_dirs:
                key = canonical(d)
                if key not in seen:
                    seen.add(key)
                    configured.append(Root(d, False, ("",), "home", source="configured",
                                           gitignore=False))
        self._home_roots = tuple(home_roots) + tuple(configured)

    # ----------------------------------------------------------------- caching
    def invalidate(self, paths: Iterable[str] | None = None) -> None:
        """Forget cached state. With ``paths``, only what those paths can change."""
        with self._lock:
            self._chains.clear()
            self._aliases.clear()
            # Built from scans, matchers and contents; cheap to rebuild from the per-path
            # and per-directory caches kept below (and never left holding a dropped scan).
            self._filtered.clear()
            self._injected.clear()
            self._rule_files.clear()
            self._segments.clear()
            self._trust_keys.clear()
            if paths is None or any(os.path.basename(p) == folder_trust.STORE_NAME
                                    for p in paths):
                self._trust_store = None
                self._trust_verdicts.clear()
            if paths is None:
                self._listings.clear()
                self._canon.clear()
                self._scans.clear()
                self._contents.clear()
                self._git_roots.clear()
                self._ignores.clear()
                return
            dirs: set[str] = set()
            for p in paths:
                p = os.path.abspath(p)
                self._contents.pop(p, None)
                # A change to p can alter the listing of p (a directory) and of its parent,
                # and the scan of any root within three levels above (root/.grok/rules/x.md).
                d = p
                for _ in range(4):
                    dirs.add(d)
                    d = os.path.dirname(d)
                name = os.path.basename(p)
                if name in (".gitignore", ".gitconfig") or "ignore" in name or "config" in name:
                    self._ignores.clear()
                if name == ".git" or name in ("HEAD", "objects", "refs"):
                    self._git_roots.clear()
                    self._ignores.clear()
            for d in dirs:
                self._listings.pop(d, None)
                self._canon.pop(d, None)
            # Contents are keyed by spelling: a changed symlink target must be re-read.
            for key in [k for k in self._contents if os.path.dirname(k) in dirs]:
                del self._contents[key]
            for root in [r for r in self._scans if r.path in dirs]:
                del self._scans[root]

    def _list(self, directory: str) -> _Listing:
        found = self._listings.get(directory)
        if found is None:
            try:
                found = frozenset(os.listdir(directory))
            except OSError as exc:
                found = exc
            except ValueError as exc:
                found = OSError(errno.EINVAL, str(exc))
            self._listings[directory] = found
        return found

    def canonical_dir(self, path: str) -> str:
        """:func:`fs.canonical` of an absolute, normalised directory path, built from the
        memoised canonical spelling of its parent (one ``lstat`` per new directory instead
        of one per component)."""
        with self._lock:
            return self._canonical_dir(path)

    def _canonical_dir(self, path: str, depth: int = 0) -> str:
        """Canonical spelling of a directory, reusing its parent's when it is no symlink."""
        found = self._canon.get(path)
        if found is not None:
            return found
        parent, name = os.path.split(path)
        parent_canon = self._canon.get(parent)
        if parent_canon is None and depth < 3 and parent != path and name:
            parent_canon = self._canonical_dir(parent, depth + 1)
        if parent_canon is not None and name not in ("", ".", ".."):
            found = self._child_key(path, parent_canon, name)
        else:
            found = canonical(path)
        self._canon[path] = found
        return found

    @staticmethod
    def _child_key(path: str, parent_canon: str, name: str) -> str:
        """Canonical key of ``parent/name`` given the parent's canonical spelling."""
        try:
            st = os.lstat(path)
        except (OSError, ValueError):
            return path  # the agent's fallback: the raw path
        if stat.S_ISLNK(st.st_mode):
            return canonical(path)
        return _join(parent_canon, name)

    def git_root(self, cwd: str) -> str | None:
        """The repository root for a canonical ``cwd`` (see :func:`fs.discover_git_root`).

        Found from the listings discovery needs anyway, and memoised for every directory
        on the way up, so sibling directories share the walk.
        """
        found = self._git_roots.get(cwd, _UNSET)
        if found is not _UNSET:
            return found  # type: ignore[return-value]
        visited: list[str] = []
        current = cwd
        result: str | None = None
        while True:
            known = self._git_roots.get(current, _UNSET)
            if known is not _UNSET:
                result = known  # type: ignore[assignment]
                break
            visited.append(current)
            marker = self._git_marker(current)
            if marker is not None:
                result = current if marker else None
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        for directory in visited:
            self._git_roots[directory] = result
        return result

    def _git_marker(self, directory: str) -> bool | None:
        """True: a worktree root; False: a bare repository; None: neither."""
        names = self._list(directory)
        dot_git = _join(directory, ".git")
        listed = names if isinstance(names, frozenset) else None
        if (listed is None or ".git" in listed) and (
                os.path.isdir(dot_git) or os.path.isfile(dot_git)):
            return True
        if (listed is None or listed >= _BARE_MARKERS) and _looks_like_bare_repo(directory):
            return False
        return None

    def gitignore(self, git_root: str) -> GitIgnore:
        found = self._ignores.get(git_root)
        if found is None:
            found = GitIgnore.build(git_root, self.env.home, self.env.env)
            self._ignores[git_root] = found
        return found

    # ------------------------------------------------------------------ roots
    def roots(self, cwd: str, git_root: str | None) -> tuple[list[Root], tuple[str, ...]]:
        """Discovery roots in order, and the project chain directories (root first).

        ``cwd`` must be canonical for the ``git-root`` boundary (its ancestors then are
        too); the ``repo-dir-chain`` boundary keeps its spelling.
        """
        return self._roots(cwd, git_root, self._project_chain(cwd, git_root))

    def _roots(self, cwd: str, git_root: str | None,
               chain_dirs: list[str]) -> tuple[list[Root], tuple[str, ...]]:
        project_dirs = self._instruction_dirs(chain_dirs, git_root)
        roots = list(self._home_roots)
        for d in project_dirs:
            roots.append(Root(d, True, self._subdirs, "project", self._disabled_named,
                              self._disabled_sub))
        out: list[Root] = []
        index: dict[tuple[str, tuple[str, ...]], int] = {}
        for root in roots:
            key = (self._canonical_dir(root.path), root.rules_subdirs)
            at = index.get(key)
            if at is None:
                index[key] = len(out)
                out.append(root)
            elif root.scan_named and not out[at].scan_named:
                prev = out[at]
                out[at] = Root(prev.path, True, prev.rules_subdirs, prev.role,
                               prev.disabled_named, prev.disabled_subdirs, prev.source,
                               prev.gitignore)
        return out, tuple(chain_dirs) if git_root is not None else ()

    def _project_chain(self, cwd: str, git_root: str | None) -> list[str]:
        """cwd up to the git root (inclusive), in root→cwd order; ``[cwd]`` without a root.

        ``git-root`` (spec §3.2): a canonical cwd, stopping at the directory equal to the
        root. ``repo-dir-chain`` (addendum §A3.1): the cwd as spelled, stopping at the
        directory whose canonical path equals the root's, else at ``/``.
        """
        if git_root is None:
            return [cwd]
        # A canonical cwd has canonical ancestors: both walks then stop at the root itself.
        if self.profile.boundary != "repo-dir-chain" or self._canonical_dir(cwd) == cwd:
            plain = _project_chain(cwd, git_root)
            for d in plain:
                self._canon.setdefault(d, d)
            return plain
        return _walk_up(cwd, lambda d: self._canonical_dir(d) == git_root)

    def _instruction_dirs(self, chain_dirs: list[str], git_root: str | None) -> list[str]:
        """The chain plus the workspace-user dir (after the root, only with a git root)."""
        project_dirs = list(chain_dirs)
        if git_root is not None and self.env.workspace_user_dir is not None:
            wud = self.env.workspace_user_dir
            wud_key = self._canonical_dir(wud)
            if wud_key not in [self._canonical_dir(d) for d in chain_dirs]:
                project_dirs.insert(min(1, len(project_dirs)), wud)
        return project_dirs

    def discovery_git_root(self, cwd: str) -> str | None:
        """The git root discovery uses for ``cwd`` (spelled as given for the
        ``repo-dir-chain`` boundary): the worktree root, dropped when it is the home
        directory under that boundary (addendum §A3.1)."""
        with self._lock:
            root = self.git_root(self._canonical_dir(cwd))
            if (root is not None and self.profile.boundary == "repo-dir-chain"
                    and root == self._canonical_dir(os.path.abspath(self.env.home))):
                return None
            return root

    # ---------------------------------------------------------------- resolve
    def _key(self, cwd: str) -> str:
        """The cache key of a working directory: canonical (``git-root``), or the
        normalised spelling (``repo-dir-chain``, whose chain keeps the spelling)."""
        if self.profile.boundary == "repo-dir-chain":
            return os.path.normpath(os.path.abspath(cwd))
        return self.canonical_dir(os.path.abspath(cwd))

    def resolve(self, cwd: str) -> Chain:
        """The chain for an agent started in ``cwd`` (a directory)."""
        with self._lock:
            alias = self._aliases.get(cwd)
            if alias is not None:
                cached = self._chains.get(alias)
                if cached is not None:
                    return cached
            key = self._key(cwd)
            chain = self._chains.get(key)
            if chain is None:
                chain = self._resolve(key)
                self._chains[key] = chain
            if os.path.isabs(cwd):
                self._aliases[cwd] = key
            return chain

    def _trust(self, cwd: str, chain_dirs: list[str], git_root: str | None,
               project_dirs: list[str]) -> folder_trust.Trust | None:
        rule = self.profile.trust
        if rule is None:
            return None
        chain_first = list(reversed(chain_dirs))
        skill_dirs = list(chain_first)
        wud = self.env.workspace_user_dir
        if wud is not None and self._canonical_dir(wud) not in [
                self._canonical_dir(d) for d in chain_dirs]:
            skill_dirs.append(wud)
        home = self.env.env.get("HOME") or None
        if self._trust_store is None:
            self._trust_store = folder_trust.TrustStore.load(self.env.grok_home)
        return folder_trust.resolve(
            cwd, chain=chain_first, git_root=git_root, instruction_dirs=project_dirs,
            skill_dirs=skill_dirs, home=home, grok_home=self.env.grok_home, env=self.env.env,
            config=self.env.config, config_path=self.env.config_path, command=rule.command,
            override=self.trust, key=self._workspace_key(self._canonical_dir(cwd), home),
            store=self._trust_store, lookup=lambda store, key: self._trust_lookup(
                store, key, home))

    def _workspace_key(self, canon: str, home: str | None) -> str:
        """:func:`trust.workspace_key` over this resolver's memoised walks."""
        found = self._trust_keys.get(canon)
        if found is None:
            found = folder_trust.workspace_key(canon, home, self.git_root,
                                               self._canonical_abs)
            self._trust_keys[canon] = found
        return found

    def _canonical_abs(self, path: str) -> str:
        return self._canonical_dir(os.path.normpath(os.path.abspath(path)))

    def _trust_lookup(self, store: folder_trust.TrustStore, key: str,
                      home: str | None) -> tuple[bool, str] | None:
        if key not in self._trust_verdicts:
            self._trust_verdicts[key] = store.lookup(
                key, home, lambda p: self._workspace_key(self._canonical_abs(p), home),
                self._canonical_abs)
        return self._trust_verdicts[key]

    def _resolve(self, cwd: str) -> Chain:
        git_root = self.discovery_git_root(cwd)
        chain = self._project_chain(cwd, git_root)
        roots, chain_dirs = self._roots(cwd, git_root, chain)
        trust = None
        if self.profile.trust is not None:
            trust = self._trust(cwd, chain, git_root, self._instruction_dirs(chain, git_root))
        withheld: list[Root] = []
        if trust is not None and trust.withholds:
            gated = self.profile.trust.withholds if self.profile.trust else frozenset()
            withheld = [r for r in roots if r.source in gated]
            roots = [r for r in roots if r.source not in gated]
        ignore = self.gitignore(git_root) if git_root is not None else None
        filtered = [self._filter(root, git_root, ignore if root.gitignore else None)
                    for root in roots]
        if all(f.unique for f in filtered) and len(frozenset().union(
                *[f.keys for f in filtered])) == sum(len(f.keys) for f in filtered):
            # No file is a duplicate of another: each root's segment, as cached.
            skipped: list[Skipped] = []
            files: list[RuleFile] = []
            unread: list[Skipped] = []
            for root, f in zip(roots, filtered, strict=True):
                skipped.extend(f.skipped)
                if f.kept:
                    segment, failed = self._segment(root, f, len(files) + 1)
                    files.extend(segment)
                    unread.extend(failed)
            skipped.extend(unread)
        else:
            files, skipped = self._dedup(roots, filtered)
        if withheld:
            skipped.extend(self._withheld(withheld, git_root, ignore, files))
        if ignore is not None and ignore.problems:
            skipped.extend(_ignore_unchecked(p) for p in ignore.problems)
        return Chain(cwd, git_root, tuple(files), tuple(skipped), chain_dirs,
                     self.profile.id, trust)

    def _withheld(self, roots: list[Root], git_root: str | None, ignore: GitIgnore | None,
                  files: list[RuleFile]) -> list[Skipped]:
        """What the untrusted project roots would add: their own skip records, then one
        ``untrusted-folder`` record per file that would load once the folder is trusted."""
        rule = self.profile.trust
        detail = self.profile.say("untrusted-folder", command=rule.command if rule else "")
        loaded = {f.canonical for f in files}
        out: list[Skipped] = []
        would: list[Skipped] = []
        for root in roots:
            f = self._filter(root, git_root, ignore if root.gitignore else None)
            out.extend(f.skipped)
            for found in f.kept:
                if found.key not in loaded:
                    loaded.add(found.key)
                    would.append(Skipped(found.path, SkipReason.UNTRUSTED_FOLDER, detail))
        return out + would

    def _dedup(self, roots: list[Root],
               filtered: list[_Filtered]) -> tuple[list[RuleFile], list[Skipped]]:
        """The general case: some file is found twice (a symlink, the home as a project
        root); the agent loads it once. Two-valued roles (1.0.6): a project hit moves the
        entry to the end. Three-valued (1.0.45, addendum §A3.5): a configured entry keeps
        its place and source; a home entry becomes configured in place, or moves to the
        end as project."""
        three = self.profile.dedup == "three-valued"
        skipped: list[Skipped] = []
        entries: list[_Candidate] = []
        by_key: dict[str, _Candidate] = {}
        for root, f in zip(roots, filtered, strict=True):
            skipped.extend(f.scan.skipped)
            for found, ignored in zip(f.scan.found, f.verdicts, strict=True):
                if ignored is not None:
                    skipped.append(ignored)
                    continue
                prior = by_key.get(found.key)
                if prior is None:
                    cand = _Candidate(found.path, found.key, found.is_rule, root.role,
                                      root.path, root.source)
                    by_key[found.key] = cand
                    entries.append(cand)
                    continue
                prior.is_rule = prior.is_rule or found.is_rule
                moves = root.role == "project" and prior.role != "project"
                if three:
                    moves = prior.source == "home" and root.source == "project"
                if moves:
                    skipped.append(Skipped(prior.path, SkipReason.DUPLICATE, self.profile.say(
                        "duplicate.project", path=found.path)))
                    entries.remove(prior)
                    prior.path, prior.role, prior.root = found.path, "project", root.path
                    prior.source = "project"
                    entries.append(prior)
                elif three and prior.source == "home" and root.source == "configured":
                    prior.source = "configured"
                    skipped.append(Skipped(found.path, SkipReason.DUPLICATE, self.profile.say(
                        "duplicate.loaded", path=prior.path)))
                else:
                    skipped.append(Skipped(found.path, SkipReason.DUPLICATE, self.profile.say(
                        "duplicate.loaded", path=prior.path)))

        files: list[RuleFile] = []
        for entry in entries:
            made = self._rule_file(entry.path, entry.key, entry.is_rule, entry.role,
                                   len(files) + 1, entry.root, entry.source)
            if isinstance(made, Skipped):
                skipped.append(made)
            else:
                files.append(made)
        return files, skipped

    def _filter(self, root: Root, git_root: str | None, ignore: GitIgnore | None) -> _Filtered:
        """``root``'s scan through the repository's gitignore (cached; a rebuilt scan or
        matcher is a different object, so a stale entry is never used)."""
        scan = self._scan(root)
        hit = self._filtered.get((id(scan), git_root))
        if hit is not None and hit.scan is scan and hit.ignore is ignore:
            return hit
        if not scan.found:
            made = _Filtered(scan, ignore, (), scan.skipped, (), _NO_KEYS, True)
            self._filtered[(id(scan), git_root)] = made
            return made
        verdicts: list[Skipped | None] = []
        kept: list[_Found] = []
        for found in scan.found:
            hit_rule = ignore.match(found.path) if ignore is not None else None
            if hit_rule is None:
                verdicts.append(None)
                kept.append(found)
                continue
            verdicts.append(Skipped(
                found.path, SkipReason.GITIGNORED,
                self.profile.say("gitignored", source=_short(hit_rule.source, git_root),
                                 line=hit_rule.line, pattern=hit_rule.pattern),
                (hit_rule.source, hit_rule.line, hit_rule.pattern),
            ))
        keys = frozenset(f.key for f in kept)
        made = _Filtered(scan, ignore, tuple(verdicts),
                         scan.skipped + tuple(v for v in verdicts if v is not None),
                         tuple(kept), keys, len(keys) == len(kept))
        self._filtered[(id(scan), git_root)] = made
        return made

    def _segment(self, root: Root, filtered: _Filtered,
                 first: int) -> tuple[tuple[RuleFile, ...], tuple[Skipped, ...]]:
        """The files ``root`` contributes from precedence ``first`` on, and the ones that
        cannot be read; one tuple shared by every chain with this root at this place."""
        hit = self._segments.get((id(filtered), first))
        if hit is not None and hit[0] is filtered:
            return hit[1], hit[2]
        files: list[RuleFile] = []
        failed: list[Skipped] = []
        for found in filtered.kept:
            made = self._rule_file(found.path, found.key, found.is_rule, root.role,
                                   first + len(files), root.path, root.source)
            if isinstance(made, Skipped):
                failed.append(made)
            else:
                files.append(made)
        out = tuple(files), tuple(failed)
        self._segments[(id(filtered), first)] = (filtered, *out)
        return out

    def _rule_file(self, path: str, key: str, is_rule: bool, role: Role, precedence: int,
                   root: str, source: Source) -> RuleFile | Skipped:
        """The :class:`RuleFile` for one loaded entry (one object per distinct entry)."""
        memo = (path, key, is_rule, role, precedence, root, source)
        found = self._rule_files.get(memo)
        if found is not None:
            return found
        injected = self._inject(path, is_rule)
        if isinstance(injected, Skipped):
            return injected
        content, raw_len, tokens, held = injected
        made = RuleFile(
            path=path, canonical=key, name=os.path.basename(path), role=role,
            kind="rule" if is_rule else "named", precedence=precedence, bytes=raw_len,
            tokens=tokens, content=content, root=root, source=source, held=held,
        )
        self._rule_files[memo] = made
        return made

    def _inject(self, path: str, is_rule: bool) -> tuple[str, int, int, bool] | Skipped:
        """What the agent injects for ``path`` (verbatim, or frontmatter-stripped for a
        rule file), its size in bytes, its token estimate and whether RuleLens holds it
        (see :mod:`rulelens.rules.large`); stripped once per path."""
        loaded = self._read(path)
        if isinstance(loaded, Skipped):
            return loaded
        if isinstance(loaded, Unheld):
            counted = loaded.injected(is_rule)
            if counted is None:
                return Skipped(path, SkipReason.UNREADABLE,
                               f"{loaded.size} bytes, more than RuleLens holds, and its"
                               f" frontmatter does not end in its first {HEAD_CHARS}"
                               " characters; the agent would load it")
            chars, nbytes = counted
            return "", loaded.size, estimate_tokens_counted(chars, nbytes,
                                                            self.profile.tokens), False
        memo = (path, is_rule)
        found = self._injected.get(memo)
        if found is not None and found[0] is loaded[1]:
            return found[1], loaded[0], found[2], True
        raw_len, text = loaded
        content = strip_for_agent(text) if is_rule else text
        tokens = estimate_tokens_for(content, self.profile.tokens)
        self._injected[memo] = (text, content, tokens)
        return content, raw_len, tokens, True

    def loaded_text(self, path: str) -> str | None:
        """The text of ``path`` (as spelled) if a chain resolved since the last
        :meth:`invalidate` of it has read it as valid UTF-8; ``None`` otherwise.

        Lets a caller that needs the file anyway (the linter) skip a second read of the
        hundreds of files a chain has just loaded.
        """
        with self._lock:
            found = self._contents.get(path)
        return found[1] if isinstance(found, tuple) else None

    def _read(self, path: str) -> tuple[int, str] | Unheld | Skipped:
        found = self._contents.get(path)
        if found is None:
            found = _read(path)
            self._contents[path] = found
        return found

    # ------------------------------------------------------------- root scan
    def _scan(self, root: Root) -> _RootScan:
        found = self._scans.get(root)
        if found is None:
            out: list[_Found] = []
            skipped: list[Skipped] = []
            self._scan_root(root, out, skipped)
            found = _RootScan(tuple(out), tuple(skipped))
            self._scans[root] = found
        return found

    def _scan_root(self, root: Root, out: list[_Found], skipped: list[Skipped]) -> None:
        listing = self._list(root.path)
        names: frozenset[str] | None
        if isinstance(listing, OSError):
            if _missing(listing):
                return
            # Grok probes names with `exists` and lists only rules directories, so files
            # in a directory we cannot list still load; we just cannot see near-misses.
            skipped.append(Skipped(
                root.path, SkipReason.UNREADABLE,
                f"cannot list this directory ({safeio.describe(listing)}); files in it"
                " are still found by exact name, as the agent finds them, but misnamed"
                " files here cannot be reported",
            ))
            names = None
        else:
            names = listing
        root_canon = self._canonical_dir(root.path)
        if root.scan_named:
            for name in self._names:
                key = self._probe(root.path, root_canon, names, name)
                if key is not None:
                    out.append(_Found(_join(root.path, name), key, False))
            if names is not None:
                self._unrecognized(root, names, skipped)
        for name, cell in root.disabled_named:
            if self._probe(root.path, root_canon, names, name) is not None:
                skipped.append(self._compat_skip(_join(root.path, name), cell))
        for sub in root.rules_subdirs:
            self._scan_rules_dir(root, names, sub, out, skipped, None)
        for sub, cell in root.disabled_subdirs:
            self._scan_rules_dir(root, names, sub, out, skipped, cell)

    def _probe(self, directory: str, dir_canon: str, names: frozenset[str] | None,
               rel: str) -> str | None:
        """``Path::exists`` for ``directory/rel``; the canonical key when it exists.

        The listing answers most probes without a system call; a hit costs one ``lstat``
        (plus a ``stat`` and ``realpath`` for a symlink, which may dangle).
        """
        head, _, tail = rel.partition("/")
        if names is not None and head not in names:
            return None
        path = _join(directory, rel)
        if tail:
            head_dir = _join(directory, head)
            sub = self._list(head_dir)
            if isinstance(sub, frozenset) and tail not in sub:
                return None
            if not exists(path):
                return None
            return self._child_key(path, self._canonical_dir(head_dir), tail)
        try:
            st = os.lstat(path)
        except (OSError, ValueError):
            return None
        if stat.S_ISLNK(st.st_mode):
            return canonical(path) if exists(path) else None
        return _join(dir_canon, rel)

    def _scan_rules_dir(self, root: Root, names: frozenset[str] | None, sub: str,
                        out: list[_Found], skipped: list[Skipped],
                        disabled_by: tuple[str, str] | None) -> None:
        head = sub.split("/", 1)[0]
        if sub and names is not None and head not in names:
            return
        directory = _join(root.path, sub) if sub else root.path
        listing = self._list(directory)
        if isinstance(listing, OSError):
            if not _missing(listing):
                skipped.append(Skipped(directory, SkipReason.UNREADABLE,
                                       f"cannot list this rules directory"
                                       f" ({safeio.describe(listing)})"))
            return
        dir_canon = self._canonical_dir(directory)
        for name in sorted(listing):
            path = _join(directory, name)
            if has_md_extension(name):
                if disabled_by is not None:
                    skipped.append(self._compat_skip(path, disabled_by))
                else:
                    out.append(_Found(path, self._child_key(path, dir_canon, name), True))
                continue
            if name == ".md" or name.lower().endswith((".mdc", ".markdown")):
                skipped.append(Skipped(path, SkipReason.UNRECOGNIZED_NAME,
                                       self._rules_ext_detail(name)))
                continue
            if os.path.isdir(path):
                self._nested(path, directory, dir_canon, skipped)

    def _nested(self, start: str, rules_dir: str, rules_canon: str,
                skipped: list[Skipped]) -> None:
        """Report ``.md`` files below a rules directory: the agent lists direct children only.

        Symlinks are followed, except back up to the rules directory or its ancestors.
        """
        seen = {rules_canon}
        stack = [(start, 1)]
        reported = 0
        while stack and reported < _NESTED_LIMIT:
            directory, depth = stack.pop()
            key = canonical(directory)
            if key in seen or depth > _NESTED_DEPTH or is_within(rules_canon, key):
                continue
            seen.add(key)
            listing = self._list(directory)
            if isinstance(listing, OSError):
                continue
            for name in sorted(listing, reverse=True):
                path = _join(directory, name)
                if has_md_extension(name) and not os.path.isdir(path):
                    reported += 1
                    rel = os.path.relpath(path, rules_dir)
                    skipped.append(Skipped(
                        path, SkipReason.NESTED_IN_RULES_DIR,
                        self.profile.say("nested-in-rules-dir", rules_dir=rules_dir, rel=rel),
                    ))
                elif os.path.isdir(path):
                    stack.append((path, depth + 1))

    def _unrecognized(self, root: Root, names: frozenset[str], skipped: list[Skipped]) -> None:
        for name in sorted(n for n in names if n.lower() in self._near_miss):
            official = self._lower_names.get(name.lower())
            if official is not None and name not in self._base_names:
                skipped.append(Skipped(
                    _join(root.path, name), SkipReason.UNRECOGNIZED_NAME,
                    self.profile.say("unrecognized-name.case", name=name,
                                     names=", ".join(self._base_names),
                                     suggest=self._suggest(name)),
                ))
            elif name in self.profile.foreign_files:
                skipped.append(Skipped(_join(root.path, name),
                                       SkipReason.UNRECOGNIZED_NAME,
                                       self._other_detail(name)))
        if ".github" in names:
            github = self._list(_join(root.path, ".github"))
            rel = ".github/copilot-instructions.md"
            if (isinstance(github, frozenset) and "copilot-instructions.md" in github
                    and rel in self.profile.foreign_files):
                skipped.append(Skipped(_join(root.path, rel),
                                       SkipReason.UNRECOGNIZED_NAME, self._other_detail(rel)))

    # -------------------------------------------------------------- wording
    def _compat_skip(self, path: str, cell: tuple[str, str]) -> Skipped:
        c = self.env.compat.cell(*cell)
        return Skipped(path, SkipReason.COMPAT_DISABLED, self.profile.say(
            "compat-disabled", vendor=c.vendor, surface=c.surface, origin=c.origin))

    def _suggest(self, name: str) -> str:
        if name.lower() == "agents.md":
            return "AGENTS.md"
        return self._lower_names[name.lower()]

    def _other_detail(self, name: str) -> str:
        hint = "AGENTS.md or CLAUDE.local.md" if "local" in name else "AGENTS.md"
        return self.profile.say("unrecognized-name.other", who=self.profile.foreign(name),
                                hint=hint)

    def _rules_ext_detail(self, name: str) -> str:
        if name == ".md":
            return self.profile.say("unrecognized-name.dot-md")
        if name.lower().endswith(".mdc"):
            return self.profile.say("unrecognized-name.mdc")
        return self.profile.say("unrecognized-name.ext")


def _project_chain(cwd: str, git_root: str | None) -> list[str]:
    """cwd up to the git root (inclusive), in root→cwd order; ``[cwd]`` without a root."""
    if git_root is None:
        return [cwd]
    return _walk_up(cwd, lambda d: d == git_root)


def _walk_up(cwd: str, is_root: Callable[[str], bool]) -> list[str]:
    """cwd and its parents up to the first for which ``is_root`` holds (else up to ``/``),
    in root→cwd order."""
    dirs: list[str] = []
    current = cwd
    while True:
        dirs.append(current)
        if is_root(current):
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    dirs.reverse()
    return dirs


def _looks_like_bare_repo(path: str) -> bool:
    return (
        os.path.basename(path) != ".git"
        and os.path.isfile(os.path.join(path, "HEAD"))
        and os.path.isdir(os.path.join(path, "objects"))
        and os.path.isdir(os.path.join(path, "refs"))
    )


def _read(path: str) -> tuple[int, str] | Unheld | Skipped:
    """Read a candidate as UTF-8; any failure is a :class:`Skipped` (the agent drops it).
    A file over the hold bound is streamed once and described (:class:`Unheld`)."""
    try:
        raw = safeio.read_bytes(path, safeio.TEXT_LIMIT)
    except safeio.NotAFileError as exc:
        return Skipped(path, SkipReason.NOT_A_FILE, _not_a_file_detail(exc))
    except safeio.TooLargeError as exc:
        return read_unheld(path, exc.size)
    except OSError as exc:
        return Skipped(path, SkipReason.UNREADABLE, f"cannot be read ({safeio.describe(exc)})")
    try:
        return len(raw), raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Skipped(path, SkipReason.NOT_UTF8,
                       f"not valid UTF-8 (byte {exc.start}); the agent drops it silently."
                       " Re-save it as UTF-8")


def _ignore_unchecked(problem: IgnoreProblem) -> Skipped:
    """An ignore file RuleLens could not apply in full: a file shown as loading may be
    one the agent ignores."""
    return Skipped(problem.source, SkipReason.IGNORE_UNCHECKED,
                   f"{problem.detail}; a file shown as loading may be one it ignores")


def _not_a_file_detail(exc: safeio.NotAFileError) -> str:
    if exc.kind == "a directory":
        return "it is a directory, not a file; the agent cannot read it"
    return (f"it is {exc.kind}, not a regular file; RuleLens does not read it (reading"
            " could block or never end)")


def _short(path: str, root: str | None) -> str:
    if root is not None and path.startswith(root + os.sep):
        return os.path.relpath(path, root)
    return path
