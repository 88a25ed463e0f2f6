"""The tree walk's quick test of a path (``is_instruction_file``) must say exactly what the
full location rules (``classify``) say: every rules folder, named file, legacy file and
Copilot file, at every depth, in any case, next to look-alikes."""

from __future__ import annotations

import itertools

from rulelens.agents.formats import LEGACY_FILES, NAMED_FILES, RULE_DIRS
from rulelens.lint.formats import CLINE_DIR, classify, is_instruction_file

_EXTS = (".md", ".mdc", ".markdown", ".txt", ".ts", "")


def _full_rules(path: str) -> bool:
    fmt = classify(path)
    low = path.rsplit("/", 1)[-1].lower()
    if fmt.kind == "other":
        return False
    if fmt.kind == "cline-rule":
        return low.endswith((".md", ".txt"))
    if fmt.is_rule:
        return low.endswith((".md", ".mdc", ".markdown")) or low == ".md"
    return True


def _paths() -> list[str]:
    names = [*NAMED_FILES, *LEGACY_FILES, "copilot-instructions.md", "agents.md",
             "Claude.MD", "README.md", "notes.txt", "x.instructions.md"]
    folders = [f"{c}/{s}" for c, s, _ in RULE_DIRS] + [CLINE_DIR, f"{CLINE_DIR}/hooks",
                                                       ".github", ".claude", "src", "rules"]
    out = []
    for base, folder in itertools.product(("", "/w", "/w/pkg/a"), ["", *folders]):
        stem = "/".join(p for p in (base, folder) if p)
        out += [f"{stem}/{n}" if stem else n for n in names]
        out += [f"{stem}/r{e}" if stem else f"r{e}" for e in _EXTS]
        out += [f"{stem}/sub/r.md" if stem else "sub/r.md"]
    return out


def test_the_quick_test_agrees_with_the_location_rules_everywhere() -> None:
    paths = _paths()
    assert len(paths) > 1000
    assert sum(map(is_instruction_file, paths)) > 200  # both answers are exercised
    for path in paths:
        assert is_instruction_file(path) == _full_rules(path), path
