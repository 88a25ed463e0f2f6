"""A workspace (a real git repository) and a fake home that exists only through ``env``."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rulelens.agents.profiles import grok_profile
from rulelens.rules import AgentEnvironment, Resolver
from rulelens.sessions import verify


class Workspace:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.home = base / "home"
        self.home.mkdir()
        self.repo = base / "repo"
        subprocess.run(["git", "init", "-q", str(self.repo)], check=True)
        self.env = {"HOME": str(self.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}

    def write(self, rel: str, text: str) -> Path:
        path = self.repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def verify(self, agent: str, cwd: Path, path: Path | None = None,
               session: str = "latest") -> dict[str, Any]:
        resolve: Callable[[str], Any] = Resolver(AgentEnvironment.from_env(self.env),
                                                  grok_profile(None)).resolve
        return verify.verify(agent, str(cwd), str(path) if path else None, self.env, resolve,
                             session)


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(Path(os.path.realpath(tmp_path)))


def by_path(result: dict[str, Any]) -> dict[str, tuple[str, bool]]:
    return {o["path"]: (o["when"], o["matches_disk"]) for o in result["observed"]}


def diffs(result: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(d["path"], d["predicted"], d["observed"]) for d in result["differences"]}
