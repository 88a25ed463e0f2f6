"""Per-file lint results kept between ``rulelens lint`` runs (``--no-cache`` skips it).

One JSON entry per linted file under ``$XDG_CACHE_HOME/rulelens/lint-v2/`` (never in the
repository), written atomically (temporary file + rename, so forked workers need no lock).
An entry is used only when all of these still match, each compared by blake3 hash:

* the file's bytes;
* every file its findings depended on: the files of its chain, and what the checks
  recorded in :attr:`~rulelens.lint.caches.LintCaches.deps` (the ``package.json``,
  Makefile and task files its commands were checked against, contradiction partners);
* its configuration files (the repository's ``.rulelens.toml`` and ``pyproject.toml``,
  Grok's ``config.toml``; present or absent), the run's options (``--hints``, the agent
  profile), the agents' environment variables and RuleLens's own code (size and mtime of
  its modules);
* the tree signature: every walked directory's mtime, which changes when a file is added,
  removed or renamed anywhere in the tree, so "does this path exist" answers (RL505,
  RL506, RL213) are never stale. Coarse by design: adding a file re-lints every file.

Not covered (documented limits): files outside the walked tree probed only for existence,
and agents' home configuration read by RL213/RL406 views (their content is not hashed).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import blake3

from rulelens.agents import safeio
from rulelens.agents.fs import home_of
from rulelens.lint.model import FileRename, Finding, Fix, Position, Range, Related, TextEdit

VERSION = "lint-v2"
_ENV_PREFIXES = ("GROK_", "CODEX_", "GEMINI_", "CLAUDE_", "COPILOT_", "XDG_CONFIG_HOME",
                 "HOME", "OPENCODE_", "QWEN_")


def cache_dir(env: Mapping[str, str]) -> str:
    """``$XDG_CACHE_HOME/rulelens/lint-v2`` (``~/.cache`` when unset)."""
    base = env.get("XDG_CACHE_HOME") or os.path.join(home_of(env), ".cache")
    return os.path.join(base, "rulelens", VERSION)


def code_signature() -> str:
    """Size and mtime of every RuleLens module: a changed linter never reads old results."""
    import rulelens

    root = os.path.dirname(os.path.abspath(rulelens.__file__))
    h = blake3.blake3()
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                try:
                    st = os.stat(os.path.join(directory, name))
                except OSError:
                    continue
                h.update(f"{directory}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def tree_signature(dirs: Iterable[tuple[str, int]]) -> str:
    h = blake3.blake3()
    for path, mtime in sorted(dirs):
        h.update(f"{path}\0{mtime}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


class Entry(NamedTuple):
    """A file's cached findings and its configuration's problems."""

    findings: list[Finding]
    problems: list[str]


class ResultCache:
    """Cached findings of one run's files (see module doc).

    An entry names its dependency sets by id (its chain with the configuration files, and
    what its checks read): each set's sorted paths are stored once (``sets/<id>.json``),
    since the files of one chain share them, and its combined digest is computed once per
    run. On the 1,000-file bench tree whose chains each load
    400 rules, inline lists made the warm run parse 60 MB of JSON (535 ms against 160 ms).
    """

    def __init__(self, directory: str, options: str, env: Mapping[str, str],
                 tree: str | None) -> None:
        self.directory = directory
        self.tree = tree
        wanted = sorted((k, v) for k, v in env.items() if k.startswith(_ENV_PREFIXES))
        self.salt = blake3.blake3(json.dumps(
            [sys.version, code_signature(), options, wanted]).encode()).hexdigest()
        self.hashes: dict[str, str] = {}
        self.sets: dict[str, str | None] = {}
        self.hits = self.misses = 0

    def digest(self, path: str) -> str:
        """blake3 of the file's bytes, once per run (``missing``/``unreadable``)."""
        found = self.hashes.get(path)
        if found is None:
            try:
                found = blake3.blake3(safeio.read_bytes(path, safeio.TEXT_LIMIT)).hexdigest()
            except FileNotFoundError:
                found = "missing"
            except (OSError, ValueError):
                found = "unreadable"
            self.hashes[path] = found
        return found

    def _combined(self, paths: Iterable[str]) -> str:
        h = blake3.blake3()
        for p in paths:
            h.update(f"{p}\0{self.digest(p)}\n".encode("utf-8", "surrogateescape"))
        return h.hexdigest()

    def _set_digest(self, set_id: str) -> str | None:
        """The combined digest of a stored dependency set's files now (None: unreadable)."""
        if set_id in self.sets:
            return self.sets[set_id]
        found: str | None = None
        try:
            with open(self._set_path(set_id), encoding="utf-8") as fh:
                paths = json.load(fh)
            if isinstance(paths, list) and all(isinstance(p, str) for p in paths):
                found = self._combined(paths)
        except (OSError, ValueError):
            found = None
        self.sets[set_id] = found
        return found

    def _entry_path(self, path: str) -> str:
        name = blake3.blake3(path.encode("utf-8", "surrogateescape")).hexdigest()[:32]
        return os.path.join(self.directory, name[:2], name + ".json")

    def _set_path(self, set_id: str) -> str:
        return os.path.join(self.directory, "sets", set_id + ".json")

    def get(self, path: str) -> Entry | None:
        """The stored result for ``path`` if nothing it depends on changed."""
        if self.tree is None:
            return None
        try:
            with open(self._entry_path(path), encoding="utf-8") as fh:
                entry = json.load(fh)
        except (OSError, ValueError):
            self.misses += 1
            return None
        sets = entry.get("sets") if isinstance(entry, dict) else None
        ok = (isinstance(sets, list) and entry.get("path") == path
              and entry.get("salt") == self.salt and entry.get("tree") == self.tree
              and entry.get("file") == self.digest(path)
              and all(isinstance(x, list) and len(x) == 2 and isinstance(x[0], str)
                      and self._set_digest(x[0]) == x[1] for x in sets))
        if not ok:
            self.misses += 1
            return None
        try:
            found = Entry([_finding(f) for f in entry["findings"]],
                          [str(p) for p in entry["problems"]])
        except (KeyError, TypeError, ValueError):
            self.misses += 1
            return None
        self.hits += 1
        return found

    def put(self, path: str, deps: Iterable[Iterable[str]], findings: list[Finding],
            problems: Iterable[str] = ()) -> None:
        """Store ``path``'s findings, valid while it and every file of ``deps`` (groups of
        paths, each stored once as a set; a path may be missing: its absence is part of
        the key) hold what they hold now."""
        if self.tree is None:
            return
        sets = [[set_id, self.sets[set_id]] for set_id in map(self._store_set, deps)]
        entry = {"path": path, "salt": self.salt, "tree": self.tree,
                 "file": self.digest(path), "sets": sets,
                 "findings": [_plain(f) for f in findings], "problems": sorted(problems)}
        _write_json(self._entry_path(path), entry)

    def _store_set(self, group: Iterable[str]) -> str:
        """The id of a dependency set (written once), its digest memoised for the run."""
        paths = sorted(set(group))
        set_id = blake3.blake3("\0".join(paths).encode("utf-8", "surrogateescape")
                               ).hexdigest()[:32]
        if set_id not in self.sets:
            self.sets[set_id] = self._combined(paths)
            if not os.path.exists(self._set_path(set_id)):
                _write_json(self._set_path(set_id), paths)
        return set_id


def _write_json(target: str, value: object) -> None:
    """Temporary file + rename: readers see the old file or the new one, never a part."""
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        tmp = f"{target}.{os.getpid()}.tmp"  # one writer per process and entry
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(value, fh, separators=(",", ":"))
        os.replace(tmp, target)
    except OSError:
        pass  # a cache that cannot be written only costs the next run time


def _range(r: Range) -> list[int]:
    return [r.start.line, r.start.character, r.end.line, r.end.character]


def _unrange(v: list[int]) -> Range:
    return Range(Position(v[0], v[1]), Position(v[2], v[3]))


def _plain(f: Finding) -> dict[str, Any]:
    return {"code": f.code, "severity": f.severity, "message": f.message,
            "range": _range(f.range), "path": f.path,
            "related": [[r.path, _range(r.range), r.message] for r in f.related],
            "fixes": [{"title": x.title, "safety": x.safety,
                       "edits": [["text", e.path, _range(e.range), e.new_text]
                                 if isinstance(e, TextEdit) else ["rename", e.old, e.new]
                                 for e in x.edits]} for x in f.fixes]}


def _finding(d: dict[str, Any]) -> Finding:
    fixes = []
    for x in d["fixes"]:
        edits: list[TextEdit | FileRename] = [
            TextEdit(e[1], _unrange(e[2]), e[3]) if e[0] == "text" else FileRename(e[1], e[2])
            for e in x["edits"]]
        fixes.append(Fix(x["title"], x["safety"], tuple(edits)))
    return Finding(d["code"], d["severity"], d["message"], _unrange(d["range"]), d["path"],
                   tuple(Related(r[0], _unrange(r[1]), r[2]) for r in d["related"]),
                   tuple(fixes))
