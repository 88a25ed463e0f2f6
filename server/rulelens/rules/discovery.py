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
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

from rulelens.rules.compat import BASE_FILENAMES, CLAUDE_FILENAMES, Compat
from rulelens.rules.environment import AgentEnvironment
from rulelens.rules.frontmatter import strip_for_agent
from rulelens.rules.fs import canonical, discover_git_root, exists
from rulelens.rules.gitignore import GitIgnore
from rulelens.rules.model import Chain, Kind, Role, RuleFile, Skipped, SkipReason
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


@dataclass
class _Candidate:
    path: str
    key: str
    is_rule: bool
    role: Role
    root: str


@dataclass
class _Listing:
    names: frozenset[str] | None
    error: OSError | None = None


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


@dataclass
class Resolver:
    """Resolves chains for one agent environment, caching per directory.

    Thread-safe for concurrent ``resolve`` calls. Call :meth:`invalidate` when files
    change; the language server's watcher does.
    """

    env: AgentEnvironment
    _listings: dict[str, _Listing] = field(default_factory=dict)
    _git_roots: dict[str, str | None] = field(default_factory=dict)
    _ignores: dict[str, GitIgnore] = field(default_factory=dict)
    _chains: dict[str, Chain] = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock)

    # ----------------------------------------------------------------- caching
    def invalidate(self, paths: Iterable[str] | None = None) -> None:
        """Forget cached state. With ``paths``, only the directories they touch."""
        with self._lock:
            self._chains.clear()
            if paths is None:
                self._listings.clear()
                self._git_roots.clear()
                self._ignores.clear()
                return
            for p in paths:
                for d in (p, os.path.dirname(p)):
                    self._listings.pop(d, None)
                name = os.path.basename(p)
                if name in (".gitignore", ".gitconfig") or "ignore" in name:
                    self._ignores.clear()
                if name == ".git":
                    self._git_roots.clear()
                    self._ignores.clear()

    def _list(self, directory: str) -> _Listing:
        found = self._listings.get(directory)
        if found is None:
            try:
                found = _Listing(frozenset(os.listdir(directory)))
            except OSError as exc:
                found = _Listing(None, exc)
            except ValueError as exc:
                found = _Listing(None, OSError(errno.EINVAL, str(exc)))
            self._listings[directory] = found
        return found

    def git_root(self, cwd: str) -> str | None:
        if cwd not in self._git_roots:
            self._git_roots[cwd] = discover_git_root(cwd)
        return self._git_roots[cwd]

    def gitignore(self, git_root: str) -> GitIgnore:
        found = self._ignores.get(git_root)
        if found is None:
            found = GitIgnore.build(git_root, self.env.home, self.env.env)
            self._ignores[git_root] = found
        return found

    # ------------------------------------------------------------------ roots
    def roots(self, cwd: str, git_root: str | None) -> tuple[list[Root], tuple[str, ...]]:
        """Discovery roots in order, and the project chain directories (root first)."""
        compat = self.env.compat
        roots: list[Root] = [Root(self.env.grok_home, True, ("rules",), "home",
                                  _disabled_names(compat))]
        for vendor in ("claude", "cursor"):
            agents_on = compat.enabled(vendor, "agents")
            rules_on = compat.enabled(vendor, "rules")
            path = os.path.join(self.env.home, f".{vendor}")
            disabled_named = () if agents_on else tuple(
                (n, (vendor, "agents")) for n in compat.agent_filenames()
            )
            disabled_subdirs = () if rules_on else (("rules", (vendor, "rules")),)
            roots.append(Root(path, agents_on, ("rules",) if rules_on else (), "home",
                              disabled_named + _disabled_names(compat), disabled_subdirs))
        project_dirs = _project_chain(cwd, git_root)
        if git_root is not None and self.env.workspace_user_dir is not None:
            wud = self.env.workspace_user_dir
            wud_key = canonical(wud)
            if all(canonical(d) != wud_key for d in project_dirs):
                project_dirs.insert(min(1, len(project_dirs)), wud)
        subdirs = compat.project_rules_dirs()
        disabled_sub = tuple(
            (sub, cell) for sub, cell in PROJECT_RULES_DIRS
            if cell is not None and not compat.enabled(*cell)
        )
        for d in project_dirs:
            roots.append(Root(d, True, subdirs, "project", _disabled_names(compat), disabled_sub))
        chain_dirs = tuple(_project_chain(cwd, git_root)) if git_root is not None else ()
        return _dedupe_roots(roots), chain_dirs

    # ---------------------------------------------------------------- resolve
    def resolve(self, cwd: str) -> Chain:
        """The chain for an agent started in ``cwd`` (a directory)."""
        cwd = canonical(os.path.abspath(cwd))
        with self._lock:
            cached = self._chains.get(cwd)
            if cached is not None:
                return cached
            chain = self._resolve(cwd)
            self._chains[cwd] = chain
            return chain

    def _resolve(self, cwd: str) -> Chain:
        git_root = self.git_root(cwd)
        roots, chain_dirs = self.roots(cwd, git_root)
        ignore = self.gitignore(git_root) if git_root is not None else None
        skipped: list[Skipped] = []
        candidates: list[_Candidate] = []
        for root in roots:
            self._scan_root(root, candidates, skipped)

        entries: list[_Candidate] = []
        by_key: dict[str, _Candidate] = {}
        for cand in candidates:
            if ignore is not None:
                hit = ignore.match(cand.path)
                if hit is not None:
                    skipped.append(Skipped(
                        cand.path, SkipReason.GITIGNORED,
                        f"ignored by {_short(hit.source, git_root)}:{hit.line} (`{hit.pattern}`);"
                        " Grok skips gitignored instruction files",
                        (hit.source, hit.line, hit.pattern),
                    ))
                    continue
            cand.key = canonical(cand.path)
            prior = by_key.get(cand.key)
            if prior is None:
                by_key[cand.key] = cand
                entries.append(cand)
                continue
            prior.is_rule = prior.is_rule or cand.is_rule
            if cand.role == "project" and prior.role != "project":
                skipped.append(Skipped(
                    prior.path, SkipReason.DUPLICATE,
                    f"same file as {cand.path}; it loads once, in the project position",
                ))
                entries.remove(prior)
                prior.path, prior.role, prior.root = cand.path, "project", cand.root
                entries.append(prior)
            else:
                skipped.append(Skipped(
                    cand.path, SkipReason.DUPLICATE,
                    f"same file as {prior.path}, which already loads",
                ))

        files: list[RuleFile] = []
        for entry in entries:
            loaded = _read(entry, skipped)
            if loaded is not None:
                raw_len, text = loaded
                kind: Kind = "rule" if entry.is_rule else "named"
                content = strip_for_agent(text) if entry.is_rule else text
                files.append(RuleFile(
                    path=entry.path, canonical=entry.key, name=os.path.basename(entry.path),
                    role=entry.role, kind=kind, precedence=len(files) + 1, bytes=raw_len,
                    tokens=estimate_tokens(content), content=content, root=entry.root,
                ))
        return Chain(cwd, git_root, tuple(files), tuple(skipped), chain_dirs)

    # ------------------------------------------------------------- root scan
    def _scan_root(self, root: Root, out: list[_Candidate], skipped: list[Skipped]) -> None:
        listing = self._list(root.path)
        if listing.names is None:
            err = listing.error
            if err is not None and err.errno not in (errno.ENOENT, errno.ENOTDIR):
                skipped.append(Skipped(
                    root.path, SkipReason.UNREADABLE,
                    f"cannot list this directory ({_describe_os_error(err)}); instruction"
                    " files in it are found only by exact name, rules directories not at all",
                ))
                if root.scan_named:
                    self._probe_named(root, out)
            return
        names = listing.names
        if root.scan_named:
            for name in self.env.compat.agent_filenames():
                if self._present(root.path, names, name):
                    out.append(_Candidate(os.path.join(root.path, name), "", False,
                                          root.role, root.path))
            self._unrecognized(root, names, skipped)
        for name, cell in root.disabled_named:
            if self._present(root.path, names, name):
                skipped.append(_compat_skip(os.path.join(root.path, name), cell,
                                            self.env.compat))
        for sub in root.rules_subdirs:
            self._scan_rules_dir(root, names, sub, out, skipped, None)
        for sub, cell in root.disabled_subdirs:
            self._scan_rules_dir(root, names, sub, out, skipped, cell)

    def _probe_named(self, root: Root, out: list[_Candidate]) -> None:
        for name in self.env.compat.agent_filenames():
            path = os.path.join(root.path, name)
            if exists(path):
                out.append(_Candidate(path, "", False, root.role, root.path))

    def _present(self, directory: str, names: frozenset[str], rel: str) -> bool:
        head, _, tail = rel.partition("/")
        if head not in names:
            return False
        if tail:
            sub = self._list(os.path.join(directory, head))
            if sub.names is None or tail not in sub.names:
                return False
        return exists(os.path.join(directory, rel))

    def _scan_rules_dir(self, root: Root, names: frozenset[str], sub: str,
                        out: list[_Candidate], skipped: list[Skipped],
                        disabled_by: tuple[str, str] | None) -> None:
        head = sub.split("/", 1)[0]
        if head not in names:
            return
        directory = os.path.join(root.path, sub)
        listing = self._list(directory)
        if listing.names is None:
            err = listing.error
            if err is not None and err.errno not in (errno.ENOENT, errno.ENOTDIR):
                skipped.append(Skipped(directory, SkipReason.UNREADABLE,
                                       f"cannot list this rules directory"
                                       f" ({_describe_os_error(err)})"))
            return
        for name in sorted(listing.names):
            path = os.path.join(directory, name)
            if has_md_extension(name):
                if disabled_by is not None:
                    skipped.append(_compat_skip(path, disabled_by, self.env.compat))
                else:
                    out.append(_Candidate(path, "", True, root.role, root.path))
                continue
            if name == ".md" or name.lower().endswith((".mdc", ".markdown")):
                skipped.append(Skipped(path, SkipReason.UNRECOGNIZED_NAME, _rules_ext_detail(name)))
                continue
            if os.path.isdir(path):
                self._nested(path, directory, skipped)

    def _nested(self, start: str, rules_dir: str, skipped: list[Skipped]) -> None:
        """Report ``.md`` files below a rules directory: the agent lists direct children only."""
        seen = {canonical(rules_dir)}
        stack = [(start, 1)]
        reported = 0
        while stack and reported < _NESTED_LIMIT:
            directory, depth = stack.pop()
            key = canonical(directory)
            if key in seen or depth > _NESTED_DEPTH:
                continue
            seen.add(key)
            listing = self._list(directory)
            if listing.names is None:
                continue
            for name in sorted(listing.names, reverse=True):
                path = os.path.join(directory, name)
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
        for name in sorted(names):
            official = _LOWER_NAMES.get(name.lower())
            if official is not None and name not in BASE_FILENAMES:
                skipped.append(Skipped(
                    os.path.join(root.path, name), SkipReason.UNRECOGNIZED_NAME,
                    f"Grok looks for exact names ({', '.join(BASE_FILENAMES)}); on a"
                    f" case-sensitive file system `{name}` is not one of them. Rename it to"
                    f" `{_suggest(name)}`",
                ))
            elif name in OTHER_AGENT_FILES:
                skipped.append(Skipped(os.path.join(root.path, name),
                                       SkipReason.UNRECOGNIZED_NAME,
                                       _other_detail(name)))
        if ".github" in names:
            github = self._list(os.path.join(root.path, ".github"))
            if github.names is not None and "copilot-instructions.md" in github.names:
                rel = ".github/copilot-instructions.md"
                skipped.append(Skipped(os.path.join(root.path, rel),
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


def _dedupe_roots(roots: list[Root]) -> list[Root]:
    out: list[Root] = []
    index: dict[tuple[str, tuple[str, ...]], int] = {}
    for root in roots:
        key = (canonical(root.path), root.rules_subdirs)
        at = index.get(key)
        if at is None:
            index[key] = len(out)
            out.append(root)
        elif root.scan_named and not out[at].scan_named:
            prev = out[at]
            out[at] = Root(prev.path, True, prev.rules_subdirs, prev.role,
                           prev.disabled_named, prev.disabled_subdirs)
    return out


def _read(entry: _Candidate, skipped: list[Skipped]) -> tuple[int, str] | None:
    try:
        with open(entry.path, "rb") as fh:
            raw = fh.read()
    except IsADirectoryError:
        skipped.append(Skipped(entry.path, SkipReason.NOT_A_FILE,
                               "it is a directory, not a file; the agent cannot read it"))
        return None
    except OSError as exc:
        skipped.append(Skipped(entry.path, SkipReason.UNREADABLE,
                               f"cannot be read ({_describe_os_error(exc)})"))
        return None
    try:
        return len(raw), raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        skipped.append(Skipped(entry.path, SkipReason.NOT_UTF8,
                               f"not valid UTF-8 (byte {exc.start}); the agent drops it silently."
                               " Re-save it as UTF-8"))
        return None


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
