"""Rule-file formats, as data: one :class:`Format` row per kind of instruction file.

A file's format follows from where it lives (``.claude/rules/**`` is a Claude rule,
``.github/instructions/*`` a Copilot instruction file): the row says which agent owns it,
which frontmatter keys that agent reads, which key scopes the file, how strictly the
agent parses its YAML and what happens to a file that has no scope. The linter
(``lint/formats.py`` for classification, ``lint/checks/frontmatter.py`` for keys) reads
these rows instead of keeping parallel tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FormatKind = Literal[
    "named", "grok-rule", "claude-rule", "cursor-rule", "boost-rule",
    "copilot-instructions", "copilot-repo", "windsurf-rule", "kiro-steering", "cline-rule",
    "qwen-rule", "continue-rule", "legacy", "other",
]


@dataclass(frozen=True)
class Format:
    """One rule-file format.

    ``container``/``subdir`` place a rules-directory format (``.claude``/``rules``);
    they are ``None`` for formats recognised by name. ``allowed_keys`` is ``None`` when the
    owning agent gives frontmatter no meaning (Grok strips it). ``scope_key`` is the key
    that limits where the file applies; ``unscoped`` says, in words, what a file whose
    scope key is missing or misspelt does. ``strict_yaml``: the agent's YAML parser rejects
    what a lenient one would accept (an unquoted ``*`` glob), so the whole block is lost.
    ``read_by_grok``: Grok reads this directory's direct ``*.md`` children.
    """

    kind: FormatKind
    agent: str
    container: str | None = None
    subdir: str | None = None
    allowed_keys: frozenset[str] | None = None
    scope_key: str | None = None
    strict_yaml: bool = False
    unscoped: str = ""
    read_by_grok: bool = False


#: Every format, rules-directory formats first in the order classification tries them.
FORMATS: tuple[Format, ...] = (
    Format("grok-rule", "Grok", ".grok", "rules", strict_yaml=True, read_by_grok=True),
    Format("claude-rule", "Claude Code", ".claude", "rules", frozenset({"paths"}), "paths",
           strict_yaml=True, unscoped="the rule loads unconditionally", read_by_grok=True),
    Format("cursor-rule", "Cursor", ".cursor", "rules",
           frozenset({"description", "globs", "alwaysApply"}), "globs",
           unscoped="the rule is not auto-attached", read_by_grok=True),
    Format("boost-rule", "Laravel Boost", ".ai", "rules", frozenset({"paths"}), "paths",
           strict_yaml=True, unscoped="the rule is left out of `.ai/rules/index.md`"),
    Format("copilot-instructions", "Copilot", ".github", "instructions",
           frozenset({"applyTo", "excludeAgent", "name", "description"}), "applyTo",
           strict_yaml=True, unscoped="the file is not applied automatically"),
    Format("windsurf-rule", "Windsurf", ".windsurf", "rules",
           frozenset({"trigger", "description", "globs"}), "globs", strict_yaml=True,
           unscoped="the glob trigger has no patterns"),
    Format("windsurf-rule", "Windsurf", ".devin", "rules",
           frozenset({"trigger", "description", "globs"}), "globs", strict_yaml=True,
           unscoped="the glob trigger has no patterns"),
    Format("kiro-steering", "Kiro", ".kiro", "steering",
           frozenset({"inclusion", "fileMatchPattern", "name", "description"}),
           "fileMatchPattern", strict_yaml=True,
           unscoped="an `inclusion: fileMatch` file without `fileMatchPattern` is never"
                    " included"),
    # Cline: every file below .clinerules/ (no subdir; lint/formats.py places it).
    Format("cline-rule", "Cline", ".clinerules", None, frozenset({"paths"}), "paths",
           strict_yaml=True, unscoped="the rule loads with every task"),
    Format("qwen-rule", "Qwen Code", ".qwen", "rules", frozenset({"paths", "description"}),
           "paths", strict_yaml=True, unscoped="the rule loads at session start"),
    Format("continue-rule", "Continue", ".continue", "rules",
           frozenset({"name", "description", "globs", "regex", "alwaysApply"}), "globs",
           strict_yaml=True, unscoped="the rule is included in every request"),
    Format("copilot-repo", "Copilot"),
    Format("named", "Grok"),
    Format("legacy", "The agent"),
    Format("other", "The agent"),
)

#: The first row of each kind (``windsurf-rule`` has two containers, one meaning).
BY_KIND: dict[str, Format] = {f.kind: f for f in reversed(FORMATS)}

#: Rules-directory formats: ``(container, subdir, kind)`` in classification order.
RULE_DIRS: tuple[tuple[str, str, FormatKind], ...] = tuple(
    (f.container, f.subdir, f.kind) for f in FORMATS
    if f.container is not None and f.subdir is not None
)

#: Named files some agent reads, exact spelling.
NAMED_FILES = frozenset({
    "AGENTS.md", "Agents.md", "AGENT.md", "CLAUDE.md", "Claude.md", "CLAUDE.local.md",
    "AGENTS.override.md", "GEMINI.md",
})
#: The named files Claude Code reads (its size limits apply to them).
CLAUDE_NAMED = frozenset({"CLAUDE.md", "Claude.md", "CLAUDE.local.md"})
#: Single-file formats of older tools, and personal-override names no agent reads.
LEGACY_FILES = frozenset({".cursorrules", ".windsurfrules", ".clinerules", "AGENTS.local.md",
                          "AGENT.local.md"})


def row(kind: str) -> Format | None:
    """The row for ``kind``, or ``None`` for an unknown kind."""
    return BY_KIND.get(kind)
