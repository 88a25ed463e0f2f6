"""Continue: ``.continue/rules`` and ``~/.continue/rules`` markdown rules scoped by
``alwaysApply``, ``globs`` and ``regex``, per Continue's docs (research
agent-profiles-more.md §9, facts CT-F1..CT-F2; every detail says so).

Order (CT-F1): Hub and ``uses:`` rules (not files, not shown), then the workspace's
``.continue/rules``, then the global ``~/.continue/rules``; rules are not used for
autocomplete or apply. Scope (CT-F2): ``alwaysApply: true`` → every request (*start*;
globs ignored); ``alwaysApply: false`` → when the globs match (*on-read*), otherwise the
agent *may* pick it by its description; absent → always when there are no globs, else when
they match. ``regex`` is matched against the file's text; with globs both must match (the
docs do not say how the two combine). Globs are relative to the workspace.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from rulelens.agents import fsio, profiles
from rulelens.agents.globmatch import first_match, split_globs
from rulelens.agents.linearre import Unsupported, compile_bounded
from rulelens.agents.meta import yaml_meta
from rulelens.agents.record import Agent
from rulelens.agents.view import AgentView, Role, ViewBuilder, ViewFile, When

PROFILE = profiles.CONTINUE
ID = PROFILE.agent
DISPLAY = PROFILE.display
DOCS = "per Continue docs, 2026-08"
#: How much of the edited file a rule's ``regex`` is matched against.
REGEX_TEXT = 256 * 1024
#: Frontmatter keys a Continue markdown rule reads.
KEYS = frozenset({"name", "description", "globs", "regex", "alwaysApply"})


def global_dir(env: Mapping[str, str]) -> str:
    """``~/.continue`` (``CONTINUE_GLOBAL_DIR`` overrides it)."""
    home = env.get("HOME") or os.path.expanduser("~")
    return env.get("CONTINUE_GLOBAL_DIR") or os.path.join(home, ".continue")


def _regexes(value: object) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and v]
    return []


def decide(meta: Mapping[str, Any], rel: str | None, text: str | None) -> tuple[str, str]:
    """CT-F2: ``(when, why)`` with ``when`` in start / on-read / may / no."""
    always = meta.get("alwaysApply")
    globs = split_globs(meta.get("globs"))
    regexes = _regexes(meta.get("regex"))
    if always is True:
        extra = " (globs are ignored)" if globs else ""
        return "start", f"alwaysApply: true — included in every request{extra}"
    hit = first_match(globs, rel) if (globs and rel is not None) else None
    rx_hit = None
    if regexes and text is not None:
        rx_hit = next((r for r in regexes if _search(r, text)), None)
    scoped = bool(globs or regexes)
    matched = scoped and (not globs or hit is not None) and (not regexes or rx_hit is not None)
    what = ", ".join(x for x in (f"globs: {hit}" if hit else "",
                                  f"regex: {rx_hit}" if rx_hit else "") if x)
    if always is False:
        if matched:
            return "on-read", f"alwaysApply: false and {what} matches this file"
        desc = str(meta.get("description") or "").strip()
        return "may", ("alwaysApply: false, no match here: the agent may still pick it"
                       + (f" by its description (\"{desc[:80]}\")" if desc else ""))
    if not scoped:
        return "start", "no alwaysApply and no globs: included in every request"
    if matched:
        return "on-read", f"{what} matches this file: included when it is in context"
    return "no", (f"globs {', '.join(globs)}" if globs else f"regex {', '.join(regexes)}") + \
        f" — does not match {rel or 'this file'}"


def _search(pattern: str, text: str) -> bool:
    """``new RegExp(pattern).test(text)`` (no flags: ``^`` is the start of the text), run by
    :func:`compile_bounded` so a backtracking-prone pattern in a rule cannot hang the view;
    only the first :data:`REGEX_TEXT` characters are searched. A pattern the linear matcher
    cannot run (``\\s`` next to many repeats) counts as no match."""
    try:
        return bool(compile_bounded(r"(?:.|\n)*?(?:" + pattern + ")").match(text[:REGEX_TEXT]))
    except (re.error, Unsupported, RecursionError):
        return False


def view(cwd: str, file: str | None, env: Mapping[str, str]) -> AgentView:
    b = ViewBuilder()
    rel = None
    if file is not None and file != cwd and fsio.is_below(file, cwd):
        rel = os.path.relpath(file, cwd).replace(os.sep, "/")
    text = fsio.read_text(file, 1 << 20) if file is not None and fsio.is_file(file) else None
    tops: tuple[tuple[str, Role, str], ...] = (
        (os.path.join(cwd, ".continue", "rules"), "project", "workspace rule in .continue/rules"),
        (os.path.join(global_dir(env), "rules"), "home", "global rule in ~/.continue/rules"))
    for top, role, label in tops:
        if not fsio.is_dir(top):
            continue
        for path in fsio.walk_files(top, ""):
            _rule(b, path, role, label, rel, text)
    for name in ("AGENTS.md", "CLAUDE.md", ".continuerules"):
        p = os.path.join(cwd, name)
        if fsio.is_file(p):
            b.skip(p, "not-read", f"Continue reads rules from .continue/rules, not {name}"
                   f" ({DOCS})")
    b.notes.append("Rules from Hub assistants and `uses:` entries in config.yaml come first;"
                   f" they are not files, so they are not shown ({DOCS}).")
    b.notes.append("Rules are used in Agent, Chat and Edit, not for autocomplete or apply"
                   f" ({DOCS}).")
    return AgentView(ID, DISPLAY, cwd, file, cwd, b.files(), b.not_loaded(),
                     notes=tuple(b.notes), basis="docs", basis_label=DOCS, rendered=None)


def _rule(b: ViewBuilder, path: str, role: Role, label: str, rel: str | None,
          text: str | None) -> None:
    if not path.endswith(".md"):
        b.skip(path, "wrong-extension", f"Continue reads markdown rules (*.md) here ({DOCS})")
        return
    raw = fsio.read_text(path) or ""
    meta, body, err = yaml_meta(raw)
    if err:
        b.notes.append(f"{path}: {err}; Continue then sees no scope keys")
    when, why = decide(meta, rel, text)
    why = f"{label}: {why} ({DOCS})"
    if when == "no":
        b.skip(path, "globs-no-match", why)
        return
    w: When = "start" if when == "start" else "on-read" if when == "on-read" else "may"
    b.add(ViewFile(path, w, why, "rule", role, fsio.size(path), body.strip()))


AGENT = Agent(
    id=ID, short="Continue", display=DISPLAY, profiles=(PROFILE,),
    markers=(".continue",),
    formats=("continue-rule",), view=view,
    homes=lambda env: (global_dir(env), os.path.join(global_dir(env), "rules")),
)
