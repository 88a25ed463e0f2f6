"""Which format a path is in, judged from its location: the format decides the rules.

A file's format follows from where it lives (``.claude/rules/**`` is a Claude rule,
``.github/instructions/*.instructions.md`` a Copilot instruction file, ``AGENTS.md`` a
named file), never from its content: that is how every agent decides too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from rulelens.agents.formats import (
    CLAUDE_NAMED,
    FORMATS,
    LEGACY_FILES,
    NAMED_FILES,
    RULE_DIRS,
    FormatKind,
)

__all__ = ["CLAUDE_NAMED", "CLINE_DIR", "GROK_RULE_DIRS", "LEGACY_FILES", "NAMED_FILES",
           "RULE_DIRS", "SCOPE_KEY", "FileFormat", "FormatKind", "classify", "is_instruction_file"]

#: Cline's rules directory (``.clinerules`` is also its older single-file form).
CLINE_DIR = ".clinerules"
#: Folders below ``.clinerules/`` that hold no rules (Cline @864419d8 ``getLocalClineRules``).
CLINE_NOT_RULES = frozenset({"workflows", "hooks", "skills"})
#: Rules directories Grok itself reads (direct children only).
GROK_RULE_DIRS = frozenset(f.kind for f in FORMATS if f.read_by_grok)
#: Format -> the frontmatter key that limits where its rules apply (``applyTo``, ``globs``).
SCOPE_KEY = {f.kind: f.scope_key for f in FORMATS if f.scope_key is not None}
_NAMED_LOWER = {n.lower() for n in NAMED_FILES}
#: A path is in a format other than "other" only if one of its parts is one of these
#: folders or its name is one of these names (what :func:`classify` tests, as sets: the
#: tree walk asks for every file: typespec's 14,418 took 153 ms, now 20 ms).
_FORMAT_FOLDERS = frozenset({*(c for c, _, _ in RULE_DIRS), CLINE_DIR})
_FORMAT_NAMES = frozenset({*NAMED_FILES, *LEGACY_FILES, "copilot-instructions.md"})


@dataclass(frozen=True)
class FileFormat:
    kind: FormatKind
    #: The project (or home) directory the file belongs to: globs resolve against it and
    #: the chain that loads it is this directory's chain.
    owner: str
    #: The rules directory for rule formats (``<owner>/.claude/rules``), else ``None``.
    rules_dir: str | None = None
    #: Named file spelled other than the agent spells it (``agents.md``).
    misnamed: bool = False

    @property
    def is_rule(self) -> bool:
        return self.rules_dir is not None

    #: The classified path, as given.
    path_hint: str = ""

    @property
    def nested(self) -> bool:
        """Below a subdirectory of its rules directory."""
        return self.rules_dir is not None and os.path.dirname(self.path_hint) != self.rules_dir


def classify(path: str) -> FileFormat:
    """The format of ``path`` (absolute or relative; the result's paths follow its spelling)."""
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    # Innermost rules directory wins: ``a/.claude/rules/b/.cursor/rules/x`` is Cursor.
    for i in range(len(parts) - 2, 0, -1):
        for container, sub, kind in RULE_DIRS:
            if parts[i - 1] == container and parts[i] == sub and i < len(parts) - 1:
                owner = "/".join(parts[: i - 1]) or "/"
                rules_dir = "/".join(parts[: i + 1])
                return FileFormat(kind, owner, rules_dir, path_hint=path)
    parent = "/".join(parts[:-1]) or "."
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] != CLINE_DIR:
            continue
        # Cline's rules directory: every file below it is a rule (cline-rule), except its
        # workflows/, hooks/ and skills/ folders.
        if i + 2 < len(parts) and parts[i + 1] in CLINE_NOT_RULES:
            break
        return FileFormat("cline-rule", "/".join(parts[:i]) or "/", "/".join(parts[: i + 1]),
                          path_hint=path)
    if len(parts) >= 2 and parts[-2] == ".github" and name == "copilot-instructions.md":
        return FileFormat("copilot-repo", "/".join(parts[:-2]) or "/", path_hint=path)
    if name in NAMED_FILES or name.lower() in _NAMED_LOWER:
        owner = parent
        if len(parts) >= 2 and parts[-2] == ".claude":
            owner = "/".join(parts[:-2]) or "/"
        return FileFormat("named", owner, misnamed=name not in NAMED_FILES, path_hint=path)
    if name in LEGACY_FILES:
        return FileFormat("legacy", parent, path_hint=path)
    return FileFormat("other", parent, path_hint=path)


def is_instruction_file(path: str) -> bool:
    """Whether the tree walk should lint ``path``."""
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    if (name not in _FORMAT_NAMES and name.lower() not in _NAMED_LOWER
            and _FORMAT_FOLDERS.isdisjoint(parts)):
        return False  # what classify() would call "other", without its per-part loops
    fmt = classify(path)
    if fmt.kind == "other":
        return False
    low = os.path.basename(path).lower()
    if fmt.kind == "cline-rule":
        return low.endswith((".md", ".txt"))
    if fmt.is_rule:
        return low.endswith((".md", ".mdc", ".markdown")) or low == ".md"
    return True
