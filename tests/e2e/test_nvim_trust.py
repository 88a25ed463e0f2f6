"""Real Neovim: `:RuleLensChain here` says when folder trust withholds files (issue 12).

The demo home trusts the demo repository; deleting that grant leaves the folder undecided
for grok@1.0.45, the default profile.
"""

from __future__ import annotations

import pathlib

import pytest
from test_nvim import NVIMS, ROOT, _nvim, build, run_driver  # the same Neovim discovery

DRIVER = ROOT / "tests" / "e2e" / "nvim" / "trust_driver.lua"


@pytest.mark.parametrize("version", sorted(NVIMS))
def test_sidebar_shows_the_trust_line(version: str, tmp_path: pathlib.Path) -> None:
    nvim = _nvim(version)
    demo = build(str(tmp_path / "demo"))
    (pathlib.Path(demo["grok_home"]) / "trusted_folders.toml").unlink()
    res = run_driver(nvim, DRIVER, demo, tmp_path, seconds=90)
    side = res["sidebar"]
    trust = [line for line in side if line.startswith("! ")]
    assert trust and trust[0].startswith("! Folder not trusted yet: 5 project files withheld;")
    assert "`grok --trust`" in " ".join(side[side.index(trust[0]):side.index(trust[0]) + 3])
    assert "Loaded (2), first to last; the last wins:" in side
    assert sum("[untrusted-folder]" in line for line in side) == 5
