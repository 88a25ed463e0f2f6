"""Helpers for the rules tests: real trees on disk, a fake home, real ``git init``.

Nothing here mocks the file system or git: every fixture writes files into ``tmp_path``
and runs the real ``git init``. The home is fake and reaches the core only through the
environment mapping given to ``AgentEnvironment.from_env``.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from rulelens.rules import AgentEnvironment, Chain, Resolver


def git_init(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True,
                   env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(path)})
    return path


def write(path: Path, text: str | bytes = "x\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))
    return path


@dataclass
class World:
    """A fake home (``home``) plus a scratch area; ``env`` is what the agent would see."""

    base: Path
    home: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def grok_home(self) -> Path:
        return Path(self.env["GROK_HOME"]) if self.env.get("GROK_HOME") else self.home / ".grok"

    def resolve(self, cwd: Path | str, **extra: str) -> Chain:
        env = {**self.env, **extra}
        return Resolver(AgentEnvironment.from_env(env)).resolve(str(cwd))

    def paths(self, chain: Chain) -> list[str]:
        """Loaded paths relative to ``base`` (home files show up as ``home/...``)."""
        return [os.path.relpath(f.path, self.base) for f in chain.files]

    def skipped(self, chain: Chain) -> list[tuple[str, str]]:
        return [(os.path.relpath(s.path, self.base), str(s.reason)) for s in chain.skipped]


def make_world(tmp_path: Path) -> World:
    base = Path(os.path.realpath(tmp_path))
    home = base / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    return World(base, home, env)


def resolve_as(world: World, cwd: Path | str, agent: str, trust: str = "auto",
               **extra: str) -> Chain:
    """``world.resolve`` with a chosen profile (``grok@1.0.45``) and trust override."""
    from rulelens.agents.profiles import profile

    env = {**world.env, **extra}
    return Resolver(AgentEnvironment.from_env(env), profile(agent),
                    trust).resolve(str(cwd))  # type: ignore[arg-type]


def trust_folder(world: World, folder: Path, trusted: bool = True) -> Path:
    """Record a decision in ``$GROK_HOME/trusted_folders.toml`` as ``grok --trust`` does."""
    store = world.grok_home / "trusted_folders.toml"
    store.parent.mkdir(parents=True, exist_ok=True)
    old = store.read_text() if store.exists() else ""
    key = os.path.realpath(folder)
    store.write_text(old + f'[folders."{key}"]\ntrusted = {str(trusted).lower()}\n'
                     'decided_at = 1759000000\n')
    return store
