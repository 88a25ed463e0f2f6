"""A document parsed once for every check: lines, format, frontmatter fields with positions.

Frontmatter is parsed per format: strict (bounded) YAML for Claude, Copilot, Boost,
Windsurf and Grok rules; for Cursor ``.mdc`` the strict parse is tried first and a lenient
``key: value`` reading second, because Cursor accepts ``globs: **/*.ts`` which strict YAML
rejects (research §b Cursor; design note 4).
"""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

import yaml

from rulelens.lint import yamlbound
from rulelens.lint.config import LintConfig
from rulelens.lint.formats import FileFormat, classify
from rulelens.lint.memo import cached_property
from rulelens.lint.model import Range, made
from rulelens.rules.frontmatter import Frontmatter

_DISABLE = re.compile(r"<!--\s*rulelens-disable\b([^>]*?)-->", re.IGNORECASE)
_CODE = re.compile(r"RL\d{3}", re.IGNORECASE)
_LENIENT_KEY = re.compile(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+|$)(.*)$")
_LENIENT_ITEM = re.compile(r"^([ \t]*)-[ \t]+(.*)$")
_PLUS_ONE = (1).__add__
_CLOSING = re.compile(r"\n((?:---|\.\.\.)[^\n]*)")
_HEAD = 64
_HEAD_CHARS = 8192
_COUNTED_POSITIONS = 4


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


@dataclass(frozen=True)
class Document:
    path: str
    text: str
    config: LintConfig
    fmt: FileFormat = field(init=False)
    #: ``os.path.basename(path)`` and ``os.path.dirname(path)``, derived once: every check
    #: family asks for them, and the ``os.path`` functions are Python-level code.
    name: str = field(init=False, compare=False, repr=False)
    directory: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        d = self.__dict__  # frozen: filled like model.made, without object.__setattr__
        path = self.path
        d["fmt"] = classify(path)
        d["name"], d["directory"] = split_name(path)

    # --------------------------------------------------------------------- lines
    @cached_property
    def lines(self) -> tuple[str, ...]:
        """All lines (split on ``\\n``). Split on first use: most documents only ever need
        their first lines (:meth:`line`) and their line count."""
        return tuple(self.text.split("\n"))

    @cached_property
    def _head(self) -> list[str]:
        # One C-level split that stops after _HEAD lines (frontmatter lives up there); on
        # a prefix when that holds them all, so the rest of a large text is not copied.
        text = self.text
        if len(text) > _HEAD_CHARS:
            prefix = text[:_HEAD_CHARS]
            if prefix.count("\n") >= _HEAD:
                text = prefix
        return text.split("\n", _HEAD)[:_HEAD]

    def line(self, line: int) -> str:
        """``lines[line]``, without splitting the whole text for a line near the top, nor
        for the first few lines further down (a size finding on line 500 of a 3,000-line
        file splits 501 lines, not 3,000)."""
        d = self.__dict__
        if line >= 0 and "lines" not in d:
            if line < _HEAD:
                head = self._head
                if line < len(head):
                    return head[line]
            far = d.get("_far", 0)
            if far < _COUNTED_POSITIONS:
                d["_far"] = far + 1
                return self.text.split("\n", line + 1)[line]
        return self.lines[line]

    @cached_property
    def line_count(self) -> int:
        """``len(lines)``."""
        return self.text.count("\n") + 1

    def offset_of_line(self, line: int) -> int:
        """``sum(len(l) + 1 for l in lines[:line])``: where ``line`` starts (past the end:
        ``len(text) + 1``)."""
        pos = 0
        for _ in range(line):
            nl = self.text.find("\n", pos)
            if nl < 0:
                return len(self.text) + 1
            pos = nl + 1
        return pos

    # ----------------------------------------------------------------- positions
    def line_length(self, line: int) -> int:
        if 0 <= line < _HEAD and "lines" not in self.__dict__:
            head = self._head
            if line < len(head):
                return len(head[line].rstrip("\r"))
            if len(head) < _HEAD:
                return 0  # the head is the whole text: past the end
        start = self.__dict__.get("_starts", {}).get(line)
        if start is not None:  # a line found by position(): measure it in place
            end = self.text.find("\n", start)
            return len(self.text[start:end if end >= 0 else len(self.text)].rstrip("\r"))
        if line >= self.line_count:
            return 0
        return len(self.line(line).rstrip("\r"))

    def line_range(self, line: int) -> Range:
        return Range.of(line, 0, line, self.line_length(line))

    @cached_property
    def _line_starts(self) -> list[int]:
        # Running sums of (line length + 1), in C: a 50 MB file has a million lines.
        return list(accumulate(map(_PLUS_ONE, map(len, self.lines[:-1])), initial=0))

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column) of ``offset``. The first lookups count newlines in C; a document
        asked often gets a table of line starts."""
        if "_line_starts" not in self.__dict__:
            count = self.__dict__.get("_positions", 0)
            if count < _COUNTED_POSITIONS:
                self.__dict__["_positions"] = count + 1
                text = self.text
                line, start = text.count("\n", 0, offset), text.rfind("\n", 0, offset) + 1
                if offset <= len(text):
                    self.__dict__.setdefault("_starts", {})[line] = start
                return line, offset - start
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return line, offset - self._line_starts[line]

    def whole(self) -> Range:
        """The first line (every document asks; found without splitting any lines)."""
        text = self.text
        end = text.find("\n")
        if end < 0:
            end = len(text)
        while end and text[end - 1] == "\r":  # line_length's rstrip("\r"), in place
            end -= 1
        return Range.of(0, 0, 0, end)

    # --------------------------------------------------------------- directives
    @cached_property
    def disabled(self) -> frozenset[str]:
        """Codes switched off by ``<!-- rulelens-disable RL123 -->``; ``*`` for all."""
        out: set[str] = set()
        if "rulelens-disable" not in self.text:
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



def split_name(path: str) -> tuple[str, str]:
    """``(os.path.basename(path), os.path.dirname(path))`` with one C-level partition."""
    sep = os.sep
    if sep != "/" or os.altsep is not None:
        return os.path.basename(path), os.path.dirname(path)
    cut = path.rfind("/") + 1
    head = path[:cut]
    if head and head.strip("/"):
        head = head.rstrip("/")  # dirname keeps a head of slashes only ("/", "//") as it is
    return path[cut:], head


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
    # Built with ``made`` (every field given): the frozen classes' generated ``__init__``
    # sets each field through ``object.__setattr__``, and every parsed rule file has some.
    out: list[Field] = []
    construct = yamlbound.construct
    for knode, vnode in node.value:
        key = construct(knode)
        items: tuple[Item, ...] | None = None
        if isinstance(vnode, yaml.SequenceNode):
            items = tuple([made(Item, value=construct(i), range=_rng(i, base))
                           for i in vnode.value])
        quoted = isinstance(vnode, yaml.ScalarNode) and vnode.style in ("'", '"')
        out.append(made(Field, key=str(key), key_range=_rng(knode, base),
                        value=construct(vnode), value_range=_rng(vnode, base), items=items,
                        quoted=quoted))
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
