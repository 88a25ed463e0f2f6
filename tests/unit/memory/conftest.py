"""Fixtures for the memory tests: a fake home on disk, never the real HOME."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from memhome import MemHome, git


@pytest.fixture
def memhome(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> Iterator[MemHome]:
    root = str(tmp_path)
    home = os.path.join(root, "home")
    grok = os.path.join(home, ".grok")
    repo = os.path.join(root, "work", "shop")
    os.makedirs(grok)
    os.makedirs(repo)
    git(repo, "init", "-q")
    git(repo, "remote", "add", "origin", "git@github.com:acme/shop.git")
    mh = MemHome(root, home, grok, os.path.join(root, "cache"), repo)
    for key, value in mh.env.items():
        if key in ("HOME", "GROK_HOME", "RULELENS_CACHE_DIR", "XDG_CACHE_HOME",
                   "XDG_CONFIG_HOME"):
            monkeypatch.setenv(key, value)
    yield mh
