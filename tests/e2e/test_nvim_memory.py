"""The Neovim memory commands in real Neovim 0.7.2 and 0.11, headless, over the real server:
:RuleLensMemory (picker through vim.ui.select, <CR> opens the chunk), :RuleLensMemoryRank,
:RuleLensMemoryExplain, :RuleLensMemoryStatus, :RuleLensMemoryContext, :RuleLensRemember.
"""

from __future__ import annotations

import os
import pathlib

import pytest
from test_nvim import NVIMS, ROOT, _nvim, build, run_driver  # the same Neovim discovery

DRIVER = ROOT / "tests" / "e2e" / "nvim" / "memory_driver.lua"


@pytest.mark.parametrize("version", sorted(NVIMS))
def test_memory_commands_in_headless_neovim(version: str, tmp_path: pathlib.Path) -> None:
    nvim = _nvim(version)
    demo = build(str(tmp_path / "demo"))
    res = run_driver(nvim, DRIVER, demo, tmp_path,
                     extra_env={"RULELENS_CACHE_DIR": str(tmp_path / "cache")})
    assert res["version"] == version
    assert res["steps"] == ["attached", "picker", "best", "explain", "status", "context",
                            "remember"]
    memory = os.path.join(demo["grok_home"], "memory", "demo-shop-5a7bd946", "MEMORY.md")
    agent = res["agent_picker"]
    assert agent["prompt"] == "RuleLens memory (agent)"
    first = agent["labels"][0]
    # Score first, the file name:lines, its folder, flags, then the matched sentence (not
    # the context): the name never hides behind a long memory folder.
    assert first.startswith("1.00  MEMORY.md:5-11  ~/.grok/memory/demo-shop-5a7bd946/  [workspace,"
                            " agent, first turn]  - Stripe webhooks are verified in"), first
    assert "[Context:" not in first
    assert res["opened"] == memory and res["cursor"] == 5 and res["opened_line"] == "## Payments"
    best = res["best_picker"]
    assert best["prompt"] == "RuleLens memory (best)"
    assert best["labels"][0].split("  ")[1:3] == ["MEMORY.md:5-11",
                                                  "~/.grok/memory/demo-shop-5a7bd946/"]
    explain = res["explain"]
    assert explain[0] == "RuleLens memory · stripe webhook retries · rank best"
    assert any(line.startswith("    best: bm25 ") and "coverage 1.00" in line for line in explain)
    assert any(line.startswith("    agent: keyword 1.00 (#1)") for line in explain)
    status = res["status"]
    assert status[2] == "agent:         grok@1.0.45"
    assert status[3].startswith("store:         memory: off — the agent's default")
    assert res["context"][0] == "(nothing is injected)" and res["context_modifiable"] is False
    assert res["remember_prompt"]["labels"] == ["global", "workspace"]
    assert res["preview"][0].startswith("RuleLens: this exact text is written to ")
    assert res["preview"][-3:] == ["## Refunds go through the ledger", "",
                                   "never edit journal rows"]
    saved = res["remembered"]["path"]
    assert saved == os.path.join(demo["grok_home"], "memory", "MEMORY.md")
    assert pathlib.Path(saved).read_text().endswith(
        "\n\n## Refunds go through the ledger\n\nnever edit journal rows")
