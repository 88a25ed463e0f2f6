"""The lint package keeps no state of its own: a LintSession owns every cache."""

from __future__ import annotations

import copy
import functools
import importlib
import pkgutil
from types import ModuleType
from typing import Any

from lintrepo import Repo

import rulelens.lint
from rulelens.lint.session import LintSession
from rulelens.rules import AgentEnvironment


def _modules() -> list[ModuleType]:
    names = [m.name for m in pkgutil.walk_packages(rulelens.lint.__path__, "rulelens.lint.")]
    return [importlib.import_module(n) for n in names]


def _containers() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for module in _modules():
        for name, value in vars(module).items():
            if name.startswith("__"):
                continue  # __builtins__, __all__: the interpreter's, not the package's
            if isinstance(value, dict | list | set | bytearray):
                out[f"{module.__name__}.{name}"] = copy.deepcopy(value)
    return out


def test_no_memoised_functions_in_the_lint_package() -> None:
    cached = [f"{m.__name__}.{name}" for m in _modules() for name, v in vars(m).items()
              if isinstance(v, functools._lru_cache_wrapper)]
    assert cached == []


def test_linting_leaves_module_state_untouched(repo: Repo) -> None:
    repo.files({
        "src/a.py": "", "AGENTS.md": "# Rules\n\n## Testing\n\nRun pytest.\n",
        "src/AGENTS.md": "# Src\n\n## Testing\n\nRun unit tests.\n\nSee [x](missing.md).\n",
        ".claude/rules/py.md": '---\npaths:\n  - "src/**"\n  - "lib/**"\n---\nHints.\n',
    })
    before = _containers()
    assert before  # the walk found the constant tables
    session = LintSession(AgentEnvironment.from_env(repo.env))
    found = [f for rel in ("AGENTS.md", "src/AGENTS.md", ".claude/rules/py.md")
             for f in session.lint(repo.path(rel))]
    assert {f.code for f in found} >= {"RL403", "RL505", "RL118"}
    assert _containers() == before
    # The session is where the memory is: a second session starts with none of it.
    assert session.caches.tables.outlines and not LintSession(
        AgentEnvironment.from_env(repo.env)).caches.tables.outlines
