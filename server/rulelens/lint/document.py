"""A document parsed once for every check: lines, format, frontmatter fields with positions.

Frontmatter is parsed per format: strict (bounded) YAML for Claude, Copilot, Boost,
Windsurf and Grok rules; for Cursor ``.mdc`` the strict parse is tried first and a lenient
``key: value`` reading second, because Cursor accepts ``globs: **/*.ts`` which strict YAML
rejects (research §b Cursor; design note 4).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from rulelens.lint.config import LintConfig
from rulelens.lint.formats import FileFormat, classify
from rulelens.lint.model import Range
from rulelens.rules.frontmatter import Frontmatter

if TYPE_CHECKING:
    import yaml

_DISABLE = re.compile(r"<!--\s*rulelens-disable\b([^>]*?)-->", re.IGNORECASE)
_CODE = re.compile(r"RL\d{3}", re.IGNORECASE)
_LENIENT_KEY = re.compile(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+|$)(.*)$")
_LENIENT_ITEM = re.compile(r"^([ \t]*)-[ \t]+(.*)$")
_CLOSING = re.compile(r"\n((?:---|\.\.\.)[^\n]*)")
_HEAD = 64
_HEAD_CHARS = 8192


@dataclass(frozen=True)
class Item:
    value: Any
    range: Range


@dataclass(frozen=True)
class Field:
    """One top-level frontmatter key with the positions of its key and value."""

    key: str
    key_range: Range
    value: Any
    value_range: Range
    #: Items of a sequence value, with their positions; ``None`` for other values.
    items: tuple[Item, ...] | None = None
    #: The value was written as a quoted scalar.
    quoted: bool = False


@dataclass(frozen=True)
class ParsedFrontmatter:
    block: Frontmatter
    fields: tuple[Field, ...]
    #: (message, range, kind) when the block does not parse; ``kind`` is syntax|limit.
    problem: tuple[str, Range, str] | None = None
    lenient: bool = False

    def get(self, key: str) -> Field | None:
        return next((f for f in self.fields if f.key == key), None)


class Document:
    """The text of one file and what the checks derive from it, each made on first use."""

    def __init__(self, path: str, text: str, config: LintConfig,
                 fmt: FileFormat | None = None) -> None:
        self.path = path
        self.text = text
        self.config = config
        self.fmt: FileFormat = fmt if fmt is not None else classify(path)
        self.name = os.path.basename(path)
        self.directory = os.path.dirname(path)

    # --------------------------------------------------------------------- lines
    @cached_property
    def lines(self) -> tuple[str, ...]:
        """All lines (split on ``\\n``)."""
        return tuple(self.text.split("\n"))

    @cached_property
    def _head(self) -> list[str]:
        """The first ``_HEAD`` lines, where frontmatter lives: most documents need no more
        than these and their line count, so the whole text is not split for them."""
        return self.text[:_HEAD_CHARS].split("\n", _HEAD)[:_HEAD]

    def line(self, line: int) -> str:
        """``lines[line]``."""
        head = self._head
        if 0 <= line < len(head) - 1:  # the last piece of the head may be cut short
            return head[line]
        return self.lines[line]

    @cached_property
    def line_count(self) -> int:
        """``len(lines)``."""
        return self.text.count("\n") + 1

    def offset_of_line(self, line: int) -> int:
        """Where ``line`` starts (past the end: ``len(text) + 1``)."""
        pos = 0
        for _ in range(line):
            nl = self.text.find("\n", pos)
            if nl < 0:
                return len(self.text) + 1
            pos = nl + 1
        return pos

    # ----------------------------------------------------------------- positions
    def line_length(self, line: int) -> int:
        if line >= self.line_count:
            return 0
        return len(self.line(line).rstrip("\r"))

    def line_range(self, line: int) -> Range:
        return Range.of(line, 0, line, self.line_length(line))

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column) of ``offset``."""
        text = self.text
        start = text.rfind("\n", 0, offset) + 1
        return text.count("\n", 0, offset), offset - start

    def whole(self) -> Range:
        """The first line."""
        return self.line_range(0)

    # --------------------------------------------------------------- directives
    @cached_property
    def disabled(self) -> frozenset[str]:
        """Codes switched off by ``<!-- rulelens-disable RL123 -->``; ``*`` for all."""
        out: set[str] = set()
        if "<" not in self.text or "rulelens-disable" not in self.text:  # memchr first
            return frozenset()
        for m in _DISABLE.finditer(self.text):
            codes = _CODE.findall(m.group(1))
            if codes:
                out.update(c.upper() for c in codes)
            elif not m.group(1).strip():
                out.add("*")
        return frozenset(out)

    # -------------------------------------------------------------- frontmatter
    @cached_property
    def frontmatter(self) -> ParsedFrontmatter | None:
        block = _split(self.text)
        if block is None:
            return None
        if block.end_line is None:
            return ParsedFrontmatter(block, ())
        if self.fmt.kind == "named":
            return ParsedFrontmatter(block, ())  # verbatim in the prompt; keys mean nothing
        t = self.config.thresholds
        import yaml  # only documents with frontmatter pay for the YAML import

        from rulelens.agents import yamlbound

        doc = yamlbound.compose(block.yaml_text, max_bytes=t.max_frontmatter_bytes,
                                max_depth=t.max_yaml_depth, max_nodes=t.max_yaml_nodes)
        base = block.start_line + 1
        if doc.problem is None:
            if doc.node is None:
                return ParsedFrontmatter(block, ())
            if not isinstance(doc.node, yaml.MappingNode):
                m = doc.node.start_mark
                return ParsedFrontmatter(block, (), (
                    "frontmatter must be a mapping of `key: value` lines",
                    Range.of(base + m.line, m.column, base + m.line, m.column + 1), "syntax"))
            return ParsedFrontmatter(block, tuple(_fields(doc.node, base)))
        prob = doc.problem
        if self.fmt.kind == "cursor-rule" and prob.kind == "syntax":
            lenient = _lenient(block.yaml_text, base)
            if isinstance(lenient, list):
                return ParsedFrontmatter(block, tuple(lenient), lenient=True)
        line = base + prob.line
        col = min(prob.column, self.line_length(line))
        end = col + 1 if col < self.line_length(line) else col
        return ParsedFrontmatter(block, (), (prob.message, Range.of(line, col, line, end),
                                             prob.kind))

    @property
    def body_line(self) -> int:
        fm = self.frontmatter
        if fm is None or fm.block.end_line is None or self.fmt.kind == "named":
            return 0
        return fm.block.body_line



def _split(text: str) -> Frontmatter | None:
    """``rules.frontmatter.split`` without splitting the whole text: only lines starting
    with ``---`` or ``...`` can close the block, and a regex jumps from one to the next."""
    nl = text.find("\n")
    first = (text if nl < 0 else text[:nl]).lstrip("\ufeff").rstrip("\r")
    if first.rstrip() != "---":
        return None
    if nl >= 0:
        for m in _CLOSING.finditer(text, nl):
            if m.group(1).rstrip("\r").rstrip() in ("---", "..."):
                i = text.count("\n", 0, m.start() + 1)
                block = text[nl + 1 : m.start()]
                if "\r" in block:
                    block = "\n".join(ln.rstrip("\r") for ln in block.split("\n"))
                return Frontmatter(block, 0, i, i + 1)
    return Frontmatter("", 0, None, text.count("\n") + 1)  # never parsed: no copy of the text


def _rng(node: yaml.Node, base: int) -> Range:
    s, e = node.start_mark, node.end_mark
    return Range.of(base + s.line, s.column, base + e.line, e.column)


def _fields(node: yaml.MappingNode, base: int) -> list[Field]:
    import yaml

    from rulelens.agents import yamlbound

    out: list[Field] = []
    construct = yamlbound.construct
    for knode, vnode in node.value:
        key = construct(knode)
        items: tuple[Item, ...] | None = None
        if isinstance(vnode, yaml.SequenceNode):
            items = tuple(Item(construct(i), _rng(i, base)) for i in vnode.value)
        quoted = isinstance(vnode, yaml.ScalarNode) and vnode.style in ("'", '"')
        out.append(Field(str(key), _rng(knode, base), construct(vnode), _rng(vnode, base),
                         items, quoted))
    return out


def _unquote(raw: str) -> tuple[Any, bool]:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1], True
    if raw in ("true", "false"):
        return raw == "true", False
    return (raw if raw else None), False


def _lenient(text: str, base: int) -> list[Field] | None:
    """Cursor-style reading: top-level ``key: value`` lines and ``- item`` lists."""
    fields: list[Field] = []
    current: dict[str, Any] | None = None
    lines = text.split("\n")

    def close() -> None:
        if current is not None:
            items = current["items"]
            value = [i.value for i in items] if items else current["value"]
            vr = current["vrange"] if not items else Range(items[0].range.start,
                                                          items[-1].range.end)
            fields.append(Field(current["key"], current["krange"], value, vr,
                                tuple(items) if items else None, current["quoted"]))

    for i, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        km = _LENIENT_KEY.match(line)
        if km:
            close()
            raw = km.group(2).rstrip()
            value, quoted = _unquote(raw)
            vstart = line.index(raw, km.end(1)) if raw else len(line)
            current = {"key": km.group(1), "krange": Range.of(base + i, 0, base + i,
                                                              len(km.group(1))),
                       "value": value, "quoted": quoted,
                       "vrange": Range.of(base + i, vstart, base + i, vstart + len(raw)),
                       "items": []}
            continue
        im = _LENIENT_ITEM.match(line)
        if im and current is not None and current["value"] is None:
            raw = im.group(2).rstrip()
            value, _ = _unquote(raw)
            start = im.start(2)
            current["items"].append(Item(value, Range.of(base + i, start, base + i,
                                                         start + len(raw))))
            continue
        return None
    close()
    return fields
