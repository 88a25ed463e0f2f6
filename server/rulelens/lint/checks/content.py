"""Content family: text the model will not see as written, and text it sees twice.

Chain-aware checks compare the document with the files loaded *before* it in the same
chain (Grok renders them root first; deeper files win on conflicts), so a finding sits on
the later, redundant or shadowing copy.
"""

from __future__ import annotations

import os
import re

from rulelens.lint.context import Context
from rulelens.lint.markdown import Scan, scan, scan_text
from rulelens.lint.model import Range, Related
from rulelens.rules.model import RuleFile
from rulelens.rusttext import WHITE_SPACE

CODES = ("RL401", "RL402", "RL403", "RL404")

_WS = "[" + re.escape(WHITE_SPACE) + "]"
#: The agent's neutralisation pattern (spec §3.7), plus the rest of the tag for the range.
_TAG = re.compile(r"<(" + _WS + r"*/?" + _WS + r"*system[-_]reminder)[^>\n]*>?", re.IGNORECASE)
_MAX_PER_CHECK = 20


def run(ctx: Context) -> None:
    doc = ctx.doc
    if doc.fmt.kind == "other":
        return
    start = doc.body_line
    body_scan = scan(doc.lines, start)
    _tags(ctx, start)
    if body_scan.unclosed_fence is not None:
        line, col, fence = body_scan.unclosed_fence
        ctx.emit("RL404", f"This {fence} fence is never closed: everything after it is code"
                 " to the model, and Claude ignores `@imports` after it.",
                 Range.of(line, col, line, col + len(fence)))
    entry = ctx.chain_entry
    if entry is None or ctx.chain is None:
        return
    earlier = [f for f in ctx.chain.files if f.precedence < entry.precedence]
    if not earlier:
        return
    _duplicates(ctx, body_scan, earlier)
    _headings(ctx, body_scan, entry, earlier)


def _tags(ctx: Context, start_line: int) -> None:
    text = ctx.doc.text
    if "reminder" not in text.lower():
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


def _disk_line(path: str, needle: str) -> int:
    """Line of ``needle`` in the file on disk (chain content may be frontmatter-stripped)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for i, line in enumerate(fh):
                if line.strip() == needle:
                    return i
    except OSError:
        pass
    return 0


def _first_line(key: str) -> str:
    return key.split("\n", 1)[0]


def _duplicates(ctx: Context, body: Scan, earlier: list[RuleFile]) -> None:
    min_chars = ctx.config.thresholds.duplicate_min_chars
    seen: dict[str, RuleFile] = {}
    for f in earlier:
        for p in scan_text(f.content).paragraphs:
            if len(p.key) >= min_chars:
                seen.setdefault(p.key, f)
    count = 0
    for p in body.paragraphs:
        if len(p.key) < min_chars:
            continue
        other = seen.get(p.key)
        if other is None:
            continue
        first = _first_line(p.key)
        line = _disk_line(other.path, first)
        rel = ctx.rel(other.path)
        ctx.emit("RL402", f"This paragraph also appears in {rel} (line {line + 1}), which loads"
                 " earlier in the same chain: the agent reads it twice.",
                 Range.of(p.line, 0, p.end_line, ctx.doc.line_length(p.end_line)),
                 related=[Related(other.path, Range.of(line, 0, line, len(first)),
                                  "first copy")])
        count += 1
        if count >= _MAX_PER_CHECK:
            return


def _is_ancestor(shallow: str, deep: str) -> bool:
    s = os.path.normpath(shallow)
    d = os.path.normpath(deep)
    return d != s and d.startswith(s.rstrip(os.sep) + os.sep)


def _headings(ctx: Context, body: Scan, entry: RuleFile, earlier: list[RuleFile]) -> None:
    shallower = [f for f in earlier if (f.role == "home" and entry.role == "project")
                 or _is_ancestor(f.root, entry.root)]
    if not shallower:
        return
    seen: dict[str, tuple[RuleFile, str]] = {}
    for f in shallower:
        for h in scan_text(f.content).headings:
            seen.setdefault(h.key, (f, h.text))
    count = 0
    for h in body.headings:
        hit = seen.get(h.key)
        if hit is None:
            continue
        other, text = hit
        rel = ctx.rel(other.path)
        line = _disk_line_heading(other.path, h.key)
        ctx.emit("RL403", f"Section \"{h.text}\" also appears in {rel}, which is closer to the"
                 " root: this deeper file wins on conflicts, so this section likely overrides"
                 " or repeats it.", Range.of(h.line, h.start, h.line, h.end),
                 related=[Related(other.path, Range.of(line, 0, line, len(text) + 2),
                                  "shallower section")])
        count += 1
        if count >= _MAX_PER_CHECK:
            return


def _disk_line_heading(path: str, key: str) -> int:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().split("\n")
    except OSError:
        return 0
    for h in scan(lines).headings:
        if h.key == key:
            return h.line
    return 0
