"""Claude Code (closed source): CLAUDE.md files, ``.claude/rules`` and ``@path`` imports,
per Claude Code docs (research agent-profiles.md §3; every detail text says so).

Start (facts 1-5): the managed file, ``~/.claude/CLAUDE.md`` and ``~/.claude/rules``, then
for every directory from ``/`` down to the start directory ``CLAUDE.md``,
``.claude/CLAUDE.md``, the unscoped ``.claude/rules/**/*.md`` and ``CLAUDE.local.md``.
On read (8-12): files in directories below the start directory on the way to the file,
and rules whose ``paths`` match it. Imports (13-15): relative to the importing file, not in
code, four hops; outside the start directory they wait for a one-time approval. Limits
(16-19): block HTML comments hidden, files over 4 MiB skipped, ``claudeMdExcludes``.
AGENTS.md (20-22): not read unless the ``agents-md@builtin`` option says so. What RuleLens
cannot observe is said in notes: ``--add-dir`` files (6), setting sources (11), the
too-long warning (18) and the unconfirmed managed kind string (23); nested files say how
they are framed (9).
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Mapping
from typing import Any

from rulelens.agents import bounded, fsio, profiles
from rulelens.agents.approval import Approval, ImportBudget, workspace_roots
from rulelens.agents.compat import ConfigError
from rulelens.agents.globmatch import first_match, glob_problem, split_globs
from rulelens.agents.imports import claude_imports, line_of
from rulelens.agents.meta import yaml_meta
from rulelens.agents.paths import display_path
from rulelens.agents.record import Agent
from rulelens.agents.view import AgentView, ImportEdge, Role, ViewBuilder, ViewFile, When

PROFILE = profiles.CLAUDE
ID = PROFILE.agent
DISPLAY = PROFILE.display
DOCS = "per Claude Code docs, 2026-08"
MANAGED = "/etc/claude-code/CLAUDE.md"
MAX_FILE = PROFILE.budget.max_bytes if PROFILE.budget else 4 * 1024 * 1024
MAX_HOPS = PROFILE.imports.max_depth if PROFILE.imports else 4
#: The managed file's kind string is UNCONFIRMED (research §3 fact 23): the render says so.
MANAGED_KIND = "kind string unconfirmed for the managed file"
#: Fact 18: older builds warned "CLAUDE.md is too long" above this many characters; newer
#: ones scale the threshold with the context window.
OLD_LONG_WARNING = 40_000
#: Fact 9: how the engine frames a nested file after the tool result.
NESTED_FRAMING = ("attached after the tool result as `Contents of <path>:`, once per"
                  " conversation until compaction or /clear")
ADD_DIR_ENV = "CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD"
#: Version-gated bugs users report (observed; shown on the lines they affect).
MULTI_PATHS_BUG = ("some Claude Code builds never load a rule with several `paths:` entries"
                   " (one path worked); observed: anthropics/claude-code#33581, closed")
USER_PATHS_BUG = ("some Claude Code builds never load `paths:` rules under ~/.claude/rules/"
                  " (the same file worked in ./.claude/rules/); observed:"
                  " anthropics/claude-code#21858, closed")
KINDS = {
    "managed": MANAGED_KIND,
    "user": "user's private global instructions for all projects",
    "project": "project instructions, checked into the codebase",
    "local": "user's private project instructions, not checked in",
}
PREAMBLE = (
    "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n"
    "# claudeMd\nCodebase and user instructions are shown below. Be sure to adhere to these"
    " instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST"
    " follow them exactly as written.\n\n"
)
CLOSING = "</system-reminder>"
AGENTS_MODES = ("claude-md", "claude-md-or-agents-md", "claude-md-and-agents-md",
                "managed-only", "claude", "agents-fallback", "both", "none")


def _read_json(path: str) -> dict[str, Any]:
    text = fsio.read_text(path, 1 << 20)
    if text is None:
        return {}
    try:
        data = bounded.json_loads(text)
    except bounded.TooDeep as exc:  # one line (exit 2 in the CLI), never RecursionError
        raise ConfigError(f"{display_path(path)}: {exc}") from None
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def settings(home: str, cwd: str) -> tuple[list[str], str]:
    """``(claudeMdExcludes merged over the layers, agents-md mode)``."""
    layers = [os.path.join(home, ".claude", "settings.json"),
              os.path.join(cwd, ".claude", "settings.json"),
              os.path.join(cwd, ".claude", "settings.local.json")]
    excludes: list[str] = []
    mode = "claude-md"
    for i, path in enumerate(layers):
        data = _read_json(path)
        ex = data.get("claudeMdExcludes")
        if isinstance(ex, list):
            excludes.extend(e for e in ex if isinstance(e, str))
        if i == 0:  # the option is read from user (or managed) settings only
            opts = (data.get("pluginConfigs") or {}).get("agents-md@builtin", {})
            opts = opts.get("options", {}) if isinstance(opts, dict) else {}
            for key in ("instructionFiles", "projectInstructions"):
                if isinstance(opts, dict) and opts.get(key) in AGENTS_MODES:
                    mode = str(opts[key])
    return excludes, mode


def _excluded(path: str, excludes: list[str]) -> str | None:
    for pattern in excludes:
        if fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase(path, pattern.rstrip("/")
                                                                       + "/**"):
            return pattern
    return None


_BLOCK_COMMENT = re.compile(r"^[ \t]*<!--[\s\S]*?-->[ \t]*\n?", re.MULTILINE)


def hide_comments(text: str) -> str:
    """Block-level HTML comments are hidden (fact 16); not inside fenced code."""
    out, pos = [], 0
    for m in re.finditer(r"^ {0,3}(```|~~~)[\s\S]*?(?:^ {0,3}\1[^\n]*$|\Z)", text, re.MULTILINE):
        out.append(_BLOCK_COMMENT.sub("", text[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_BLOCK_COMMENT.sub("", text[pos:]))
    return "".join(out)


class _Loader:
    def __init__(self, cwd: str, home: str, excludes: list[str], b: ViewBuilder,
                 approval: Approval | None = None) -> None:
        self.cwd = cwd
        self.home = home
        self.excludes = excludes
        self.b = b
        self.blocks: list[tuple[str, str, str]] = []  # path, kind, content
        #: Where an import may be opened: checked before any access to its target.
        self.approval = approval or Approval.of([cwd, os.path.join(home, ".claude")])
        self.budget = ImportBudget()

    def load(self, path: str, when: When, why: str, kind: str, role: Role,
             imported_by: str | None = None, hops: int = 0,
             chain: frozenset[str] = frozenset(), source: str | None = None) -> bool:
        """Load ``path`` (read from ``source``, its approved real path, for an import)."""
        if self.b.loaded(path):
            return True
        size = fsio.size(source or path)
        if kind != "managed":
            pattern = _excluded(path, self.excludes)
            if pattern is not None:
                self.b.skip(path, "excluded", f"excluded by claudeMdExcludes {pattern!r}"
                            f" ({DOCS})", imported_by)
                return False
        if size > MAX_FILE:
            self.b.skip(path, "too-large", f"{size:,} bytes: Claude Code skips a file over 4 MiB"
                        f" whole ({DOCS})", imported_by)
            return False
        text = fsio.read_text(source or path)
        if text is None:
            self.b.skip(path, "unreadable", "cannot be read", imported_by)
            return False
        if imported_by is not None and not self.budget.take_bytes(len(text)):
            return False
        _meta, body, _err = yaml_meta(text) if kind == "rule" else ({}, text, None)
        shown = hide_comments(body)
        self.b.add(ViewFile(path, when, why, kind, role, size, shown, imported_by=imported_by))
        self.blocks.append((path, _render_kind(path, kind, role), shown))
        self._imports(path, shown, when, role, hops, chain | {path})
        return True

    def _imports(self, owner: str, text: str, when: When, role: Role, hops: int,
                 chain: frozenset[str]) -> None:
        """Follow ``owner``'s imports. The approval rule comes before any access to a
        target: one outside the approved roots (or, for a project file, outside the start
        directory) is listed by its spelling only — never stat-ed, read or shown."""
        for offset, spec in claude_imports(text):
            if not self.budget.take_import():
                return
            line = line_of(text, offset)
            if spec.startswith("~/"):
                target = os.path.join(self.home, spec[2:])
            else:
                target = os.path.normpath(os.path.join(os.path.dirname(owner), spec))
            depth = hops + 1
            where = f"@{spec} in {os.path.basename(owner)}:{line}"
            if target in chain:
                self.b.imports.append(ImportEdge(owner, line, spec, target, "cycle", depth))
                self.b.skip(target, "import-cycle", f"{where} imports a file already on this"
                            f" import chain (cycle; {DOCS})", owner)
                continue
            if depth > MAX_HOPS:
                self.b.imports.append(ImportEdge(owner, line, spec, target, "depth", depth))
                self.b.skip(target, "import-depth", f"{where} is hop {depth}; Claude Code follows"
                            f" imports {MAX_HOPS} hops deep ({DOCS}; older builds: 5)", owner)
                continue
            real = self.approval.resolve(target)
            if real is None or (role == "project"
                                and not fsio.is_below(real, self.approval.canonical(self.cwd))):
                self.b.imports.append(ImportEdge(owner, line, spec, target, "needs-approval",
                                                 depth))
                self.b.skip(target, "import-needs-approval",
                            f"{where} points outside the start directory: Claude Code asks once"
                            " per project before loading it, and `claude -p` never asks"
                            f" ({DOCS}); outside, needs approval: RuleLens does not open it",
                            owner)
                continue
            if not fsio.is_file(real):
                what = "not a regular file" if fsio.exists(real) else "no such file"
                self.b.imports.append(ImportEdge(owner, line, spec, target, "missing", depth))
                self.b.skip(target, "import-missing", f"{where}: {what}", owner)
                continue
            head = fsio.read_bytes(real, 8192)
            if isinstance(head, bytes) and b"\0" in head:
                self.b.imports.append(ImportEdge(owner, line, spec, target, "binary", depth))
                self.b.skip(target, "import-binary", f"{where}: a binary file; Claude Code does"
                            f" not include binary files through imports ({DOCS})", owner)
                continue
            self.b.imports.append(ImportEdge(owner, line, spec, target, "inlined", depth))
            self.load(target, when, f"imported by {where} (hop {depth})", "import", role,
                      imported_by=owner, hops=depth, chain=chain, source=real)


def _render_kind(path: str, kind: str, role: Role) -> str:
    """The ``KINDS`` key of a loaded file: local, managed (before the home role: the managed
    file is not the user's), user, else the file's own kind."""
    if os.path.basename(path) == "CLAUDE.local.md":
        return "local"
    if kind == "managed":
        return "managed"
    return "user" if role == "home" else kind


def _rules(d: str) -> list[str]:
    return fsio.walk_files(os.path.join(d, ".claude", "rules"), ".md")


def _rel(file: str | None, base: str) -> str | None:
    if file is None or not fsio.is_below(file, base) or file == base:
        return None
    return os.path.relpath(file, base).replace(os.sep, "/")


def _rule(ld: _Loader, path: str, base: str, file: str | None, when_unscoped: When,
          why_unscoped: str, role: Role) -> None:
    text = fsio.read_text(path, 1 << 20) or ""
    meta, _body, err = yaml_meta(text)
    globs = split_globs(meta.get("paths")) if "paths" in meta else []
    if err:
        ld.b.notes.append(f"{path}: {err}; Claude Code then treats it as unscoped")
    for glob in globs:
        problem = glob_problem(glob)
        if problem is not None:
            ld.b.notes.append(f"{path}: paths: {problem}")
    if not globs:
        ld.load(path, when_unscoped, why_unscoped, "rule", role)
        return
    rel = _rel(file, base)
    hit = first_match(globs, rel) if rel is not None else None
    if hit is not None:
        ld.load(path, "on-read", f"paths: {hit} matches {rel}; loaded when Claude reads the file"
                f" (not on Write of a new file, nor Bash reads; {DOCS})", "rule", role)
    else:
        ld.b.skip(path, "paths-no-match",
                  f"paths: {', '.join(globs)} — does not match "
                  f"{rel if rel is not None else 'this file (outside ' + base + ')'} ({DOCS})")
    if len(globs) > 1:
        ld.b.annotate(path, MULTI_PATHS_BUG)
    if role == "home":
        ld.b.annotate(path, USER_PATHS_BUG)


def view(cwd: str, file: str | None, env: Mapping[str, str], managed: str = MANAGED) -> AgentView:
    home = env.get("HOME") or os.path.expanduser("~")
    excludes, mode = settings(home, cwd)
    b = ViewBuilder()
    # Imports may be opened inside the workspace folders (the language server's) or the
    # start directory (the command line's), and Claude's own homes.
    approval = Approval.of([cwd, *(workspace_roots() or ()), os.path.join(home, ".claude"),
                            os.path.dirname(managed)])
    ld = _Loader(cwd, home, excludes, b, approval)
    off = next((v for v in ("CLAUDE_CODE_SAFE_MODE", "CLAUDE_CODE_SIMPLE") if env.get(v)), None)
    if off:
        b.notes.append(f"{off} is set: Claude Code loads no CLAUDE.md files ({DOCS}).")
        return _finish(cwd, file, None, b, ld)
    if fsio.is_file(managed):
        ld.load(managed, "start", f"managed policy file (cannot be excluded; {DOCS})", "managed",
                "home")
    if mode in ("managed-only", "none"):
        b.notes.append(f"agents-md@builtin option {mode!r}: only the managed file loads.")
        return _finish(cwd, file, None, b, ld)
    user_dir = os.path.join(home, ".claude")
    if fsio.is_file(os.path.join(user_dir, "CLAUDE.md")):
        ld.load(os.path.join(user_dir, "CLAUDE.md"), "start", f"user file ~/.claude/CLAUDE.md"
                f" ({DOCS})", "user", "home")
    for r in _rules(home):
        _rule(ld, r, cwd, file, "start", f"user rule in ~/.claude/rules, before project rules"
              f" ({DOCS})", "home")
    chain_dirs = fsio.ancestors(cwd)[::-1]
    for d in chain_dirs:
        if d == home and d != cwd:
            continue  # ~/.claude is the user layer, handled above
        where = "the start directory" if d == cwd else f"{d}/ (an ancestor of the start dir)"
        _directory(ld, d, file, "start", f"in {where}; every directory from / down to the start"
                   f" directory loads ({DOCS})")
    if file is not None:
        for d in fsio.between(cwd, os.path.dirname(file)):
            rel = os.path.relpath(d, cwd)
            _directory(ld, d, file, "on-read", f"nested in {rel}/: loaded when Claude reads a file"
                       f" below it, {NESTED_FRAMING} ({DOCS})")
    _agents_md(ld, chain_dirs, file, mode)
    _doc_notes(ld, env)
    return _finish(cwd, file, None, b, ld)


def _doc_notes(ld: _Loader, env: Mapping[str, str]) -> None:
    """Facts RuleLens cannot observe, stated where they matter (6, 11, 18, managed kind)."""
    notes = ld.b.notes
    if env.get(ADD_DIR_ENV) == "1":
        notes.append(f"{ADD_DIR_ENV}=1: directories added with --add-dir also contribute their"
                     f" CLAUDE.md; RuleLens sees only the start directory ({DOCS}).")
    files = ld.b.files()
    if any(f.kind == "rule" and f.when == "on-read" and "/.claude/rules/" in f.path
           and not fsio.is_below(f.path, os.path.join(ld.cwd, ".claude"))
           and fsio.is_below(f.path, ld.cwd) for f in files):
        notes.append("Nested .claude/rules files do not load when the setting sources exclude"
                     f" project settings ({DOCS}).")
    long = [f.path for f in files if len(f.content) > OLD_LONG_WARNING]
    if long:
        notes.append(f"{', '.join(long)}: over {OLD_LONG_WARNING:,} characters, where older"
                     " builds warned \"CLAUDE.md is too long\"; newer builds scale that warning"
                     f" with the context window ({DOCS}).")
    if any(f.kind == "managed" for f in files):
        notes.append("The kind string Claude Code prints for the managed file is unconfirmed;"
                     f" the render marks it ({DOCS}).")


def _directory(ld: _Loader, d: str, file: str | None, when: When, why: str) -> None:
    for rel in ("CLAUDE.md", os.path.join(".claude", "CLAUDE.md")):
        p = os.path.join(d, rel)
        if fsio.is_file(p):
            ld.load(p, when, f"{rel} {why}", "project", "project")
    for r in _rules(d):
        _rule(ld, r, d, file, when, f"unscoped rule (no paths) {why}", "project")
    local = os.path.join(d, "CLAUDE.local.md")
    if fsio.is_file(local):
        ld.load(local, when, f"CLAUDE.local.md (private, appended at its level) {why}", "project",
                "project")


def _agents_md(ld: _Loader, chain_dirs: list[str], file: str | None, mode: str) -> None:
    dirs = list(chain_dirs)
    if file is not None:
        dirs += fsio.between(chain_dirs[-1], os.path.dirname(file))
    claude_names = ("CLAUDE.md", os.path.join(".claude", "CLAUDE.md"), "CLAUDE.local.md")
    has_claude = any(fsio.is_file(os.path.join(d, n)) for d in chain_dirs for n in claude_names)
    fallback = mode in ("claude-md-or-agents-md", "agents-fallback")
    both = mode in ("claude-md-and-agents-md", "both")
    for d in dirs:
        for name in ("AGENTS.md", os.path.join(".claude", "AGENTS.md"), "AGENTS.override.md"):
            p = os.path.join(d, name)
            if not fsio.is_file(p) or ld.b.loaded(p):
                continue
            twin = next((f.path for f in ld.b.files() if _same(f.path, p)), None)
            if twin is not None:
                ld.b.skip(p, "same-file", f"the same file as {twin} (a link): its text loads"
                          " under that name")
            elif name == "AGENTS.override.md":
                ld.b.skip(p, "not-read", f"Claude Code never reads AGENTS.override.md ({DOCS})")
            elif both or (fallback and not has_claude):
                when: When = "start" if d in chain_dirs else "on-read"
                ld.load(p, when, f"{name} via the agents-md@builtin option {mode!r} ({DOCS})",
                        "project", "project")
            else:
                ld.b.skip(p, "not-read",
                          f"Claude Code reads CLAUDE.md, not AGENTS.md ({DOCS}); import it with"
                          " @AGENTS.md or link CLAUDE.md to it. Builds with agents-md@builtin"
                          " (2.1.277+) read it only when no CLAUDE.md exists")


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _finish(cwd: str, file: str | None, root: str | None, b: ViewBuilder,
            ld: _Loader) -> AgentView:
    if ld.budget.stopped is not None:
        b.notes.append(ld.budget.stopped)
    return AgentView(ID, DISPLAY, cwd, file, root, b.files(), b.not_loaded(),
                     imports=tuple(b.imports), notes=tuple(b.notes), basis="docs",
                     basis_label=DOCS, rendered=render(ld.blocks, b.files()))


def render(blocks: list[tuple[str, str, str]], files: tuple[ViewFile, ...]) -> str:
    """The start-up ``<system-reminder>`` (framing per observed output, 3p), imported files
    as their own blocks after the importer; on-read files are not part of it."""
    start = {f.path for f in files if f.when == "start"}
    parts = [f"Contents of {p} ({KINDS.get(kind, KINDS['project'])}):\n\n{c}"
             for p, kind, c in blocks if p in start]
    if not parts:
        return ""
    return PREAMBLE + "\n\n".join(parts) + "\n" + CLOSING


#: This agent's record in :data:`rulelens.agents.registry.AGENTS`.
AGENT = Agent(
    id=ID, short="Claude", display=DISPLAY, profiles=(PROFILE,),
    markers=("CLAUDE.md", "CLAUDE.local.md", ".claude"),
    formats=("claude-rule",), view=view,
    config_files=(".claude/settings.json", ".claude/settings.local.json"),
)
