"""OpenCode's own instruction tests, ported to RuleLens' OpenCode model.

Origin: ``anomalyco/opencode@1565a419:packages/opencode/test/session/instruction.test.ts``
(each test names its ``it.live(...)`` title). The fixtures there give OpenCode a temporary
directory as the instance and ``Global`` (``home`` and ``config``) pointed at another; here
the same trees are real directories, ``HOME`` and ``XDG_CONFIG_HOME`` point at the global
one, and the project is a real git repository (OpenCode's worktree). ``resolve`` for a read
file is the view's *on-read* group.

Not ported, with the reason: "clear allows nearby instructions to be attached again" and
"skips instructions already reported by prior read metadata" need a conversation's message
state (RuleLens has one view per file, listing each path once); the ``Instruction.custom``
tests cover ``customInstructions``, which the pinned research does not describe.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from rulelens.agents import opencode
from rulelens.agents.view import AgentView, ViewFile

ORIGIN = "anomalyco/opencode@1565a419:packages/opencode/test/session/instruction.test.ts"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _repo(tmp_path: Path, name: str = "project") -> Path:
    d = Path(os.path.realpath(tmp_path)) / name
    d.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(d)], check=True,
                   env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(d)})
    return d


def _global(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    g = Path(os.path.realpath(tmp_path)) / "global"
    g.mkdir()
    # Global.Path.config is <XDG_CONFIG_HOME>/opencode; the test points config at `g` itself.
    (g / "xdg").mkdir()
    (g / "xdg" / "opencode").symlink_to(g)
    return g, {"HOME": str(g), "XDG_CONFIG_HOME": str(g / "xdg")}


def _view(project: Path, env: dict[str, str], file: Path | None = None) -> AgentView:
    return opencode.view(str(project), str(file) if file else None, env)


def test_returns_empty_when_agents_md_is_at_project_root(tmp_path: Path) -> None:
    """instruction.test.ts: "returns empty when AGENTS.md is at project root (already in
    systemPaths)"."""
    project = _repo(tmp_path)
    _, env = _global(tmp_path)
    root = _write(project / "AGENTS.md", "# Root Instructions")
    v = _view(project, env, _write(project / "src" / "file.ts", "const x = 1"))
    assert [f.path for f in v.of("start")] == [str(root)]
    assert v.of("on-read") == ()


def test_returns_agents_md_from_subdirectory(tmp_path: Path) -> None:
    """instruction.test.ts: "returns AGENTS.md from subdirectory (not in systemPaths)"."""
    project = _repo(tmp_path)
    _, env = _global(tmp_path)
    sub = _write(project / "subdir" / "AGENTS.md", "# Subdir Instructions")
    v = _view(project, env, _write(project / "subdir" / "nested" / "file.ts", "const x = 1"))
    assert v.of("start") == ()
    assert [f.path for f in v.of("on-read")] == [str(sub)]
    assert v.of("on-read")[0].content == "# Subdir Instructions"


def test_does_not_reload_agents_md_when_reading_it_directly(tmp_path: Path) -> None:
    """instruction.test.ts: "doesn't reload AGENTS.md when reading it directly"."""
    project = _repo(tmp_path)
    _, env = _global(tmp_path)
    sub = _write(project / "subdir" / "AGENTS.md", "# Subdir Instructions")
    _write(project / "subdir" / "nested" / "file.ts", "const x = 1")
    v = _view(project, env, sub)
    assert v.files == ()


def test_does_not_reattach_the_same_nearby_instructions_twice(tmp_path: Path) -> None:
    """instruction.test.ts: "does not reattach the same nearby instructions twice for one
    message" — the nearby file is listed once, and its reason says once per message."""
    project = _repo(tmp_path)
    _, env = _global(tmp_path)
    sub = _write(project / "subdir" / "AGENTS.md", "# Subdir Instructions")
    target = _write(project / "subdir" / "nested" / "file.ts", "const x = 1")
    first, second = _view(project, env, target), _view(project, env, target)
    assert [f.path for f in first.of("on-read")] == [str(sub)]
    assert "once per message" in first.of("on-read")[0].why
    assert first.to_json() == second.to_json()


def test_loads_both_project_and_global_agents_md(tmp_path: Path) -> None:
    """instruction.test.ts: "loads both project and global AGENTS.md when both exist":
    rules[0] is the global file, rules[1] the project file, each framed
    ``Instructions from: <path>\\n<content>``."""
    g, env = _global(tmp_path)
    project = _repo(tmp_path)
    _write(g / "AGENTS.md", "# Global Instructions")
    _write(project / "AGENTS.md", "# Project Instructions")
    v = _view(project, env)
    glob_path = os.path.join(str(g / "xdg" / "opencode"), "AGENTS.md")
    assert [f.path for f in v.files] == [glob_path, str(project / "AGENTS.md")]
    assert v.rendered == (f"Instructions from: {glob_path}\n# Global Instructions\n"
                          f"Instructions from: {project / 'AGENTS.md'}\n# Project Instructions")


def test_skips_project_and_global_claude_md_when_prompt_disabled(tmp_path: Path) -> None:
    """instruction.test.ts: "skips project and global CLAUDE.md when Claude Code prompt is
    disabled"."""
    g, env = _global(tmp_path)
    project = _repo(tmp_path)
    gclaude = _write(g / ".claude" / "CLAUDE.md", "# Global Claude")
    pclaude = _write(project / "CLAUDE.md", "# Project Claude")
    v = _view(project, {**env, "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT": "1"})
    assert v.files == () and v.rendered == ""
    assert {s.path for s in v.not_loaded} == {str(gclaude), str(pclaude)}
    on = _view(project, env)
    assert [f.path for f in on.files] == [str(gclaude), str(pclaude)]


def test_uses_global_config_agents_md(tmp_path: Path) -> None:
    """instruction.test.ts: "uses Global.Service config AGENTS.md"."""
    g, env = _global(tmp_path)
    project = _repo(tmp_path)
    _write(g / "AGENTS.md", "# Global Instructions")
    found = _view(project, env).files
    assert len(found) == 1 and isinstance(found[0], ViewFile)
    assert found[0].path.endswith("opencode/AGENTS.md") and found[0].role == "home"
    assert ORIGIN.startswith("anomalyco/opencode@")
