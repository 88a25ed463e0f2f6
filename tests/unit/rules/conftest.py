"""Fixtures for the rules tests (helpers live in ``rulestree``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rulestree import World, git_init, make_world


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


@pytest.fixture
def repo(world: World) -> Path:
    return git_init(world.base / "repo")
