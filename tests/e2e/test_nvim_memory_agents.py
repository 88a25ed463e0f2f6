"""Every agent's memory in real Neovim 0.7.2 and 0.11, headless, over the real server (issue
24): the picker grouped by agent with the injected / on-demand mark, the live prompt-buffer
search re-searching as keys are typed, and remember into Claude Code's memory."""

from __future__ import annotations

import pathlib

import pytest
from test_nvim import NVIMS, ROOT, _nvim, build, run_driver  # the same Neovim discovery

DRIVER = ROOT / "tests" / "e2e" / "nvim" / "memory_agents_driver.lua"


@pytest.mark.parametrize("version", sorted(NVIMS))
def test_every_agents_memory_in_headless_neovim(version: str, tmp_path: pathlib.Path) -> None:
    nvim = _nvim(version)
    demo = build(str(tmp_path / "demo"))
    res = run_driver(nvim, DRIVER, demo, tmp_path,
                     extra_env={"RULELENS_CACHE_DIR": str(tmp_path / "cache")})
    assert res["version"] == version
    assert res["steps"] == ["attached", "grouped", "live", "remember"], res.get("error")
    grouped = res["grouped"]
    assert grouped["prompt"] == "RuleLens memory (all, grouped by agent)"
    assert res["groups"] == ["Gemini CLI (1)", "Claude Code (2)"]
    labels = grouped["labels"]
    assert labels[0].startswith("Gemini CLI · injected at start  1.00  ~/.gemini/tmp/demo-shop/"
                                "memory/MEMORY.md:1-5  - Stripe webhook retries back off")
    heads = [label.split("  ")[0] for label in labels]
    # Grouped by agent; inside Claude's group the ranking orders the two hits.
    assert heads[0] == "Gemini CLI · injected at start"
    assert sorted(heads[1:]) == ["Claude Code · injected at start", "Claude Code · on demand"]
    assert res["live_empty"] == ["Type to search every agent's memory"]
    first = res["live_first"]
    assert first[0] == "── Claude Code (2) ──"
    assert any(line.startswith("── Gemini CLI (") for line in first)
    assert any("injected at start" in line for line in first)
    assert any("on demand" in line for line in first)
    second = res["live_second"]  # re-searched as typed: now only Gemini's refunds notes
    assert second[0] == "── Gemini CLI (2) ──" and res["live_searches"] >= 2
    assert "refunds.md" in second[1] and "on demand" in second[1]
    assert res["live_opened"].endswith("/.gemini/tmp/demo-shop/memory/refunds.md")
    agents = res["remember_agents"]
    assert agents["prompt"] == "RuleLens: remember into which agent's memory?"
    assert agents["labels"][0] == "Grok  (present)"
    assert "Claude Code  (present)" in agents["labels"]
    assert any(label.startswith("Codex") and "writes its own memory" in label
               for label in agents["labels"])
    done = res["remembered"]
    assert done["agent"] == "claude" and done["text"] == "- ship on Tuesdays\n"
    assert pathlib.Path(done["path"]).read_text().endswith(
        "\n- ship on Tuesdays\n")
    assert res["preview"][-2:] == ["- ship on Tuesdays", ""]
