"""Frontmatter, as the agent strips it and as a linter needs to see it.

The agent's rule is a plain prefix test, not a YAML-aware parser (spec §3.6): after
trimming leading white space, text starting with ``---`` (``----`` and ``---x`` count too)
is cut after the first ``\\n---`` found past the first three characters. That closing match
can be a line such as ``---foo``. Without a closing match the whole trimmed text is kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from rulelens.agents.rusttext import trim_start


def strip_for_agent(text: str) -> str:
    """Exactly what Grok injects for a rule file (named files are injected verbatim)."""
    trimmed = trim_start(text)
    if not trimmed.startswith("---"):
        return trimmed
    close = trimmed.find("\n---", 3)
    if close < 0:
        return trimmed
    return trim_start(trimmed[close + 4 :])


@dataclass(frozen=True)
class Frontmatter:
    """A YAML frontmatter block with positions, for diagnostics and hovers.

    Lines are 0-based. ``yaml_text`` is the text between the fences; ``start_line`` is the
    line of the opening fence, ``end_line`` the line of the closing fence (or ``None`` when
    the block is never closed). ``body_line`` is the first line after the block.
    """

    yaml_text: str
    start_line: int
    end_line: int | None
    body_line: int


def split(text: str) -> Frontmatter | None:
    """Find a conventional frontmatter block (``---`` alone on the first line).

    A leading BOM is tolerated. Returns ``None`` when the file has no frontmatter.
    """
    lines = text.split("\n")
    first = lines[0].lstrip("\ufeff").rstrip("\r") if lines else ""
    if first.rstrip() != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r").rstrip() in ("---", "..."):
            yaml_lines = [ln.rstrip("\r") for ln in lines[1:i]]
            return Frontmatter("\n".join(yaml_lines), 0, i, i + 1)
    yaml_lines = [ln.rstrip("\r") for ln in lines[1:]]
    return Frontmatter("\n".join(yaml_lines), 0, None, len(lines))
