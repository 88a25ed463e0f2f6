"""Real trees on disk for the per-agent tests: files, a fake home, real ``git init``.

Every agent module reads only the files written here and the environment mapping given
to it (``HOME``, ``CODEX_HOME``, ...); nothing is mocked.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from rulelens.agents.view import AgentView, NotLoaded, ViewFile


def write(path: Path, text: str | bytes = "x\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def write_json(path: Path, data: object) -> Path:
    return write(path, json.dumps(data))


def git_init(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True,
                   env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(path)})
    return path


def env_for(home: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), **extra}


def loaded(view: AgentView, when: str | None = None) -> list[str]:
    """Loaded paths (``when`` filters) in view order."""
    return [f.path for f in view.files if when is None or f.when == when]


def entry(view: AgentView, path: Path | str) -> ViewFile:
    found = view.find(str(path))
    assert isinstance(found, ViewFile), f"{path} not loaded: {found}"
    return found


def skipped(view: AgentView, path: Path | str) -> NotLoaded:
    found = view.find(str(path))
    assert isinstance(found, NotLoaded), f"{path} not in not_loaded: {found}"
    return found
