"""The arrow rule: ``rulelens.agents`` is the ground floor and imports nothing else from
``rulelens``; ``memory`` reaches the agent's environment through it, not through ``rules``."""

from __future__ import annotations

import ast
from pathlib import Path

import rulelens

PACKAGE = Path(rulelens.__file__).parent


def _imports(path: Path, top: Path = PACKAGE.parent) -> set[str]:
    """Every module an ``import``/``from ... import`` in ``path`` names (relative resolved);
    ``top`` is the directory holding the ``rulelens`` package."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    parts = path.relative_to(top).with_suffix("").parts
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(parts[: len(parts) - node.level])
                found.add(f"{base}.{node.module}" if node.module else base)
            elif node.module is not None:
                found.add(node.module)
    return found


def _package_imports(sub: str) -> dict[str, set[str]]:
    return {str(p.relative_to(PACKAGE)): _imports(p) for p in (PACKAGE / sub).rglob("*.py")}


def test_agents_imports_nothing_else_from_rulelens() -> None:
    offending = {
        name: sorted(m for m in mods if m.startswith("rulelens")
                     and m != "rulelens.agents" and not m.startswith("rulelens.agents."))
        for name, mods in _package_imports("agents").items()
    }
    assert {k: v for k, v in offending.items() if v} == {}
    assert len(offending) >= 5  # profiles, formats, environment, compat, fs (at least)


def test_memory_does_not_import_rules() -> None:
    offending = {
        name: sorted(m for m in mods if m == "rulelens.rules" or m.startswith("rulelens.rules."))
        for name, mods in _package_imports("memory").items()
    }
    assert {k: v for k, v in offending.items() if v} == {}


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    """The import scan itself works: a planted upward import is found."""
    planted = tmp_path / "rulelens" / "agents" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text("from rulelens.rules import Resolver\nfrom . import profiles\n"
                       "import rulelens.lint.engine\n")
    mods = _imports(planted, tmp_path)
    assert mods == {"rulelens.rules", "rulelens.agents", "rulelens.lint.engine"}
