"""What a repository defines for its command runners, read once per lint session.

Every manifest is read through :mod:`rulelens.agents.safeio` with the bound of
:mod:`rulelens.lint.manifests` (JSON nesting checked by :mod:`rulelens.agents.bounded`):
a 50 MB ``package.json`` is skipped with a one-line reason (:attr:`Project.skipped`,
reported by the check), never held whole.
The repository walk that finds workspace packages and sub-Makefiles skips dependencies,
build output, hidden and gitignored directories and stops at :data:`MAX_DIRS` directories.
Files read are recorded (:attr:`Project.read`) so a cached result can name them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from rulelens.agents import bounded, safeio
from rulelens.agents.record import home_of
from rulelens.lint.candidates import NOT_SOURCE
from rulelens.lint.manifests import LIMIT as MANIFEST_LIMIT

#: Directories visited when indexing a repository's packages.
MAX_DIRS = 4000
_MAX_DEPTH = 7
_SKIP = NOT_SOURCE | {".git", ".hg", ".svn", "coverage", "tmp", "fixtures", "__fixtures__",
                      "testdata", "test-fixtures"}


def read_manifest(path: str, skipped: dict[str, str] | None = None) -> str | None:
    """The text of ``path``, or ``None`` (missing, not a regular file, over the bound;
    the reason is put in ``skipped`` when given)."""
    try:
        return safeio.read_bytes(path, MANIFEST_LIMIT).decode("utf-8", "replace")
    except safeio.TooLargeError as exc:
        why = f"is too large ({exc.size} bytes; RuleLens reads at most {exc.limit}), skipped"
    except OSError as exc:
        if not os.path.lexists(path):
            return None
        why = f"could not be read ({safeio.describe(exc)}), skipped"
    if skipped is not None:
        skipped[path] = why
    return None


@dataclass(frozen=True)
class Package:
    """One ``package.json``: its directory, name, scripts (``None``: does not parse)
    and the names of its dependencies."""

    directory: str
    name: str | None
    scripts: frozenset[str] | None
    deps: frozenset[str]
    workspaces: tuple[str, ...] = ()


def parse_package(path: str, skipped: dict[str, str] | None = None) -> Package | None:
    text = read_manifest(path, skipped)
    directory = os.path.dirname(path)
    if text is None:
        return Package(directory, None, None, frozenset()) if os.path.lexists(path) else None
    try:
        data = bounded.json_loads(text)
    except bounded.TooDeep as exc:
        if skipped is not None:
            skipped[path] = f"is nested deeper than {exc.limit} levels, skipped"
        return Package(directory, None, None, frozenset())
    except ValueError:
        return Package(directory, None, None, frozenset())
    if not isinstance(data, dict):
        return Package(directory, None, None, frozenset())
    scripts = data.get("scripts")
    names = frozenset(k for k in scripts if isinstance(k, str)) if isinstance(scripts, dict) \
        else frozenset()
    deps: set[str] = set()
    for key in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"):
        value = data.get(key)
        if isinstance(value, dict):
            deps.update(k for k in value if isinstance(k, str))
    bins = data.get("bin")
    if isinstance(bins, dict):
        deps.update(k for k in bins if isinstance(k, str))
    ws = data.get("workspaces")
    if isinstance(ws, dict):
        ws = ws.get("packages")
    workspaces = tuple(w for w in ws if isinstance(w, str)) if isinstance(ws, list) else ()
    name = data.get("name")
    return Package(directory, name if isinstance(name, str) else None, names,
                   frozenset(deps), workspaces)


@dataclass
class Project:
    """One repository (or, outside git, one directory) and what its runners define."""

    root: str
    packages: dict[str, Package | None] = field(default_factory=dict)
    _index: dict[str, list[str]] | None = None
    #: Files whose content decided an answer (for the result cache).
    read: set[str] = field(default_factory=set)
    #: Files skipped, with the one-line reason the check reports.
    skipped: dict[str, str] = field(default_factory=dict)
    #: Task files already parsed, by path (a resolver's own result type; ``None``: unreadable).
    parsed: dict[str, object] = field(default_factory=dict)
    #: The environment lint's session captured (``HOME`` for the global git excludes).
    environ: Mapping[str, str] = field(default_factory=dict)

    def package(self, directory: str) -> Package | None:
        """The ``package.json`` in ``directory`` (not above it)."""
        if directory not in self.packages:
            path = os.path.join(directory, "package.json")
            self.packages[directory] = parse_package(path, self.skipped) \
                if os.path.lexists(path) else None
        found = self.packages[directory]
        if found is not None:
            self.read.add(os.path.join(directory, "package.json"))
        return found

    def nearest(self, directory: str, names: tuple[str, ...]) -> str | None:
        """The first of ``names`` in ``directory`` or a parent, up to the root."""
        current = os.path.normpath(directory)
        root = os.path.normpath(self.root)
        while True:
            for name in names:
                path = os.path.join(current, name)
                if os.path.isfile(path):
                    return path
            if current == root or not current.startswith(root):
                return None
            parent = os.path.dirname(current)
            if parent == current:
                return None
            current = parent

    def nearest_package(self, directory: str) -> Package | None:
        found = self.nearest(directory, ("package.json",))
        return self.package(os.path.dirname(found)) if found else None

    def files_named(self, name: str) -> list[str]:
        """Every file called ``name`` in the repository (bounded walk; see module doc)."""
        if self._index is None:
            self._index = _walk(self.root, self.environ)
        return self._index.get(name, [])

    def all_packages(self) -> list[Package]:
        out = []
        for path in self.files_named("package.json"):
            pkg = self.package(os.path.dirname(path))
            if pkg is not None:
                out.append(pkg)
        return out

    def by_name(self, name: str) -> list[Package]:
        return [p for p in self.all_packages() if p.name == name]


_INDEXED = frozenset({"package.json", "Makefile", "makefile", "GNUmakefile", "justfile",
                      "Justfile", ".justfile", "Taskfile.yml", "Taskfile.yaml", "taskfile.yml",
                      "taskfile.yaml", "composer.json", "project.json", "turbo.json"})


def _walk(root: str, environ: Mapping[str, str]) -> dict[str, list[str]]:
    from rulelens.rules.gitignore import GitIgnore

    ignore = GitIgnore.build(root, home_of(environ), dict(environ)) \
        if os.path.exists(os.path.join(root, ".gitignore")) else None
    found: dict[str, list[str]] = {}
    stack = [(root, 0)]
    seen = 0
    while stack and seen < MAX_DIRS:
        directory, depth = stack.pop()
        seen += 1
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if depth >= _MAX_DEPTH or entry.name in _SKIP or entry.name.startswith("."):
                    continue
                if ignore is not None and ignore.is_ignored_dir(entry.path):
                    continue
                stack.append((entry.path, depth + 1))
            elif entry.name in _INDEXED:
                found.setdefault(entry.name, []).append(entry.path)
    return found
