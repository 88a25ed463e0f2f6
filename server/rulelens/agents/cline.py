"""Cline (VS Code extension): its rules folders, Cursor's and Windsurf's rule files and
AGENTS.md, exact from the extension's own loader at 864419d8 (research
agent-profiles-more.md §1, facts CL-F1..CL-F15), the last commit before the SDK migration.

Everything is relative to the start directory, nothing above it (CL-F1). Prompt order
(CL-F2): the global rules folder ``<Documents>/Cline/Rules`` (CL-F3: ``XDG_DOCUMENTS_DIR``,
else ``$HOME`` when ``xdg-user-dir`` is installed, else ``~/Documents``), ``.clinerules`` (a
folder: every regular file, recursively, any extension, not ``workflows/``, ``hooks/``,
``skills/``, CL-F4; or a single file, CL-F5), ``.cursorrules``, ``.cursor/rules/**/*.mdc``,
``.windsurfrules``, then every ``agents.md`` in the workspace when one is at its root
(CL-F13). Empty files are dropped (CL-F6). Frontmatter (CL-F7): only ``paths`` is a
condition (CL-F8): missing = always (*start*), ``[]`` = never, a non-list = ignored, else
*on-read* when the edited file matches a glob (CL-F10); invalid YAML injects the whole file
(CL-F9). Cursor's ``.mdc`` keys mean nothing to Cline (CL-F12). Rule toggles (CL-F14) are
read from ``~/.cline/data/globalState.json`` and ``…/workspaces/<hash>/workspaceState.json``.
Symbolic links inside the rules folders are not listed (``Dirent.isFile()`` is false).
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
from collections.abc import Mapping
from typing import Any

import yaml

from rulelens.agents import bounded, fsio, profiles, scan, yamlbound
from rulelens.agents.globmatch import matches
from rulelens.agents.record import Agent
from rulelens.agents.view import AgentView, Role, ViewBuilder, ViewFile, When

PROFILE = profiles.CLINE
ID = PROFILE.agent
DISPLAY = PROFILE.display
SOURCE = "exact from Cline source @864419d8"
OS_FILES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})
LOCAL_EXCLUDED = ("workflows", "hooks", "skills")
#: ``listFiles``: directories never entered when looking for nested AGENTS.md (CL-F13).
IGNORED_DIRS = frozenset({"node_modules", "__pycache__", "env", "venv", "dist", "out", "bundle",
                          "vendor", "tmp", "temp", "deps", "Pods"})
LIST_LIMIT = 500
#: The version gate (research §1 version note): the SDK loader reads other files.
SDK_NOTE = ("This is the extension's own loader (cline@864419d8). Builds after the 2026-08 SDK"
            " migration read AGENTS.md, .clinerules, .cline/rules, ~/.agents/AGENTS.md,"
            " ~/.cline/rules and ~/Documents/Cline/Rules instead, with no paths conditions and"
            " no Cursor or Windsurf files (cline/cline@21cb8d25).")
#: Per-line sources where a fact comes from outside the row's user-instructions folder.
STATE_REF = "cline/cline@864419d8:apps/vscode/src/shared/storage/storage-context.ts"
LIST_REF = "cline/cline@864419d8:apps/vscode/src/services/glob/list-files.ts"
#: RuleLens' own bounds on a rules folder walk (Cline has none): files kept, folders listed.
MAX_FILES = 5000
MAX_DIRS = 10000
_FRONT = re.compile(r"^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$")


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str, bool, str | None]:
    """``parseYamlFrontmatter``: ``(data, body, had_frontmatter, parse_error)``; on an error
    the body is the whole text (fail-open)."""
    m = _FRONT.match(text)
    if m is None:
        return {}, text, False, None
    bounded_doc = yamlbound.compose(m.group(1), max_bytes=1 << 20, max_depth=64,
                                    max_nodes=10_000)
    if bounded_doc.problem is not None and bounded_doc.problem.kind == "limit":
        return {}, text, True, bounded_doc.problem.message  # nesting, aliases: refused
    try:
        data = _JsonSchemaLoader(m.group(1)).get_single_data()
    except (yaml.YAMLError, RecursionError) as exc:
        return {}, text, True, str(exc).splitlines()[0]
    return (data if isinstance(data, dict) else {}), m.group(2), True, None


class _JsonSchemaLoader(yaml.SafeLoader):
    """js-yaml's ``JSON_SCHEMA``: no custom tags (``!!python/...``, ``!!js/...``)."""


def _reject_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    raise yaml.constructor.ConstructorError(None, None, f"unknown tag !{suffix}",
                                            node.start_mark)


_JsonSchemaLoader.add_multi_constructor("!", _reject_tag)
_JsonSchemaLoader.add_multi_constructor("tag:", _reject_tag)


def evaluate_paths(data: Mapping[str, Any], candidates: list[str]) -> tuple[bool, list[str]]:
    """``evaluateRuleConditionals``: ``(passed, matched patterns)`` (CL-F8)."""
    if "paths" not in data:
        return True, []
    value = data["paths"]
    if not (isinstance(value, list) and all(isinstance(v, str) and v for v in value)):
        return True, []  # invalid type: the condition is ignored (fail-open)
    patterns = [p.strip() for p in value if p.strip()]
    if not patterns:
        return False, []
    cands = [c.replace("\\", "/") for c in candidates if c]
    if not cands:
        return False, []
    hit = [p for p in patterns if any(matches(p, c) for c in cands)]
    return bool(hit), hit


def js_hash(text: str) -> str:
    """``hashString`` of storage-context.ts: the workspace state folder name."""
    h = 0
    for unit in _utf16_units(text):
        h = ((h << 5) - h + unit) & 0xFFFFFFFF
    if h >= 0x80000000:
        h -= 0x100000000
    return format(abs(h), "x")[:8]


def _utf16_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", errors="surrogatepass")
    return [int.from_bytes(data[i:i + 2], "little") for i in range(0, len(data), 2)]


def cline_dir(env: Mapping[str, str]) -> str:
    home = env.get("HOME") or os.path.expanduser("~")
    return env.get("CLINE_DIR") or os.path.join(home, ".cline")


def documents_dir(env: Mapping[str, str]) -> tuple[str, str]:
    """``getDocumentsPath`` on Linux (CL-F3): ``(path, how it was found)``."""
    home = env.get("HOME") or os.path.expanduser("~")
    config = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    dirs = os.path.join(config, "user-dirs.dirs")
    text = fsio.read_text(dirs, 1 << 16) or ""
    m = re.search(r'^XDG_DOCUMENTS_DIR="([^"]*)"', text, re.MULTILINE)
    if m:
        value = m.group(1).replace("$HOME", home)
        if os.path.isabs(value):
            return value, f"XDG_DOCUMENTS_DIR in {dirs}"
    if shutil.which("xdg-user-dir", path=env.get("PATH", "")):
        return home, "xdg-user-dir prints $HOME when no Documents folder is configured"
    return os.path.join(home, "Documents"), "no xdg-user-dir: Cline falls back to ~/Documents"


def global_rules_dir(env: Mapping[str, str]) -> str:
    return os.path.join(documents_dir(env)[0], "Cline", "Rules")


def toggles(env: Mapping[str, str], cwd: str) -> tuple[dict[str, bool], str, str]:
    """CL-F14: ``(path -> on, global state file, workspace state file)``; files missing
    from the toggles are on (they are added as on before loading)."""
    data = os.path.join(cline_dir(env), "data")
    gpath = os.path.join(data, "globalState.json")
    wpath = os.path.join(data, "workspaces", js_hash(cwd), "workspaceState.json")
    out: dict[str, bool] = {}
    for path, keys in ((gpath, ("globalClineRulesToggles",)),
                       (wpath, ("localClineRulesToggles", "localCursorRulesToggles",
                                "localWindsurfRulesToggles", "localAgentsRulesToggles"))):
        state = _read_json(path)
        for key in keys:
            table = state.get(key)
            if isinstance(table, dict):
                out.update({k: v for k, v in table.items() if isinstance(v, bool)})
    return out, gpath, wpath


def _read_json(path: str) -> dict[str, Any]:
    text = fsio.read_text(path, 8 << 20)
    try:
        data = bounded.json_loads(text) if text else {}
    except ValueError:  # not JSON, or nested too deeply
        return {}
    return data if isinstance(data, dict) else {}


def read_directory(top: str, excluded: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """``readDirectory``: ``(regular files, symlinks)`` below ``top``, level by level;
    OS files dropped, anything under ``<top>/<excluded>/`` left out."""
    files: list[str] = []
    links: list[str] = []
    queue = [top]
    listed = 0
    while queue and len(files) < MAX_FILES and listed < MAX_DIRS:
        d = queue.pop(0)
        listed += 1
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            if e.name in OS_FILES:
                continue
            if e.is_symlink():
                links.append(e.path)
            elif e.is_dir(follow_symlinks=False):
                queue.append(e.path)
            elif e.is_file(follow_symlinks=False):
                files.append(e.path)
    cut = tuple(os.path.join(top, x) + os.sep for x in excluded)
    return [f for f in files if not f.startswith(cut)], [s for s in links
                                                          if not s.startswith(cut)]


def list_agents_md(cwd: str, home: str) -> tuple[list[str], bool]:
    """``listFiles(cwd, true, 500)`` filtered to ``agents.md`` names: ``(files, cut)``."""
    if cwd in ("/", home) or not fsio.is_dir(cwd):
        return [], False
    ignores = _gitignore(cwd)
    # One pattern for all, as fnmatchcase tests each: a loop of fnmatchcase calls made the
    # walk of bench/lsp.py's tree 7x slower (15.6 ms against 2.2 ms, median).
    ignored = re.compile("|".join(fnmatch.translate(p) for p in ignores)) if ignores else None
    found: list[str] = []
    seen = 0
    level = [cwd]
    while level:
        nxt: list[str] = []
        for d in level:
            try:
                entries = sorted(os.scandir(d), key=lambda e: e.name)
            except OSError:
                continue
            for e in entries:
                if ignored is not None:
                    rel = e.path[len(cwd):].lstrip(os.sep).replace(os.sep, "/")
                    if ignored.match(rel) or ignored.match(e.name):
                        continue
                if e.is_dir():
                    if e.name.startswith(".") or e.name in IGNORED_DIRS:
                        continue
                    nxt.append(e.path)
                seen += 1
                if e.name.lower() == "agents.md" and not e.is_dir():
                    found.append(e.path)
                if seen >= LIST_LIMIT:
                    return found, True
        level = nxt
    return found, False


def _listing(cwd: str, home: str) -> tuple[tuple[str, ...], bool]:
    found, cut = list_agents_md(cwd, home)
    return tuple(found), cut


def _gitignore(cwd: str) -> list[str]:
    text = fsio.read_text(os.path.join(cwd, ".gitignore"), 1 << 20) or ""
    out = []
    for line in text.split("\n"):
        t = line.strip()
        if t and not t.startswith(("#", "!")):
            out.append(t.rstrip("/").lstrip("/"))
    return out


class _Loader:
    def __init__(self, cwd: str, file: str | None, env: Mapping[str, str]) -> None:
        self.cwd = cwd
        self.b = ViewBuilder()
        self.toggles, self.gstate, self.wstate = toggles(env, cwd)
        self.gdir = global_rules_dir(env)
        rel = None
        if file is not None and file != cwd and fsio.is_below(file, cwd):
            rel = os.path.relpath(file, cwd).replace(os.sep, "/")
        self.rel = rel
        self.sections: list[tuple[str, list[str]]] = []

    def off(self, path: str) -> bool:
        if self.toggles.get(path) is False:
            store = self.gstate if fsio.is_below(path, self.gdir) else self.wstate
            self.b.skip(path, "toggled-off", f"switched off in Cline's rules panel (stored in"
                        f" {store}; {SOURCE})", source=STATE_REF)
            return True
        return False

    def rule(self, path: str, base: str, role: Role, label: str, conditions: bool = True) -> str:
        """One rule file through ``getRuleFilesTotalContentWithMetadata``: the injected
        part, or ``""``."""
        if self.off(path):
            return ""
        raw = (fsio.read_text(path) or "").strip()
        relname = os.path.relpath(path, base).replace(os.sep, "/")
        if not raw:
            self.b.skip(path, "empty", f"empty after trimming: Cline drops it ({SOURCE})")
            return ""
        data, body, had, err = parse_frontmatter(raw)
        size = fsio.size(path)
        if had and err:
            self.b.add(ViewFile(path, "start", f"{label}; its frontmatter is not valid YAML"
                                f" ({err}): Cline injects the whole file, fence included"
                                f" (fail-open; {SOURCE})", "rule", role, size, raw))
            return f"{relname}\n{raw}"
        candidates = [self.rel] if (conditions and self.rel) else []
        passed, hit = evaluate_paths(data, candidates)
        paths = data.get("paths")
        shown = ", ".join(map(str, paths)) if isinstance(paths, list) else str(paths)
        if not passed:
            if isinstance(paths, list) and not [p for p in paths if str(p).strip()]:
                why = "paths: [] matches nothing: the rule never loads (fail-closed)"
                reason = "paths-empty"
            elif not conditions:
                why = ("paths: is never met here: Cline reads .cursor/rules without a file"
                       " context, so a path-scoped rule there never loads")
                reason = "paths-no-context"
            elif self.rel is None:
                why = (f"paths: {shown} — the file is not inside the"
                       " workspace, so it is never a candidate path")
                reason = "paths-no-match"
            else:
                why = f"paths: {shown} — does not match {self.rel}"
                reason = "paths-no-match"
            self.b.skip(path, reason, f"{why} ({SOURCE})")
            return ""
        when: When = "on-read" if hit else "start"
        if hit:
            why = (f"{label}; paths: {hit[0]} matches {self.rel}: added when the file is in"
                   f" the task's context (mentioned, open, edited; \"Conditional rules"
                   f" applied\") ({SOURCE})")
        elif "paths" in data:
            why = (f"{label}; paths is not a list of strings, so Cline ignores the condition"
                   f" (fail-open; {SOURCE})")
        else:
            why = f"{label} ({SOURCE})"
        self.b.add(ViewFile(path, when, why, "rule", role, size, body.strip()))
        return f"{relname}\n{body.strip()}"

    def folder(self, top: str, base: str, role: Role, label: str, excluded: tuple[str, ...],
               suffix: str = "", conditions: bool = True) -> list[str]:
        files, links = read_directory(top, excluded)
        for link in links:
            self.b.skip(link, "symlink", f"a symbolic link: Cline lists only regular files"
                        f" in {label} ({SOURCE})")
        parts = []
        for f in files:
            if suffix and not f.endswith(suffix):
                self.b.skip(f, "wrong-extension", f"Cline reads only {suffix} files in"
                            f" {label} ({SOURCE})")
                continue
            part = self.rule(f, base, role, f"in {label}", conditions)
            if part:
                parts.append(part)
        if excluded:
            for x in excluded:
                for f in read_directory(os.path.join(top, x))[0]:
                    self.b.skip(f, f"not-a-rule.{x}", f".clinerules/{x}/ holds {x}, not rules:"
                                f" never injected as a rule ({SOURCE})")
        return parts

    def whole(self, path: str, label: str) -> str:
        """``.cursorrules`` / ``.windsurfrules``: the whole trimmed file (CL-F11)."""
        if not fsio.is_file(path) or self.off(path):
            return ""
        text = (fsio.read_text(path) or "").strip()
        if not text:
            self.b.skip(path, "empty", f"empty after trimming: Cline drops it ({SOURCE})")
            return ""
        self.b.add(ViewFile(path, "start", f"{label}: loaded whole with every task, also when"
                            f" .clinerules exists ({SOURCE})", "project", "project",
                            fsio.size(path), text))
        return text


def view(cwd: str, file: str | None, env: Mapping[str, str]) -> AgentView:
    home = env.get("HOME") or os.path.expanduser("~")
    ld = _Loader(cwd, file, env)
    b = ld.b
    gdir = global_rules_dir(env)
    _docs, how = documents_dir(env)
    if fsio.is_dir(gdir):
        parts = ld.folder(gdir, gdir, "home", f"the global rules folder {gdir}", ())
        if parts:
            ld.sections.append((f"# .clinerules/\n\nThe following is provided by a global"
                                f" .clinerules/ directory, located at {gdir}, where the user has"
                                " specified instructions for all working directories:", parts))
    local = os.path.join(cwd, ".clinerules")
    if fsio.is_dir(local):
        parts = ld.folder(local, cwd, "project", ".clinerules/", LOCAL_EXCLUDED)
        if parts:
            ld.sections.append((f"# .clinerules/\n\nThe following is provided by a root-level"
                                " .clinerules/ directory where the user has specified"
                                f" instructions for this working directory ({cwd})", parts))
    elif fsio.is_file(local):
        part = ld.rule(local, cwd, "project", "the single-file .clinerules")
        if part:
            ld.sections.append((f"# .clinerules\n\nThe following is provided by a root-level"
                                " .clinerules file where the user has specified instructions"
                                f" for this working directory ({cwd})",
                                [part.split("\n", 1)[1] if "\n" in part else ""]))
    for name in (".cursorrules",):
        text = ld.whole(os.path.join(cwd, name), f"Cursor's legacy {name}")
        if text:
            ld.sections.append((f"# {name}", [text]))
    crules = os.path.join(cwd, ".cursor", "rules")
    if fsio.is_dir(crules):
        parts = ld.folder(crules, cwd, "project", ".cursor/rules/ (Cursor's alwaysApply,"
                          " globs and description mean nothing to Cline)", (), ".mdc",
                          conditions=False)
        if parts:
            ld.sections.append(("# .cursor/rules", parts))
    text = ld.whole(os.path.join(cwd, ".windsurfrules"), "Windsurf's legacy .windsurfrules")
    if text:
        ld.sections.append(("# .windsurfrules", [text]))
    _agents_md(ld, home)
    _not_read(ld)
    b.notes.append(f"Global rules folder: {gdir} ({how}; {SOURCE}).")
    b.notes.append("Files in a rules folder load in the file system's listing order, not"
                   f" sorted; numeric prefixes do not order them ({SOURCE}).")
    b.notes.append("Remote (organisation) rules are appended after the global folder's files;"
                   " they are not files, so they are not shown.")
    b.notes.append(SDK_NOTE)
    return AgentView(ID, DISPLAY, cwd, file, cwd, b.files(), b.not_loaded(),
                     notes=tuple(b.notes), basis="code",
                     basis_label="exact from Cline source (cline/cline@864419d8)",
                     rendered=_render(ld))


def _agents_md(ld: _Loader, home: str) -> None:
    top = os.path.join(ld.cwd, "AGENTS.md")
    if not fsio.exists(top):
        if ld.rel is not None:
            for d in fsio.between(ld.cwd, os.path.dirname(os.path.join(ld.cwd, ld.rel))):
                for name in fsio.listdir(d):
                    p = os.path.join(d, name)
                    if name.lower() == "agents.md" and fsio.is_file(p):
                        ld.b.skip(p, "no-root-agents-md", "there is no AGENTS.md at the"
                                  " workspace root, so Cline does not look for nested ones"
                                  f" ({SOURCE})")
        return
    if ld.off(top):
        return
    # The listing, once per session and start directory: without it 16 cold views of a
    # file cost +110 % (in-process A/B, 200 files of bench/lsp.py's tree).
    found, cut = scan.cached(("cline.list_agents_md", ld.cwd, home),
                             lambda: _listing(ld.cwd, home))
    if ld.cwd in ("/", home):
        ld.b.skip(top, "restricted-dir", "Cline does not list files in the home or root"
                  f" directory, so it finds no AGENTS.md here ({SOURCE})", source=LIST_REF)
        return
    parts = []
    for p in found:
        text = (fsio.read_text(p) or "").strip()
        if not text:
            ld.b.skip(p, "empty", f"empty after trimming: Cline drops it ({SOURCE})")
            continue
        rel = os.path.relpath(p, ld.cwd)
        ld.b.add(ViewFile(p, "start", f"{rel}: every agents.md in the workspace loads at start"
                          " (a root AGENTS.md exists), each to be applied to its own directory"
                          f" ({SOURCE})", "project", "project", fsio.size(p), text))
        parts.append(f"## {rel}\n\n{text}")
    if cut:
        ld.b.notes.append(f"Cline lists at most {LIST_LIMIT} entries when looking for nested"
                          " AGENTS.md; this workspace has more, so deeper ones may be missed.")
    if parts:
        ld.sections.append((f"# AGENTS.md\n\nThe following is provided by AGENTS.md files found"
                            f" recursively throughout this working directory ({ld.cwd})"
                            " where the user has specified instructions.", parts))


def _not_read(ld: _Loader) -> None:
    for name, who in (("CLAUDE.md", "Claude Code"), ("GEMINI.md", "Gemini CLI"),
                      ("QWEN.md", "Qwen Code"), (".github/copilot-instructions.md", "Copilot")):
        p = os.path.join(ld.cwd, name)
        if fsio.is_file(p):
            ld.b.skip(p, "not-read", f"{who} reads it; this Cline version does not ({SOURCE})")
    wdir = os.path.join(ld.cwd, ".windsurf", "rules")
    if fsio.is_dir(wdir):
        for p in fsio.walk_files(wdir, ""):
            ld.b.skip(p, "not-read", "Windsurf's .windsurf/rules is not read by Cline (only the"
                      f" legacy .windsurfrules file is; {SOURCE})")


def _render(ld: _Loader) -> str:
    blocks = [head + "\n\n" + "\n\n".join(parts) for head, parts in ld.sections]
    if not blocks:
        return ""
    return ("USER'S CUSTOM INSTRUCTIONS\n\nThe following additional instructions are provided"
            " by the user, and should be followed to the best of your ability without"
            " interfering with the TOOL USE guidelines.\n\n" + "\n\n".join(blocks))


AGENT = Agent(
    id=ID, short="Cline", display=DISPLAY, profiles=(PROFILE,),
    markers=(".clinerules",),
    formats=("cline-rule",), view=view,
    homes=lambda env: (global_rules_dir(env), os.path.join(cline_dir(env), "data")),
)
