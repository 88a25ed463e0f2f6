"""Where Claude Code, Codex, Gemini CLI and Qwen Code keep memory, and what reaches the model.

One function per agent (:data:`STORES`) turns a session cwd into a :class:`StoreView`: the
memory roots, every memory file with its scope and what the agent does with it at session
start (``injected``: ``start`` / ``on-demand`` / ``no``), the exact cut (``cut_at_line``,
``injected_bytes``) and the line ranges on each side of it (``segments``, so a search
result never spans a cut). Each store names its sources in ``evidence`` and its notes, with
a grade: ``[code]`` the agent's source at a commit, ``[doc]`` its official documentation,
``[3p]`` third-party readings (Claude Code is closed source).

Read-only. Every memory file is read beneath its own memory root
(:func:`~rulelens.memory.beneath.read_beneath`); a link out of a root is listed as skipped
and never opened. Grok's store is :mod:`rulelens.memory.workspace` and is not modelled here.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from rulelens.agents import codex as codex_rules
from rulelens.agents import fsio
from rulelens.agents.gemini import read_json
from rulelens.memory.beneath import (
    Refused,
    SkippedFile,
    entries_beneath,
    kind_of,
    lstat_beneath,
    read_beneath,
)

Injected = str  # "start" | "on-demand" | "no"
Scope = str  # "global" | "workspace"

#: Claude Code's MEMORY.md cut: 200 lines, then 25,000 UTF-16 units at a newline [doc]+[3p].
CLAUDE_MAX_LINES = 200
CLAUDE_MAX_UNITS = 25_000
#: Claude Code's project folder names are cut here and get a runtime-dependent hash [3p].
CLAUDE_MAX_NAME = 200
#: Codex's memory_summary.md budget (prompts.rs at the research's commit) and its
#: token estimate (4 bytes a token, codex-rs truncate).
CODEX_SUMMARY_TOKENS = 5_000
CODEX_BYTES_PER_TOKEN = 4
#: Topic files listed per memory folder at most (a folder is a handful of files).
MAX_LISTED = 2_000
#: The end of a segment that covers a whole file whose lines were not counted.
ALL_LINES = 1 << 62

CLAUDE_3P = ("Claude Code is closed source: its limits are documented, but the exact cut"
             " (trim, 200 lines, then the last newline at or before 25,000 UTF-16 units) and"
             " the project folder naming ([^a-zA-Z0-9] -> '-', canonical git root) come from"
             " third-party readings of its code [3p]")


@dataclass(frozen=True)
class Segment:
    """Lines ``[start, end)`` (0-based) of a file and what the agent does with them."""

    start: int
    end: int
    injected: Injected


@dataclass(frozen=True)
class StoreFile:
    """One memory file: where, which scope, and what reaches the model at start."""

    path: str
    root: str  # the memory root it is read beneath
    scope: Scope
    injected: Injected
    injected_bytes: int | None
    cut_at_line: int | None  # last 1-based line that reaches the model; None: no cut
    bytes: int
    lines: int | None  # None: not read (a file that is not injected)
    role: str  # index, topic, summary, context, registry, raw, ...
    segments: tuple[Segment, ...] = ()

    def label_for(self, start_line: int) -> Injected:
        """The label of the line ``start_line`` (0-based)."""
        for s in self.segments:
            if s.start <= start_line < s.end:
                return s.injected
        return "on-demand" if self.injected == "start" and self.cut_at_line else self.injected

    def cuts(self) -> list[int]:
        """The 0-based line numbers where a new segment starts (chunks split there)."""
        return [s.start for s in self.segments[1:]]

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "scope": self.scope, "injected": self.injected,
                "injected_bytes": self.injected_bytes, "cut_at_line": self.cut_at_line,
                "bytes": self.bytes, "lines": self.lines, "role": self.role}


@dataclass
class StoreView:
    """One agent's memory for one session cwd."""

    agent: str
    cwd: str
    enabled: bool
    project: str | None  # the agent's project folder name or id, None when it has none
    roots: dict[str, str]  # scope -> memory root ("" when the agent has none)
    files: list[StoreFile] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    #: Sizes of the regular files a directory listing found (saves a walk per topic file).
    sizes: dict[str, int] = field(default_factory=dict, repr=False)

    def to_json(self) -> dict[str, object]:
        return {"agent": self.agent, "workspace": self.cwd, "enabled": self.enabled,
                "project": self.project,
                # Not {"global": …}: a Python keyword as a key is renamed by pygls's converter.
                "global_root": self.roots.get("global") or None,
                "workspace_root": self.roots.get("workspace") or None,
                "files": [f.to_json() for f in self.files],
                "skipped": [{"path": k.path, "reason": k.reason} for k in self.skipped],
                "notes": list(self.notes), "evidence": list(self.evidence)}

    def file(self, path: str) -> StoreFile | None:
        return next((f for f in self.files if f.path == path), None)


# -- cuts --------------------------------------------------------------------------------

def utf16_len(text: str) -> int:
    """JavaScript ``String.length``: UTF-16 code units."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2


#: JavaScript ``String.prototype.trim``'s whitespace (White_Space plus BOM, line terminators).
_JS_SPACE = (" \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
             "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")


@dataclass(frozen=True)
class Cut:
    """What reaches the model of one file: its bytes, and the segments of its lines."""

    injected_bytes: int
    cut_at_line: int | None
    segments: tuple[Segment, ...]


def _line_count(text: str) -> int:
    """Lines as the chunker numbers them (``\\n``-separated, no trailing empty line)."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def _split(n_lines: int, keep: int, partial: bool = False
           ) -> tuple[int | None, tuple[Segment, ...]]:
    """``cut_at_line`` and segments for a file of ``n_lines`` whose first ``keep`` lines
    reach the model (``partial``: the last of them only in part)."""
    if keep >= n_lines and not partial:
        return None, (Segment(0, n_lines, "start"),)
    return keep, (Segment(0, keep, "start"), Segment(keep, n_lines, "on-demand"))


def claude_cut(text: str) -> Cut:
    """Claude Code's ``MEMORY.md`` cut (memdir ``truncateEntrypointContent`` [3p]).

    Trim; keep the first 200 lines; if still over 25,000 UTF-16 units, cut at the last
    newline at or before 25,000 (not kept), or at 25,000 when there is none.
    """
    n_lines = _line_count(text)
    body = text.strip(_JS_SPACE)
    lead = text[: len(text) - len(text.lstrip(_JS_SPACE))].count("\n")
    parts = body.split("\n")
    capped = parts[:CLAUDE_MAX_LINES]
    kept = "\n".join(capped)
    partial = False
    if utf16_len(kept) > CLAUDE_MAX_UNITS:
        units = 0
        last = -1  # the last line whose newline sits at or before the cap (UTF-16 units)
        for i, line in enumerate(capped[:-1]):
            units += utf16_len(line)
            if units + i > CLAUDE_MAX_UNITS:
                break
            last = i
        if last >= 0:
            capped = capped[: last + 1]
            kept = "\n".join(capped)
        else:  # no newline before the cap: 25,000 units of the first line
            kept = _utf16_prefix(capped[0], CLAUDE_MAX_UNITS)
            capped = [kept]
            partial = True
    if not body:
        return Cut(0, None, (Segment(0, n_lines, "start"),) if n_lines else ())
    if len(capped) == len(parts) and not partial:  # all of it (trimmed) reaches the model
        return Cut(len(kept.encode("utf-8")), None, (Segment(0, n_lines, "start"),))
    keep = lead + len(capped)
    cut_at, segments = _split(n_lines, keep, partial)
    return Cut(len(kept.encode("utf-8")), cut_at, segments)


def _utf16_prefix(text: str, units: int) -> str:
    out = []
    n = 0
    for ch in text:
        n += 2 if ord(ch) > 0xFFFF else 1
        if n > units:
            break
        out.append(ch)
    return "".join(out)


def qwen_cut(text: str) -> Cut:
    """Qwen Code's ``MEMORY.md`` budget: 200 lines and 25,000 UTF-16 units, whole lines
    only ("entries are packed whole, never cut mid-link" [doc])."""
    n_lines = _line_count(text)
    parts = text.split("\n")[:n_lines]
    units = 0
    keep = 0
    for i, line in enumerate(parts[:CLAUDE_MAX_LINES]):
        units += utf16_len(line) + (1 if i else 0)
        if units > CLAUDE_MAX_UNITS:
            break
        keep = i + 1
    kept = "\n".join(parts[:keep])
    cut_at, segments = _split(n_lines, keep)
    return Cut(len(kept.encode("utf-8")), cut_at, segments)


def codex_cut(text: str, tokens: int = CODEX_SUMMARY_TOKENS) -> Cut:
    """Codex's ``memory_summary.md``: trimmed, then head+tail truncated to ``tokens``
    (about 4 bytes a token; the middle is dropped for a marker). Lines wholly inside the
    head or the tail reach the model; the lines in between are labelled on demand."""
    n_lines = _line_count(text)
    body = text.strip()
    budget = tokens * CODEX_BYTES_PER_TOKEN
    raw = body.encode("utf-8")
    if len(raw) <= budget:
        return Cut(len(raw), None, (Segment(0, n_lines, "start"),) if n_lines else ())
    lead = text[: len(text) - len(text.lstrip())].count("\n")
    head = raw[: budget // 2].decode("utf-8", errors="ignore")
    tail = raw[len(raw) - budget // 2:].decode("utf-8", errors="ignore")
    head_lines = head.count("\n")  # whole lines in the head
    tail_lines = tail.count("\n")  # whole lines in the tail (the first one is partial)
    body_lines = body.count("\n") + 1
    head_end = lead + head_lines
    tail_start = lead + body_lines - tail_lines
    segments = (Segment(0, head_end, "start"), Segment(head_end, tail_start, "on-demand"),
                Segment(tail_start, n_lines, "start"))
    return Cut(len(head.encode()) + len(tail.encode()), head_end or None,
               tuple(s for s in segments if s.end > s.start))


# -- reading beneath a root ---------------------------------------------------------------

def _listing(root: str, directory: str, view: StoreView, suffix: str = ".md"
             ) -> list[str]:
    """Regular ``*suffix`` files directly in ``directory`` beneath ``root``, sorted; links
    leaving the root and non-files are recorded as skipped."""
    try:
        entries = _entries(root, directory)
    except Refused as exc:
        _skipped(view, _skip(exc))
        return []
    out: list[str] = []
    for name, mode in sorted(entries)[:MAX_LISTED]:
        if not name.endswith(suffix):
            continue
        path = os.path.join(directory, name)
        if _probe(root, path, view, mode):
            out.append(path)
            if mode is not None:  # a regular file in the listing, not a link: its size
                with contextlib.suppress(OSError):
                    view.sizes[path] = os.lstat(path).st_size
    return out


def _skipped(view: StoreView, skip: SkippedFile) -> None:
    """Record a skipped file once (an index file is probed, then seen again in its folder)."""
    if skip not in view.skipped:
        view.skipped.append(skip)


def _entries(root: str, directory: str) -> list[tuple[str, int | None]]:
    """(name, mode) of the entries of ``directory`` beneath ``root`` (the root itself
    included: it is where the agent keeps memory, links in it are resolved per entry);
    ``[]`` when the root does not exist."""
    if not os.path.isdir(root):
        return []
    if os.path.abspath(directory) != os.path.abspath(root):
        return entries_beneath(root, directory)
    try:
        with os.scandir(root) as it:
            return [(e.name, None if e.is_symlink()
                     else stat.S_IFREG if e.is_file(follow_symlinks=False)
                     else e.stat(follow_symlinks=False).st_mode) for e in it]
    except OSError as exc:
        raise Refused(root, "cannot read", str(exc.strerror or exc)) from exc


def _probe(root: str, path: str, view: StoreView, mode: int | None = None) -> bool:
    """Whether ``path`` is a regular file beneath ``root`` (a missing file is just absent)."""
    if not os.path.isdir(root):
        return False
    if mode is None:
        try:
            mode = lstat_beneath(root, path).st_mode
        except Refused as exc:
            if exc.code != "missing":
                _skipped(view, _skip(exc))
            return False
    if not stat.S_ISREG(mode):
        _skipped(view, SkippedFile(path, f"not-a-file: {kind_of(mode)}"))
        return False
    return True


def _skip(exc: Refused) -> SkippedFile:
    if exc.code == "outside-roots":
        return SkippedFile(exc.path, f"{exc} (a link out of the memory root: RuleLens does"
                                     " not read it)")
    return exc.skipped()


def _add(view: StoreView, root: str, path: str, scope: Scope, role: str,
         injected: Injected, cutter: Callable[[str], Cut] | None = None) -> None:
    """Add ``path`` (beneath ``root``) with its cut: a file injected at start is read to find
    the cut (``cutter``: the agent's; None: whole file); any other file only ``lstat``-ed,
    so a search over thousands of topic files does not read them all (the index does,
    when they change)."""
    if injected != "start":
        size = view.sizes.get(path)
        if size is None:
            try:
                size = lstat_beneath(root, path).st_size
            except Refused as exc:
                if exc.code != "missing":
                    _skipped(view, _skip(exc))
                return
        view.files.append(StoreFile(path, root, scope, injected, None, None, size, None,
                                    role, (Segment(0, ALL_LINES, injected),)))
        return
    try:
        raw, _ = read_beneath(root, path)
    except Refused as exc:
        if exc.code != "missing":
            _skipped(view, _skip(exc))
        return
    text = raw.decode("utf-8", errors="replace")
    n_lines = _line_count(text)
    cut = cutter(text) if cutter else Cut(len(raw), None, (Segment(0, n_lines, "start"),))
    view.files.append(StoreFile(path, root, scope, "start", cut.injected_bytes,
                                cut.cut_at_line, len(raw), n_lines, role, cut.segments))


def _home(env: Mapping[str, str]) -> str:
    return env.get("HOME") or os.path.expanduser("~")


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


# -- Claude Code --------------------------------------------------------------------------

def sanitize_path(path: str) -> str:
    """Claude Code's ``sanitizePath``: every character outside ``[a-zA-Z0-9]`` -> ``-`` [3p]."""
    return re.sub(r"[^a-zA-Z0-9]", "-", path)


def canonical_git_root(cwd: str) -> str | None:
    """The main worktree's root for ``cwd`` (a linked worktree resolves to the repository
    it belongs to), or None outside git. Reads ``.git`` files through fsio (bounded)."""
    from rulelens.agents.fs import discover_git_root

    root = discover_git_root(cwd)
    if root is None:
        return None
    dot_git = os.path.join(root, ".git")
    if os.path.isdir(dot_git):
        return root
    text = fsio.read_text(dot_git, 1 << 16) or ""
    if not text.startswith("gitdir:"):
        return root
    gitdir = text[len("gitdir:"):].strip()
    gitdir = os.path.normpath(os.path.join(root, gitdir))
    common = (fsio.read_text(os.path.join(gitdir, "commondir"), 1 << 16) or "").strip()
    if not common:
        return root  # a submodule's .git file: its own repository
    common_dir = os.path.realpath(os.path.join(gitdir, common))
    if os.path.basename(common_dir) != ".git":
        return root  # a bare main repository: no main worktree to name
    return os.path.dirname(common_dir)


def claude_config_dir(env: Mapping[str, str]) -> str:
    return env.get("CLAUDE_CONFIG_DIR") or os.path.join(_home(env), ".claude")


def claude_memory_dir(cwd: str, env: Mapping[str, str]) -> tuple[str, str, list[str]]:
    """(memory dir, project folder name, notes) for a Claude Code session in ``cwd``."""
    notes: list[str] = []
    base = claude_config_dir(env)
    override = env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
    if override:
        notes.append("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE sets the memory folder [3p]")
        return override, os.path.basename(override.rstrip(os.sep)), notes
    user = read_json(os.path.join(base, "settings.json"))
    custom = user.get("autoMemoryDirectory")
    if isinstance(custom, str) and custom:
        notes.append("autoMemoryDirectory (user settings) sets the memory folder; sources"
                     " disagree on which settings files count for it [3p]")
        return os.path.expanduser(custom), os.path.basename(custom.rstrip(os.sep)), notes
    root = canonical_git_root(cwd) or os.path.abspath(cwd)
    name = sanitize_path(root)
    projects = os.path.join(base, "projects")
    if len(name) > CLAUDE_MAX_NAME:
        prefix = name[:CLAUDE_MAX_NAME] + "-"
        found = [n for n in fsio.listdir(projects) if n.startswith(prefix)]
        if len(found) == 1:
            name = found[0]
            notes.append("the project path is over 200 characters: Claude Code appends a"
                         " runtime-dependent hash; the one folder with this prefix is used [3p]")
        else:
            notes.append("the project path is over 200 characters: Claude Code appends a"
                         " runtime-dependent hash that cannot be reproduced; "
                         + ("several folders match" if found else "no folder matches") + " [3p]")
            name = prefix + "<hash>"
    return os.path.join(projects, name, "memory"), name, notes


def claude_enabled(cwd: str, env: Mapping[str, str]) -> tuple[bool, str | None]:
    """Whether auto memory is on, and the reason when it is off [doc]."""
    if _truthy(env.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY")):
        return False, "auto memory is switched off: CLAUDE_CODE_DISABLE_AUTO_MEMORY is set [doc]"
    project = canonical_git_root(cwd) or os.path.abspath(cwd)
    layers = [os.path.join(claude_config_dir(env), "settings.json"),
              os.path.join(project, ".claude", "settings.json"),
              os.path.join(project, ".claude", "settings.local.json")]
    enabled, where = True, None
    for path in layers:
        value = read_json(path).get("autoMemoryEnabled")
        if isinstance(value, bool):
            enabled, where = value, path
    if not enabled:
        return False, f"auto memory is switched off: autoMemoryEnabled is false in {where} [doc]"
    return True, None


def claude_view(cwd: str, env: Mapping[str, str]) -> StoreView:
    """Claude Code's auto memory for ``cwd`` (one folder per canonical git root)."""
    memory_dir, name, notes = claude_memory_dir(cwd, env)
    view = StoreView("claude", cwd, True, name, {"global": "", "workspace": memory_dir},
                     notes=notes, evidence=[
                         "location, MEMORY.md index, 200 lines / 25KB at start, topic files on"
                         " demand: [doc] https://code.claude.com/docs/en/memory",
                         CLAUDE_3P])
    enabled, why = claude_enabled(cwd, env)
    if not enabled:
        view.enabled = False
        view.notes.append(why or "auto memory is switched off")
        return view
    view.notes.append("Claude Code has no global auto memory (CLAUDE.md files are instructions,"
                      " not memory)")
    index = os.path.join(memory_dir, "MEMORY.md")
    if _probe(memory_dir, index, view):
        _add(view, memory_dir, index, "workspace", "index", "start", claude_cut)
    for path in _listing(memory_dir, memory_dir, view):
        if path != index:
            _add(view, memory_dir, path, "workspace", "topic", "on-demand")
    if not view.files and not view.skipped:
        view.notes.append(f"no Claude Code memory for this project yet ({memory_dir})")
    view.notes.append(CLAUDE_3P)
    return view


# -- Gemini CLI ---------------------------------------------------------------------------

def gemini_home(env: Mapping[str, str]) -> str:
    return os.path.join(_home(env), ".gemini")


def gemini_context_names(home: str) -> list[str]:
    """``context.fileName`` (a string or a list) from the user settings; ``GEMINI.md``."""
    value = (read_json(os.path.join(home, "settings.json")).get("context") or {})
    names = value.get("fileName") if isinstance(value, dict) else None
    if isinstance(names, str) and names:
        return [names]
    if isinstance(names, list):
        out = [n for n in names if isinstance(n, str) and n]
        if out:
            return out
    return ["GEMINI.md"]


_GEMINI_ID = re.compile(r"[a-z0-9-]+")


def _marker(home: str, kind: str, pid: str) -> str | None:
    text = fsio.read_text(os.path.join(home, kind, pid, ".project_root"), 1 << 16)
    return None if text is None else text.strip()


def gemini_project_id(cwd: str, home: str) -> tuple[str | None, str]:
    """(project id, how it was found) without claiming one: the registry
    (``projects.json``, kept only when its markers agree), else a ``tmp/*/.project_root``
    holding the path [code] projectRegistry.ts:getShortId."""
    key = os.path.abspath(cwd)
    projects = read_json(os.path.join(home, "projects.json")).get("projects")
    if isinstance(projects, dict):
        pid = projects.get(key)
        if isinstance(pid, str) and _GEMINI_ID.fullmatch(pid):
            markers = [_marker(home, kind, pid) for kind in ("tmp", "history")]
            if all(m is None or m == key for m in markers):
                return pid, "projects.json"
    tmp = os.path.join(home, "tmp")
    for pid in sorted(fsio.listdir(tmp))[:MAX_LISTED]:
        if _marker(home, "tmp", pid) == key:
            return pid, "tmp/<id>/.project_root"
    return None, ""


def gemini_view(cwd: str, env: Mapping[str, str]) -> StoreView:
    """Gemini CLI's global context files and private project memory, injected whole."""
    home = gemini_home(env)
    names = gemini_context_names(home)
    pid, how = gemini_project_id(cwd, home)
    memory_dir = os.path.join(home, "tmp", pid, "memory") if pid else ""
    view = StoreView("gemini", cwd, True, pid, {"global": home, "workspace": memory_dir},
                     evidence=["google-gemini/gemini-cli@5411f113 [code]: memoryDiscovery.ts"
                               " getGlobalMemoryPaths/getUserProjectMemoryPaths,"
                               " storage.ts getProjectMemoryDir, projectRegistry.ts getShortId,"
                               " memoryContextManager.ts (both injected whole)"])
    for name in names:
        path = os.path.join(home, name)
        if _probe(home, path, view):
            _add(view, home, path, "global", "context", "start")
    if pid is None:
        view.notes.append("no private memory for this project yet: Gemini CLI has not"
                          f" registered {os.path.abspath(cwd)} in {home}/projects.json")
    else:
        view.notes.append(f"project id {pid!r} (from {how})")
        index = os.path.join(memory_dir, "MEMORY.md")
        listed = _listing(memory_dir, memory_dir, view)
        if index in listed:
            _add(view, memory_dir, index, "workspace", "index", "start")
        else:
            legacy = next((os.path.join(memory_dir, n) for n in names
                           if os.path.join(memory_dir, n) in listed), None)
            if legacy:
                _add(view, memory_dir, legacy, "workspace", "legacy", "start")
                view.notes.append(f"{os.path.basename(legacy)} is used because MEMORY.md is"
                                  " absent [code]")
        injected = {f.path for f in view.files}
        for path in listed:
            if path not in injected:
                _add(view, memory_dir, path, "workspace", "topic", "on-demand")
    if not view.files and pid is not None:
        view.notes.append(f"no Gemini CLI memory files yet ({memory_dir})")
    return view


# -- Codex --------------------------------------------------------------------------------

def codex_memories_enabled(env: Mapping[str, str]) -> tuple[bool, str]:
    config, error = codex_rules.read_config(env)
    features = config.get("features")
    if isinstance(features, dict) and features.get("memories") is True:
        return True, "[features] memories = true"
    if error:
        return False, f"config.toml cannot be parsed ({error}); memories stay off (default)"
    return False, ("Codex memories are off: the `memories` feature is off by default; turn it"
                   " on with `[features] memories = true` in"
                   f" {os.path.join(codex_rules.codex_home(env), 'config.toml')} [3p][doc]")


def codex_view(cwd: str, env: Mapping[str, str]) -> StoreView:
    """Codex's global memories: the summary injected head+tail, the rest on demand."""
    root = os.path.join(codex_rules.codex_home(env), "memories")
    view = StoreView("codex", cwd, True, None, {"global": root, "workspace": ""},
                     evidence=["openai/codex@03626f40 [code] prompts.rs"
                               " build_memory_tool_developer_instructions (summary trimmed,"
                               " truncate_text Tokens(5000)); templates/memories/read_path.md"])
    enabled, why = codex_memories_enabled(env)
    if not enabled:
        view.enabled = False
        view.notes.append(why)
        return view
    view.notes.append("Codex memories are global (one store per user), not per workspace")
    view.notes.append(f"memory_summary.md is cut head+tail at {CODEX_SUMMARY_TOKENS} tokens"
                      " (about 4 bytes a token); newer releases use 2,500 [3p]")
    summary = os.path.join(root, "memory_summary.md")
    if _probe(root, summary, view):
        _add(view, root, summary, "global", "summary", "start", codex_cut)
    for name, role, injected in (("MEMORY.md", "registry", "on-demand"),
                                 ("raw_memories.md", "raw", "no")):
        path = os.path.join(root, name)
        if _probe(root, path, view):
            _add(view, root, path, "global", role, injected)
    for path in _listing(root, os.path.join(root, "rollout_summaries"), view):
        _add(view, root, path, "global", "rollout", "on-demand")
    try:
        skills = sorted(n for n, _ in _entries(root, os.path.join(root, "skills")))
    except Refused as exc:
        _skipped(view, _skip(exc))
        skills = []
    for name in skills[:MAX_LISTED]:
        path = os.path.join(root, "skills", name, "SKILL.md")
        if _probe(root, path, view):
            _add(view, root, path, "global", "skill", "on-demand")
    if not view.files:
        view.notes.append(f"no Codex memories yet ({root})")
    return view


# -- Qwen Code ----------------------------------------------------------------------------

def qwen_git_root(cwd: str) -> str:
    """The nearest ancestor holding a ``.git`` entry (file or directory), else ``cwd``:
    linked worktrees are not resolved to the main repository [code]."""
    current = os.path.abspath(cwd)
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return os.path.abspath(cwd)
        current = parent


def qwen_view(cwd: str, env: Mapping[str, str]) -> StoreView:
    """Qwen Code's auto memory: one folder per worktree plus the user's, MEMORY.md cut."""
    runtime = os.path.join(_home(env), ".qwen")
    base = env.get("QWEN_CODE_MEMORY_BASE_DIR") or runtime
    project_root = qwen_git_root(cwd)
    if _truthy(env.get("QWEN_CODE_MEMORY_LOCAL")):
        project_dir = os.path.join(project_root, ".qwen", "memory")
        name = None
    else:
        name = sanitize_path(project_root)
        project_dir = os.path.join(base, "projects", name, "memory")
    user_dir = os.path.join(runtime, "memories")
    view = StoreView("qwen", cwd, True, name, {"global": user_dir, "workspace": project_dir},
                     evidence=["QwenLM/qwen-code@09c1f14b [code] memory/paths.ts"
                               " getAutoMemoryRoot/getUserAutoMemoryRoot; 200 lines / 25,000"
                               " UTF-16 units [doc] docs/users/features/memory.md;"
                               " sanitizeCwd restated [3p]"])
    for layer in (os.path.join(runtime, "settings.json"),
                  os.path.join(project_root, ".qwen", "settings.json")):
        memory = read_json(layer).get("memory")
        if isinstance(memory, dict) and memory.get("enableManagedAutoMemory") is False:
            view.enabled = False
            view.notes.append("auto memory is switched off: memory.enableManagedAutoMemory is"
                              f" false in {layer} [doc]")
            return view
    for scope, directory in (("global", user_dir), ("workspace", project_dir)):
        index = os.path.join(directory, "MEMORY.md")
        if _probe(directory, index, view):
            _add(view, directory, index, scope, "index", "start", qwen_cut)
        for path in _listing(directory, directory, view):
            if path != index:
                _add(view, directory, path, scope, "topic", "on-demand")
    if not view.files:
        view.notes.append(f"no Qwen Code memory for this worktree yet ({project_dir})")
    return view


#: The memory store of each agent RuleLens models besides Grok's, by agent id.
STORES: dict[str, Callable[[str, Mapping[str, str]], StoreView]] = {
    "claude": claude_view,
    "codex": codex_view,
    "gemini": gemini_view,
    "qwen": qwen_view,
}


#: Display names of store agents the registry does not list yet.
_NAMES = {"qwen": "Qwen Code"}


def display_name(agent: str) -> str:
    """``Claude Code`` for ``claude``: the registry's name, else this module's."""
    from rulelens.agents.registry import DISPLAY

    return DISPLAY.get(agent) or _NAMES.get(agent, agent)


def memory_agents() -> tuple[str, ...]:
    """The agents whose memory RuleLens reads, in the registry's order (Grok first);
    a store whose agent has no registry record yet (Qwen Code: memory, no rules view)
    comes last."""
    from rulelens.agents.registry import ORDER

    listed = tuple(a for a in ORDER if a == "grok" or a in STORES)
    return listed + tuple(a for a in STORES if a not in listed)
