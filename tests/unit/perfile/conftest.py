"""Fixtures for the per-agent view tests (helpers live in ``agenttree``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture
def base(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path))


@pytest.fixture
def home(base: Path) -> Path:
    h = base / "home"
    h.mkdir()
    return h
