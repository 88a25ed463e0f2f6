"""Row ↔ module for Cline, OpenCode, Qwen Code, Continue and Aider: every named file, rules
directory and home root a profile row names is found by the agent's module on a real tree
that has it, so the rows (and docs/agents.md, generated from them) say what the code does."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from rulelens.agents import aider, cline, continue_, opencode, qwen
from rulelens.agents.profiles import AgentProfile
from rulelens.agents.view import AgentView

MODULES = (cline, opencode, qwen, continue_, aider)


def _tree(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    root = Path(os.path.realpath(tmp_path))
    ws, home = root / "ws", root / "home"
    home.mkdir(parents=True)
    ws.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(ws)], check=True,
                   env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(home)})
    return ws, home, {"HOME": str(home), "PATH": "/nonexistent"}


def _write(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x\n")
    return path


def _seen(view: AgentView, path: Path) -> bool:
    return view.find(str(path)) is not None


def _rule_name(rules_path: str) -> str:
    return "r.mdc" if rules_path == ".cursor/rules" else "r.md"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.ID)
def test_named_files_are_found(module: object, tmp_path: Path) -> None:
    row: AgentProfile = module.PROFILE  # type: ignore[attr-defined]
    for i, named in enumerate(row.named_files):
        ws, _home, env = _tree(tmp_path / str(i))
        path = _write(ws / named.name)
        view = module.view(str(ws), None, env)  # type: ignore[attr-defined]
        assert _seen(view, path), (row.id, named.name)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.ID)
def test_rules_dirs_are_found(module: object, tmp_path: Path) -> None:
    row: AgentProfile = module.PROFILE  # type: ignore[attr-defined]
    for i, d in enumerate(row.rules_dirs):
        ws, _home, env = _tree(tmp_path / str(i))
        path = _write(ws / d.path / "sub" / _rule_name(d.path)) if d.recursive else \
            _write(ws / d.path / _rule_name(d.path))
        view = module.view(str(ws), None, env)  # type: ignore[attr-defined]
        assert _seen(view, path), (row.id, d.path)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.ID)
def test_home_roots_are_found(module: object, tmp_path: Path) -> None:
    row: AgentProfile = module.PROFILE  # type: ignore[attr-defined]
    for i, h in enumerate(row.home_roots):
        ws, home, env = _tree(tmp_path / str(i))
        base = home / row.home_default if h.base == "agent-home" else home
        root = base / h.path if h.path else base
        if h.named:
            paths = [_write(root / n.name) for n in row.named_files if "/" not in n.name]
            view = module.view(str(ws), None, env)  # type: ignore[attr-defined]
            assert any(_seen(view, p) for p in paths), (row.id, str(root))
        if h.rules_dir:
            path = _write(root / h.rules_dir / "r.md")
            view = module.view(str(ws), None, env)  # type: ignore[attr-defined]
            assert _seen(view, path), (row.id, str(root), h.rules_dir)
