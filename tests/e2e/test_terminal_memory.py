"""Every agent's memory in Neovim as a person sees it (issue 24): a real terminal (tmux),
``:RuleLensMemoryAgent all`` then ``:RuleLensMemoryLive`` with the query typed key by key;
the live results are grouped by agent and marked "injected at start" / "on demand". The
screen is saved as ``artifacts/nvim-memory-agents.png`` and its text asserted."""

from __future__ import annotations

import os
import pathlib

from test_nvim import NVIMS, _nvim, build
from test_terminal_screens import ARTIFACTS, DEEP, SCREENS, _env, _tools

from helpers.termshot import Screen, render_png


def test_neovim_live_memory_search_every_agent(tmp_path: pathlib.Path) -> None:
    _tools()
    nvim = _nvim(max(NVIMS))
    demo = build(str(tmp_path / "demo"))
    env = {**_env(demo, tmp_path), "RULELENS_CACHE_DIR": str(tmp_path / "cache")}
    screen = Screen([nvim, "-u", str(SCREENS / "nvim_init.lua"), "-i", "NONE", "-n",
                     os.path.join(demo["repo"], DEEP)], env, demo["repo"])
    try:
        screen.wait_for("class Order")
        screen.keys(":RuleLensMemoryAgent all", "Enter")
        screen.keys(":RuleLensMemoryLive", "Enter")
        screen.wait_for("Type to search every agent's memory")
        screen.keys("-l", "stripe webhook")   # typed, not pasted as one command
        text = screen.wait_for("── Claude Code (", "── Gemini CLI (", "on demand",
                               "injected at start", timeout=90)
        render_png(screen.ansi(), ARTIFACTS / "nvim-memory-agents.png",
                   "Neovim: every agent's memory, live")
        lines = text.splitlines()
        heads = [x.strip() for x in lines if x.strip().startswith("── ")]
        assert [h.split(" (")[0] for h in heads] == ["── Claude Code", "── Gemini CLI"], heads
        assert any("stripe_webhooks.md" in x and "on demand" in x for x in lines), text
        assert any("memory> stripe webhook" in x for x in lines), text
    finally:
        screen.close()
    assert (ARTIFACTS / "nvim-memory-agents.png").stat().st_size > 10_000
