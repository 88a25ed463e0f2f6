"""Cursor (closed source): ``.cursor/rules/*.mdc`` by rule type, AGENTS.md and
``.cursorrules``, per Cursor docs (research agent-profiles.md §4; every detail says so).

Rule types (facts 4-5): ``alwaysApply: true`` (a YAML boolean; the string ``"true"`` is not
true) loads with every request; ``globs`` attaches the rule when a matching file is in
context; ``description`` alone lets the model decide (shown as *may*, never as loaded);
none of them means manual (``@rule-name`` only). Plain ``.md`` in ``.cursor/rules`` is ignored
by current Cursor (2). Nested ``.cursor/rules`` are scoped to their folder (3, 6: whether
their globs are relative to that folder or to the workspace is unconfirmed; both are tried
and the view says which matched). Root AGENTS.md (7) and legacy ``.cursorrules`` (8).
Tab and inline edit use no rules (9, a third-party guide): said in a note.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from rulelens.agents import fsio, profiles
from rulelens.agents.globmatch import first_match, refused_notes, split_globs
from rulelens.agents.meta import loose_meta
from rulelens.agents.record import Agent
from rulelens.agents.view import AgentView, ViewBuilder, ViewFile, When

PROFILE = profiles.CURSOR
ID = PROFILE.agent
DISPLAY = PROFILE.display
DOCS = "per Cursor docs, 2026-08"
MAX_LINES = 500
#: A version-gated bug users report (observed; shown on the line it affects).
COMMA_SPACE_BUG = ("`globs: a, b` with a space after a comma silently matched nothing in"
                   " Cursor builds users reported (`a,b` worked); observed: two Cursor forum"
                   " threads cited in nefarius/BthPS3#143")
#: Fact 9, from a third-party guide (research: hktitan/cursor-sdk skill), not Cursor's docs.
TAB_NOTE = ("Rules are not used by Tab completion or inline edit (per a third-party Cursor guide,"
            " hktitan/cursor-sdk): this view is for Agent and Chat.")


_rel = fsio.rel_below


def rule_type(meta: Mapping[str, object]) -> str:
    """``always`` | ``globs`` | ``agent`` | ``manual`` (fact 5)."""
    if meta.get("alwaysApply") is True:
        return "always"
    if split_globs(meta.get("globs")):
        return "globs"
    if isinstance(meta.get("description"), str) and str(meta.get("description")).strip():
        return "agent"
    return "manual"


def _rules_dir(b: ViewBuilder, d: str, workspace: str, file: str | None, nested: bool) -> None:
    rules = os.path.join(d, ".cursor", "rules")
    if not fsio.is_dir(rules):
        return
    scope = os.path.relpath(d, workspace) + "/" if nested else "the workspace"
    for path in fsio.walk_files(rules, ""):
        name = os.path.basename(path)
        if name.endswith(".md"):
            b.skip(path, "wrong-extension", f"a plain .md in .cursor/rules is ignored: project"
                   f" rules must be .mdc ({DOCS}; older builds read .md)")
            continue
        if not name.endswith(".mdc"):
            continue
        text = fsio.read_text(path) or ""
        meta, body = loose_meta(text)
        kind = rule_type(meta)
        size = fsio.size(path)
        if kind == "always":
            when: When = "on-read" if nested else "start"
            why = "alwaysApply: true — with every request" + (
                f", for files in {scope}" if nested else "") + f" ({DOCS})"
            b.add(ViewFile(path, when, why, "rule", "project", size, body))
            continue
        if kind == "globs":
            globs = split_globs(meta.get("globs"))
            b.notes.extend(refused_notes(path, "globs", globs))
            hit, base_note = None, ""
            rel = _rel(file, workspace)
            if rel is not None:
                hit = first_match(globs, rel)
            if hit is None and nested:
                rel_local = _rel(file, d)
                if rel_local is not None:
                    hit = first_match(globs, rel_local)
                    base_note = f" (relative to {scope}; the glob base of nested rules is" \
                                " unconfirmed)"
            if hit is not None:
                b.add(ViewFile(path, "on-read", f"globs: {hit} matches this file{base_note};"
                               f" attached when it is in context ({DOCS})", "rule", "project",
                               size, body))
            else:
                b.skip(path, "globs-no-match", f"globs: {', '.join(globs)} — does not match"
                       f" {rel or 'this file'} ({DOCS})")
            raw = meta.get("globs")
            if isinstance(raw, str) and ", " in raw:
                b.annotate(path, COMMA_SPACE_BUG)
            continue
        if kind == "agent":
            desc = str(meta.get("description")).strip()
            b.add(ViewFile(path, "may", f"description only (\"{desc[:80]}\"): the model decides"
                           f" whether to pull it in ({DOCS})", "rule", "project", size, body))
            continue
        always = meta.get("alwaysApply")
        hint = (" (alwaysApply is the string \"true\", not the boolean)"
                if isinstance(always, str) and always.lower() == "true" else "")
        b.skip(path, "manual", f"manual rule: no alwaysApply, globs or description{hint} —"
               f" loads only when mentioned as @{name[:-4]} ({DOCS})")


def view(cwd: str, file: str | None, env: Mapping[str, str]) -> AgentView:
    b = ViewBuilder()
    workspace = cwd
    _rules_dir(b, workspace, workspace, file, nested=False)
    agents = os.path.join(workspace, "AGENTS.md")
    if fsio.is_file(agents):
        b.add(ViewFile(agents, "start", f"AGENTS.md at the workspace root ({DOCS})", "project",
                       "project", fsio.size(agents), fsio.read_text(agents) or ""))
    legacy = os.path.join(workspace, ".cursorrules")
    if fsio.is_file(legacy):
        b.add(ViewFile(legacy, "start", f"legacy .cursorrules (deprecated, still read; {DOCS})",
                       "project", "project", fsio.size(legacy), fsio.read_text(legacy) or ""))
    if file is not None:
        for d in fsio.between(workspace, os.path.dirname(file)):
            _rules_dir(b, d, workspace, file, nested=True)
            nested = os.path.join(d, "AGENTS.md")
            if fsio.is_file(nested):
                b.add(ViewFile(nested, "on-read", f"nested AGENTS.md in"
                               f" {os.path.relpath(d, workspace)}/, for files below it ({DOCS};"
                               " guides disagree on nested files)", "project", "project",
                               fsio.size(nested), fsio.read_text(nested) or ""))
    for name in ("CLAUDE.md", "GEMINI.md", "AGENTS.override.md"):
        p = os.path.join(workspace, name)
        if fsio.is_file(p):
            b.skip(p, "not-read", f"Cursor does not read {name} ({DOCS})")
    b.notes.append("User and Team rules live in Cursor's settings, not in files: not shown.")
    b.notes.append(TAB_NOTE)
    return AgentView(ID, DISPLAY, cwd, file, cwd, b.files(), b.not_loaded(),
                     notes=tuple(b.notes), basis="docs", basis_label=DOCS, rendered=None)


#: This agent's record in :data:`rulelens.agents.registry.AGENTS`.
AGENT = Agent(
    id=ID, short="Cursor", display=DISPLAY, profiles=(PROFILE,),
    markers=(".cursor/rules", ".cursorrules"),
    formats=("cursor-rule",), view=view,
)
