"""Codex CLI: which AGENTS.md files it injects, exact from source (research §1).

Facts (numbers are agent-profiles.md §1): the global file in ``$CODEX_HOME`` (1-4), the
project root by ``project_root_markers`` (6-10), one file per directory root → cwd with
``AGENTS.override.md`` > ``AGENTS.md`` > fallbacks (11-16), one shared
``project_doc_max_bytes`` budget cut at the byte (17-22), no frontmatter/imports (24),
lossy UTF-8 (25), the untrusted-project gate of newer builds (27), deeper files only
advised to the model (28), and the framing (29-31, a literal ``</INSTRUCTIONS>`` escaped as
``codex-rs/instructions`` @80cfbc5c does, 32). What RuleLens cannot observe is said in the
view's notes: the global file re-read each step and the whole block re-sent on a change
(5, 33), the truncation only logged (22), per-environment budgets (23), the
``child_agents_md`` hierarchical message (29, 34), config profiles (36) and a repository's
``.codex/config.toml`` (37).
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from typing import Any

from rulelens.agents import bounded, fsio, profiles
from rulelens.agents.compat import ConfigError
from rulelens.agents.paths import display_path
from rulelens.agents.record import Agent
from rulelens.agents.view import AgentView, ViewBuilder, ViewFile

PROFILE = profiles.CODEX
ID = PROFILE.agent
DISPLAY = PROFILE.display
OVERRIDE, DEFAULT = PROFILE.base_names
DEFAULT_MAX_BYTES = PROFILE.budget.max_bytes if PROFILE.budget else 32 * 1024
SEPARATOR = "\n\n--- project-doc ---\n\n"
CLOSE_TAG = "</INSTRUCTIONS>"
ESCAPED_CLOSE_TAG = "<\\/INSTRUCTIONS>"
RESEND_PREFIX = ("These AGENTS.md instructions replace all previously provided AGENTS.md"
                 " instructions.")
REMOVED_NOTICE = "The previously provided AGENTS.md instructions no longer apply."
_CLOSE_TAG_RE = re.compile(re.escape(CLOSE_TAG), re.IGNORECASE | re.ASCII)
PROJECT_KEYS = ("project_doc_max_bytes", "project_doc_fallback_filenames", "project_root_markers")
MODEL_TOLD = ("When working in a subdirectory of CWD, or a directory outside the CWD, check for"
              " any AGENTS.md files that may be applicable.")


def codex_home(env: Mapping[str, str]) -> str:
    if env.get("CODEX_HOME"):
        return env["CODEX_HOME"]
    home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".codex")


def read_config(env: Mapping[str, str]) -> tuple[dict[str, Any], str | None]:
    """``$CODEX_HOME/config.toml`` as a table, or ``({}, error)``."""
    path = os.path.join(codex_home(env), "config.toml")
    data = fsio.read_bytes(path, 1 << 20)
    if isinstance(data, str):
        return {}, None
    try:
        return bounded.toml_loads(data.decode("utf-8", errors="replace")), None
    except bounded.TooDeep as exc:  # one line (exit 2 in the CLI), never RecursionError
        raise ConfigError(f"{display_path(path)}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        return {}, f"{path}: {exc}"


def settings(config: Mapping[str, Any]) -> tuple[int, list[str], list[str], list[str]]:
    """``(max_bytes, fallbacks, markers, warnings)`` with the agent's defaults."""
    warnings: list[str] = []
    raw = config.get("project_doc_max_bytes", DEFAULT_MAX_BYTES)
    max_bytes = raw if isinstance(raw, int) and raw >= 0 else DEFAULT_MAX_BYTES
    fallbacks: list[str] = []
    for name in config.get("project_doc_fallback_filenames", []) or []:
        if not isinstance(name, str):
            continue
        name = name.strip()
        if not name or name in fallbacks or name in (OVERRIDE, DEFAULT):
            continue
        if name in (".", "..") or "/" in name or "\0" in name:
            warnings.append(f"project_doc_fallback_filenames: {name!r} ignored (not a plain"
                            " file name)")
            continue
        fallbacks.append(name)
    markers_raw = config.get("project_root_markers", [".git"])
    if isinstance(markers_raw, list) and all(isinstance(m, str) for m in markers_raw):
        markers = list(markers_raw)
    else:
        warnings.append("invalid project_root_markers: using the default [\".git\"]")
        markers = [".git"]
    return max_bytes, fallbacks, markers, warnings


def project_root(cwd: str, markers: list[str]) -> str | None:
    """Nearest ancestor-or-self of ``cwd`` (lexical spelling) holding any marker entry."""
    if not markers:
        return None
    for d in fsio.ancestors(cwd):
        if any(os.path.lexists(os.path.join(d, m)) for m in markers):
            return d
    return None


def untrusted(config: Mapping[str, Any], dirs: list[str]) -> str | None:
    """The ``[projects."<path>"]`` key marking one of ``dirs`` untrusted, if any."""
    projects = config.get("projects")
    if not isinstance(projects, dict):
        return None
    for d in dirs:
        entry = projects.get(d)
        if isinstance(entry, dict) and entry.get("trust_level") == "untrusted":
            return d
    return None


def candidates(fallbacks: list[str]) -> list[str]:
    """The names Codex tries in each directory, in order (fact 12)."""
    return [OVERRIDE, DEFAULT, *fallbacks]


def _pick(directory: str, names: list[str]) -> tuple[str | None, list[str]]:
    """The first candidate that is a regular file, and the other existing candidates."""
    chosen = None
    others = []
    for name in names:
        p = os.path.join(directory, name)
        if chosen is None and fsio.is_file(p):
            chosen = p
        elif fsio.exists(p):
            others.append(p)
    return chosen, others


def view(cwd: str, file: str | None, env: Mapping[str, str]) -> AgentView:
    config, config_error = read_config(env)
    max_bytes, fallbacks, markers, warnings = settings(config)
    b = ViewBuilder()
    b.notes.extend(warnings)
    if config_error:
        b.notes.append(f"config.toml not read: {config_error}")
    home = codex_home(env)
    global_text = _global(home, b)

    root = project_root(cwd, markers)
    dirs = fsio.ancestors(cwd, root)[::-1] if root else [cwd]
    names = candidates(fallbacks)
    gate = untrusted(config, [d for d in (root, cwd) if d])
    project: list[str] = []
    pending: list[ViewFile] = []
    aborted: str | None = None
    remaining = max_bytes
    for d in dirs:
        chosen, others = _pick(d, names)
        for other in others:
            why = ("a directory, not a file" if fsio.is_dir(other) and chosen is None else
                   f"Codex reads at most one file per directory; {os.path.basename(chosen or '')}"
                   " wins here (AGENTS.override.md > AGENTS.md > fallbacks)")
            b.skip(other, "shadowed" if chosen else "not-a-file", why)
        if chosen is None:
            continue
        if gate is not None:
            b.skip(chosen, "untrusted-folder",
                   "Codex loads no project AGENTS.md in an untrusted project"
                   f" ([projects.\"{gate}\"] trust_level = \"untrusted\" in config.toml);"
                   " newer builds only")
            continue
        if max_bytes == 0:
            b.skip(chosen, "budget-disabled", "project_doc_max_bytes = 0 disables project docs")
            continue
        if remaining == 0:
            b.skip(chosen, "over-budget",
                   f"project_doc_max_bytes ({max_bytes:,} bytes) is spent by the files above;"
                   " Codex drops every deeper file")
            continue
        data = fsio.read_bytes(chosen, remaining + 1)
        if isinstance(data, str):
            if not os.path.lexists(chosen):  # removed after discovery: skipped (fact 26)
                b.skip(chosen, "unreadable", f"removed while being read ({data})")
                continue
            aborted = f"{chosen}: {data}"
            b.skip(chosen, "unreadable", f"cannot be read ({data}): Codex stops loading project"
                   " docs altogether (\"error trying to find AGENTS.md docs\")")
            break
        size = fsio.size(chosen)
        cut = data[:remaining]
        truncated = len(data) > remaining
        text = cut.decode("utf-8", errors="replace")
        if not text.strip():
            reason = ("an AGENTS.override.md that is empty still wins its directory; "
                      "nothing is injected and its AGENTS.md stays unread"
                      if os.path.basename(chosen) == OVERRIDE else
                      "empty (only white space): skipped, costs no budget")
            b.skip(chosen, "empty", reason)
            continue
        remaining -= len(cut)
        rel = "the start directory" if d == cwd else f"{_short(d, root)}/"
        why = (f"{os.path.basename(chosen)} in {rel} (project root → start dir, one file per"
               " directory)")
        if truncated:
            why += (f"; cut at byte {len(cut):,} of {size:,}: project_doc_max_bytes"
                    f" ({max_bytes:,}) shared by the chain; Codex only logs the cut, the"
                    " text carries no marker")
        pending.append(ViewFile(chosen, "start", why, "project", "project", size, text,
                                truncated_at=len(cut) if truncated else None))
        project.append(text)
    if aborted is None:
        for f in pending:
            b.add(f)
    else:
        project = []
        for f in pending:
            b.skip(f.path, "aborted", f"not injected: reading {aborted} failed, and Codex then"
                   " loads no project doc at all (fact 26)")
        b.notes.append(f"Project docs aborted by a read error: {aborted}")

    if file is not None:
        _deeper(cwd, file, names, b)
    if root is None:
        b.notes.append("No project root marker (" + (", ".join(markers) or "none configured")
                       + ") above the start directory: Codex reads only the start directory.")
    if gate is not None:
        b.notes.append(f"Project marked untrusted in config.toml ({gate}): no project docs.")
    if remaining == 0 and max_bytes:
        b.notes.append(f"project_doc_max_bytes ({max_bytes:,}) reached.")
        b.notes.append(ENVIRONMENTS_NOTE)
    b.notes.extend(_runtime_notes(config, dirs, global_text, project))
    return AgentView(
        ID, DISPLAY, cwd, file, root, b.files(), b.not_loaded(), notes=tuple(b.notes),
        basis="code", basis_label="exact from Codex source (agents_md.rs @0cf644af)",
        rendered=render(cwd, global_text, project),
        extra={"budget": max_bytes, "remaining": remaining},
    )


ENVIRONMENTS_NOTE = (
    "The budget is shown for one environment. In a multi-environment session each environment"
    " has its own project_doc_max_bytes at 0cf644af; at main 1cc7e236 one remaining budget is"
    " carried across environments (research §1 fact 23).")


def _runtime_notes(config: Mapping[str, Any], dirs: list[str], global_text: str | None,
                   project: list[str]) -> list[str]:
    """What Codex does that the view cannot show as a file (research §1, by fact number)."""
    notes: list[str] = []
    if global_text:
        notes.append(
            "The global file is re-read at every model step in the newest design; project files"
            " are not (main 1cc7e236, third-party transcription; fact 5).")
    if global_text or project:
        notes.append(
            "When the set changes mid-session (cwd or trust change, a global edit) Codex re-sends"
            " the block whole, prefixed \"" + RESEND_PREFIX + "\"; on removal it sends \""
            + REMOVED_NOTICE + "\" (main 1cc7e236, third-party transcription; fact 33).")
    features = config.get("features")
    if isinstance(features, dict) and features.get("child_agents_md") is True:
        notes.append(
            "[features] child_agents_md = true: Codex appends its internal hierarchical-AGENTS"
            " message once, last, after the project docs (joined by a blank line): each AGENTS.md"
            " governs its directory subtree, deeper files win, prompt instructions outrank"
            " AGENTS.md (hierarchical_agents_message.md @71163530; facts 29, 34). Its text is"
            " not in this render.")
    profiles_table = config.get("profiles")
    if isinstance(profiles_table, dict):
        for name, table in profiles_table.items():
            if isinstance(table, dict) and any(k in table for k in PROJECT_KEYS):
                notes.append(
                    f"[profiles.{name}] sets project doc keys: Codex's ConfigProfile @1ce4c606"
                    " has no project_doc_*/marker keys, so RuleLens uses the top-level ones; a"
                    " newer -p form layering $CODEX_HOME/<name>.config.toml is reported by a"
                    " third party (version-gated; fact 36).")
    for d in dirs:
        local = os.path.join(d, ".codex", "config.toml")
        if fsio.is_file(local):
            notes.append(
                f"{local}: Codex ignores project_root_markers from a repository's config (fact"
                " 9); whether a trusted repository's .codex/config.toml may change"
                " project_doc_max_bytes or the fallbacks is unconfirmed (fact 37), so RuleLens"
                " uses $CODEX_HOME/config.toml only.")
    if any(CLOSE_TAG.lower() in t.lower() for t in [global_text or "", *project]):
        notes.append(
            "A literal </INSTRUCTIONS> in the text is shown escaped to <\\/INSTRUCTIONS>, as"
            " codex-rs/instructions @80cfbc5c does (ASCII case-insensitive); whether the current"
            " core path escapes is unconfirmed (fact 32).")
    return notes


def _global(home: str, b: ViewBuilder) -> str | None:
    for name in (OVERRIDE, DEFAULT):
        p = os.path.join(home, name)
        if not fsio.exists(p):
            continue
        data = fsio.read_bytes(p)
        if isinstance(data, str):
            b.skip(p, "unreadable", f"Failed to read global AGENTS.md instructions ({data})")
            continue
        text = data.decode("utf-8", errors="replace").strip()
        if not text:
            b.skip(p, "empty", "empty global file: Codex falls through to the next name")
            continue
        b.add(ViewFile(p, "start", f"global {name} in $CODEX_HOME (trimmed, no byte cap)",
                       "global", "home", len(data), text))
        other = os.path.join(home, DEFAULT)
        if name == OVERRIDE and fsio.exists(other):
            b.skip(other, "shadowed", "the global AGENTS.override.md wins over AGENTS.md")
        return text
    return None


def _deeper(cwd: str, file: str, names: list[str], b: ViewBuilder) -> None:
    fdir = os.path.dirname(file)
    for d in fsio.between(cwd, fdir):
        chosen, others = _pick(d, names)
        for other in others:
            b.skip(other, "shadowed", "Codex reads at most one file per directory;"
                   f" {os.path.basename(chosen or '')} wins here")
        if chosen is not None and not b.loaded(chosen):
            data = fsio.read_bytes(chosen)
            text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else ""
            b.add(ViewFile(chosen, "may",
                           "below the start directory: not injected; Codex's base prompt tells"
                           " the model to check for AGENTS.md files in subdirectories",
                           "project", "project", fsio.size(chosen), text))


def _short(d: str, root: str | None) -> str:
    if root and fsio.is_below(d, root):
        rel = os.path.relpath(d, root)
        return "." if rel == "." else rel
    return d


def render(cwd: str, global_text: str | None, project: list[str]) -> str:
    """The one user-role message Codex sends (fact 30-31, single environment)."""
    body = "\n\n".join(project)
    text = global_text + SEPARATOR + body if global_text and body else global_text or body
    if not text:
        return ""
    text = escape_close_tag(text)
    return f"# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\n{text}\n{CLOSE_TAG}"


def escape_close_tag(text: str) -> str:
    """Every ``</INSTRUCTIONS>`` (ASCII case-insensitive) as ``<\\/INSTRUCTIONS>`` (fact 32)."""
    return _CLOSE_TAG_RE.sub(lambda _m: ESCAPED_CLOSE_TAG, text)


#: This agent's record in :data:`rulelens.agents.registry.AGENTS`.
AGENT = Agent(
    id=ID, short="Codex", display=DISPLAY, profiles=(PROFILE,),
    markers=("AGENTS.md", "AGENTS.override.md", ".codex"),
    formats=(), view=view,
    homes=lambda env: (codex_home(env),),
    trust_command=PROFILE.trust.command if PROFILE.trust else None,
    config_files=("config.toml",),
)
