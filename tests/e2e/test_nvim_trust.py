"""Real Neovim: `:RuleLensChain` says when folder trust withholds files (issue 12).

The demo home trusts the demo repository; deleting that grant leaves the folder undecided
for grok@1.0.45, the default profile.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
from test_nvim import NVIMS, ROOT, _nvim, build  # the same Neovim discovery

DRIVER = ROOT / "tests" / "e2e" / "nvim" / "trust_driver.lua"


@pytest.mark.parametrize("version", sorted(NVIMS))
def test_sidebar_shows_the_trust_line(version: str, tmp_path: pathlib.Path) -> None:
    nvim = _nvim(version)
    demo = build(str(tmp_path / "demo"))
    (pathlib.Path(demo["grok_home"]) / "trusted_folders.toml").unlink()
    xdg = tmp_path / "xdg"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GROK_", "XAI_", "XDG_", "NVIM", "VIM"))}
    env.update(HOME=demo["home"], GROK_HOME=demo["grok_home"], OUT=str(tmp_path / "r.json"),
               WS=demo["repo"], RULELENS_PLUGIN=str(ROOT / "nvim"),
               RULELENS_CMD=json.dumps([sys.executable, "-m", "rulelens", "serve"]),
               XDG_CONFIG_HOME=str(xdg / "config"), XDG_DATA_HOME=str(xdg / "data"),
               XDG_STATE_HOME=str(xdg / "state"), XDG_CACHE_HOME=str(xdg / "cache"))
    proc = subprocess.run(
        ["timeout", "-k", "5", "90", nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n",
         "-c", f"luafile {DRIVER}"],
        cwd=demo["repo"], env=env, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL)
    res = json.loads((tmp_path / "r.json").read_text())
    assert proc.returncode == 0, (res.get("error"), proc.stderr[-2000:])
    side = res["sidebar"]
    trust = [line for line in side if line.startswith("! ")]
    assert trust and trust[0].startswith("! Folder not trusted yet: 5 project files withheld;")
    assert "`grok --trust`" in " ".join(side[side.index(trust[0]):side.index(trust[0]) + 3])
    assert "Loaded (2), first to last; the last wins:" in side
    assert sum("[untrusted-folder]" in line for line in side) == 5
