"""Neovim's empty states say why and what next (issue 20): `:RuleLensRender` with nothing
injected, and the sidebar when no enabled agent loads a file. Real headless Neovim 0.7 and
0.11, the real server, an untrusted repository with only AGENTS.md and an empty home."""

from __future__ import annotations

import pathlib
import subprocess

import pytest
from test_nvim import NVIMS, ROOT, _nvim, run_driver  # the same Neovim discovery

DRIVER = ROOT / "tests" / "e2e" / "nvim" / "empty_driver.lua"


@pytest.mark.parametrize("version", sorted(NVIMS))
def test_empty_states_say_why(version: str, tmp_path: pathlib.Path) -> None:
    nvim = _nvim(version)
    home = tmp_path / "home"
    home.mkdir()
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "AGENTS.md").write_text("# Rules\n\n- Use tabs.\n")
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('hi')\n")
    (home / ".grok").mkdir()   # Grok in use: its folder trust withholds AGENTS.md
    demo = {"home": str(home), "grok_home": str(home / ".grok"), "repo": str(repo)}
    res = run_driver(nvim, DRIVER, demo, tmp_path)
    assert res["steps"] == ["attached", "render", "sidebar"]
    message = next(n for n in res["render_notes"] if "nothing to render" in n)
    assert "withheld because the folder is not trusted" in message and "grok --trust" in message
    assert res["render_new_buffers"] == 0          # no empty buffer opened
    side = res["sidebar"]
    assert side[1].startswith("Grok 0 (+1 after trust)"), side[:3]
    text = " ".join(line.strip() for line in side)   # long lines wrap at word boundaries
    assert "! Folder not trusted yet: 1 project file withheld; run `grok --trust` here" in text
    assert "No enabled agent loads" not in text   # Codex loads AGENTS.md: not an empty view


@pytest.mark.parametrize("version", sorted(NVIMS))
def test_no_grok_headline_without_grok(version: str, tmp_path: pathlib.Path) -> None:
    """A Claude + Cursor repository, no Grok files and no ~/.grok: the sidebar's headline
    (the lens's words) speaks for Claude and Cursor only."""
    nvim = _nvim(version)
    home = tmp_path / "home"
    home.mkdir()
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "CLAUDE.md").write_text("# Claude\n")
    (repo / ".cursor" / "rules").mkdir(parents=True)
    (repo / ".cursor" / "rules" / "style.mdc").write_text("---\nalwaysApply: true\n---\nx\n")
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('hi')\n")
    demo = {"home": str(home), "grok_home": str(home / ".grok"), "repo": str(repo)}
    res = run_driver(nvim, DRIVER, demo, tmp_path)
    assert res["steps"] == ["attached", "render", "sidebar"]
    headline = res["sidebar"][1]
    assert headline.startswith("Claude 1 · "), res["sidebar"][:3]
    assert "Cursor 1 · " in " ".join(res["sidebar"][1:4])
    assert not any(line.startswith("Grok") for line in res["sidebar"]), res["sidebar"]
