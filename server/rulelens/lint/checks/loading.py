"""Files that look like instructions but that no modelled agent reads where they stand
(RL213).

Three shapes are judged, each confirmed by asking every agent of the registry
(:func:`rulelens.agents.readers.who_reads`, the session started at the repository root)
and Grok's own chain, so the answer follows the agent modules, never a list kept here:

* an agent's named file inside a dot-directory no agent names (``.agents/AGENTS.md``):
  nested-file readers apply it only to files inside that directory;
* ``*.instructions.md`` outside every agent's rules directories (``docs/x.instructions.md``);
* a named file whose name has a directory part found elsewhere
  (``packages/web/.github/copilot-instructions.md``), unless its folder is a project
  opened as its own workspace (its own ``.vscode/`` or lockfile, :data:`LOCKFILES`).

The message says who would read the file, and where.
"""

from __future__ import annotations

import os
import re

from rulelens.lint.checks.agents import agent_env, workspace_of
from rulelens.lint.context import Context
from rulelens.lint.model import Range

CODES = ("RL213",)

#: A relative Markdown link's target (no URL, no anchor-only link).
_LINK = re.compile(r"\]\(\s*<?(?![a-zA-Z][\w+.-]*:|#|/)([^)\s>#?]+)")


def _names() -> tuple[dict[str, list[str]], dict[str, list[str]], list[tuple[str, str]]]:
    """``(basename -> agents naming it anywhere, "dir/name" -> agents, [(rules dir,
    agent)])`` from the registry."""
    from rulelens.agents.registry import AGENTS

    plain: dict[str, list[str]] = {}
    with_dir: dict[str, list[str]] = {}
    for a in AGENTS:
        for row in a.profiles:
            for named in row.named_files:
                target = with_dir if "/" in named.name else plain
                agents = target.setdefault(named.name, [])
                if a.display not in agents:
                    agents.append(a.display)
    # Project rules directories only (the rows' home roots are not the project's).
    dirs = list(dict.fromkeys((d.path, a.display) for a in AGENTS for row in a.profiles
                              for d in row.rules_dirs))
    return plain, with_dir, dirs


def _join(names: list[str]) -> str:
    names = list(dict.fromkeys(names))
    if len(names) > 4:
        return ", ".join(names[:3]) + f" and {len(names) - 3} other agents"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _read(agents: list[str]) -> str:
    return _join(agents) + (" reads" if len(set(agents)) == 1 else " read")


def _shape(rel: str, catalog: bool = False) -> tuple[str, list[str]] | None:
    """``(what, agents)`` when ``rel`` (repository-relative, ``/``) has a judged shape."""
    plain, with_dir, dirs = _names()
    parts = rel.split("/")
    name = parts[-1]
    parent = parts[-2] if len(parts) > 1 else ""
    in_rules = any(f"/{d}/" in f"/{rel}" for d, _ in dirs)
    if name.endswith(".instructions.md") and not in_rules and not catalog:
        readers = [a for d, a in dirs if d.endswith("/instructions")]
        places = sorted({d for d, _ in dirs if d.endswith("/instructions")})
        readers = list(dict.fromkeys(readers))
        return (f"{_read(readers)} `*.instructions.md` only inside"
                f" {_join([f'`{p}/`' for p in places])}", readers)
    for full, agents in with_dir.items():
        if full.endswith("/" + name) and not name.startswith(("CLAUDE", "QWEN")) \
                and rel != full and rel.endswith("/" + full):
            return (f"{_read(agents)} `{full}` only at the workspace root", agents)
    if parent.startswith(".") and name in plain and f"{parent}/{name}" not in with_dir \
            and not in_rules:
        agents = plain[name]
        return (f"{_read(agents)} `{name}` from the project's folders, so a copy in"
                f" `{parent}/` applies at most to files inside `{parent}/`", agents)
    return None


def _catalog(directory: str) -> bool:
    """A folder of many ``*.instructions.md`` files is a collection to copy from (such as
    github/awesome-copilot's ``instructions/``), not files meant to load in place."""
    try:
        return sum(n.endswith(".instructions.md") for n in os.listdir(directory)) >= 5
    except OSError:
        return False


def _linked_from(path: str, root: str) -> bool:
    """Whether a named file of the repository root, or of the folders between it and
    ``path``, is a symlink to ``path`` (the file then loads under that name)."""
    plain, with_dir, _ = _names()
    real = os.path.realpath(path)
    directory = os.path.dirname(path)
    while directory.startswith(root):
        for name in (*plain, *with_dir):
            link = os.path.join(directory, name)
            if os.path.islink(link) and os.path.realpath(link) == real:
                return True
        if directory == root:
            break
        directory = os.path.dirname(directory)
    return False


def _imported_from(path: str, root: str) -> bool:
    """Whether a named file of a folder between the repository root and ``path`` imports
    ``path``, directly or through the files it imports (``@./.taskmaster/CLAUDE.md`` in
    the root CLAUDE.md, as Task Master writes it): the file then loads as part of that one.
    A Markdown link from such a file (or from the root's ``.github/copilot-instructions.md``)
    counts too: the agent reads the target on demand, as its author meant.
    Bounded: five hops (Gemini CLI's depth; Claude Code's is four), 32 files of 256 KiB."""
    from rulelens.agents import safeio
    from rulelens.agents.imports import claude_imports

    plain, with_dir, _ = _names()
    real = os.path.realpath(path)
    queue: list[tuple[str, int]] = [(os.path.join(root, n), 0) for n in with_dir]
    directory = os.path.dirname(os.path.dirname(path))
    while directory.startswith(root):
        queue.extend((os.path.join(directory, n), 0) for n in plain)
        if directory == root:
            break
        directory = os.path.dirname(directory)
    seen: set[str] = set()
    while queue and len(seen) < 32:
        current, hops = queue.pop(0)
        if current in seen or hops > 5:
            continue
        seen.add(current)
        try:
            data, _more = safeio.read_head(current, 256 * 1024)
        except (OSError, ValueError):
            continue  # absent, not a regular file, unreadable
        text = data.decode("utf-8", "replace")
        if hops == 0 and any(os.path.realpath(os.path.join(os.path.dirname(current), link))
                             == real for link in _LINK.findall(text)):
            return True  # `[TCGC Upgrade](./prompts/upgrade-tcgc.instructions.md)`: read
            # on demand through a link from a loaded file, as its author meant
        for _, spec in claude_imports(text):
            if spec.startswith(("~", "/")):
                continue
            target = os.path.normpath(os.path.join(os.path.dirname(current), spec))
            if not target.startswith(root + os.sep):
                continue
            if os.path.realpath(target) == real:
                return True
            queue.append((target, hops + 1))
    return False


def _generated_from(ctx: Context, path: str, root: str) -> bool:
    """Whether the file a dot-directory copy would be loaded as (``.agents/AGENTS.md`` ->
    ``AGENTS.md`` beside ``.agents/``) is gitignored: the repository makes it from this
    source at setup (Effect's ``prepare`` script copies it), so the source is meant to
    stand where it is."""
    directory = os.path.dirname(path)
    if not os.path.basename(directory).startswith("."):
        return False
    ignore = ctx.caches.ignore_for(root)
    target = os.path.join(os.path.dirname(directory), os.path.basename(path))
    return ignore is not None and ignore.is_ignored(target)


#: Files that make a folder a project of its own, installed and built from there: a
#: nested folder holding one is opened as its own workspace (typespec's
#: packages/http-client-java keeps its own package-lock.json, outside the pnpm workspace).
LOCKFILES = ("package-lock.json", "pnpm-lock.yaml", "yarn.lock", "bun.lockb", "bun.lock",
             "uv.lock", "poetry.lock", "Cargo.lock", "composer.lock", "go.sum")


def _own_workspace(path: str, full: str, root: str) -> bool:
    """Whether the folder owning a nested ``full`` (``.github/copilot-instructions.md`` ->
    the parent of ``.github``) is a project a person opens on its own: it has its own
    ``.vscode/`` (azure-dev's ext/vscode, an extension developed in its own window) or its
    own lockfile. Opened so, the file stands at the workspace root and loads."""
    owner = path
    for _ in full.split("/"):
        owner = os.path.dirname(owner)
    if os.path.normpath(owner) == os.path.normpath(root) or not owner.startswith(root):
        return False
    if os.path.isdir(os.path.join(owner, ".vscode")):
        return True
    return any(os.path.isfile(os.path.join(owner, name)) for name in LOCKFILES)


def _may_be_misplaced(ctx: Context, root: str) -> bool:
    """A cheap first look from the file's format: an ``*.instructions.md`` outside rules
    directories, a file of a container (``.github/``) below the root, or a named file
    owning a dot-directory (``.agents/AGENTS.md``)."""
    doc = ctx.doc
    fmt = doc.fmt
    if doc.name.endswith(".instructions.md"):
        return fmt.rules_dir is None
    if os.path.normpath(fmt.owner) != os.path.normpath(doc.directory):
        return fmt.rules_dir is None and os.path.normpath(fmt.owner) != os.path.normpath(root)
    return os.path.basename(doc.directory).startswith(".")


def run(ctx: Context) -> None:
    doc = ctx.doc
    root = ctx.git_root
    if root is None or not doc.path.startswith(root.rstrip(os.sep) + os.sep):
        return
    rel = os.path.relpath(doc.path, root).replace(os.sep, "/")
    if not _may_be_misplaced(ctx, root):
        return  # the usual file: decided without importing the agent modules
    found = _shape(rel, _catalog(doc.directory))
    if found is None or not ctx.config.enabled("RL213") or "RL213" in doc.disabled:
        return
    what, _ = found
    if _linked_from(doc.path, root):
        return  # `AGENTS.md -> .agents/AGENTS.md`: loaded through the link
    if _imported_from(doc.path, root):
        return  # `@./.taskmaster/CLAUDE.md` in CLAUDE.md: loaded as part of the importer
    if _generated_from(ctx, doc.path, root):
        return  # `/AGENTS.md` gitignored: the repository's setup copies this file there
    at_root = next((f for f in _names()[1] if rel.endswith("/" + f)), None)
    if at_root is not None and _own_workspace(doc.path, at_root, root):
        return  # ext/vscode/.github/copilot-instructions.md beside ext/vscode/.vscode/: it
        # is at the workspace root when ext/vscode is opened, as its authors do
    from rulelens.agents import readers

    reads, _skips = readers.who_reads(doc.path, workspace_of(ctx), agent_env(ctx))
    project_wide = [r for r in reads if not r.endswith(readers.FOR_MATCHING)]
    if ctx.chain_entry is not None and not rel.split("/")[-2].startswith("."):
        return  # Grok loads it
    name = rel.split("/")[-1]
    if project_wide and not rel.split("/")[-2].startswith("."):
        return
    nested = f" ({_join(project_wide)} only when working inside that folder)" \
        if project_wide else ""
    full = at_root or name
    if at_root is not None:  # the folder it belongs to, were it opened as a workspace
        folder = rel[:-len(at_root)].rstrip("/")
        nested = nested or f" (unless `{folder}/` is opened as its own workspace)"
    ctx.emit("RL213", f"{rel} is not loaded from where it stands{nested}: {what}."
             f" Move it there or merge it into the project's `{full}`."
             if not name.endswith(".instructions.md") else
             f"{rel} is not loaded from where it stands: {what}. Move it there.",
             Range.point(0))
