"""Per-chain lookup tables, shared by every document linted against a chain.

Linting 500 rule files of one directory must not rescan the other 499 for each of them,
and 100 sibling directories must not rebuild an index of the 500 root files they all share
(that made the duplicate and heading checks quadratic). So:

* each file's Markdown :class:`~rulelens.lint.markdown.Outline` is made once per content
  and remembered by canonical path (a hit is checked against the content itself, so an
  edited file is scanned again; equal text is compared, never hashed again);
* a chain is cut into *groups* (consecutive files from one discovery root), and each
  group's paragraph and heading tables are built once and cached by its files' paths,
  checked against their contents: 100 package chains share the one table of the
  repository root.

Chains are immutable values: an index keyed by the chain object is always valid.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import compress, groupby, repeat
from operator import attrgetter, itemgetter, methodcaller
from typing import TypeVar

from rulelens.lint.markdown import Outline, outline
from rulelens.lint.memo import cached_property
from rulelens.rules.model import Chain, RuleFile, Skipped

T = TypeVar("T")
_lock = threading.Lock()
_chains: OrderedDict[int, tuple[Chain, ChainIndex]] = OrderedDict()
_groups: dict[tuple[int, tuple[str, ...]], tuple[tuple[str, ...], GroupTables]] = {}
_outlines: dict[str, tuple[str, Outline]] = {}
#: Per-group values shared by sibling chains (see :func:`_per_group`), keyed by (tag, id of
#: the first file, count): the tables (tag: min chars), files by name, estimated tokens.
_same_files: dict[tuple[int, int, int], tuple[tuple[RuleFile, ...], GroupTables]] = {}
_same_names: dict[tuple[int, int, int],
                  tuple[tuple[RuleFile, ...], dict[str, list[RuleFile]]]] = {}
_same_tokens: dict[tuple[int, int, int], tuple[tuple[RuleFile, ...], int]] = {}
_MAX_CHAINS = 64
_MAX_GROUPS = 256
_MAX_OUTLINES = 4096
_ROOT = attrgetter("root")
_FIRST = itemgetter(0)
_SECOND = itemgetter(1)
_PATH = attrgetter("path")
_SCANS_BEFORE_TABLES = 8


@dataclass(frozen=True)
class GroupTables:
    """Position (within the group) of the first file with each paragraph, and the first
    file with each heading with that heading's text there."""

    paragraphs: dict[str, int]
    headings: dict[str, tuple[int, str]]


def outline_of(canonical: str, content: str) -> Outline:
    """The outline of a file's content, made once per content."""
    hit = _outlines.get(canonical)  # one dict read is atomic; only writers take the lock
    if hit is not None and (hit[0] is content or hit[0] == content):
        return hit[1]
    made = outline(content)
    with _lock:
        _outlines.pop(canonical, None)
        _outlines[canonical] = (content, made)
        while len(_outlines) > _MAX_OUTLINES:
            del _outlines[next(iter(_outlines))]
    return made


def _build(outlines: tuple[Outline, ...], min_chars: int) -> GroupTables:
    # Latest file first, so that an earlier file's entry overwrites a later one's.
    paragraphs: dict[str, int] = {}
    headings: dict[str, tuple[int, str]] = {}
    # Within a file the first heading wins: its pairs go in last to first. Filters and
    # pairs are made by C-level maps; hundreds of root files hold thousands of keys.
    long_enough = min_chars.__le__
    for pos in range(len(outlines) - 1, -1, -1):
        o = outlines[pos]
        keys = o.paragraphs
        paragraphs.update(dict.fromkeys(compress(keys, map(long_enough, map(len, keys))), pos))
        if o.headings:
            heads = o.headings[::-1]
            pairs = zip(repeat(pos), map(_SECOND, heads), strict=False)  # repeat: endless
            headings.update(zip(map(_FIRST, heads), pairs, strict=True))
    return GroupTables(paragraphs, headings)


def _per_group(cache: dict[tuple[int, int, int], tuple[tuple[RuleFile, ...], T]],
               files: tuple[RuleFile, ...], tag: int,
               make: Callable[[tuple[RuleFile, ...]], T]) -> T:
    """``make(files)``, made once for every chain that shares the group.

    The resolver hands sibling chains the very same RuleFile objects for a shared root: a
    group made of them is found by its first file (and ``tag``) and checked with one tuple
    comparison, which stops at identity for each element (equal values also match). The
    entry holds the files, so the id cannot be reused while it lives.
    """
    quick = (tag, id(files[0]), len(files))
    seen = cache.get(quick)
    if seen is not None and seen[0] == files:
        return seen[1]
    value = make(files)
    with _lock:
        cache[quick] = (files, value)
        while len(cache) > _MAX_GROUPS:
            del cache[next(iter(cache))]
    return value


def _tables(files: tuple[RuleFile, ...], min_chars: int) -> GroupTables:
    return _per_group(_same_files, files, min_chars,
                      lambda group: _tables_by_paths(group, min_chars))


def _names_of(files: tuple[RuleFile, ...]) -> dict[str, list[RuleFile]]:
    """File name → the group's files of that name, in order."""
    return _per_group(_same_names, files, 0, _by_name)


def _by_name(files: tuple[RuleFile, ...]) -> dict[str, list[RuleFile]]:
    names: dict[str, list[RuleFile]] = {}
    for f in files:
        found = names.get(f.name)
        if found is None:
            names[f.name] = [f]
        else:
            found.append(f)
    return names


def _tokens_of(files: tuple[RuleFile, ...]) -> int:
    """The group's estimated tokens."""
    return _per_group(_same_tokens, files, 0, _token_sum)


def _token_sum(files: tuple[RuleFile, ...]) -> int:
    return sum(f.tokens for f in files)


def _tables_by_paths(files: tuple[RuleFile, ...], min_chars: int) -> GroupTables:
    # Keyed by the paths (their hashes are cached in the strings) and checked against the
    # contents with one C-level tuple comparison: identical strings are not even compared.
    key = (min_chars, tuple([f.canonical for f in files]))
    contents = tuple([f.content for f in files])
    hit = _groups.get(key)
    if hit is not None and hit[0] == contents:
        return hit[1]
    tables = _build(tuple([outline_of(f.canonical, f.content) for f in files]), min_chars)
    with _lock:
        _groups.pop(key, None)
        _groups[key] = (contents, tables)
        while len(_groups) > _MAX_GROUPS:
            del _groups[next(iter(_groups))]
    return tables


@dataclass
class ChainIndex:
    chain: Chain
    min_paragraph_chars: int = 40
    _memo: dict[str, tuple[RuleFile, int] | None] = field(default_factory=dict)
    _scans: int = 0

    def _table_worth_it(self) -> bool:
        """By-name lookups are answered by a scan until a chain has been asked a few
        times: a package chain is linted for its one or two own files, where building the
        tables over the hundreds of root files it shares would cost more than the scans."""
        self._scans += 1
        return self._scans > _SCANS_BEFORE_TABLES

    def skipped_named(self, name: str) -> list[Skipped]:
        """Skipped records whose file name is ``name``, in chain order."""
        if "skipped_by_name" in self.__dict__ or self._table_worth_it():
            return self.skipped_by_name.get(name, [])
        if os.sep + name + "\n" not in self._skipped_paths:
            return []  # one substring search instead of a test per record (the usual case)
        # The suffix test runs in C over every record; the exact test only on its hits.
        skipped = self.chain.skipped
        return [s for s in compress(skipped, map(methodcaller("endswith", name),
                                                 map(_PATH, skipped)))
                if s.path.rpartition(os.sep)[2] == name]

    @cached_property
    def _skipped_paths(self) -> str:
        """Every skipped path followed by a newline: a record named ``n`` puts
        ``/n\n`` in it (a path holding a newline at worst costs the scan above)."""
        return "".join([s.path + "\n" for s in self.chain.skipped])

    def files_named(self, name: str) -> list[RuleFile]:
        """Loaded files whose name is ``name``, in load order.

        Asked per group: sibling chains share the very same files of a common root
        (see :func:`_per_group`), whose by-name table is then made once for all of them
        instead of every package chain scanning the hundreds of root files' names."""
        out: list[RuleFile] = []
        for group in self.members:
            hit = _names_of(group).get(name)
            if hit is not None:
                out.extend(hit)
        return out

    @cached_property
    def skipped_by_name(self) -> dict[str, list[Skipped]]:
        out: dict[str, list[Skipped]] = {}
        for s in self.chain.skipped:
            out.setdefault(s.path.rpartition(os.sep)[2], []).append(s)
        return out

    def crossing(self, budget: int) -> tuple[RuleFile, int] | None:
        """The file at which cumulative estimated tokens first exceed ``budget``, and the
        tokens loaded before it; computed once per chain and budget."""
        key = f"crossing:{budget}"
        if key not in self._memo:
            found: tuple[RuleFile, int] | None = None
            total = 0
            for group in self.members:
                size = _tokens_of(group)
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
            self._memo[key] = found
        return self._memo[key]

    @cached_property
    def members(self) -> list[tuple[RuleFile, ...]]:
        """The chain's files cut into groups: consecutive files from one root."""
        return [tuple(files) for _, files in groupby(self.chain.files, key=_ROOT)]

    @cached_property
    def groups(self) -> list[tuple[tuple[RuleFile, ...], GroupTables]]:
        return [(group, _tables(group, self.min_paragraph_chars)) for group in self.members]

    def first_with_paragraph(self, key: str) -> RuleFile | None:
        """The first file in load order containing paragraph ``key``."""
        for files, tables in self.groups:
            pos = tables.paragraphs.get(key)
            if pos is not None:
                return files[pos]
        return None

    def any_earlier_paragraph(self, keys: Iterable[str], entry: RuleFile) -> bool:
        """Whether :meth:`first_with_paragraph` of some key is a file loaded before
        ``entry`` (set and ``map`` operations in C instead of one lookup per key)."""
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
            elif min(map(tables.paragraphs.get, wanted, repeat(before))) < before:
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


def index_for(chain: Chain, min_paragraph_chars: int = 40) -> ChainIndex:
    key = id(chain)
    with _lock:
        hit = _chains.get(key)
        if hit is not None and hit[0] is chain and \
                hit[1].min_paragraph_chars == min_paragraph_chars:
            _chains.move_to_end(key)
            return hit[1]
        index = ChainIndex(chain, min_paragraph_chars)
        _chains[key] = (chain, index)
        while len(_chains) > _MAX_CHAINS:
            _chains.popitem(last=False)
        return index


def clear() -> None:
    with _lock:
        _chains.clear()
        _groups.clear()
        _same_files.clear()
        _same_names.clear()
        _same_tokens.clear()
        _outlines.clear()
