"""Qwen Code: QWEN.md and AGENTS.md from ``~/.qwen`` and up the tree, the private
``.qwen/QWEN.local.md``, ``.qwen/rules`` with ``paths`` scoping, and ``@path`` imports —
exact from source (``memoryDiscovery.ts`` @0f8ce082, ``rulesDiscovery.ts`` @1aba1b9f,
``memory/const.ts`` @1bce6c66; research agent-profiles-more.md §3, facts QW-F1..QW-F10).

Names (QW-F1): ``context.fileName`` (a string or a list) *replaces* the default
``QWEN.md``, ``AGENTS.md``. Per name in order (QW-F2), ``~/.qwen/<name>`` then the upward
walk, so the list interleaves by name. The walk (QW-F3) goes from the start directory up
to the *parent* of the project root (the nearest ``.git`` directory holding a readable
``HEAD``; a ``.git`` file is no root), or without a root up to the parent of ``$HOME``, and
stops at ``~/.qwen``; files below the start directory do not load at start. Started in
``$HOME`` only ``~/<name>`` is read (QW-F4). Folder trust (QW-F5) is off by default; when
``security.folderTrust.enabled`` is on, ``trustedFolders.json`` decides and an undecided
folder is untrusted: no walk, no local file, no project rules. ``QWEN.local.md`` (QW-F6)
goes after the last global file; a symlink is refused. Rules (QW-F8): ``~/.qwen/rules``
(from the real home, not ``QWEN_HOME``) then ``<root>/.qwen/rules``, recursive ``*.md``,
sorted; no ``paths`` → *start* after the context files, ``paths`` → *on-read* when the file
(relative to the root, dot files only by an explicit dot) matches; HTML comments stripped,
empty rules dropped. Imports and framing as Gemini CLI's (QW-F9). ``--include-directories``,
extensions (QW-F7) and auto-memory (QW-F10) are stated in notes, not read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from rulelens.agents import fsio, profiles
from rulelens.agents.gemini import _Expander, read_json
from rulelens.agents.globmatch import matches
from rulelens.agents.meta import safe_yaml
from rulelens.agents.record import Agent
from rulelens.agents.view import AgentView, Role, ViewBuilder, ViewFile, When

PROFILE = profiles.QWEN
ID = PROFILE.agent
DISPLAY = PROFILE.display
DEFAULT_NAMES = tuple(n.name for n in PROFILE.named_files if "/" not in n.name)
LOCAL = ".qwen/QWEN.local.md"
SOURCE = "exact from Qwen Code source @0f8ce082"
RULES_SOURCE = "exact from Qwen Code rulesDiscovery.ts @1aba1b9f"
#: Per-line sources where a fact comes from another file than the row's memoryDiscovery.ts.
RULES_REF = "QwenLM/qwen-code@1aba1b9f:packages/core/src/utils/rulesDiscovery.ts"
TRUST_REF = "QwenLM/qwen-code:packages/cli/src/config/trustedFolders.ts (index 70378672011)"
_FRONT = re.compile(r"^---\n([\s\S]*?)\n---(?:\n|$)([\s\S]*)$")
UNSEEN = ("Also loaded, not shown: directories added with --include-directories (walked like"
          " the start directory), extension context files, and auto-memory under"
          f" ~/.qwen/projects/ ({SOURCE}).")


def home_of(env: Mapping[str, str]) -> str:
    return env.get("HOME") or os.path.expanduser("~")


def qwen_dir(env: Mapping[str, str]) -> str:
    """``Storage.getGlobalQwenDir``: ``$QWEN_HOME`` or ``~/.qwen``."""
    q = env.get("QWEN_HOME")
    return os.path.abspath(q) if q else os.path.join(home_of(env), ".qwen")


def file_names(configured: object) -> tuple[str, ...]:
    """QW-F1 ``setGeminiMdFilename``: a non-empty list or string replaces the defaults."""
    if isinstance(configured, list) and configured:
        return tuple(str(n).strip() for n in configured)
    if isinstance(configured, str) and configured.strip():
        return (configured.strip(),)
    return DEFAULT_NAMES


def _get(data: Mapping[str, Any], dotted: str) -> Any:
    cur: Any = data
    for key in dotted.split("."):
        if not isinstance(cur, dict) or key not in cur:
            return None
        cur = cur[key]
    return cur


def settings(env: Mapping[str, str], cwd: str) -> tuple[tuple[str, ...], bool]:
    """``(context file names, folder trust enabled)`` from user then workspace settings."""
    user = read_json(os.path.join(qwen_dir(env), "settings.json"))
    work = read_json(os.path.join(cwd, ".qwen", "settings.json"))
    name = _get(work, "context.fileName")
    if name is None:
        name = _get(user, "context.fileName")
    enabled = _get(user, "security.folderTrust.enabled")
    return file_names(name), enabled is True


def trust_state(env: Mapping[str, str], cwd: str, enabled: bool) -> tuple[bool, str]:
    """QW-F5: ``(trusted, why)``. Off by default (``isFolderTrustEnabled`` ``?? false``);
    when on, the longest matching rule of ``trustedFolders.json`` decides and no rule means
    untrusted (``Config.isTrustedFolder``)."""
    if not enabled:
        return True, "folder trust is off (security.folderTrust.enabled is not true)"
    path = env.get("QWEN_CODE_TRUSTED_FOLDERS_PATH") or os.path.join(qwen_dir(env),
                                                                      "trustedFolders.json")
    rules = read_json(path)
    real = os.path.realpath(cwd)
    best: tuple[int, str, str] | None = None
    for rule_path, level in rules.items():
        if level not in ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST"):
            continue
        target = os.path.dirname(rule_path) if level == "TRUST_PARENT" else rule_path
        target = os.path.realpath(target) if fsio.exists(target) else target
        if fsio.is_below(real, target.rstrip("/") or "/") and (best is None
                                                               or len(rule_path) > best[0]):
            best = (len(rule_path), rule_path, level)
    if best is None:
        return False, (f"folder trust is on and {path} has no rule for this folder: Qwen Code"
                       " asks, and treats it as untrusted until then")
    if best[2] == "DO_NOT_TRUST":
        return False, f"{best[1]} is DO_NOT_TRUST in {path}"
    return True, f"{best[1]} is {best[2]} in {path}"


def project_root(start: str) -> str | None:
    """``findProjectRoot``: nearest ancestor whose ``.git`` is a directory (not a link, not
    a file) with a readable ``HEAD``."""
    for d in fsio.ancestors(os.path.abspath(start)):
        git = os.path.join(d, ".git")
        if os.path.isdir(git) and not os.path.islink(git) and \
                fsio.readable(os.path.join(git, "HEAD")):
            return d
    return None


def context_paths(cwd: str, names: tuple[str, ...], env: Mapping[str, str],
                  trusted: bool) -> list[str]:
    """QW-F2..F4 ``getGeminiMdFilePathsInternalForEachDir``: interleaved per name."""
    home = home_of(env)
    qdir = qwen_dir(env)
    out: list[str] = []
    root = project_root(cwd)
    stop = os.path.dirname(root) if root else os.path.dirname(home)
    for name in names:
        glob_path = os.path.join(qdir, name)
        if fsio.readable(glob_path):
            out.append(glob_path)
        if cwd == home:
            p = os.path.join(home, name)
            if fsio.readable(p) and p != glob_path:
                out.append(p)
            continue
        if not trusted:
            continue
        upward: list[str] = []
        cur = cwd
        while cur and cur != os.path.dirname(cur):
            if cur in (qdir, os.path.join(home, ".qwen")):
                break
            p = os.path.join(cur, name)
            if fsio.readable(p) and p != glob_path:
                upward.insert(0, p)
            if cur == stop:
                break
            cur = os.path.dirname(cur)
        out += upward
    return list(dict.fromkeys(out))


def parse_rule(text: str) -> tuple[list[str] | None, str | None, str]:
    """``parseRuleFile``: ``(paths or None, description, content)``; content ``""`` means
    the rule is dropped."""
    norm = text.replace("\r\n", "\n")
    m = _FRONT.match(norm)
    paths: list[str] | None = None
    desc = None
    body = norm
    if m:
        body = m.group(2)
        meta, _error = safe_yaml(m.group(1))  # bounded: nesting, aliases
        if isinstance(meta, dict):
            raw = meta.get("paths")
            if isinstance(raw, list):
                paths = [str(p) for p in raw if p is not None and str(p)] or None
            elif isinstance(raw, str) and raw:
                paths = [raw]
            if meta.get("description") is not None:
                desc = str(meta["description"])
    return paths, desc, strip_comments(body).strip()


def strip_comments(text: str) -> str:
    r"""``content.replace(/<!--[\s\S]*?-->/g, '')`` in one pass (an unclosed ``<!--`` and
    everything after it stays, as in the regex), linear in the text."""
    out: list[str] = []
    pos = 0
    while True:
        start = text.find("<!--", pos)
        if start < 0:
            break
        end = text.find("-->", start + 4)
        if end < 0:
            break
        out.append(text[pos:start])
        pos = end + 3
    out.append(text[pos:])
    return "".join(out)


def dot_match(pattern: str, rel: str) -> bool:
    """picomatch with ``dot: false``: a dot segment matches only a pattern segment that
    starts with a dot itself."""
    if not matches(pattern, rel):
        return False
    if not any(seg.startswith(".") for seg in rel.split("/")):
        return True
    return any(seg.startswith(".") for seg in pattern.split("/"))


def collect_md(top: str) -> list[str]:
    """``collectMdFiles``: regular ``*.md`` files, recursively, links not followed; sorted."""
    out: list[str] = []
    stack = [top]
    while stack and len(out) < 2000:
        d = stack.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                stack.append(e.path)
            elif e.is_file(follow_symlinks=False) and e.name.endswith(".md"):
                out.append(e.path)
    return sorted(out)


def view(cwd: str, file: str | None, env: Mapping[str, str]) -> AgentView:
    names, enabled = settings(env, cwd)
    trusted, trust_why = trust_state(env, cwd, enabled)
    qdir = qwen_dir(env)
    home = home_of(env)
    root = project_root(cwd)
    effective = root or cwd
    b = ViewBuilder()
    blocks: list[tuple[str, str]] = []
    paths = context_paths(cwd, names, env, trusted)
    local = os.path.join(effective, LOCAL)
    if os.path.islink(local):
        b.skip(local, "symlink", f"QWEN.local.md is a symbolic link: Qwen Code refuses it"
               f" ({SOURCE})")
    elif fsio.readable(local):
        if trusted:
            last = max((i for i, p in enumerate(paths) if p.startswith(qdir)), default=-1)
            paths.insert(last + 1, local)
        else:
            b.skip(local, "untrusted-folder", f"untrusted folder: {trust_why}",
                   source=TRUST_REF)
    for p in paths:
        _context(b, p, cwd, qdir, local, blocks)
    if not trusted:
        _untrusted_skips(b, cwd, names, root, home, trust_why)
    _rules(b, env, effective, home, trusted, trust_why, file, blocks)
    if not trusted:
        b.notes.append("Untrusted folder: " + trust_why)
    b.notes.append(UNSEEN)
    rendered = "\n\n".join(t for _p, t in blocks)
    return AgentView(ID, DISPLAY, cwd, file, root, b.files(), b.not_loaded(),
                     imports=tuple(b.imports), notes=tuple(b.notes), basis="code",
                     basis_label="exact from Qwen Code source (QwenLM/qwen-code@0f8ce082)",
                     rendered=rendered, extra={"names": list(names), "trusted": trusted})


def _context(b: ViewBuilder, p: str, cwd: str, qdir: str, local: str,
             blocks: list[tuple[str, str]]) -> None:
    data = fsio.read_bytes(p)
    if isinstance(data, str):
        b.skip(p, "unreadable", f"cannot be read: {data}")
        return
    text = data.decode("utf-8", errors="replace")
    role: Role = "home" if p.startswith(qdir) else "project"
    ex = _Expander(b, (".git",), "start")
    base = os.path.dirname(p)
    project = project_root(base) or base
    expanded = ex.expand(text, base, frozenset(), 0, project, p).strip()
    if not expanded:
        b.skip(p, "empty", f"empty after trimming: Qwen Code drops it ({SOURCE})")
        return
    if p == local:
        why = (".qwen/QWEN.local.md (private, not committed): after the global files, before"
               f" the committed ones ({SOURCE})")
    elif role == "home":
        why = f"global {os.path.basename(p)} in {qdir} ({SOURCE})"
    else:
        d = os.path.dirname(p)
        where = "the start directory" if d == cwd else f"{d} (above the start directory)"
        why = (f"{os.path.basename(p)} in {where}: the walk from the start directory up to the"
               f" project root's parent, ancestors first ({SOURCE})")
    b.add(ViewFile(p, "start", why, "global" if role == "home" else "project", role,
                   len(data), expanded))
    for imp in ex.imported:
        b.add(imp)
    shown = os.path.relpath(p, cwd)
    blocks.append((p, f"--- Context from: {shown} ---\n{expanded}\n"
                      f"--- End of Context from: {shown} ---"))


def _untrusted_skips(b: ViewBuilder, cwd: str, names: tuple[str, ...], root: str | None,
                     home: str, why: str) -> None:
    stop = os.path.dirname(root) if root else os.path.dirname(home)
    for d in fsio.ancestors(cwd, stop):
        for n in names:
            p = os.path.join(d, n)
            if fsio.readable(p) and not b.loaded(p):
                b.skip(p, "untrusted-folder", f"Qwen Code loads no workspace context files in"
                       f" an untrusted folder: {why}", source=TRUST_REF)


def _rules(b: ViewBuilder, env: Mapping[str, str], root: str, home: str, trusted: bool,
           trust_why: str, file: str | None, blocks: list[tuple[str, str]]) -> None:
    """QW-F8: baseline rules at start, ``paths`` rules on read."""
    gdir = os.path.join(home, ".qwen", "rules")
    pdir = os.path.join(root, ".qwen", "rules")
    dirs: list[tuple[str, Role]] = [(gdir, "home")]
    if os.path.abspath(pdir) != os.path.abspath(gdir):
        if trusted:
            dirs.append((pdir, "project"))
        else:
            for p in collect_md(pdir):
                b.skip(p, "untrusted-folder", f"project rules load only in a trusted folder:"
                       f" {trust_why}", source=TRUST_REF)
    rel = None
    if file is not None:
        r = os.path.relpath(file, root).replace(os.sep, "/")
        rel = None if r.startswith("../") or r == ".." else r
    for d, role in dirs:
        for p in collect_md(d):
            paths, _desc, content = parse_rule(fsio.read_text(p) or "")
            if not content:
                b.skip(p, "empty", f"empty once frontmatter and HTML comments are removed"
                       f" ({RULES_SOURCE})", source=RULES_REF)
                continue
            shown = os.path.relpath(p, root)
            block = f"--- Rule from: {shown} ---\n{content}\n--- End of Rule from: {shown} ---"
            if paths is None:
                if b.add(ViewFile(p, "start", "rule without paths: a baseline rule in the system"
                                  f" prompt, after the context files ({RULES_SOURCE})", "rule",
                                  role, fsio.size(p), content, source=RULES_REF)):
                    blocks.append((p, block))
                continue
            hit = next((g for g in paths if rel is not None and dot_match(g, rel)), None)
            if hit is not None:
                when: When = "on-read"
                b.add(ViewFile(p, when, f"paths: {hit} matches {rel}: injected once per session"
                               f" when the model reads or edits the file ({RULES_SOURCE})",
                               "rule", role, fsio.size(p), content, source=RULES_REF))
            else:
                target = rel if rel is not None else "this file (outside the project root)"
                b.skip(p, "paths-no-match", f"paths: {', '.join(paths)} — does not match"
                       f" {target} ({RULES_SOURCE})", source=RULES_REF)


AGENT = Agent(
    id=ID, short="Qwen", display=DISPLAY, profiles=(PROFILE,),
    markers=("QWEN.md", ".qwen"),
    formats=("qwen-rule",), view=view,
    homes=lambda env: (qwen_dir(env), os.path.join(home_of(env), ".qwen", "rules")),
    trust_command=PROFILE.trust.command if PROFILE.trust else None,
)
