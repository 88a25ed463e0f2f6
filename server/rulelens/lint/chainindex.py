"""Per-chain lookup tables, shared by every document linted against a chain.

Linting 500 rule files of one directory must not rescan the other 499 for each of them,
and 100 sibling directories must not rebuild an index of the 500 root files they all share
(that made the duplicate and heading checks quadratic). So a :class:`ChainTables`, owned
by the lint session (:mod:`rulelens.lint.session`), keeps:

* each file's Markdown :class:`~rulelens.lint.markdown.Outline`, made once per content
  and remembered by canonical path (a hit is checked against the content itself, so an
  edited file is scanned again);
* per *group* (consecutive files of a chain from one discovery root) the paragraph and
  heading tables, the files by name and the token sum, remembered by the group's first
  file and length and checked against the files themselves: 100 package chains share the
  tables of the repository root;
* one :class:`ChainIndex` per chain directory, replaced when the resolver hands out a new
  chain for it.

Everything lives as long as the session: a new session starts cold.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from itertools import groupby
from typing import TypeVar

from rulelens.lint.markdown import Outline, outline
from rulelens.rules.model import Chain, RuleFile, Skipped

T = TypeVar("T")
GroupKey = tuple[str, str, int]


@dataclass(frozen=True)
class GroupTables:
    """Position (within the group) of the first file with each paragraph, and the first
    file with each heading with that heading's text there."""

    paragraphs: dict[str, int]
    headings: dict[str, tuple[int, str]]


def _build(outlines: tuple[Outline, ...], min_chars: int) -> GroupTables:
    paragraphs: dict[str, int] = {}
    headings: dict[str, tuple[int, str]] = {}
    # Last file first, and within a file last heading first, so that the first
    # occurrence's entry is the one left standing.
    for pos in range(len(outlines) - 1, -1, -1):
        o = outlines[pos]
        paragraphs.update(dict.fromkeys([k for k in o.paragraphs if len(k) >= min_chars], pos))
        headings.update({key: (pos, text) for key, text in reversed(o.headings)})
    return GroupTables(paragraphs, headings)


def _by_name(files: tuple[RuleFile, ...]) -> dict[str, list[RuleFile]]:
    names: dict[str, list[RuleFile]] = {}
    for f in files:
        names.setdefault(f.name, []).append(f)
    return names


@dataclass
class ChainTables:
    """Every table the content and chain checks share, for one lint session."""

    outlines: dict[str, tuple[str, Outline]] = field(default_factory=dict)
    #: (what, first file's canonical path, length) -> (the group's files, value).
    groups: dict[GroupKey, tuple[tuple[RuleFile, ...], object]] = field(default_factory=dict)
    indexes: dict[str, ChainIndex] = field(default_factory=dict)

    def outline_of(self, canonical: str, content: str) -> Outline:
        """The outline of a file's content, made once per content."""
        hit = self.outlines.get(canonical)
        if hit is not None and hit[0] == content:
            return hit[1]
        made = outline(content)
        self.outlines[canonical] = (content, made)
        return made

    def _per_group(self, what: str, files: tuple[RuleFile, ...],
                   make: Callable[[tuple[RuleFile, ...]], T]) -> T:
        """``make(files)``, made once for every chain that shares the group (sibling chains
        get the very same RuleFile objects for a shared root, so the check is cheap)."""
        key = (what, files[0].canonical, len(files))
        seen = self.groups.get(key)
        if seen is not None and seen[0] == files:
            return seen[1]  # type: ignore[return-value]
        value = make(files)
        self.groups[key] = (files, value)
        return value

    def tables(self, files: tuple[RuleFile, ...], min_chars: int) -> GroupTables:
        return self._per_group(f"tables:{min_chars}", files, lambda group: _build(
            tuple(self.outline_of(f.canonical, f.content) for f in group), min_chars))

    def names_of(self, files: tuple[RuleFile, ...]) -> dict[str, list[RuleFile]]:
        """File name -> the group's files of that name, in order."""
        return self._per_group("names", files, _by_name)

    def contents_of(self, files: tuple[RuleFile, ...]) -> dict[str, int]:
        """File content -> position of the group's first file with it."""
        def first_positions(group: tuple[RuleFile, ...]) -> dict[str, int]:
            out: dict[str, int] = {}
            for pos, f in enumerate(group):
                out.setdefault(f.content, pos)
            return out
        return self._per_group("contents", files, first_positions)

    def tokens_of(self, files: tuple[RuleFile, ...]) -> int:
        """The group's estimated tokens."""
        return self._per_group("tokens", files, lambda group: sum(f.tokens for f in group))

    def index_for(self, chain: Chain, min_paragraph_chars: int = 40) -> ChainIndex:
        index = self.indexes.get(chain.cwd)
        if index is None or index.chain is not chain \
                or index.min_paragraph_chars != min_paragraph_chars:
            index = ChainIndex(chain, self, min_paragraph_chars)
            self.indexes[chain.cwd] = index
        return index

    def forget(self, paths: Iterable[str] | None = None) -> None:
        """Drop what was made from ``paths`` (all when ``None``); outlines and groups are
        checked against contents anyway, so this only frees memory."""
        if paths is None:
            self.outlines.clear()
            self.groups.clear()
            self.indexes.clear()
            return
        for p in paths:
            self.outlines.pop(p, None)
        self.indexes.clear()


@dataclass
class ChainIndex:
    chain: Chain
    tables: ChainTables
    min_paragraph_chars: int = 40
    _crossings: dict[int, tuple[RuleFile, int] | None] = field(default_factory=dict)

    def skipped_named(self, name: str) -> list[Skipped]:
        """Skipped records whose file name is ``name``, in chain order."""
        return self.skipped_by_name.get(name, [])

    def files_named(self, name: str) -> list[RuleFile]:
        """Loaded files whose name is ``name``, in load order (asked per group, so sibling
        chains share the by-name table of their common root)."""
        out: list[RuleFile] = []
        for group in self.members:
            hit = self.tables.names_of(group).get(name)
            if hit is not None:
                out.extend(hit)
        return out

    @cached_property
    def skipped_by_name(self) -> dict[str, list[Skipped]]:
        out: dict[str, list[Skipped]] = {}
        for s in self.chain.skipped:
            out.setdefault(s.path.rpartition(os.sep)[2], []).append(s)  # the base name
        return out

    def crossing(self, budget: int) -> tuple[RuleFile, int] | None:
        """The file at which cumulative estimated tokens first exceed ``budget``, and the
        tokens loaded before it; computed once per chain and budget."""
        if budget not in self._crossings:
            found: tuple[RuleFile, int] | None = None
            total = 0
            for group in self.members:
                size = self.tables.tokens_of(group)
                if total + size <= budget:
                    total += size  # every file of the group ends at or below the budget
                    continue
                for f in group:
                    if total <= budget < total + f.tokens:
                        found = (f, total)
                        break
                    total += f.tokens
                if found is not None:
                    break
            self._crossings[budget] = found
        return self._crossings[budget]

    @cached_property
    def members(self) -> list[tuple[RuleFile, ...]]:
        """The chain's files cut into groups: consecutive files from one root."""
        return [tuple(files) for _, files in groupby(self.chain.files, key=lambda f: f.root)]

    @cached_property
    def groups(self) -> list[tuple[tuple[RuleFile, ...], GroupTables]]:
        return [(group, self.tables.tables(group, self.min_paragraph_chars))
                for group in self.members]

    def earlier_identical(self, entry: RuleFile) -> RuleFile | None:
        """The first file loaded before ``entry`` with exactly its content (another file:
        the chain holds each canonical file once)."""
        if not entry.content.strip():
            return None
        for files in self.members:
            if files[0].precedence >= entry.precedence:
                return None
            pos = self.tables.contents_of(files).get(entry.content)
            if pos is not None and files[pos].precedence < entry.precedence:
                return files[pos]
        return None

    def first_with_paragraph(self, key: str) -> RuleFile | None:
        """The first file in load order containing paragraph ``key``."""
        for files, tables in self.groups:
            pos = tables.paragraphs.get(key)
            if pos is not None:
                return files[pos]
        return None

    def any_earlier_paragraph(self, keys: Iterable[str], entry: RuleFile) -> bool:
        """Whether :meth:`first_with_paragraph` of some key is a file loaded before
        ``entry``."""
        wanted = keys if isinstance(keys, (set, frozenset)) else set(keys)
        if not wanted:
            return False
        for files, tables in self.groups:
            first = files[0].precedence
            if first >= entry.precedence:
                return False
            before = entry.precedence - first  # positions in this group loaded earlier
            if before >= len(files):
                if not tables.paragraphs.keys().isdisjoint(wanted):
                    return True
            elif any(tables.paragraphs.get(key, before) < before for key in wanted):
                return True
        return False

    def shallower_groups(self, entry: RuleFile
                         ) -> list[tuple[tuple[RuleFile, ...], dict[str, tuple[int, str]]]]:
        """The groups *closer to the root* than ``entry``, in load order, each with its
        heading table: worked out once per document, so that each heading of it is then
        a dictionary lookup per group.

        Closer to the root: a home file for a project file, or a file whose discovery
        root is a proper ancestor of ``entry``'s.
        """
        out: list[tuple[tuple[RuleFile, ...], dict[str, tuple[int, str]]]] = []
        for files, tables in self.groups:
            head = files[0]
            if head.precedence >= entry.precedence:
                break
            if (head.role == "home" and entry.role == "project") \
                    or _is_ancestor(head.root, entry.root):
                out.append((files, tables.headings))
        return out

    def any_shallower_heading(self, keys: Iterable[str], entry: RuleFile) -> bool:
        """Whether :meth:`shallower_heading` finds a heading for some key."""
        wanted = keys if isinstance(keys, (set, frozenset)) else set(keys)
        return bool(wanted) and any(not headings.keys().isdisjoint(wanted)
                                    for _, headings in self.shallower_groups(entry))

    def shallower_heading(self, key: str, entry: RuleFile) -> tuple[RuleFile, str] | None:
        """The first file closer to the root than ``entry`` (see
        :meth:`shallower_groups`) with heading ``key``, and the heading's text there."""
        return first_heading(self.shallower_groups(entry), key)


def first_heading(groups: list[tuple[tuple[RuleFile, ...], dict[str, tuple[int, str]]]],
                  key: str) -> tuple[RuleFile, str] | None:
    """The first file of ``groups`` (from :meth:`ChainIndex.shallower_groups`) with
    heading ``key``, and the heading's text there."""
    for files, headings in groups:
        hit = headings.get(key)
        if hit is not None:
            return files[hit[0]], hit[1]
    return None


def _is_ancestor(shallow: str, deep: str) -> bool:
    return deep != shallow and deep.startswith(shallow.rstrip(os.sep) + os.sep)
