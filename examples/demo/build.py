"""Build the demo workspace: a real git repository plus a fake home, from the files here.

Usage: python examples/demo/build.py DEST

Creates ``DEST/repo`` (``git init``, an ``origin`` remote so the memory workspace name is
stable, one commit) and ``DEST/home`` (use it as ``HOME``; ``DEST/home/.grok`` is
``GROK_HOME``). The repository's ``.gitignore`` is stored here as ``gitignore`` so that it
does not hide ``CLAUDE.local.md`` from RuleLens' own repository. The home trusts the
repository for Gemini CLI (``~/.gemini/trustedFolders.json``; folder trust is on by default
there) and for Grok (``~/.grok/trusted_folders.toml``, as ``grok --trust`` records it), so
``rulelens chain --agent all`` shows what each agent loads once the user has said yes.
It also gets a Claude Code auto memory and a Gemini CLI private project memory for the
repository (from ``memory/``; their folder names depend on where DEST is), next to Grok's,
and one recorded session per agent whose session format RuleLens reads (``sessions/``,
templates filled in with DEST's paths; the Claude Code one deliberately stale).
Rebuilding replaces DEST.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ORIGIN = "git@github.com:acme/demo-shop.git"


def add_agent_memory(repo: str, home: str) -> None:
    """Claude Code's auto memory and Gemini CLI's private project memory for the repository:
    their folders are named from its path, so they are made here from ``memory/``."""
    name = re.sub(r"[^a-zA-Z0-9]", "-", os.path.realpath(repo))  # Claude's sanitizePath
    shutil.copytree(os.path.join(HERE, "memory", "claude"),
                    os.path.join(home, ".claude", "projects", name, "memory"))
    gemini = os.path.join(home, ".gemini")
    os.makedirs(os.path.join(gemini, "tmp", "demo-shop"), exist_ok=True)
    with open(os.path.join(gemini, "projects.json"), "w", encoding="utf-8") as fh:
        json.dump({"projects": {repo: "demo-shop"}}, fh, indent=2)
        fh.write("\n")
    with open(os.path.join(gemini, "tmp", "demo-shop", ".project_root"), "w",
              encoding="utf-8") as fh:
        fh.write(repo)
    shutil.copytree(os.path.join(HERE, "memory", "gemini"),
                    os.path.join(gemini, "tmp", "demo-shop", "memory"))


def _fill(template: str, dest: str, repo: str, home: str) -> str:
    """A session template with the demo's paths and file texts (JSON-escaped) put in."""
    def text(rel: str, body: bool) -> str:
        with open(os.path.join(dest, rel), encoding="utf-8") as fh:
            content = fh.read()
        if body and content.startswith("---"):  # a rule as Grok sends it: no frontmatter
            end = content.find("\n---", 3)
            content = content[end + 4:].lstrip() if end >= 0 else content
        return json.dumps(content, ensure_ascii=False)[1:-1]

    out = re.sub(r"\{\{(TEXT|BODY):([^}]+)\}\}",
                 lambda m: text(m.group(2), m.group(1) == "BODY"), template)
    sha = hashlib.sha256(repo.encode()).hexdigest()
    real = json.dumps(os.path.realpath(repo))[1:-1]
    return (out.replace("{{REPO_SHA256}}", sha).replace("{{REPO}}", real)
            .replace("{{HOME}}", json.dumps(os.path.realpath(home))[1:-1]))


def add_agent_sessions(dest: str, repo: str, home: str) -> None:
    """One recorded session per agent whose format RuleLens reads, started in the repository
    (``sessions/README.md``): generated here because the paths they record depend on DEST."""
    src = os.path.join(HERE, "sessions")
    real = os.path.realpath(repo)

    def put(template: str, target: str) -> None:
        with open(os.path.join(src, template), encoding="utf-8") as fh:
            filled = _fill(fh.read(), dest, repo, home)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as fh:
            fh.write(filled)

    put("codex.jsonl", os.path.join(home, ".codex", "sessions", "2026", "09", "01",
                                    "rollout-2026-09-01T14-02-00-0199a1b2-d3e0-7000-8000-"
                                    "00000000de00.jsonl"))
    put("claude.jsonl", os.path.join(home, ".claude", "projects",
                                     re.sub(r"[^a-zA-Z0-9]", "-", real),
                                     "5b0e8f7a-d3e0-4000-8000-00000000de00.jsonl"))
    put("gemini.jsonl", os.path.join(home, ".gemini", "tmp", "demo-shop", "chats",
                                     "session-2026-09-01T14-30-6f1c2d3e.jsonl"))
    grok = os.path.join(home, ".grok", "sessions", urllib.parse.quote(real, safe=""),
                        "0199a1b2-d3e0-7000-8000-0000000060a1")
    for name in ("summary.json", "prompt_context.json", "chat_history.jsonl",
                 "updates.jsonl"):
        put(os.path.join("grok", name), os.path.join(grok, name))


def build(dest: str) -> dict[str, str]:
    dest = os.path.abspath(dest)
    if os.path.exists(dest):
        shutil.rmtree(dest)
    repo = os.path.join(dest, "repo")
    home = os.path.join(dest, "home")
    shutil.copytree(os.path.join(HERE, "repo"), repo, symlinks=True)
    shutil.copytree(os.path.join(HERE, "home"), home, symlinks=True)
    os.rename(os.path.join(repo, "gitignore"), os.path.join(repo, ".gitignore"))
    git_env = {
        **os.environ,
        "HOME": home,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Demo",
        "GIT_AUTHOR_EMAIL": "demo@example.invalid",
        "GIT_COMMITTER_NAME": "Demo",
        "GIT_COMMITTER_EMAIL": "demo@example.invalid",
    }

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=git_env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    gemini = os.path.join(home, ".gemini")
    os.makedirs(gemini, exist_ok=True)
    with open(os.path.join(gemini, "trustedFolders.json"), "w", encoding="utf-8") as fh:
        json.dump({repo: "TRUST_FOLDER"}, fh, indent=2)
        fh.write("\n")
    # Grok >= 1.0.45 loads project instructions only in a trusted folder: the demo user
    # has said yes once (`grok --trust`). Delete the file to see the untrusted view.
    grok_home = os.path.join(home, ".grok")
    os.makedirs(grok_home, exist_ok=True)
    with open(os.path.join(grok_home, "trusted_folders.toml"), "w", encoding="utf-8") as fh:
        fh.write(f'[folders.{json.dumps(os.path.realpath(repo))}]\ntrusted = true\n'
                 "decided_at = 1759190400\n")
    add_agent_memory(repo, home)
    add_agent_sessions(dest, repo, home)
    git("init", "-q", "-b", "main")
    git("remote", "add", "origin", ORIGIN)
    git("add", "-A")
    git("commit", "-q", "-m", "Demo shop")
    return {
        "repo": repo,
        "home": home,
        "grok_home": os.path.join(home, ".grok"),
        "deep_file": os.path.join(repo, "src", "app", "handlers", "orders.py"),
    }


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py DEST")
    for key, value in build(sys.argv[1]).items():
        print(f"{key}={value}")
