"""Gemini CLI: GEMINI.md tiers, on-read (JIT) files and ``@path`` imports, exact from
source at 5411f113 (research agent-profiles.md §2, facts numbered there).

Names (1-2): ``context.fileName`` entries first, then ``GEMINI.md``. Start-up (3-10):
``~/.gemini/<name>``, then — only in a trusted folder — every name in every directory from
the start directory up to the nearest ``context.memoryBoundaryMarkers`` directory,
de-duplicated by file identity and **sorted as strings**. Folder trust is on by default
and a folder is trusted only by ``~/.gemini/trustedFolders.json`` (9a). On read (11-13):
from the file's directory up to the same ceiling, only inside the start directory. Imports
(15-21) expand inline, tree format. Framing (22): ``--- Context from: <path> ---``.
Nothing below the start directory loads at start and no ignore file is consulted (8);
files load whole, with no size limit (24). Extension context files (4) and the private
user project memory (7) are named in a note, not read; ``loadMemoryFromIncludeDirectories``
does not change start-up (10); the on-read why names the triggering tools (11).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rulelens.agents import bounded, fsio, profiles, safeio
from rulelens.agents.approval import Approval, ImportBudget, workspace_roots
from rulelens.agents.compat import ConfigError
from rulelens.agents.imports import gemini_code_regions, gemini_imports, in_regions, line_of
from rulelens.agents.paths import display_path
from rulelens.agents.record import Agent
from rulelens.agents.view import AgentView, ImportEdge, Role, ViewBuilder, ViewFile, When

PROFILE = profiles.GEMINI
ID = PROFILE.agent
DISPLAY = PROFILE.display
DEFAULT_NAME = PROFILE.base_names[0]
MAX_IMPORT_DEPTH = PROFILE.imports.max_depth if PROFILE.imports else 5
JIT_OPEN = "\n\n--- Newly Discovered Project Context ---\n"
JIT_CLOSE = "\n--- End Project Context ---"
#: Fact 11: the tools whose access to a path triggers on-read (JIT) context.
JIT_TOOLS = "read_file, list_directory, write_file, replace or read_many_files"
#: Fact 24: Gemini CLI has no size limit on context files; RuleLens reads up to its own
#: text limit (64 MiB), far above any real file.
NO_SIZE_LIMIT = safeio.TEXT_LIMIT
SOURCE = "exact from Gemini CLI source @5411f113"
#: Facts 4 and 7: tiers RuleLens does not read (extension manifests, the private
#: per-project storage directory), stated rather than guessed.
UNSEEN_TIERS = ("Also loaded at start, not shown here: context files of active extensions"
                " and the private user project memory (MEMORY.md, else legacy names, in"
                f" Gemini CLI's per-project storage directory) ({SOURCE}).")


def gemini_dir(env: Mapping[str, str]) -> str:
    home = env.get("GEMINI_CLI_HOME") or env.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".gemini")


def _strip_json_comments(text: str) -> str:
    out, i, n, in_str = [], 0, len(text), False
    while i < n:
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            out.append(c)
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def read_json(path: str) -> dict[str, Any]:
    text = fsio.read_text(path, 1 << 20)
    if text is None:
        return {}
    try:
        data = bounded.json_loads(_strip_json_comments(text))
    except bounded.TooDeep as exc:  # one line (exit 2 in the CLI), never RecursionError
        raise ConfigError(f"{display_path(path)}: {exc}") from None
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


@dataclass(frozen=True)
class Settings:
    names: tuple[str, ...]
    markers: tuple[str, ...]
    folder_trust: bool
    import_format: str


def _get(data: Mapping[str, Any], dotted: str) -> Any:
    cur: Any = data
    for key in dotted.split("."):
        if not isinstance(cur, dict) or key not in cur:
            return None
        cur = cur[key]
    return cur


def file_names(configured: object) -> tuple[str, ...]:
    """Fact 1-2: configured names (string or list) first, then ``GEMINI.md``; trimmed,
    normalised, empty ones dropped, de-duplicated."""
    raw = [configured] if isinstance(configured, str) else (
        configured if isinstance(configured, list) else [])
    out: list[str] = []
    for name in [*raw, DEFAULT_NAME]:
        if not isinstance(name, str) or not name.strip():
            continue
        norm = os.path.normpath(name.strip())
        if norm not in out:
            out.append(norm)
    return tuple(out)


def settings(env: Mapping[str, str], cwd: str) -> Settings:
    user = read_json(os.path.join(gemini_dir(env), "settings.json"))
    merged = dict(user)
    workspace = read_json(os.path.join(cwd, ".gemini", "settings.json"))
    for section in ("context",):
        if isinstance(workspace.get(section), dict):
            merged[section] = {**(merged.get(section) or {}), **workspace[section]}
    markers = _get(merged, "context.memoryBoundaryMarkers")
    if not (isinstance(markers, list) and all(isinstance(m, str) for m in markers)):
        markers = [".git"]
    trust = _get(user, "security.folderTrust.enabled")
    return Settings(
        names=file_names(_get(merged, "context.fileName")),
        markers=tuple(markers),
        folder_trust=trust if isinstance(trust, bool) else True,
        import_format="flat" if _get(merged, "context.importFormat") == "flat" else "tree",
    )


def trust_state(env: Mapping[str, str], cwd: str, enabled: bool) -> tuple[bool, str]:
    """Fact 9/9a: ``(trusted, why)``; env ``GEMINI_CLI_TRUST_WORKSPACE`` first, then the
    longest matching rule of ``~/.gemini/trustedFolders.json``; no rule ⇒ not trusted."""
    forced = env.get("GEMINI_CLI_TRUST_WORKSPACE")
    if forced in ("true", "false"):
        return forced == "true", f"GEMINI_CLI_TRUST_WORKSPACE={forced}"
    if not enabled:
        return True, "folder trust is switched off (security.folderTrust.enabled = false)"
    path = os.path.join(gemini_dir(env), "trustedFolders.json")
    rules = read_json(path)
    real = os.path.realpath(cwd)
    best_len, best = -1, None
    for rule_path, level in rules.items():
        if level not in ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST"):
            continue
        effective = os.path.dirname(rule_path) if level == "TRUST_PARENT" else rule_path
        effective = os.path.realpath(effective) if fsio.exists(effective) else effective
        if fsio.is_below(real, effective.rstrip("/") or "/") and len(rule_path) > best_len:
            best_len, best = len(rule_path), (rule_path, level)
    if best is None:
        return False, ("folder not trusted: Gemini CLI's folder trust is on by default and"
                       f" {path} has no rule for it; trust it when Gemini asks (or /permissions)")
    if best[1] == "DO_NOT_TRUST":
        return False, f"{best[0]} is DO_NOT_TRUST in trustedFolders.json"
    return True, f"{best[0]} is {best[1]} in trustedFolders.json"


def project_root(start: str, markers: tuple[str, ...]) -> str | None:
    if not markers:
        return None
    usable = [m for m in markers if not os.path.isabs(m) and ".." not in m]
    for d in fsio.ancestors(start):
        if any(fsio.exists(os.path.join(d, m)) or os.path.lexists(os.path.join(d, m))
               for m in usable):
            return d
    return None


def _upward(start: str, stop: str, names: tuple[str, ...], gdir: str) -> list[str]:
    """``findUpwardGeminiFiles``: readable names per directory, root-most first."""
    found: list[str] = []
    for d in fsio.ancestors(start, stop):
        if d == gdir:
            break
        here = [os.path.join(d, n) for n in names if fsio.readable(os.path.join(d, n))]
        found = here + found
    return found


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _js_sort_key(s: str) -> bytes:
    return s.encode("utf-16-be", errors="surrogatepass")


def _dedup_sorted(paths: list[str]) -> list[str]:
    out: list[str] = []
    ids: set[tuple[int, int]] = set()
    for p in dict.fromkeys(paths):
        ident = _identity(p)
        if ident is not None and ident in ids:
            continue
        if ident is not None:
            ids.add(ident)
        out.append(p)
    return sorted(out, key=_js_sort_key)


#: What the rendered text holds where RuleLens did not open an import (not Gemini's text).
NOT_OPENED = "<!-- RuleLens: not opened: {spec} - outside the workspace, needs approval -->"


class _Expander:
    """Tree-format import expansion (facts 15-21) that records every edge. The approval
    rule comes before any access to a target; ``budget`` bounds the whole view."""

    def __init__(self, b: ViewBuilder, markers: tuple[str, ...], when: When,
                 approval: Approval | None = None, budget: ImportBudget | None = None) -> None:
        self.b = b
        self.markers = markers
        self.when = when
        #: ``None``: the workspace folders (server) or the importing file's project root.
        self.approval = approval
        self.budget = budget or ImportBudget()
        self.imported: list[ViewFile] = []

    def _approved(self, full: str, project: str) -> str | None:
        """The real path of ``full`` when RuleLens may open it (before any access)."""
        if self.approval is None:
            self.approval = Approval.of(workspace_roots() or (project,))
        return self.approval.resolve(full)

    def _outside(self, owner: str, line: int, spec: str, full: str, depth: int) -> None:
        """An import RuleLens may not open: its spelling only, no access to ``full``."""
        self.b.imports.append(ImportEdge(owner, line, spec, full, "needs-approval", depth))
        self.b.skip(full, "import-needs-approval",
                    f"@{spec} in {owner}:{line} points outside the workspace and Gemini CLI's"
                    " home; outside, needs approval: RuleLens does not open it", owner)

    def _read(self, real: str) -> bytes | str:
        """The import's bytes through safeio (a FIFO or device never blocks), or why not."""
        data = fsio.read_bytes(real) if fsio.exists(real) else (
            f"ENOENT: no such file or directory, access '{real}'")
        if isinstance(data, bytes) and not self.budget.take_bytes(len(data)):
            return "not read: " + str(self.budget.stopped)
        return data

    def expand(self, content: str, base: str, chain: frozenset[str], depth: int,
               project: str, owner: str) -> str:
        regions = gemini_code_regions(content)
        if depth >= MAX_IMPORT_DEPTH:
            for start, _e, spec in gemini_imports(content):
                if not in_regions(start, regions):
                    if not self.budget.take_import():
                        break
                    self.b.imports.append(ImportEdge(owner, line_of(content, start), spec,
                                                     None, "depth", depth + 1))
            return content
        out, last = [], 0
        for start, end, spec in gemini_imports(content):
            out.append(content[last:start])
            last = end
            if in_regions(start, regions):
                out.append("@" + spec)
                continue
            line = line_of(content, start)
            full = os.path.normpath(os.path.join(base, spec))
            if not self.budget.take_import():
                out.append("@" + spec)
                continue
            refused = re.match(r"^(file|https?)://", spec) or not _spelled_inside(full, project)
            real = None if refused else self._approved(full, project)
            if real is None and not refused:
                out.append(NOT_OPENED.format(spec=spec))
                self._outside(owner, line, spec, full, depth + 1)
                continue
            if real is None or not _inside(real, project):
                out.append(f"<!-- Import failed: {spec} - Path traversal attempt -->")
                self.b.imports.append(ImportEdge(owner, line, spec, full, "outside", depth + 1))
                self.b.skip(full, "import-outside",
                            f"@{spec} in {owner}:{line} points outside the project root"
                            f" ({project}); Gemini CLI refuses it", owner)
                continue
            if full in chain:
                out.append(f"<!-- File already processed: {spec} -->")
                self.b.imports.append(ImportEdge(owner, line, spec, full, "cycle", depth + 1))
                continue
            data = self._read(real)
            if isinstance(data, str):
                out.append(f"<!-- Import failed: {spec} - {data} -->")
                self.b.imports.append(ImportEdge(owner, line, spec, full, "missing", depth + 1))
                self.b.skip(full, "import-missing",
                            f"@{spec} in {owner}:{line}: {data}", owner)
                continue
            text = data.decode("utf-8", errors="replace")
            self.b.imports.append(ImportEdge(owner, line, spec, full, "inlined", depth + 1))
            sub = _Expander(self.b, self.markers, self.when, self.approval, self.budget)
            inner = sub.expand(text, os.path.dirname(full), chain | {full}, depth + 1,
                               project, full)
            out.append(f"<!-- Imported from: {spec} -->\n{inner}\n"
                       f"<!-- End of import from: {spec} -->")
            self.imported.append(ViewFile(
                full, self.when,
                f"imported by @{spec} in {os.path.basename(owner)}:{line} (inlined there)",
                "import", "project", len(data), inner, imported_by=owner))
            self.imported.extend(sub.imported)
        out.append(content[last:])
        return "".join(out)


    def flat(self, content: str, owner: str, project: str) -> str:
        """``context.importFormat: "flat"`` (fact 21): every file once, depth-first over the
        imports in reverse order, as ``--- File: <path> ---`` blocks. The top-level entry is
        labelled with its *directory* (``path.resolve(basePath)``: no current file is set)."""
        seen: set[str] = set()
        out: list[tuple[str, str]] = []

        def visit(text: str, base: str, label: str, src: str, depth: int) -> None:
            key = os.path.normpath(label)
            if key in seen:
                return
            seen.add(key)
            out.append((key, text))
            regions = gemini_code_regions(text)
            for start, _end, spec in reversed(gemini_imports(text)):
                if in_regions(start, regions):
                    continue
                full = os.path.normpath(os.path.join(base, spec))
                line = line_of(text, start)
                if not self.budget.take_import():
                    return
                refused = (re.match(r"^(file|https?)://", spec)
                           or not _spelled_inside(full, project))
                real = None if refused else self._approved(full, project)
                if real is None and not refused:
                    self._outside(src, line, spec, full, depth + 1)
                    continue
                if real is None or not _inside(real, project):
                    self.b.imports.append(ImportEdge(src, line, spec, full, "outside", depth + 1))
                    continue
                if full in seen:
                    continue
                data = self._read(real)
                if isinstance(data, str):
                    self.b.imports.append(ImportEdge(src, line, spec, full, "missing", depth + 1))
                    continue
                inner = data.decode("utf-8", errors="replace")
                self.b.imports.append(ImportEdge(src, line, spec, full, "inlined", depth + 1))
                self.imported.append(ViewFile(
                    full, self.when, f"imported by @{spec} in {os.path.basename(src)}:{line}"
                    " (flat: its own --- File: block)", "import", "project", len(data),
                    inner.strip(), imported_by=src))
                visit(inner, os.path.dirname(full), full, full, depth + 1)

        visit(content, os.path.dirname(owner), os.path.dirname(owner), owner, 0)
        return "\n\n".join(f"--- File: {p} ---\n{c.strip()}\n--- End of File: {p} ---"
                             for p, c in out)


def _spelled_inside(path: str, root: str) -> bool:
    """The spelling alone is inside the project root (Gemini refuses it otherwise, whether
    it exists or not: deciding that needs no access to ``path``)."""
    return fsio.is_below(path, root) or fsio.is_below(path, os.path.realpath(root))


def _inside(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    return fsio.is_below(real, os.path.realpath(root))


def view(cwd: str, file: str | None, env: Mapping[str, str]) -> AgentView:
    s = settings(env, cwd)
    gdir = gemini_dir(env)
    b = ViewBuilder()
    trusted, trust_why = trust_state(env, cwd, s.folder_trust)
    root = project_root(cwd, s.markers)
    ceiling = root or cwd
    # Imports may be opened inside the workspace folders (the language server's), else the
    # start directory and its project root (the command line's), and ~/.gemini.
    approval = Approval.of([cwd, *(workspace_roots() or (ceiling,)), gdir])
    budget = ImportBudget()
    blocks: dict[str, list[tuple[str, str]]] = {"global": [], "project": [], "jit": []}

    def load(path: str, when: When, why: str, kind: str, tier: str) -> None:
        data = fsio.read_bytes(path, NO_SIZE_LIMIT)
        if isinstance(data, str):
            b.skip(path, "unreadable", f"cannot be read: {data}")
            return
        text = data.decode("utf-8", errors="replace")
        ex = _Expander(b, s.markers, when, approval, budget)
        project = project_root(os.path.dirname(path), s.markers) or os.path.dirname(path)
        expanded = (ex.flat(text, path, project) if s.import_format == "flat" else
                    ex.expand(text, os.path.dirname(path), frozenset(), 0, project, path))
        if not expanded.strip():
            b.skip(path, "empty", "empty after trimming: Gemini CLI drops it")
            return
        role: Role = "home" if tier == "global" else "project"
        b.add(ViewFile(path, when, why, kind, role, len(data), expanded.strip()))
        for imp in ex.imported:
            b.add(imp)
        blocks[tier].append((path, expanded))

    for name in s.names:
        p = os.path.join(gdir, name)
        if fsio.readable(p):
            load(p, "start", f"global ~/.gemini/{name}", "global", "global")

    upward = _dedup_sorted(_upward(cwd, ceiling, s.names, gdir))
    for p in upward:
        if not trusted:
            b.skip(p, "untrusted-folder", f"Gemini CLI loads no project context files here: "
                   f"{trust_why}")
            continue
        d = os.path.dirname(p)
        where = "the start directory" if d == cwd else f"{os.path.relpath(d, ceiling)}/"
        load(p, "start", f"{os.path.basename(p)} in {where} (start dir up to the project root;"
             " sorted by path)", "project", "project")

    if file is not None:
        _on_read(cwd, file, s, gdir, ceiling, trusted, trust_why, b, load)

    if not trusted:
        b.notes.append("Untrusted folder: " + trust_why)
    if budget.stopped is not None:
        b.notes.append(budget.stopped)
    b.notes.append(UNSEEN_TIERS)
    if "AGENTS.md" not in s.names:
        b.notes.append("Gemini CLI reads AGENTS.md only when context.fileName lists it.")
    rendered = render(blocks)
    return AgentView(ID, DISPLAY, cwd, file, root, b.files(), b.not_loaded(),
                     imports=tuple(b.imports), notes=tuple(b.notes), basis="code",
                     basis_label="exact from Gemini CLI source (@5411f113)", rendered=rendered,
                     extra={"names": list(s.names), "trusted": trusted})


def _on_read(cwd: str, file: str, s: Settings, gdir: str, ceiling: str, trusted: bool,
             trust_why: str, b: ViewBuilder, load: Any) -> None:
    fdir = os.path.dirname(file)
    if not fsio.is_below(file, cwd):
        for d in fsio.ancestors(fdir):
            if fsio.is_below(cwd, d):
                break
            for n in s.names:
                p = os.path.join(d, n)
                if fsio.readable(p):
                    b.skip(p, "outside-workspace",
                           "the file is outside the start directory (the only workspace"
                           " directory): Gemini CLI loads no on-read context for it")
        return
    for p in _dedup_sorted(_upward(fdir, ceiling, s.names, gdir)):
        if b.loaded(p):
            continue
        if not trusted:
            b.skip(p, "untrusted-folder", f"on-read context is off in an untrusted folder:"
                   f" {trust_why}")
            continue
        rel = os.path.relpath(os.path.dirname(p), cwd)
        load(p, "on-read", f"{os.path.basename(p)} in {rel}/: added when {JIT_TOOLS} touches a"
             " path below it (once per session)", "project", "jit")


def render(blocks: Mapping[str, list[tuple[str, str]]]) -> str:
    """``concatenateInstructions`` per tier: the global tier goes into the system
    instruction, the project tier into the first user message, JIT text after a tool
    result (fact 14, 22-23)."""
    def concat(items: list[tuple[str, str]]) -> str:
        return "\n\n".join(f"--- Context from: {p} ---\n{c.strip()}\n"
                           f"--- End of Context from: {p} ---" for p, c in items if c.strip())
    parts = []
    if blocks.get("global"):
        parts.append("<global_context>\n" + concat(blocks["global"]) + "\n</global_context>")
    if blocks.get("project"):
        parts.append("<project_context>\n" + concat(blocks["project"]) + "\n</project_context>")
    if blocks.get("jit"):
        parts.append(JIT_OPEN + concat(blocks["jit"]) + JIT_CLOSE)
    return "\n\n".join(parts)


#: This agent's record in :data:`rulelens.agents.registry.AGENTS`.
AGENT = Agent(
    id=ID, short="Gemini", display=DISPLAY, profiles=(PROFILE,),
    markers=("GEMINI.md", ".gemini"),
    formats=(), view=view,
    homes=lambda env: (gemini_dir(env),),
    trust_command=PROFILE.trust.command if PROFILE.trust else None,
    config_files=(".gemini/settings.json", ".gemini/trustedFolders.json"),
)
