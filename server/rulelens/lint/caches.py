"""Everything the checks remember between documents, owned by one lint session.

A :class:`LintCaches` lives as long as the :class:`~rulelens.lint.session.LintSession`
that made it: one ``rulelens lint`` run, or one language-server session. Nothing in the
lint package keeps state at module level, so "cold" means a new session and two sessions
never see each other's answers.

* ``disk``: stats of other files (live in the editor; one :class:`~rulelens.lint.disk.Snapshot`
  per CLI run);
* ``tables``: per-chain and per-group lookup tables and outlines
  (:class:`~rulelens.lint.chainindex.ChainTables`);
* ``globs``: workspace listings and per-pattern answers (:class:`~rulelens.lint.globs.Workspace`);
* ``related``: related files' text as it is on disk (:class:`RelatedFiles`);
* ``claims``: RL406's claims of each file
  (:class:`~rulelens.lint.checks.contradictions.TextClaims`);
* ``ignores``: each repository's ``.gitignore`` matcher;
* ``projects``: each repository's manifests and task files, for command checks
  (:class:`~rulelens.lint.commands.project.Project`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from rulelens.agents import safeio
from rulelens.agents.record import home_of
from rulelens.lint.chainindex import ChainTables
from rulelens.lint.disk import Disk
from rulelens.lint.formats import FileFormat, classify
from rulelens.lint.globs import Workspace
from rulelens.lint.markdown import iter_headings
from rulelens.rules.gitignore import GitIgnore

if TYPE_CHECKING:
    from rulelens.lint.checks.contradictions import TextClaims
    from rulelens.lint.commands.project import Project


class DiskText:
    """A related file as it is on disk, with the two lookups findings need, each made on
    first use (chain content of rule files is frontmatter-stripped, so related locations
    are looked up in the file itself)."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def first_lines(self) -> dict[str, int]:
        """Line with white space collapsed -> its first line number."""
        first: dict[str, int] = {}
        for i, line in enumerate(self.text.split("\n")):
            first.setdefault(" ".join(line.split()), i)
        return first

    @cached_property
    def lines(self) -> tuple[str, ...]:
        return tuple(self.text.split("\n"))

    @cached_property
    def heads(self) -> dict[str, int]:
        """Heading key -> the line of its first heading."""
        heads: dict[str, int] = {}
        for h in iter_headings(self.text):
            heads.setdefault(h.key, h.line)
        return heads


@dataclass
class RelatedFiles:
    """Related files read once per size and mtime (an edited file is read again)."""

    texts: dict[str, tuple[int, int, DiskText]] = field(default_factory=dict)

    def get(self, path: str, disk: Disk) -> DiskText:
        st = disk.stat(path)
        if st is None:
            return DiskText("")
        seen = self.texts.get(path)
        if seen is not None and seen[0] == st.st_size and seen[1] == st.st_mtime_ns:
            return seen[2]
        try:
            raw = safeio.read_bytes(path, safeio.TEXT_LIMIT)
            found = DiskText(universal_newlines(raw.decode("utf-8", "replace")))
        except OSError:
            found = DiskText("")
        self.texts[path] = (st.st_size, st.st_mtime_ns, found)
        return found


@dataclass
class LintCaches:
    disk: Disk = field(default_factory=Disk)
    tables: ChainTables = field(default_factory=ChainTables)
    globs: Workspace = field(default_factory=Workspace)
    related: RelatedFiles = field(default_factory=RelatedFiles)
    #: Repository root -> its ``.gitignore`` matcher (``None``: no ``.gitignore``).
    ignores: dict[str, GitIgnore | None] = field(default_factory=dict)
    #: Path -> its format, asked for each file's chain directory and again for its document
    #: (kept: classifying twice costs ~7 ms per 1,000 files on bench/lint.py, ~5 %).
    formats: dict[str, FileFormat] = field(default_factory=dict)
    #: Files the current document's findings depended on beyond its chain (manifests,
    #: contradiction partners), for the result cache; cleared before each document.
    deps: set[str] = field(default_factory=set)
    #: Per-session answers of checks that several documents share (RL406: each folder's
    #: agent load orders), cleared with everything else on invalidate.
    memo: dict[object, object] = field(default_factory=dict)
    #: RL406's claims of each file, made once per text: a file is a document once and a
    #: partner of every file below it (path -> the last two texts read under it).
    claims: dict[str, list[TextClaims]] = field(default_factory=dict)
    #: Repository root -> what its command runners define (read on first use).
    projects: dict[str, Project] = field(default_factory=dict)
    #: The environment the session captured (``HOME``, ``CODEX_HOME``, ...): every check
    #: that asks an agent module or a home directory reads it, never ``os.environ``.
    environ: Mapping[str, str] = field(default_factory=dict)
    #: Agents' configuration tables lint consults (``codex``: ``$CODEX_HOME/config.toml``).
    agent_configs: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.globs.environ = self.environ

    def project_for(self, root: str) -> Project:
        from rulelens.lint.commands.project import Project  # lint.candidates imports us

        found = self.projects.get(root)
        if found is None:
            found = self.projects[root] = Project(root, environ=self.environ)
        return found

    def format_of(self, path: str) -> FileFormat:
        """:func:`~rulelens.lint.formats.classify`, once per path."""
        found = self.formats.get(path)
        if found is None:
            found = self.formats[path] = classify(path)
        return found

    def ignore_for(self, root: str) -> GitIgnore | None:
        """The matcher the agent applies in the repository at ``root``."""
        if root not in self.ignores:
            self.ignores[root] = GitIgnore.build(root, home_of(self.environ), self.environ) \
                if os.path.exists(os.path.join(root, ".gitignore")) else None
        return self.ignores[root]

    def invalidate(self, paths: Iterable[str] | None = None) -> None:
        """Files changed on disk (``None``: anything may have)."""
        listed = None if paths is None else list(paths)
        self.globs.invalidate_paths(listed)
        self.tables.forget(listed)
        if listed is None or any(os.path.basename(p) == ".gitignore" for p in listed):
            self.ignores.clear()
        self.projects.clear()  # a manifest, Makefile or task file may have changed
        self.memo.clear()
        if listed is None or any(os.path.basename(p) == "config.toml" for p in listed):
            self.agent_configs.clear()
        if listed is None:
            self.related.texts.clear()
            self.claims.clear()
        else:
            for p in listed:
                self.related.texts.pop(p, None)
                self.claims.pop(p, None)


def universal_newlines(text: str) -> str:
    """``\\r\\n`` and a lone ``\\r`` as ``\\n``: what a text-mode ``open`` reads."""
    return text.replace("\r\n", "\n").replace("\r", "\n")
