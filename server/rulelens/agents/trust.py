"""Grok's folder trust (addendum §A6), resolved the way ``grok inspect`` resolves it.

Since 1.0.45 a folder that is not trusted loads no project instruction file. RuleLens never
prompts and never writes the store: like ``grok inspect`` it decides without asking
(``may_prompt = false``), so a folder with trust-sensitive markers and no recorded
decision is *undecided* (Grok would ask at the next interactive start, and refuse
headless).

Order (§A6.4, §A6.6): feature off → not required; the store trusts the workspace key →
trusted (a record ``trusted = false`` → untrusted); the key cannot be recorded (home,
``/``, relative) → not required; no markers (§A6.5) → not required; otherwise undecided.

Known gap: grok-managed worktrees (``~/.grok/worktrees.db``) are not mapped to their
source repository; git linked worktrees are.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rulelens.agents import bounded, safeio
from rulelens.agents.compat import env_bool
from rulelens.agents.fs import canonical, discover_git_root, exists, is_dir, is_within

TrustState = Literal["trusted", "untrusted", "undecided", "not-required"]
Override = Literal["auto", "trusted", "untrusted"]
STORE_NAME = "trusted_folders.toml"

#: The 8 names the ``instructions`` marker probes (all compat cells on, §A6.5).
INSTRUCTION_NAMES = ("Agents.md", "Claude.md", "CLAUDE.md", "CLAUDE.local.md", "AGENT.md",
                     "AGENTS.md", ".claude/CLAUDE.md", ".claude/CLAUDE.local.md")
INSTRUCTION_DIRS = (".grok/rules", ".claude/rules", ".cursor/rules")


@dataclass(frozen=True)
class Trust:
    """The trust verdict for one working directory, with the sentence that explains it."""

    state: TrustState
    #: The workspace key the store is looked up by (``None`` when the feature is off).
    key: str | None
    reason: str
    #: The marker that made the folder trust-sensitive (``instructions``, ``mcp``, ...).
    marker: str | None = None

    @property
    def withholds(self) -> bool:
        """Project files do not load."""
        return self.state in ("untrusted", "undecided")

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state, "key": self.key, "reason": self.reason}


def is_unsafe_root(key: str, home: str | None,
                   canon: Callable[[str], str] = canonical) -> bool:
    """``is_unsafe_trust_root``: not absolute, the filesystem root, or the home directory."""
    if not os.path.isabs(key) or os.path.dirname(key) == key:
        return True
    return home is not None and key == canon(home)


def _linked_worktree_main(root: str) -> str | None:
    """The main repository's workdir for a linked worktree at ``root``, else ``None``.

    A linked worktree's ``.git`` is a file ``gitdir: <main>/.git/worktrees/<name>`` whose
    ``commondir`` names the main ``.git``; the main workdir counts only if its ``.git``
    canonically is that common dir (§A6.3).
    """
    dot_git = os.path.join(root, ".git")
    if not os.path.isfile(dot_git):
        return None
    try:
        head = safeio.read_bytes(dot_git, 64 * 1024).decode("utf-8", "replace").strip()
    except OSError:
        return None
    if not head.startswith("gitdir:"):
        return None
    gitdir = os.path.join(root, head[len("gitdir:"):].strip())
    try:
        common_rel = safeio.read_bytes(os.path.join(gitdir, "commondir"), 64 * 1024)
    except OSError:
        return None  # a submodule's gitdir has no commondir
    common = canonical(os.path.join(gitdir, common_rel.decode("utf-8", "replace").strip()))
    main = os.path.dirname(common)
    if canonical(os.path.join(main, ".git")) == common:
        return canonical(main)
    return None


def workspace_key(cwd: str, home: str | None,
                  git_root_of: Callable[[str], str | None] = discover_git_root,
                  canon: Callable[[str], str] = canonical) -> str:
    """``workspace_key(cwd)`` (§A6.3): main repository for a linked worktree, else the git
    workdir, else the canonical cwd; an unsafe result falls back to the canonical cwd.
    No ``$HOME`` guard here (unlike the chain walk). ``git_root_of`` maps a canonical
    directory to its worktree root and ``canon`` canonicalises (the resolver passes its
    memoised versions)."""
    here = canon(cwd)
    root = git_root_of(here)
    key = here
    if root is not None:
        key = _linked_worktree_main(root) or root
    if is_unsafe_root(key, home, canon):
        return here
    return key


def _nearest_existing(path: str) -> str:
    current = path
    while not exists(current):
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return current


@dataclass(frozen=True)
class TrustStore:
    """``$GROK_HOME/trusted_folders.toml``: ``[folders."<path>"] trusted = bool``."""

    path: str
    folders: Mapping[str, bool]
    #: Why the file could not be used (it then trusts nothing), else ``None``.
    problem: str | None = None

    @classmethod
    def load(cls, grok_home: str | None) -> TrustStore:
        if grok_home is None or not os.path.isabs(grok_home):
            return cls("", {}, None)
        path = os.path.join(grok_home, STORE_NAME)
        try:
            raw = safeio.read_bytes(path, safeio.CONFIG_LIMIT)
        except FileNotFoundError:
            return cls(path, {}, None)
        except OSError as exc:
            return cls(path, {}, f"cannot read it ({safeio.describe(exc)})")
        try:
            data = bounded.toml_loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError, bounded.TooDeep) as exc:
            return cls(path, {}, f"it does not parse ({type(exc).__name__})")
        table = data.get("folders", {})
        if not isinstance(table, dict):
            return cls(path, {}, "`folders` is not a table")
        folders: dict[str, bool] = {}
        for folder, entry in table.items():
            if not isinstance(entry, dict) or not isinstance(entry.get("trusted"), bool):
                return cls(path, {}, f"the entry for {folder} has no boolean `trusted`")
            folders[folder] = entry["trusted"]
        return cls(path, folders, None)

    def lookup(self, key: str, home: str | None, key_of: Callable[[str], str] | None = None,
               canon: Callable[[str], str] = canonical) -> tuple[bool, str] | None:
        """``is_trusted(key)``: the deciding record ``(trusted, folder)``, or ``None``.

        A record counts when it is safe, the query lies within it, and both have the same
        workspace key (so a grant covers the same repository's subfolders only); the
        longest counting record decides, and tied records must all say trusted.
        """
        if self.problem is not None or not self.folders:
            return None
        if key_of is None:
            def key_of(path: str) -> str:
                return workspace_key(path, home)
        query = canon(key)
        query_key = key_of(_nearest_existing(query))
        best: list[tuple[str, bool]] = []
        depth = -1
        for folder, trusted in self.folders.items():
            if not is_within(query, folder) or is_unsafe_root(folder, home, canon):
                continue
            if key_of(_nearest_existing(folder)) != query_key:
                continue
            d = len([p for p in folder.split(os.sep) if p])
            if d > depth:
                best, depth = [(folder, trusted)], d
            elif d == depth:
                best.append((folder, trusted))
        if not best:
            return None
        return all(t for _, t in best), best[0][0]


def feature_enabled(env: Mapping[str, str], config: Mapping[str, object],
                    config_path: str) -> tuple[bool, str]:
    """``GROK_FOLDER_TRUST``, then ``[folder_trust] enabled``, then on (§A6.1).

    A release build is assumed: a local build (no version stamp) has trust off, and says
    so only through ``GROK_FOLDER_TRUST=0``.
    """
    from_env = env_bool(env.get("GROK_FOLDER_TRUST"))
    if from_env is not None:
        return from_env, f"GROK_FOLDER_TRUST={env.get('GROK_FOLDER_TRUST')} in the environment"
    table = config.get("folder_trust")
    if isinstance(table, dict) and isinstance(table.get("enabled"), bool):
        value = bool(table["enabled"])
        return value, f"[folder_trust] enabled = {str(value).lower()} in {config_path}"
    return True, "default"


def _toml_table(path: str) -> dict[str, Any] | None:
    try:
        data = bounded.toml_loads(safeio.read_bytes(path, safeio.CONFIG_LIMIT).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, bounded.TooDeep):
        return None
    return data


def _nonempty(value: object) -> bool:
    return isinstance(value, (dict, list, str)) and len(value) > 0


def _config_marker(path: str) -> str | None:
    data = _toml_table(path)
    if data is None:
        return None
    if _nonempty(data.get("mcp_servers")):
        return "mcp"
    plugins = data.get("plugins")
    if isinstance(plugins, dict) and _nonempty(plugins.get("paths")):
        return "plugins"
    if "permission" in data:
        perm = data["permission"]
        if not isinstance(perm, dict) or any(_nonempty(perm.get(k))
                                             for k in ("allow", "deny", "ask", "rules")):
            return "permission"
    return None


def _claude_json_marker(home: str | None, cwd: str) -> bool:
    if home is None:
        return False
    try:
        data = bounded.json_loads(safeio.read_bytes(os.path.join(home, ".claude.json"),
                                                    safeio.CONFIG_LIMIT))
    except (OSError, ValueError):  # not JSON, or nested too deeply (bounded.TooDeep)
        return False
    projects = data.get("projects") if isinstance(data, dict) else None
    entry = projects.get(cwd) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and _nonempty(entry.get("mcpServers"))


def instruction_markers(instruction_dirs: Iterable[str]) -> bool:
    """The ``instructions`` marker: a named file (``exists``, so a directory counts) or a
    rules directory (possibly empty), all compat cells on, gitignore not applied."""
    for d in instruction_dirs:
        if any(exists(os.path.join(d, n)) for n in INSTRUCTION_NAMES):
            return True
        if any(is_dir(os.path.join(d, r)) for r in INSTRUCTION_DIRS):
            return True
    return False


def find_marker(cwd: str, chain: Sequence[str], git_root: str | None,
                instruction_dirs: Sequence[str], skill_dirs: Sequence[str],
                home: str | None) -> str | None:
    """The first trust-sensitive marker kind (§A6.5, in its order), or ``None``.

    ``chain`` is the RepoDirChain (cwd first); ``git_root`` the home-guarded root.
    """
    base = git_root or cwd
    j = os.path.join
    if any(exists(j(d, ".mcp.json")) for d in chain):
        return "mcp"
    for d in chain:
        kind = _config_marker(j(d, ".grok", "config.toml"))
        if kind is not None:
            return kind
    checks: tuple[tuple[str, bool], ...] = (
        ("lsp", exists(j(cwd, ".grok", "lsp.json"))),
        ("mcp", exists(j(cwd, ".cursor", "mcp.json"))),
        ("envrc", exists(j(cwd, ".envrc"))),
        ("claude", any(exists(j(d, ".claude", n)) for d in chain
                       for n in ("settings.json", "settings.local.json"))),
        ("hooks", exists(j(base, ".grok", "hooks")) or exists(j(base, ".cursor", "hooks.json"))),
        ("plugins", is_dir(j(base, ".grok", "plugins"))),
        ("agents", any(is_dir(j(d, c, "agents")) for d in chain for c in (".grok", ".claude"))),
        ("roles", is_dir(j(cwd, ".grok", "roles"))),
        ("personas", is_dir(j(cwd, ".grok", "personas"))),
        ("workflows", exists(j(base, ".grok", "workflows"))),
    )
    for kind, present in checks:
        if present:
            return kind
    if instruction_markers(instruction_dirs):
        return "instructions"
    if any(is_dir(j(d, c, leaf)) for d in skill_dirs
           for c in (".grok", ".agents", ".claude", ".cursor") for leaf in ("skills", "commands")):
        return "skills"
    if _claude_json_marker(home, cwd):
        return "mcp"
    return None


def resolve(cwd: str, *, chain: Sequence[str], git_root: str | None,
            instruction_dirs: Sequence[str], skill_dirs: Sequence[str], home: str | None,
            grok_home: str | None, env: Mapping[str, str], config: Mapping[str, object],
            config_path: str, command: str, override: Override = "auto",
            key: str | None = None, store: TrustStore | None = None,
            lookup: Callable[[TrustStore, str], tuple[bool, str] | None] | None = None,
            ) -> Trust:
    """The verdict ``grok inspect`` reaches for ``cwd`` (never prompting), or the override.

    A caller that resolves many directories (the ``Resolver``) passes the workspace
    ``key``, the loaded ``store`` and a memoised ``lookup``; they are computed here
    otherwise.
    """
    if key is None:
        key = workspace_key(cwd, home)
    if override == "trusted":
        return Trust("trusted", key, "--trust trusted: shown as if the folder were trusted")
    if override == "untrusted":
        return Trust("untrusted", key, "--trust untrusted: shown as if the folder were not"
                     " trusted")
    enabled, origin = feature_enabled(env, config, config_path)
    if not enabled:
        return Trust("not-required", None, f"folder trust is off ({origin})")
    if store is None:
        store = TrustStore.load(grok_home)
    found = lookup(store, key) if lookup is not None else store.lookup(key, home)
    if found is not None:
        trusted, folder = found
        where = f"{folder} in {store.path}"
        if trusted:
            return Trust("trusted", key, f"trusted: {where}")
        return Trust("untrusted", key, f"marked untrusted: {where}; run `{command}` here to"
                     " trust it")
    if is_unsafe_root(key, home):
        return Trust("not-required", key, f"{key} cannot be recorded as trusted (home"
                     " directory or filesystem root); Grok trusts it for this session only")
    marker = find_marker(cwd, chain, git_root, instruction_dirs, skill_dirs, home)
    if marker is None:
        return Trust("not-required", key, "nothing here needs trust (no project instructions,"
                     " skills or repo-local config)")
    if store.problem is not None:
        return Trust("untrusted", key, f"{store.path} is unusable: {store.problem}; Grok"
                     " trusts no folder until it can read it", marker)
    return Trust("undecided", key, f"no trust decision for {key} yet (it has {marker});"
                 f" Grok asks when an interactive session starts here, or run `{command}`",
                 marker)
