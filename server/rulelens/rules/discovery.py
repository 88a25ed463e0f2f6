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
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from rulelens.agents.compat import BASE_FILENAMES, CLAUDE_FILENAMES, Compat
from rulelens.agents.environment import AgentEnvironment
from rulelens.agents.fs import canonical, exists, is_within
from rulelens.rules.frontmatter import strip_for_agent
from rulelens.rules.gitignore import GitIgnore
from rulelens.rules.model import Chain, Role, RuleFile, Skipped, SkipReason
from rulelens.rules.render import estimate_tokens

#: Every rules directory a project root can have, with the compat cell that enables it.
PROJECT_RULES_DIRS: tuple[tuple[str, tuple[str, str] | None], ...] = (
    (".grok/rules", None),
    (".claude/rules", ("claude", "rules")),
    (".cursor/rules", ("cursor", "rules")),
)

#: Files other agents read that Grok does not, with who reads them.
OTHER_AGENT_FILES: dict[str, str] = {
    "AGENTS.local.md": "a personal-override convention some tools use; Grok does not read it",
    "AGENT.local.md": "a personal-override convention some tools use; Grok does not read it",
    "GEMINI.md": "Gemini CLI reads it; Grok does not",
    ".cursorrules": "legacy Cursor rules file; Grok does not read it",
    ".windsurfrules": "Windsurf reads it; Grok does not",
    ".clinerules": "Cline reads it; Grok does not",
    ".github/copilot-instructions.md": "GitHub Copilot reads it; Grok does not",
}

_LOWER_NAMES = {n.lower(): n for n in BASE_FILENAMES}
#: Lower-cased names worth a closer look in a listing (wrong case, other agents' files).
_NEAR_MISS = frozenset(_LOWER_NAMES) | {n.lower() for n in OTHER_AGENT_FILES if "/" not in n}
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


#: A directory listing, or why it could not be listed.
_Listing = frozenset[str] | OSError
_UNSET = object()
_NO_KEYS: frozenset[str] = frozenset()
_BARE_MARKERS = frozenset({"HEAD", "objects", "refs"})


def has_md_extension(name: str) -> bool:
    """Rust ``Path::extension() == "md"`` (case-insensitive): ``.md`` alone has no extension."""
    stem, dot, ext = name.rpartition(".")
    return bool(dot) and stem != "" and ext.lower() == "md"


def _describe_os_error(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "it is a symlink loop"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.ENOENT:
        return "it does not exist (dangling symlink?)"
    return exc.strerror or str(exc)


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

    Thread-safe for concurrent ``resolve`` calls. Call :meth:`invalidate` when files
    change; the language server's watcher does.
    """

    env: AgentEnvironment
    _listings: dict[str, _Listing] = field(default_factory=dict)
    _canon: dict[str, str] = field(default_factory=dict)
    _scans: dict[Root, _RootScan] = field(default_factory=dict)
    _contents: dict[str, tuple[int, str] | Skipped] = field(default_factory=dict)
    _git_roots: dict[str, str | None] = field(default_factory=dict)
    _ignores: dict[str, GitIgnore] = field(default_factory=dict)
    _chains: dict[str, Chain] = field(default_factory=dict)
    #: Keyed by ``id`` of the scan (resp. filtered scan) they were made from, which the
    #: entry holds: hashing a :class:`Root` per lookup costs more than the whole check.
    _filtered: dict[tuple[int, str | None], _Filtered] = field(default_factory=dict)
    _injected: dict[tuple[str, bool], tuple[str, str, int]] = field(default_factory=dict)
    _rule_files: dict[tuple[str, str, bool, Role, int, str], RuleFile] = field(
        default_factory=dict)
    _segments: dict[tuple[int, int], tuple[_Filtered, tuple[RuleFile, ...],
                                             tuple[Skipped, ...]]] = field(
        default_factory=dict)
    _aliases: dict[str, str] = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock)

    def __post_init__(self) -> None:
        compat = self.env.compat
        self._names = compat.agent_filenames()
        self._subdirs = compat.project_rules_dirs()
        self._disabled_named = _disabled_names(compat)
        self._disabled_sub = tuple(
            (sub, cell) for sub, cell in PROJECT_RULES_DIRS
            if cell is not None and not compat.enabled(*cell)
        )
        home_roots = [Root(self.env.grok_home, True, ("rules",), "home", self._disabled_named)]
        for vendor in ("claude", "cursor"):
            agents_on = compat.enabled(vendor, "agents")
            rules_on = compat.enabled(vendor, "rules")
            disabled_named = () if agents_on else tuple(
                (n, (vendor, "agents")) for n in self._names
            )
            disabled_subdirs = () if rules_on else (("rules", (vendor, "rules")),)
            home_roots.append(Root(_join(self.env.home, f".{vendor}"), agents_on,
                                   ("rules",) if rules_on else (), "home",
                                   disabled_named + self._disabled_named, disabled_subdirs))
        self._home_roots = tuple(home_roots)

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

        ``cwd`` must be canonical; its ancestors then are too.
        """
        chain_dirs = _project_chain(cwd, git_root)
        for d in chain_dirs:
            self._canon.setdefault(d, d)
        project_dirs = list(chain_dirs)
        if git_root is not None and self.env.workspace_user_dir is not None:
            wud = self.env.workspace_user_dir
            wud_key = self._canonical_dir(wud)
            if wud_key not in chain_dirs:
                project_dirs.insert(min(1, len(project_dirs)), wud)
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
                               prev.disabled_named, prev.disabled_subdirs)
        return out, tuple(chain_dirs) if git_root is not None else ()

    # ---------------------------------------------------------------- resolve
    def resolve(self, cwd: str) -> Chain:
        """The chain for an agent started in ``cwd`` (a directory)."""
        with self._lock:
            alias = self._aliases.get(cwd)
            if alias is not None:
                cached = self._chains.get(alias)
                if cached is not None:
                    return cached
            key = self.canonical_dir(os.path.abspath(cwd))
            chain = self._chains.get(key)
            if chain is None:
                chain = self._resolve(key)
                self._chains[key] = chain
            if os.path.isabs(cwd):
                self._aliases[cwd] = key
            return chain

    def _resolve(self, cwd: str) -> Chain:
        git_root = self.git_root(cwd)
        roots, chain_dirs = self.roots(cwd, git_root)
        ignore = self.gitignore(git_root) if git_root is not None else None
        filtered = [self._filter(root, git_root, ignore) for root in roots]
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
            return Chain(cwd, git_root, tuple(files), tuple(skipped), chain_dirs)
        return self._resolve_dedup(cwd, git_root, chain_dirs, roots, filtered)

    def _resolve_dedup(self, cwd: str, git_root: str | None, chain_dirs: tuple[str, ...],
                       roots: list[Root], filtered: list[_Filtered]) -> Chain:
        """The general case: some file is found twice (a symlink, the home as a project
        root); the agent loads it once, in the last project position."""
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
                    cand = _Candidate(found.path, found.key, found.is_rule, root.role, root.path)
                    by_key[found.key] = cand
                    entries.append(cand)
                    continue
                prior.is_rule = prior.is_rule or found.is_rule
                if root.role == "project" and prior.role != "project":
                    skipped.append(Skipped(
                        prior.path, SkipReason.DUPLICATE,
                        f"same file as {found.path}; it loads once, in the project position",
                    ))
                    entries.remove(prior)
                    prior.path, prior.role, prior.root = found.path, "project", root.path
                    entries.append(prior)
                else:
                    skipped.append(Skipped(
                        found.path, SkipReason.DUPLICATE,
                        f"same file as {prior.path}, which already loads",
                    ))

        files: list[RuleFile] = []
        for entry in entries:
            made = self._rule_file(entry.path, entry.key, entry.is_rule, entry.role,
                                   len(files) + 1, entry.root)
            if isinstance(made, Skipped):
                skipped.append(made)
            else:
                files.append(made)
        return Chain(cwd, git_root, tuple(files), tuple(skipped), chain_dirs)

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
                f"ignored by {_short(hit_rule.source, git_root)}:{hit_rule.line}"
                f" (`{hit_rule.pattern}`); Grok skips gitignored instruction files",
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
                                   first + len(files), root.path)
            if isinstance(made, Skipped):
                failed.append(made)
            else:
                files.append(made)
        out = tuple(files), tuple(failed)
        self._segments[(id(filtered), first)] = (filtered, *out)
        return out

    def _rule_file(self, path: str, key: str, is_rule: bool, role: Role, precedence: int,
                   root: str) -> RuleFile | Skipped:
        """The :class:`RuleFile` for one loaded entry (one object per distinct entry)."""
        memo = (path, key, is_rule, role, precedence, root)
        found = self._rule_files.get(memo)
        if found is not None:
            return found
        injected = self._inject(path, is_rule)
        if isinstance(injected, Skipped):
            return injected
        content, raw_len, tokens = injected
        made = RuleFile(
            path=path, canonical=key, name=os.path.basename(path), role=role,
            kind="rule" if is_rule else "named", precedence=precedence, bytes=raw_len,
            tokens=tokens, content=content, root=root,
        )
        self._rule_files[memo] = made
        return made

    def _inject(self, path: str, is_rule: bool) -> tuple[str, int, int] | Skipped:
        """What the agent injects for ``path`` (verbatim, or frontmatter-stripped for a
        rule file), its size in bytes and its token estimate; stripped once per path."""
        loaded = self._read(path)
        if isinstance(loaded, Skipped):
            return loaded
        memo = (path, is_rule)
        found = self._injected.get(memo)
        if found is not None and found[0] is loaded[1]:
            return found[1], loaded[0], found[2]
        raw_len, text = loaded
        content = strip_for_agent(text) if is_rule else text
        tokens = estimate_tokens(content)
        self._injected[memo] = (text, content, tokens)
        return content, raw_len, tokens

    def loaded_text(self, path: str) -> str | None:
        """The text of ``path`` (as spelled) if a chain resolved since the last
        :meth:`invalidate` of it has read it as valid UTF-8; ``None`` otherwise.

        Lets a caller that needs the file anyway (the linter) skip a second read of the
        hundreds of files a chain has just loaded.
        """
        with self._lock:
            found = self._contents.get(path)
        return found[1] if isinstance(found, tuple) else None

    def _read(self, path: str) -> tuple[int, str] | Skipped:
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
                f"cannot list this directory ({_describe_os_error(listing)}); files in it"
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
                skipped.append(_compat_skip(_join(root.path, name), cell,
                                            self.env.compat))
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
        if names is not None and head not in names:
            return
        directory = _join(root.path, sub)
        listing = self._list(directory)
        if isinstance(listing, OSError):
            if not _missing(listing):
                skipped.append(Skipped(directory, SkipReason.UNREADABLE,
                                       f"cannot list this rules directory"
                                       f" ({_describe_os_error(listing)})"))
            return
        dir_canon = self._canonical_dir(directory)
        for name in sorted(listing):
            path = _join(directory, name)
            if has_md_extension(name):
                if disabled_by is not None:
                    skipped.append(_compat_skip(path, disabled_by, self.env.compat))
                else:
                    out.append(_Found(path, self._child_key(path, dir_canon, name), True))
                continue
            if name == ".md" or name.lower().endswith((".mdc", ".markdown")):
                skipped.append(Skipped(path, SkipReason.UNRECOGNIZED_NAME,
                                       _rules_ext_detail(name)))
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
                        f"Grok reads only files directly inside {rules_dir}; this one is"
                        f" nested ({rel}). Move it up to load it",
                    ))
                elif os.path.isdir(path):
                    stack.append((path, depth + 1))

    def _unrecognized(self, root: Root, names: frozenset[str], skipped: list[Skipped]) -> None:
        for name in sorted(n for n in names if n.lower() in _NEAR_MISS):
            official = _LOWER_NAMES.get(name.lower())
            if official is not None and name not in BASE_FILENAMES:
                skipped.append(Skipped(
                    _join(root.path, name), SkipReason.UNRECOGNIZED_NAME,
                    f"Grok looks for exact names ({', '.join(BASE_FILENAMES)}); on a"
                    f" case-sensitive file system `{name}` is not one of them. Rename it to"
                    f" `{_suggest(name)}`",
                ))
            elif name in OTHER_AGENT_FILES:
                skipped.append(Skipped(_join(root.path, name),
                                       SkipReason.UNRECOGNIZED_NAME,
                                       _other_detail(name)))
        if ".github" in names:
            github = self._list(_join(root.path, ".github"))
            if isinstance(github, frozenset) and "copilot-instructions.md" in github:
                rel = ".github/copilot-instructions.md"
                skipped.append(Skipped(_join(root.path, rel),
                                       SkipReason.UNRECOGNIZED_NAME, _other_detail(rel)))


def _disabled_names(compat: Compat) -> tuple[tuple[str, tuple[str, str]], ...]:
    if compat.enabled("claude", "agents"):
        return ()
    return tuple((n, ("claude", "agents")) for n in CLAUDE_FILENAMES)


def _project_chain(cwd: str, git_root: str | None) -> list[str]:
    """cwd up to the git root (inclusive), in root→cwd order; ``[cwd]`` without a root."""
    if git_root is None:
        return [cwd]
    dirs: list[str] = []
    current = cwd
    while True:
        dirs.append(current)
        if current == git_root:
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


def _read(path: str) -> tuple[int, str] | Skipped:
    """Read a candidate as UTF-8; any failure is a :class:`Skipped` (the agent drops it)."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except IsADirectoryError:
        return Skipped(path, SkipReason.NOT_A_FILE,
                       "it is a directory, not a file; the agent cannot read it")
    except OSError as exc:
        return Skipped(path, SkipReason.UNREADABLE, f"cannot be read ({_describe_os_error(exc)})")
    try:
        return len(raw), raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Skipped(path, SkipReason.NOT_UTF8,
                       f"not valid UTF-8 (byte {exc.start}); the agent drops it silently."
                       " Re-save it as UTF-8")


def _compat_skip(path: str, cell: tuple[str, str], compat: Compat) -> Skipped:
    c = compat.cell(*cell)
    return Skipped(path, SkipReason.COMPAT_DISABLED,
                   f"the [compat.{c.vendor}] {c.surface} switch is off ({c.origin})")


def _short(path: str, root: str | None) -> str:
    if root is not None and path.startswith(root + os.sep):
        return os.path.relpath(path, root)
    return path


def _suggest(name: str) -> str:
    return _LOWER_NAMES[name.lower()] if name.lower() != "agents.md" else "AGENTS.md"


def _other_detail(name: str) -> str:
    hint = "AGENTS.md or CLAUDE.local.md" if "local" in name else "AGENTS.md"
    return f"{OTHER_AGENT_FILES[name]}. Put instructions for Grok in {hint}"


def _rules_ext_detail(name: str) -> str:
    if name == ".md":
        return "a file named exactly `.md` has no extension; Grok skips it"
    if name.lower().endswith(".mdc"):
        return "Cursor's `.mdc` format; Grok reads only `*.md` files in rules directories"
    return "Grok reads only `*.md` files in rules directories"
