"""Per-file lint results kept between ``rulelens lint`` runs (``--no-cache`` skips it).

One JSON store per run (its paths and options) under ``$XDG_CACHE_HOME/rulelens/lint-v3/``
(never in the repository), written atomically once at the end (temporary file + rename;
forked workers hand their entries to the parent).
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

from rulelens.lint.model import FileRename, Finding, Fix, Position, Range, Related, TextEdit
from rulelens.lint.replay import ENV_PREFIXES, code_signature
from rulelens.lint.replay import digest as file_digest


def tree_signature(dirs: Iterable[tuple[str, int]]) -> str:
    h = blake3.blake3()
    for path, mtime in sorted(dirs):
        h.update(f"{path}\0{mtime}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


class Entry(NamedTuple):
    """A file's cached findings and its configuration's problems."""

    findings: list[Finding]
    problems: list[str]


#: The entries and dependency sets a worker made (see :meth:`ResultCache.handed`).
Handed = tuple[dict[str, dict[str, Any]], dict[str, list[str]]]


class ResultCache:
    """Cached findings of one run's files (see module doc).

    One store per run (the same paths and options): ``runs/<key>.json``, read once when
    the run starts and written once when it ends (:meth:`save`), atomically. A file per
    entry cost 1.6 ms of file-system work each (2 s of a cold 1,000-file run). The store
    is valid only for the same salt and tree signature; inside it, an entry names its
    dependency sets by id (its chain with the configuration files, and what its checks
    read), each set's paths are stored once, since the files of one chain share them,
    and each set's combined digest is computed once per run.
    """

    def __init__(self, directory: str, options: str, env: Mapping[str, str],
                 tree: str | None, key: str = "") -> None:
        self.tree = tree
        wanted = sorted((k, v) for k, v in env.items() if k.startswith(ENV_PREFIXES))
        #: RuleLens's code as this run found it (also keys the run's replay record).
        self.code = code_signature()
        self.salt = blake3.blake3(json.dumps(
            [sys.version, self.code, options, wanted]).encode()).hexdigest()
        name = blake3.blake3(key.encode("utf-8", "surrogateescape")).hexdigest()[:32]
        self.path = os.path.join(directory, "runs", name + ".json")
        self.hashes: dict[str, str] = {}
        #: Set id -> its paths (as stored), and -> its combined digest now (memo).
        self.set_paths: dict[str, list[str]] = {}
        self.sets: dict[str, str | None] = {}
        #: Path -> its stored entry: those read at the start, then those this run made.
        self.entries: dict[str, dict[str, Any]] = {}
        #: Entries this process made (a forked worker hands them to its parent).
        self.made: dict[str, dict[str, Any]] = {}
        self.made_sets: dict[str, list[str]] = {}
        #: A dependency group as given -> its set id (the same chain, file after file).
        self.ids: dict[tuple[str, ...], str] = {}
        self._load()

    def _load(self) -> None:
        if self.tree is None:
            return
        try:
            with open(self.path, encoding="utf-8") as fh:
                store = json.load(fh)
        except (OSError, ValueError):
            return
        if not (isinstance(store, dict) and store.get("salt") == self.salt
                and store.get("tree") == self.tree and isinstance(store.get("entries"), dict)
                and isinstance(store.get("sets"), dict)):
            return  # another RuleLens, environment or tree: every entry is stale
        self.entries = store["entries"]
        self.set_paths = {k: v for k, v in store["sets"].items()
                          if isinstance(v, list) and all(isinstance(p, str) for p in v)}

    def digest(self, path: str) -> str:
        """blake3 of the file's bytes, once per run (``missing``/``unreadable``)."""
        found = self.hashes.get(path)
        if found is None:
            found = self.hashes[path] = file_digest(path)
        return found

    def depended_on(self, files: Iterable[str]) -> set[str] | None:
        """``files`` and every file of their dependency sets, or ``None`` when one of
        them has no entry (its result cannot be vouched for)."""
        wanted = set()
        for f in files:
            entry = self.entries.get(f)
            if entry is None:
                return None
            wanted.add(f)
            for set_id, _ in entry["sets"]:
                wanted.update(self.set_paths.get(set_id, ()))
        return wanted

    def _combined(self, paths: list[str]) -> str:
        """One digest of the paths and their files' digests (two joins and one hash, not
        one hash update per path: the root bench tree's 275 sets, 41 ms -> 10 ms)."""
        hashes = self.hashes
        digests = [hashes.get(p) or self.digest(p) for p in paths]
        h = blake3.blake3("\0".join(paths).encode("utf-8", "surrogateescape"))
        h.update("\0".join(digests).encode())
        return h.hexdigest()

    def _set_digest(self, set_id: str) -> str | None:
        """The combined digest of a stored dependency set's files now (None: unknown)."""
        if set_id not in self.sets:
            paths = self.set_paths.get(set_id)
            self.sets[set_id] = None if paths is None else self._combined(paths)
        return self.sets[set_id]

    def get(self, path: str) -> Entry | None:
        """The stored result for ``path`` if nothing it depends on changed."""
        entry = self.entries.get(path)
        if entry is None:
            return None
        sets = entry.get("sets") if isinstance(entry, dict) else None
        ok = (isinstance(sets, list) and entry.get("file") == self.digest(path)
              and all(isinstance(x, list) and len(x) == 2 and isinstance(x[0], str)
                      and self._set_digest(x[0]) == x[1] for x in sets))
        if ok:
            try:
                found = Entry([_finding(f) for f in entry["findings"]],
                              [str(p) for p in entry["problems"]])
            except (KeyError, TypeError, ValueError):
                ok = False
        if not ok:
            del self.entries[path]
            return None
        return found

    def put(self, path: str, deps: Iterable[Iterable[str]], findings: list[Finding],
            problems: Iterable[str] = ()) -> None:
        """Keep ``path``'s findings for :meth:`save`, valid while it and every file of
        ``deps`` (groups of paths; a path may be missing: its absence is part of the key)
        hold what they hold now."""
        if self.tree is None:
            return
        sets = [[set_id, self.sets[set_id]] for set_id in map(self._store_set, deps)]
        entry = {"file": self.digest(path), "sets": sets,
                 "findings": [_plain(f) for f in findings], "problems": sorted(problems)}
        self.entries[path] = self.made[path] = entry

    def _store_set(self, group: Iterable[str]) -> str:
        """The id of a dependency set, its digest memoised for the run."""
        given = tuple(group)
        set_id = self.ids.get(given)
        if set_id is not None:
            return set_id  # the same chain again (every file of a folder)
        paths = sorted(set(given))
        set_id = self.ids[given] = blake3.blake3(
            "\0".join(paths).encode("utf-8", "surrogateescape")).hexdigest()[:32]
        if set_id not in self.set_paths:
            self.set_paths[set_id] = self.made_sets[set_id] = paths
        if self.sets.get(set_id) is None:
            self.sets[set_id] = self._combined(paths)
        return set_id

    def adopt(self, made: Handed) -> None:
        """Entries a forked worker made (:meth:`handed`), kept as if made here."""
        entries, sets = made
        self.entries.update(entries)
        self.made.update(entries)
        self.set_paths.update(sets)

    def handed(self) -> Handed:
        """What this (worker) process made, for its parent's :meth:`adopt`."""
        return self.made, self.made_sets

    def save(self, paths: Iterable[str]) -> None:
        """Write the store for the run's files ``paths`` (entries of other files are
        dropped: the run is over the same paths every time), if this run made entries."""
        if self.tree is None or not self.made:
            return
        keep = {p: self.entries[p] for p in paths if p in self.entries}
        used = {x[0] for e in keep.values() for x in e.get("sets", ())
                if isinstance(x, list) and x}
        _write_json(self.path, {"salt": self.salt, "tree": self.tree, "entries": keep,
                                "sets": {k: self.set_paths[k] for k in sorted(used)
                                         if k in self.set_paths}})


def _write_json(target: str, value: object) -> None:
    """Temporary file + rename: readers see the old file or the new one, never a part."""
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        tmp = f"{target}.{os.getpid()}.tmp"  # one writer per process and store
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            # dumps, not dump: dump streams through the pure-Python encoder (0.45 s of a
            # 4.8 MB store against 0.05 s).
            fh.write(json.dumps(value, separators=(",", ":")))
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
