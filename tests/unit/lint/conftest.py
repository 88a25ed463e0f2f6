"""Fixtures for lint tests: a real git repository and a fake home under tmp_path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from lintrepo import Repo, make_repo


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repo]:
    r = make_repo(str(tmp_path))
    for key, value in r.env.items():
        monkeypatch.setenv(key, value)
    yield r
