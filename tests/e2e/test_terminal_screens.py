"""Neovim and Emacs as a person sees them, in a real terminal (tmux), on the demo: the
headline the lens gives is the one the sidebar shows, for the same start directory, in a
trusted and an untrusted folder. The screens are saved as PNG in ``artifacts/`` (rendered by
headless Chromium) and their text is asserted."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import sys

import pytest
from test_nvim import NVIMS, ROOT, _nvim, build

from helpers.termshot import CHROMIUM, Screen, render_png

ARTIFACTS = pathlib.Path(os.environ.get("RULELENS_ARTIFACTS", ROOT / "artifacts"))
SCREENS = ROOT / "tests" / "e2e" / "screens"
DEEP = "src/app/handlers/orders.py"


def _env(demo: dict[str, str], tmp_path: pathlib.Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GROK_", "XAI_", "XDG_", "NVIM", "VIM", "EMACS", "TMUX"))}
    env.update(HOME=demo["home"], GROK_HOME=demo["grok_home"], RULELENS_PLUGIN=str(ROOT / "nvim"),
               RULELENS_ROOT=str(ROOT), FILE=os.path.join(demo["repo"], DEEP),
               RULELENS_CMD=json.dumps([sys.executable, "-m", "rulelens", "serve"]),
               XDG_CONFIG_HOME=str(tmp_path / "xdg" / "config"),
               XDG_DATA_HOME=str(tmp_path / "xdg" / "data"),
               XDG_STATE_HOME=str(tmp_path / "xdg" / "state"),
               XDG_CACHE_HOME=str(tmp_path / "xdg" / "cache"))
    return env


def _tools() -> None:
    missing = [t for t in ("tmux", CHROMIUM) if not shutil.which(t)]
    if missing:
        if os.environ.get("RULELENS_REQUIRE_NVIM_E2E") == "1":
            pytest.fail(f"missing {missing}; run scripts/test")
        pytest.skip(f"missing {missing}")


def _headline(screen: str, pane: int = 0) -> str:
    """The sidebar's headline (wrapped over lines of its pane), joined again."""
    lines = [x.split("│")[pane].strip() for x in screen.splitlines()]
    first = next(i for i, x in enumerate(lines) if x.startswith("Grok "))
    last = next(i for i, x in enumerate(lines) if "sessions start in" in x and i >= first)
    joined = " ".join(lines[first:last + 1])
    return joined[:joined.index(" · sessions start in")]


def test_neovim_screens_trusted_and_untrusted(tmp_path: pathlib.Path) -> None:
    _tools()
    nvim = _nvim(max(NVIMS))
    demo = build(str(tmp_path / "demo"))
    env = _env(demo, tmp_path)
    screen = Screen([nvim, "-u", str(SCREENS / "nvim_init.lua"), "-i", "NONE", "-n",
                     os.path.join(demo["repo"], DEEP)], env, demo["repo"])
    try:
        screen.wait_for("class Order")
        screen.keys(":RuleLensChain", "Enter")
        text = screen.wait_for("sessions start in", "Grok — start directory", timeout=90)
        headline = _headline(text)
        render_png(screen.ansi(), ARTIFACTS / "nvim-active-rules.png", "Neovim: RuleLens")
        # The lens (virtual text after line 1) begins with the sidebar's headline.
        first = next(x.split("│")[1] for x in text.splitlines() if "Order handlers" in x)
        lens = first.split('"""', 2)[2].strip()
        assert lens and headline.startswith(lens.rstrip(" ·")[:40]), (lens, headline)
        assert headline.startswith("Grok 5 · "), headline
        # Untrusted: without the demo's `grok --trust` grant, Grok's files wait for trust.
        pathlib.Path(demo["grok_home"], "trusted_folders.toml").unlink()
        untrusted = screen.wait_for("after trust", "Folder not trusted yet", timeout=60)
        render_png(screen.ansi(), ARTIFACTS / "nvim-untrusted.png", "Neovim: untrusted folder")
        assert "Grok 2 (+3 after trust)" in untrusted, untrusted
    finally:
        screen.close()
    assert (ARTIFACTS / "nvim-active-rules.png").stat().st_size > 10_000
    assert (ARTIFACTS / "nvim-untrusted.png").stat().st_size > 10_000


def test_emacs_screen(tmp_path: pathlib.Path) -> None:
    _tools()
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.fail("Emacs not found; run scripts/test")
    demo = build(str(tmp_path / "demo"))
    env = _env(demo, tmp_path)
    screen = Screen([emacs, "-nw", "-Q", "-l", str(SCREENS / "emacs_init.el")], env,
                    demo["repo"])
    try:
        text = screen.wait_for("RuleLens lens: Grok", "sessions start in", timeout=90)
        render_png(screen.ansi(), ARTIFACTS / "emacs-agents.png", "Emacs: RuleLens")
        lens = next(x for x in reversed(text.splitlines()) if x.startswith("RuleLens lens: "))
        lens = lens.split("RuleLens lens: ", 1)[1].strip()   # the echo area, the last line
        assert lens.startswith("Grok 5 · "), lens
        # *RuleLens agents* (the right window; Emacs wraps long lines with a trailing \).
        right = [x.split("|", 1)[1] for x in text.splitlines() if "|" in x]
        agents = "".join(x[:-1] if x.endswith("\\") else x + "\n" for x in right)
        assert lens.partition(" · +")[0] in agents, (lens, agents)
        assert "\nClaude Code\n" in agents and "other agents' files" in agents
    finally:
        screen.close()
    assert (ARTIFACTS / "emacs-agents.png").stat().st_size > 10_000
