"""Per-chain lookup tables, shared by every document linted against a chain.

Linting 500 rule files of one directory must not rescan the other 499 for each of them,
and 100 sibling directories must not rebuild an index of the 500 root files they all share
(that made the duplicate and heading checks quadratic). So a chain is cut into *groups*
(consecutive files from one discovery root), each group's paragraph and heading tables are
built once and cached by the group's content, and a chain's index is just its list of
groups. Chains are immutable values: an index keyed by the chain object is always valid.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property

from rulelens.lint.markdown import scan_text
from rulelens.rules.model import Chain, RuleFile, Skipped

_lock = threading.Lock()
_chains: OrderedDict[int, tuple[Chain, ChainIndex]] = OrderedDict()
_groups: OrderedDict[tuple[object, ...], GroupTables] = OrderedDict()
_MAX_CHAINS = 64
_MAX_GROUPS = 256


@dataclass(frozen=True)
class GroupTables:
    """Positions (within the group) of the first file with each paragraph / each heading."""

    paragraphs: dict[str, int]
    headings: dict[str, list[tuple[int, str]]]


def _build(files: tuple[RuleFile, ...], min_chars: int) -> GroupTables:
    paragraphs: dict[str, int] = {}
    headings: dict[str, list[tuple[int, str]]] = {}
    for pos, f in enumerate(files):
        scan = scan_text(f.content)
        for p in scan.paragraphs:
            if len(p.key) >= min_chars:
                paragraphs.setdefault(p.key, pos)
        seen: set[str] = set()
        for h in scan.headings:
            if h.key not in seen:
                seen.add(h.key)
                headings.setdefault(h.key, []).append((pos, h.text))
    return GroupTables(paragraphs, headings)


def _tables(files: tuple[RuleFile, ...], min_chars: int) -> GroupTables:
    key = (min_chars, *((f.canonical, f.bytes, f.content) for f in files))
    with _lock:
        hit = _groups.get(key)
        if hit is not None:
            _groups.move_to_end(key)
            return hit
    tables = _build(files, min_chars)
    with _lock:
        _groups[key] = tables
        while len(_groups) > _MAX_GROUPS:
            _groups.popitem(last=False)
    return tables


@dataclass
class ChainIndex:
    chain: Chain
    min_paragraph_chars: int = 40
    _memo: dict[str, tuple[RuleFile, int] | None] = field(default_factory=dict)

    @cached_property
    def skipped_by_name(self) -> dict[str, list[Skipped]]:
        out: dict[str, list[Skipped]] = {}
        for s in self.chain.skipped:
            out.setdefault(s.path.rpartition(os.sep)[2], []).append(s)
        return out

    @cached_property
    def files_by_name(self) -> dict[str, list[RuleFile]]:
        out: dict[str, list[RuleFile]] = {}
        for f in self.chain.files:
            out.setdefault(f.name, []).append(f)
        return out

    def crossing(self, budget: int) -> tuple[RuleFile, int] | None:
        """The file at which cumulative estimated tokens first exceed ``budget``, and the
        tokens loaded before it; computed once per chain and budget."""
        key = f"crossing:{budget}"
        if key not in self._memo:
            found: tuple[RuleFile, int] | None = None
            total = 0
            for f in self.chain.files:
                if total <= budget < total + f.tokens:
                    found = (f, total)
                    break
                total += f.tokens
            self._memo[key] = found
        return self._memo[key]

    @cached_property
    def groups(self) -> list[tuple[tuple[RuleFile, ...], GroupTables]]:
        out: list[tuple[tuple[RuleFile, ...], GroupTables]] = []
        files = self.chain.files
        i = 0
        while i < len(files):
            j = i
            while j < len(files) and files[j].root == files[i].root:
                j += 1
            group = files[i:j]
            out.append((group, _tables(group, self.min_paragraph_chars)))
            i = j
        return out

    def first_with_paragraph(self, key: str) -> RuleFile | None:
        """The first file in load order containing paragraph ``key``."""
        for files, tables in self.groups:
            pos = tables.paragraphs.get(key)
            if pos is not None:
                return files[pos]
        return None

    def shallower_heading(self, key: str, entry: RuleFile) -> tuple[RuleFile, str] | None:
        """The first file *closer to the root* than ``entry`` with heading ``key``.

        Closer to the root: a home file for a project file, or a file whose discovery
        root is a proper ancestor of ``entry``'s.
        """
        for files, tables in self.groups:
            head = files[0]
            if head.precedence >= entry.precedence:
                return None
            if not ((head.role == "home" and entry.role == "project")
                    or _is_ancestor(head.root, entry.root)):
                continue
            hits = tables.headings.get(key)
            if hits:
                pos, text = hits[0]
                return files[pos], text
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
