"""OpenCode: AGENTS.md (or CLAUDE.md, CONTEXT.md) from the start directory up to the git
root, one global file, ``instructions`` from opencode.json, and nearby files added when a
file is read — exact from source (``instruction.ts`` @00b964bd, its test @1565a419;
research agent-profiles-more.md §2, facts OC-F1..OC-F10).

Global (OC-F1): the first existing of ``~/.config/opencode/AGENTS.md`` and
``~/.claude/CLAUDE.md``. Project (OC-F2/F3): for ``AGENTS.md``, ``CLAUDE.md``,
``CONTEXT.md`` in that order, the first name found anywhere from the start directory up to
the git root (``/`` outside git) wins, and *every* copy of it on that walk loads,
deepest first. Order (OC-F4): global, project, then ``instructions`` entries (OC-F7: merged
over the global and every project opencode.json from the git root down, relative entries
globbed from the start directory upward, absolute ones in their directory, ``~/``
expanded, URLs fetched — not shown). Switches (OC-F5/F6): ``OPENCODE_DISABLE_CLAUDE_CODE``
or ``…_PROMPT`` drop both CLAUDE.md files; ``OPENCODE_DISABLE_PROJECT_CONFIG`` drops project
files and project config. On read (OC-F8): from the file's directory up to (not including)
the start directory, the first existing name per directory, once per message, unless it
already loads; the walk tests the start directory as a string prefix, as the code does.
Empty files are dropped (OC-F9); no frontmatter, imports or size cap (OC-F10).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping
from typing import Any

from rulelens.agents import fsio, profiles
from rulelens.agents.approval import Approval, workspace_roots
from rulelens.agents.fs import discover_git_root
from rulelens.agents.gemini import read_json
from rulelens.agents.globmatch import matches
from rulelens.agents.record import Agent
from rulelens.agents.view import AgentView, Role, ViewBuilder, ViewFile, When

PROFILE = profiles.OPENCODE
ID = PROFILE.agent
DISPLAY = PROFILE.display
SOURCE = "exact from OpenCode source @00b964bd"
CONFIG_NAMES = ("config.json", "opencode.json", "opencode.jsonc")
#: Folders an ``instructions`` glob may list in one view (RuleLens' bound).
GLOB_DIRS = 2000
#: The global file comes first per the newest test (the code @00b964bd put it after).
ORDER_REF = "anomalyco/opencode@1565a419:packages/opencode/test/session/instruction.test.ts"
PROJECT_CONFIG_NAMES = ("opencode.jsonc", "opencode.json")


def _truthy(env: Mapping[str, str], name: str) -> bool:
    return (env.get(name) or "").lower() in ("1", "true")


def config_dir(env: Mapping[str, str]) -> str:
    """``Global.Path.config``: ``$XDG_CONFIG_HOME/opencode`` (default ``~/.config``)."""
    home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config"), "opencode")


def names(env: Mapping[str, str]) -> tuple[str, ...]:
    """``FILES``: CLAUDE.md is left out when the Claude Code prompt is disabled (OC-F5)."""
    return ("AGENTS.md",) + (() if claude_disabled(env) else ("CLAUDE.md",)) + ("CONTEXT.md",)


def claude_disabled(env: Mapping[str, str]) -> bool:
    return _truthy(env, "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT") or \
        _truthy(env, "OPENCODE_DISABLE_CLAUDE_CODE")


def find_up(name: str, start: str, stop: str) -> list[str]:
    """``fs.findUp``: ``start`` and its parents up to ``stop`` inclusive, deepest first."""
    return [os.path.join(d, name) for d in fsio.ancestors(start, stop)
            if fsio.exists(os.path.join(d, name))]


def glob_up(pattern: str, start: str, stop: str, approval: Approval | None = None,
            notes: list[str] | None = None) -> list[str]:
    """``fs.globUp``: the pattern globbed in each directory from ``start`` up to ``stop``.
    A hit ``approval`` refuses is kept without looking at what it points to (the caller
    lists it as needing approval), so whether its target exists never shows. When the
    folder bound cuts the search, ``notes`` gets a sentence saying so."""
    out: list[str] = []
    budget = [GLOB_DIRS]
    for d in fsio.ancestors(start, stop):
        for p in glob_in(d, pattern, budget):
            if (approval is not None and approval.resolve(p) is None) or fsio.is_file(p):
                out.append(p)
    if budget[0] < 0 and notes is not None:
        notes.append(f"instructions entry {pattern!r}: RuleLens stopped after listing"
                     f" {GLOB_DIRS:,} folders; OpenCode may find more files for it.")
    return out


def glob_in(top: str, pattern: str, budget: list[int]) -> list[str]:
    """Paths below ``top`` matching ``pattern`` the way a glob does (``**`` spans folders,
    dot files only by an explicit dot), sorted; links to folders are not followed and
    at most ``budget[0]`` folders are listed over all calls (RuleLens' bound, not
    OpenCode's: a ``**`` entry walked up to ``/`` cannot stall the view)."""
    if not any(c in pattern for c in "*?[{"):
        p = os.path.normpath(os.path.join(top, pattern))
        return [p] if os.path.lexists(p) else []
    depth = None if "**" in pattern else pattern.count("/")
    dots = any(seg.startswith(".") for seg in pattern.split("/"))
    out: list[str] = []
    for root, dirs, files in os.walk(top):
        budget[0] -= 1
        if budget[0] < 0:
            break
        rel_root = "" if root == top else root[len(top):].lstrip(os.sep).replace(os.sep, "/")
        level = 0 if not rel_root else rel_root.count("/") + 1
        dirs[:] = sorted(x for x in dirs if dots or not x.startswith("."))
        if depth is not None and level >= depth:
            dirs[:] = []
        for name in sorted(files):
            rel = f"{rel_root}/{name}" if rel_root else name
            if (dots or not name.startswith(".")) and matches(pattern, rel):
                out.append(os.path.join(root, name))
    return out


def instructions(env: Mapping[str, str], cwd: str, worktree: str,
                 project: bool) -> tuple[list[str], list[str]]:
    """OC-F7: ``(entries, config files read)``; arrays concatenated without repeats, global
    first, then project files from the git root down to the start directory."""
    files = [os.path.join(config_dir(env), n) for n in CONFIG_NAMES]
    if project:
        for d in reversed(fsio.ancestors(cwd, worktree)):
            files += [os.path.join(d, n) for n in PROJECT_CONFIG_NAMES]
    out: list[str] = []
    used: list[str] = []
    for path in files:
        if not fsio.is_file(path):
            continue
        data: dict[str, Any] = read_json(path)
        used.append(path)
        entries = data.get("instructions")
        if isinstance(entries, list):
            out += [e for e in entries if isinstance(e, str) and e not in out]
    return out, used


def view(cwd: str, file: str | None, env: Mapping[str, str]) -> AgentView:
    home = env.get("HOME") or os.path.expanduser("~")
    b = ViewBuilder()
    worktree = discover_git_root(cwd) or "/"
    no_project = _truthy(env, "OPENCODE_DISABLE_PROJECT_CONFIG")
    blocks: list[tuple[str, str]] = []

    def load(path: str, when: When, why: str, kind: str, role: Role,
             source: str | None = None) -> None:
        text = fsio.read_text(path)
        if not text:
            b.skip(path, "empty", f"empty or unreadable: OpenCode drops it ({SOURCE})")
            return
        if b.add(ViewFile(path, when, why, kind, role, fsio.size(path), text,
                          source=source)) and when == "start":
            blocks.append((path, text))

    _global(b, env, home, load)
    start_paths = _project(b, env, cwd, worktree, no_project, load)
    entries, used = instructions(env, cwd, worktree, not no_project)
    users = set(instructions(env, cwd, worktree, False)[0])  # the global config's own
    for raw in entries:
        _instruction(b, raw, env, home, cwd, worktree, no_project, load, raw in users)
    if file is not None:
        _on_read(b, env, cwd, file, start_paths, load)
    if worktree == "/":
        b.notes.append("Not in a git repository: OpenCode 1.x walks up to / here; its 2.x docs"
                       " stop at the home directory instead.")
    if used:
        b.notes.append("instructions read from " + ", ".join(used) + f" ({SOURCE}).")
    rendered = "\n".join(f"Instructions from: {p}\n{t}" for p, t in blocks)
    return AgentView(ID, DISPLAY, cwd, file, None if worktree == "/" else worktree, b.files(),
                     b.not_loaded(), notes=tuple(b.notes), basis="code",
                     basis_label="exact from OpenCode source (anomalyco/opencode@00b964bd)",
                     rendered=rendered, extra={"worktree": worktree})


def _global(b: ViewBuilder, env: Mapping[str, str], home: str, load: Any) -> None:
    """OC-F1: one global file, the first that exists."""
    candidates = [os.path.join(config_dir(env), "AGENTS.md")]
    claude = os.path.join(home, ".claude", "CLAUDE.md")
    if claude_disabled(env):
        if fsio.exists(claude):
            b.skip(claude, "claude-disabled", "OPENCODE_DISABLE_CLAUDE_CODE(_PROMPT) is set:"
                   f" OpenCode reads no CLAUDE.md ({SOURCE})")
    else:
        candidates.append(claude)
    chosen = None
    for p in candidates:
        if not fsio.exists(p):
            continue
        if chosen is None:
            chosen = p
            load(p, "start", "the global instructions file (the first of"
                 " ~/.config/opencode/AGENTS.md, ~/.claude/CLAUDE.md that exists), before"
                 " project files (exact from OpenCode's test @1565a419)", "global", "home",
                 ORDER_REF)
        else:
            b.skip(p, "global-shadowed", f"OpenCode loads one global file and {chosen} exists"
                   f" ({SOURCE})")


def _project(b: ViewBuilder, env: Mapping[str, str], cwd: str, worktree: str,
             no_project: bool, load: Any) -> set[str]:
    """OC-F2/F3/F6: the first name with a match; every ancestor copy of it."""
    found: set[str] = set()
    all_names = ("AGENTS.md", "CLAUDE.md", "CONTEXT.md")
    if no_project:
        for name in all_names:
            for p in find_up(name, cwd, worktree):
                b.skip(p, "project-config-disabled", "OPENCODE_DISABLE_PROJECT_CONFIG is set:"
                       f" OpenCode skips project instruction files ({SOURCE})")
        return found
    winner = None
    for name in names(env):
        matches = find_up(name, cwd, worktree)
        if matches:
            winner = name
            for p in matches:
                where = "the start directory" if os.path.dirname(p) == cwd else \
                    f"{os.path.dirname(p)} (above the start directory)"
                load(p, "start", f"{name} in {where}: the first of AGENTS.md, CLAUDE.md,"
                     " CONTEXT.md found between the start directory and the git root wins,"
                     f" and every copy of it on that walk loads ({SOURCE})", "project",
                     "project")
                found.add(p)
            break
    for name in all_names:
        if name == winner:
            continue
        for p in find_up(name, cwd, worktree):
            if name == "CLAUDE.md" and claude_disabled(env):
                b.skip(p, "claude-disabled", "OPENCODE_DISABLE_CLAUDE_CODE(_PROMPT) is set:"
                       f" OpenCode reads no CLAUDE.md ({SOURCE})")
            else:
                b.skip(p, "name-shadowed", f"{winner} exists on the walk from the start"
                       f" directory to the git root, so OpenCode does not stack {name}"
                       f" ({SOURCE})")
    return found


def _instruction(b: ViewBuilder, raw: str, env: Mapping[str, str], home: str, cwd: str,
                 worktree: str, no_project: bool, load: Any, users: bool = False) -> None:
    """OC-F7: one ``instructions`` entry (``users``: the global config names it, so the
    home directory is approved for it too)."""
    if raw.startswith(("https://", "http://")):
        b.notes.append(f"instructions entry {raw} is fetched at start (5 s timeout; a failure"
                       " is silently empty); RuleLens does not fetch it.")
        return
    entry = os.path.join(home, raw[2:]) if raw.startswith("~/") else raw
    # Opened only inside the workspace (the start directory and its git root on the command
    # line) or OpenCode's config directory, decided before any listing (issue 19).
    approval = Approval.of([cwd, *(workspace_roots() or ([worktree] if worktree != "/" else
                                                         [])), config_dir(env),
                            *([home] if users else [])])
    outside = ".." in entry.split("/") or (
        os.path.isabs(entry) and approval.resolve(os.path.dirname(entry)) is None)
    if outside:
        b.notes.append(f"instructions entry {raw!r} points outside the workspace: outside,"
                       " needs approval; RuleLens does not open it.")
        return
    if os.path.isabs(entry):
        d = os.path.dirname(entry)
        hits = sorted(os.path.join(d, h) for h in glob.glob(os.path.basename(entry), root_dir=d)
                      if approval.resolve(os.path.join(d, h)) is None
                      or fsio.is_file(os.path.join(d, h))) if fsio.is_dir(d) else []
    elif no_project:
        b.notes.append(f"instructions entry {raw!r} is relative and project config is disabled:"
                       " skipped.")
        return
    else:
        hits = glob_up(entry, cwd, worktree, approval, b.notes)
    if not hits:
        b.notes.append(f"instructions entry {raw!r} matches no file ({SOURCE}).")
    for p in hits:
        if approval.resolve(p) is None:  # a link leading out, or a directory above
            b.skip(p, "import-needs-approval", f"named by instructions: {raw!r}, outside the"
                   " workspace: outside, needs approval; RuleLens does not open it")
            continue
        role: Role = "project" if fsio.is_below(p, worktree) and worktree != "/" else "home"
        load(p, "start", f"named by instructions: {raw!r} in opencode.json; loaded at start"
             f" after the AGENTS.md files ({SOURCE})", "instructions", role)


def _on_read(b: ViewBuilder, env: Mapping[str, str], cwd: str, file: str,
             start_paths: set[str], load: Any) -> None:
    """OC-F8: ``resolve`` — nearby files for a read file, below the start directory."""
    current = os.path.dirname(file)
    while current.startswith(cwd) and current != cwd:
        for name in names(env):
            p = os.path.join(current, name)
            if not fsio.exists(p):
                continue
            if p != file and not b.loaded(p) and p not in start_paths:
                load(p, "on-read", f"{name} in {os.path.relpath(current, cwd)}/: attached"
                     " to the read tool's result when the agent reads a file below it, once"
                     f" per message ({SOURCE})", "project", "project")
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent


AGENT = Agent(
    id=ID, short="OpenCode", display=DISPLAY, profiles=(PROFILE,),
    markers=("opencode.json", "opencode.jsonc", ".opencode"),
    formats=(), view=view,
    homes=lambda env: (config_dir(env),
                       os.path.join(env.get("HOME") or os.path.expanduser("~"), ".claude")),
)
