"""A fake home for memory tests: real files and a real git repository under tmp_path."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass

from rulelens.memory.workspace import MemoryLocation, locate


@dataclass
class MemHome:
    """A fake ``$HOME`` with ``.grok`` and a workspace folder (a real git repository)."""

    root: str
    home: str
    grok_home: str
    cache: str
    repo: str

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "HOME": self.home, "GROK_HOME": self.grok_home,
                "RULELENS_CACHE_DIR": self.cache, "XDG_CACHE_HOME": self.cache + "-xdg",
                "XDG_CONFIG_HOME": self.home + "/.config"}

    def location(self) -> MemoryLocation:
        return locate(self.repo, self.grok_home)

    def write(self, rel: str, text: str | bytes) -> str:
        """Write a file relative to the memory root; ``ws/`` means the workspace dir."""
        loc = self.location()
        if rel.startswith("ws/"):
            path = os.path.join(loc.workspace_dir, rel[3:])
        else:
            path = os.path.join(loc.global_dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(text.encode() if isinstance(text, str) else text)
        return path


def git(cwd: str, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": cwd})
