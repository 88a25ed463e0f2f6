"""Content family: text the model will not see as written, and text it sees twice.

Chain-aware checks compare the document with the files loaded *before* it in the same
chain (Grok renders them root first; deeper files win on conflicts), so a finding sits on
the later, redundant or shadowing copy.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from rulelens.agents.rusttext import WHITE_SPACE
from rulelens.lint.caches import DiskText
from rulelens.lint.chainindex import first_heading
from rulelens.lint.context import Context
from rulelens.lint.markdown import (
    Heading,
    Outline,
    Paragraph,
    heading_level,
    iter_headings,
    iter_paragraphs,
    may_have_fences,
    outline,
    section_body,
    unclosed_fence,
)
from rulelens.lint.model import Range, Related
from rulelens.rules.model import RuleFile

CODES = ("RL401", "RL402", "RL403", "RL404", "RL405")

_WS = "[" + re.escape(WHITE_SPACE) + "]"
#: The agent's neutralisation pattern (spec §3.7), plus the rest of the tag for the range.
_TAG = re.compile(r"<(" + _WS + r"*/?" + _WS + r"*system[-_]reminder)[^>\n]*>?", re.IGNORECASE)
_QUICK = re.compile("reminder", re.IGNORECASE)
_MAX_PER_CHECK = 20
#: Repeated paragraphs reported per pair of files (the last one says how many more).
_MAX_PER_PAIR = 3
#: Headings every instruction file may have; restating one says nothing about shadowing.
GENERIC_HEADINGS = frozenset({
    "overview", "introduction", "intro", "summary", "about", "background", "context",
    "notes", "note", "general", "misc", "miscellaneous", "faq", "todo", "contents",
    "table of contents", "getting started", "setup", "usage", "examples", "example",
    "references", "resources", "links", "see also", "purpose", "scope", "instructions",
    "guidelines", "rules",
})


def run(ctx: Context) -> None:
    doc = ctx.doc
    if doc.fmt.kind == "other":
        return
    start = doc.body_line
    _tags(ctx, start)
    entry = ctx.chain_entry
    compare = entry is not None and ctx.index is not None and entry.precedence > 1
    if not compare and not may_have_fences(doc.text):
        return  # nothing below needs the Markdown structure
    body = _body(ctx, start)
    if body.outline.unclosed_fence:
        fence_at = unclosed_fence(body.text, body.first_line, body.line_base)
        if fence_at is not None:
            line, col, fence = fence_at
            ctx.emit("RL404", f"This {fence} fence is never closed: everything after it is"
                     " code to the model, and Claude ignores `@imports` after it.",
                     Range.of(line, col, line, col + len(fence)))
    if compare and entry is not None:
        if _identical(ctx, entry):
            return  # one finding for the whole file, not one per paragraph and heading
        _duplicates(ctx, body, entry)
        _headings(ctx, body, entry)


def _identical(ctx: Context, entry: RuleFile) -> bool:
    """RL405: the same bytes as a file loaded earlier in the chain (another file, not a
    symlink to it: those load once)."""
    display = ctx.display  # the agent's name
    index = ctx.index
    assert index is not None
    other = index.earlier_identical(entry)
    if other is None:
        return False
    if _relative_imports(ctx.doc.text):
        return True  # `@AGENTS.md` in every folder's CLAUDE.md: same bytes, another file each
    ctx.emit("RL405", f"Identical to {ctx.rel(other.path)}, which loads earlier in the same"
             f" chain: {display} loads both, ~{entry.tokens} tokens twice. Make one a symlink to"
             f" the other ({display} then loads it once), or import it.", ctx.doc.whole(),
             related=[Related(other.path, Range.point(0), "the identical file")])
    return True


def _relative_imports(text: str) -> bool:
    """Whether ``text`` imports a file by a relative path (``@AGENTS.md``): two identical
    copies in two folders then load two different files."""
    if "@" not in text:
        return False
    from rulelens.agents.imports import claude_imports

    return any(not spec.startswith(("~", "/")) for _, spec in claude_imports(text))


@dataclass(frozen=True)
class _Body:
    """The scanned part of a document: lines ``first_line``… of ``text``, reported
    ``line_base`` lines further down, and its outline (keys without positions)."""

    text: str
    first_line: int
    line_base: int
    outline: Outline

    def paragraphs(self) -> Iterator[Paragraph]:
        return iter_paragraphs(self.text, self.first_line, self.line_base)

    def headings(self) -> Iterator[Heading]:
        return iter_headings(self.text, self.first_line, self.line_base)


def _body(ctx: Context, start: int) -> _Body:
    """The document's body, sharing the chain's outline of the same text when possible.

    A named file is injected verbatim and a rule file's injected content is a suffix of its
    text, so the chain index has usually outlined the same characters already.
    """
    text = ctx.doc.text
    entry = ctx.chain_entry
    content = entry.content if entry is not None else ""
    outline_of = ctx.caches.tables.outline_of
    if start == 0:
        if entry is not None and content == text:
            return _Body(text, 0, 0, outline_of(entry.canonical, content))
        return _Body(text, 0, 0, outline(text))
    if entry is not None and content and text.endswith(content):
        offset = len(text) - len(content)
        if text[offset - 1] == "\n":
            return _Body(content, 0, text.count("\n", 0, offset),
                         outline_of(entry.canonical, content))
    return _Body(text, start, 0, outline(text, start))


def _tags(ctx: Context, start_line: int) -> None:
    display = ctx.display  # the agent's name
    text = ctx.doc.text
    if not _may_have_tag(text):
        return
    offset = ctx.doc.offset_of_line(start_line) if start_line else 0
    for count, m in enumerate(_TAG.finditer(text, offset), start=1):
        line, col = ctx.doc.position(m.start())
        end_line, end_col = ctx.doc.position(m.end())
        if end_line != line:
            end_line, end_col = line, ctx.doc.line_length(line)
        ctx.emit("RL401", f"{display} escapes this tag to `&lt;{m.group(1)}`: the model sees"
                 " different text from what you wrote, and in other harnesses the tag can close"
                 " or spoof the block that wraps instruction files. Describe the tag in words"
                 " or drop it.", Range.of(line, col, end_line, end_col))
        if count >= _MAX_PER_CHECK:
            return


def _may_have_tag(text: str) -> bool:
    """Whether ``text`` can contain a tag (no false "no").

    Every tag starts with ``<``, which a ``memchr`` settles for most prose. An ASCII text
    is lowered in C and searched with the fast substring search, several times faster
    than a case-insensitive regex; other text keeps the regex, whose case folding also
    matches ``İ`` and ``ı`` (U+0130, U+0131) for ``i``, where ``lower()`` would not.
    """
    if "<" not in text:
        return False
    if text.isascii():
        return "reminder" in text.lower()
    return _QUICK.search(text) is not None


def _lookup(ctx: Context, path: str) -> DiskText:
    return ctx.caches.related.get(path, ctx.disk)


def _duplicates(ctx: Context, body: _Body, entry: RuleFile) -> None:
    index = ctx.index
    assert index is not None
    min_chars = ctx.config.thresholds.duplicate_min_chars
    long_keys = {k for k in body.outline.paragraphs
                 if len(k) >= min_chars and not k.startswith("<!--")}
    if not index.any_earlier_paragraph(long_keys, entry):
        return  # the common case: positions are never computed
    # HTML comments are stripped before injection (Claude) and are no repeated text.
    pairs: dict[str, list[tuple[Paragraph, RuleFile]]] = {}
    for p in body.paragraphs():
        if p.key not in long_keys:
            continue
        other = index.first_with_paragraph(p.key)
        if other is not None and other.precedence < entry.precedence:
            pairs.setdefault(other.path, []).append((p, other))
    count = 0
    for shared in pairs.values():
        for i, (p, other) in enumerate(shared[:_MAX_PER_PAIR]):
            first = " ".join(ctx.doc.line(p.line).split())
            line = _lookup(ctx, other.path).first_lines.get(first, 0)
            more = len(shared) - _MAX_PER_PAIR
            tail = (f" {more} more paragraph(s) of this file also appear there; keep the"
                    " shared text in one file." if i == _MAX_PER_PAIR - 1 and more > 0 else "")
            ctx.emit("RL402", f"This paragraph also appears in {ctx.rel(other.path)} (line"
                     f" {line + 1}), which loads earlier in the same chain: the agent reads it"
                     f" twice.{tail}",
                     Range.of(p.line, 0, p.end_line, ctx.doc.line_length(p.end_line)),
                     related=[Related(other.path, Range.of(line, 0, line, len(first)),
                                      "first copy")])
            count += 1
            if count >= _MAX_PER_CHECK:
                return


def _headings(ctx: Context, body: _Body, entry: RuleFile) -> None:
    index = ctx.index
    assert index is not None
    groups = index.shallower_groups(entry)  # once per document, not per heading
    if not groups:
        return
    keys = {key for key, _ in body.outline.headings}
    if not keys or all(headings.keys().isdisjoint(keys) for _, headings in groups):
        return
    count = 0
    for h in body.headings():
        if h.key in GENERIC_HEADINGS:
            continue
        hit = first_heading(groups, h.key)
        if hit is None:
            continue
        level = heading_level(ctx.doc.line(h.line))
        if level <= 1:
            continue  # a file's title, not a section
        other, text = hit
        there = _lookup(ctx, other.path)
        line = there.heads.get(h.key, 0)
        mine = section_body(ctx.doc.lines, h.line)
        theirs = section_body(there.lines, line)
        if not mine or not theirs or mine == theirs:
            continue  # nothing that could disagree (a repeat is RL402's to report)
        ctx.emit("RL403", f"Section \"{h.text}\" also appears in {ctx.rel(other.path)},"
                 " which is closer to the root, with different text: this deeper file wins"
                 " on conflicts, so check that it means to override that section.",
                 Range.of(h.line, h.start, h.line, h.end),
                 related=(Related(other.path, Range.of(line, 0, line, len(text) + 2),
                                  "shallower section"),))
        count += 1
        if count >= _MAX_PER_CHECK:
            return
