"""Content family: text the model will not see as written, and text it sees twice.

Chain-aware checks compare the document with the files loaded *before* it in the same
chain (Grok renders them root first; deeper files win on conflicts), so a finding sits on
the later, redundant or shadowing copy.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

from rulelens.lint.context import Context
from rulelens.lint.markdown import Scan, scan, scan_text, shifted
from rulelens.lint.model import Range, Related
from rulelens.rules.model import RuleFile
from rulelens.rusttext import WHITE_SPACE

CODES = ("RL401", "RL402", "RL403", "RL404")

_WS = "[" + re.escape(WHITE_SPACE) + "]"
#: The agent's neutralisation pattern (spec §3.7), plus the rest of the tag for the range.
_TAG = re.compile(r"<(" + _WS + r"*/?" + _WS + r"*system[-_]reminder)[^>\n]*>?", re.IGNORECASE)
_QUICK = re.compile("reminder", re.IGNORECASE)
_MAX_PER_CHECK = 20


def run(ctx: Context) -> None:
    doc = ctx.doc
    if doc.fmt.kind == "other":
        return
    start = doc.body_line
    _tags(ctx, start)
    entry = ctx.chain_entry
    compare = entry is not None and ctx.index is not None and entry.precedence > 1
    if not compare and "```" not in doc.text and "~~~" not in doc.text:
        return  # nothing below needs the Markdown structure
    body_scan = _body_scan(ctx, start)
    if body_scan.unclosed_fence is not None:
        line, col, fence = body_scan.unclosed_fence
        ctx.emit("RL404", f"This {fence} fence is never closed: everything after it is code"
                 " to the model, and Claude ignores `@imports` after it.",
                 Range.of(line, col, line, col + len(fence)))
    if compare and entry is not None:
        _duplicates(ctx, body_scan, entry)
        _headings(ctx, body_scan, entry)


def _body_scan(ctx: Context, start: int) -> Scan:
    """The document's scan, shared with the chain's scan of the same text when possible.

    A named file is injected verbatim and a rule file's injected content is a suffix of its
    text, so the chain index has usually scanned the same characters already.
    """
    text = ctx.doc.text
    if start == 0:
        return scan_text(text)
    entry = ctx.chain_entry
    content = entry.content if entry is not None else ""
    if content and text.endswith(content):
        offset = len(text) - len(content)
        if text[offset - 1] == "\n":
            return shifted(scan_text(content), text.count("\n", 0, offset))
    return scan(text, start)


def _tags(ctx: Context, start_line: int) -> None:
    text = ctx.doc.text
    if _QUICK.search(text) is None:
        return
    offset = sum(len(ln) + 1 for ln in ctx.doc.lines[:start_line]) if start_line else 0
    for count, m in enumerate(_TAG.finditer(text, offset), start=1):
        line, col = ctx.doc.position(m.start())
        end_line, end_col = ctx.doc.position(m.end())
        if end_line != line:
            end_line, end_col = line, ctx.doc.line_length(line)
        ctx.emit("RL401", f"Grok escapes this tag to `&lt;{m.group(1)}`: the model sees"
                 " different text from what you wrote, and in other harnesses the tag can close"
                 " or spoof the block that wraps instruction files. Describe the tag in words"
                 " or drop it.", Range.of(line, col, end_line, end_col))
        if count >= _MAX_PER_CHECK:
            return


@lru_cache(maxsize=256)
def _disk_lines(path: str, size: int, mtime: int) -> tuple[dict[str, int], dict[str, int]]:
    """Stripped line → first line number, and heading key → line, of a file on disk.

    Chain content of rule files is frontmatter-stripped, so related locations are looked up
    in the file itself; keyed by size and mtime so an edited file is read again.
    """
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return {}, {}
    first: dict[str, int] = {}
    for i, line in enumerate(text.split("\n")):
        first.setdefault(" ".join(line.split()), i)
    heads: dict[str, int] = {}
    for h in scan(text).headings:
        heads.setdefault(h.key, h.line)
    return first, heads


def _lookup(path: str) -> tuple[dict[str, int], dict[str, int]]:
    try:
        st = os.stat(path)
    except OSError:
        return {}, {}
    return _disk_lines(path, st.st_size, st.st_mtime_ns)


def _duplicates(ctx: Context, body: Scan, entry: RuleFile) -> None:
    assert ctx.index is not None
    min_chars = ctx.config.thresholds.duplicate_min_chars
    count = 0
    for p in body.paragraphs:
        if len(p.key) < min_chars:
            continue
        other = ctx.index.first_with_paragraph(p.key)
        if other is None or other.precedence >= entry.precedence:
            continue
        first = " ".join(ctx.doc.lines[p.line].split())
        line = _lookup(other.path)[0].get(first, 0)
        ctx.emit("RL402", f"This paragraph also appears in {ctx.rel(other.path)} (line"
                 f" {line + 1}), which loads earlier in the same chain: the agent reads it"
                 " twice.", Range.of(p.line, 0, p.end_line, ctx.doc.line_length(p.end_line)),
                 related=[Related(other.path, Range.of(line, 0, line, len(first)),
                                  "first copy")])
        count += 1
        if count >= _MAX_PER_CHECK:
            return


def _headings(ctx: Context, body: Scan, entry: RuleFile) -> None:
    assert ctx.index is not None
    count = 0
    for h in body.headings:
        hit = ctx.index.shallower_heading(h.key, entry)
        if hit is None:
            continue
        other, text = hit
        line = _lookup(other.path)[1].get(h.key, 0)
        ctx.emit("RL403", f"Section \"{h.text}\" also appears in {ctx.rel(other.path)},"
                 " which is closer to the root: this deeper file wins on conflicts, so this"
                 " section likely overrides or repeats it.",
                 Range.of(h.line, h.start, h.line, h.end),
                 related=[Related(other.path, Range.of(line, 0, line, len(text) + 2),
                                  "shallower section")])
        count += 1
        if count >= _MAX_PER_CHECK:
            return
