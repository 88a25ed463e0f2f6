"""``@path`` import scanners, one per agent that has imports (Gemini CLI, Claude Code), and
Kiro's ``#[[file:…]]`` references.

Gemini CLI's scanner is an exact port (``memoryImportProcessor.ts`` @5411f113, research
agent-profiles §2.4 facts 15-16): an ``@`` at the start or after space/tab/CR/LF, the path
running to the next such character, accepted when it starts with ``.``, ``/`` or an ASCII
letter; any backtick run up to the next run of the same length is code (inline spans and
fences alike; ``~~~`` fences are not code). Claude Code's is per its docs (§3.4 fact 13):
``@path`` anywhere except inside code spans and fenced blocks.
"""

from __future__ import annotations

import re

_WS = " \t\n\r"


def _is_letter(ch: str) -> bool:
    return ("A" <= ch <= "Z") or ("a" <= ch <= "z")


def gemini_imports(content: str) -> list[tuple[int, int, str]]:
    """``(start, end, path)`` per import token, code regions included (filter separately)."""
    out: list[tuple[int, int, str]] = []
    i, n = 0, len(content)
    while i < n:
        i = content.find("@", i)
        if i < 0:
            break
        if i > 0 and content[i - 1] not in _WS:
            i += 1
            continue
        j = i + 1
        while j < n and content[j] not in _WS:
            j += 1
        spec = content[i + 1: j]
        if spec and (spec[0] in "./" or _is_letter(spec[0])):
            out.append((i, j, spec))
        i = j + 1
    return out


_BACKTICKS = re.compile(r"(`+)([\s\S]*?)\1")


def gemini_code_regions(content: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _BACKTICKS.finditer(content)]


def in_regions(offset: int, regions: list[tuple[int, int]]) -> bool:
    return any(s <= offset < e for s, e in regions)


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CLAUDE_AT = re.compile(r"(?:(?<=\s)|^)@([^\s]+)", re.MULTILINE)


def claude_code_regions(content: str) -> list[tuple[int, int]]:
    """Fenced blocks (``` and ~~~) and inline code spans, as character ranges."""
    regions: list[tuple[int, int]] = []
    pos = 0
    fence: str | None = None
    fence_start = 0
    for line in content.splitlines(keepends=True):
        m = _FENCE.match(line)
        if fence is None and m:
            fence, fence_start = m.group(1), pos
        elif fence is not None and m and m.group(1)[0] == fence[0] \
                and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):]:
            regions.append((fence_start, pos + len(line)))
            fence = None
        elif fence is None:
            for span in _BACKTICKS.finditer(line):
                regions.append((pos + span.start(), pos + span.end()))
        pos += len(line)
    if fence is not None:
        regions.append((fence_start, len(content)))
    return regions


def claude_imports(content: str) -> list[tuple[int, str]]:
    """``(offset, path)`` of each ``@path`` outside code that looks like a path."""
    regions = claude_code_regions(content)
    out = []
    for m in _CLAUDE_AT.finditer(content):
        spec = m.group(1).rstrip(".,;:)!?\"'")
        if not spec or in_regions(m.start(), regions):
            continue
        if "/" in spec or "." in spec or spec.startswith("~") or spec[0].isupper():
            out.append((m.start(), spec))
    return out


_KIRO_REF = re.compile(r"#\[\[file:([^\]\r\n]+)\]\]")


def kiro_references(content: str) -> list[tuple[int, str]]:
    """``(offset, path)`` of each Kiro ``#[[file:<path>]]`` reference (kiro.dev steering
    docs: the path is relative to the workspace root); no code-span exception is documented."""
    return [(m.start(), m.group(1).strip()) for m in _KIRO_REF.finditer(content)
            if m.group(1).strip()]


def line_of(content: str, offset: int) -> int:
    """1-based line number of ``offset``."""
    return content.count("\n", 0, offset) + 1
