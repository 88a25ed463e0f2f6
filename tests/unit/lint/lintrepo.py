"""A real git repository on disk plus a fake home, and helpers to lint files in it."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field

from rulelens.lint import LintConfig, lint_document
from rulelens.lint.caches import LintCaches
from rulelens.lint.config import from_mapping
from rulelens.lint.engine import chain_dir
from rulelens.lint.model import Finding
from rulelens.rules import AgentEnvironment, Resolver

PROBLEM = ("error", "warning")


@dataclass
class Repo:
    root: str
    home: str
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def env(self) -> dict[str, str]:
        return {
            "HOME": self.home,
            "GROK_HOME": os.path.join(self.home, ".grok"),
            "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            **self.extra_env,
        }

    def path(self, rel: str) -> str:
        return os.path.join(self.root, rel)

    def write(self, rel: str, content: str | bytes) -> str:
        path = self.path(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(content, bytes):
            with open(path, "wb") as fh:
                fh.write(content)
        else:
            with open(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(content)
        return path

    def files(self, files: dict[str, str | bytes]) -> None:
        for rel, content in files.items():
            self.write(rel, content)

    def lint(self, rel: str, config: LintConfig | None = None,
             thresholds: dict[str, int] | None = None) -> list[Finding]:
        path = self.path(rel)
        if config is None:
            config = from_mapping({"thresholds": thresholds or {}}, "test")
            assert not config.problems, config.problems
        chain = Resolver(AgentEnvironment.from_env(self.env)).resolve(chain_dir(path))
        if os.path.isdir(path) or not os.path.lexists(path):
            text = ""
        else:
            try:
                with open(path, "rb") as fh:
                    text = fh.read().decode("utf-8", "surrogateescape")
            except OSError:
                text = ""
        # As a session does: the environment is captured once, and lint reads only that.
        caches = LintCaches(environ=dict(os.environ))
        return lint_document(path, text, chain, config, caches)


def git(cwd: str, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def make_repo(base: str) -> Repo:
    root = os.path.join(base, "repo")
    home = os.path.join(base, "home")
    os.makedirs(os.path.join(home, ".grok"))
    os.makedirs(root)
    git(root, "init", "-q")
    return Repo(root, home)


def codes(findings: list[Finding]) -> set[str]:
    return {f.code for f in findings}


def problems(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity in PROBLEM]
