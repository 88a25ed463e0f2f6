"""Aider: nothing loads unless ``read:`` names it, per Aider's docs (research
agent-profiles-more.md §8, facts AD-F1..AD-F2; every detail says so).

AD-F1: no instruction file loads by itself — CONVENTIONS.md, AGENTS.md and the rest are
plain files; a file reaches the model read-only (cached) when ``--read FILE`` or ``read:``
(a string or a list) in ``.aider.conf.yml`` names it, at start. AD-F2: ``.aider.conf.yml``
is looked up in the home directory, the git root and the start directory, loaded in that
order, and the last one that sets ``read:`` wins; ``AIDER_CONFIG`` (``--config``) loads only
the named file. Entries are relative to the start directory (where aider runs); ``~`` is
expanded.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from rulelens.agents import fsio, profiles
from rulelens.agents.approval import Approval, workspace_roots
from rulelens.agents.fs import discover_git_root
from rulelens.agents.meta import safe_yaml
from rulelens.agents.record import Agent
from rulelens.agents.view import AgentView, Role, ViewBuilder, ViewFile

PROFILE = profiles.AIDER
ID = PROFILE.agent
DISPLAY = PROFILE.display
DOCS = "per Aider docs, 2026-08"
CONF = ".aider.conf.yml"
#: AD-F1's page (the row cites the config page).
CONVENTIONS_REF = "https://aider.chat/docs/usage/conventions.html (seen 2026-08)"
#: Conventions files people keep for Aider or other agents; Aider reads none unprompted.
UNNAMED = ("CONVENTIONS.md", "AGENTS.md", "CLAUDE.md", ".cursorrules")


def config_files(cwd: str, env: Mapping[str, str]) -> list[str]:
    """AD-F2: the ``.aider.conf.yml`` files that exist, in load order (later wins)."""
    forced = env.get("AIDER_CONFIG")
    if forced:
        return [forced] if fsio.is_file(forced) else []
    home = env.get("HOME") or os.path.expanduser("~")
    root = discover_git_root(cwd)
    dirs = [home] + ([root] if root else []) + [cwd]
    found = [os.path.join(d, CONF) for d in dirs if fsio.is_file(os.path.join(d, CONF))]
    return list(dict.fromkeys(found))


def read_entries(path: str) -> tuple[list[str] | None, str | None]:
    """``read:`` of one config file: ``(entries or None when unset, error)``."""
    text = fsio.read_text(path, 1 << 20)
    if text is None:
        return None, "cannot be read"
    data, error = safe_yaml(text, "it", 1 << 20)  # bounded: nesting, aliases
    if error is not None:
        return None, error.removeprefix("it ")
    if not isinstance(data, dict) or "read" not in data:
        return None, None
    value = data["read"]
    if isinstance(value, str):
        return [value], None
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, (str, int, float))], None
    return [], f"read: is {type(value).__name__}, not a file name or a list"


def view(cwd: str, file: str | None, env: Mapping[str, str]) -> AgentView:
    home = env.get("HOME") or os.path.expanduser("~")
    b = ViewBuilder()
    entries: list[str] = []
    source = None
    for conf in config_files(cwd, env):
        found, err = read_entries(conf)
        if err:
            b.notes.append(f"{conf}: {err} ({DOCS}).")
        if found is not None:
            entries, source = found, conf
    # A read: entry is opened only inside the workspace (the start directory and its git
    # root on the command line), or the home directory when the user's own config (home,
    # AIDER_CONFIG) names it (issue 19).
    mine = source is not None and (os.path.dirname(source) == home
                                   or source == env.get("AIDER_CONFIG"))
    root = discover_git_root(cwd)
    approval = Approval.of([cwd, *(workspace_roots() or ([root] if root else [])),
                            *([home] if mine else [])])
    for raw in entries:
        expanded = os.path.join(home, raw[2:]) if raw.startswith("~/") else raw
        path = os.path.normpath(os.path.join(cwd, expanded))
        if approval.resolve(path) is None:
            b.skip(path, "import-needs-approval", f"named by read: {raw!r} in {source}, outside"
                   " the workspace: outside, needs approval; RuleLens does not open it")
            continue
        if not fsio.is_file(path):
            b.notes.append(f"read: {raw!r} in {source} names no file ({DOCS}).")
            continue
        role: Role = "project" if fsio.is_below(path, cwd) else "home"
        b.add(ViewFile(path, "start", f"named by read: in {source}: added read-only at start"
                       f" ({DOCS})", "read", role, fsio.size(path), fsio.read_text(path) or ""))
    for name in UNNAMED:
        p = os.path.join(cwd, name)
        if fsio.is_file(p):
            b.skip(p, "not-named", f"Aider loads no instruction file by itself: name it with"
                   f" `read: {name}` in .aider.conf.yml or `--read {name}` ({DOCS})",
                   source=CONVENTIONS_REF)
    if source:
        b.notes.append(f"read: comes from {source}, the last .aider.conf.yml that sets it"
                       f" (home, git root, start directory; later wins) ({DOCS}).")
    b.notes.append(f"Files added in the chat (/read, /add) or with --read are not shown ({DOCS}).")
    return AgentView(ID, DISPLAY, cwd, file, discover_git_root(cwd), b.files(), b.not_loaded(),
                     notes=tuple(b.notes), basis="docs", basis_label=DOCS, rendered=None)


AGENT = Agent(
    id=ID, short="Aider", display=DISPLAY, profiles=(PROFILE,),
    markers=(CONF,),
    formats=(), view=view,
    homes=lambda env: (),
)
