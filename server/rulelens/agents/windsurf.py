"""Windsurf / Devin Desktop (Cascade; closed source): ``.windsurf/rules`` by trigger and
AGENTS.md, per Windsurf docs (research agent-profiles-more.md §4; every detail says so).

Rules (WS-F2): ``.windsurf/rules/*.md`` (newer builds also ``.devin/rules/``) in the
workspace, in its subdirectories and in parent directories up to the git root. The
frontmatter ``trigger`` decides: ``always_on`` with every message (*start*), ``glob`` when
Cascade reads or edits a file its ``globs`` match (*on-read*), ``model_decision`` when the
model judges the ``description`` relevant (*may*), ``manual`` only when @-mentioned (not
loaded). A missing or unknown trigger is not documented: RuleLens does not count the rule as
applied and says so. The global ``~/.codeium/windsurf/memories/global_rules.md`` is always
on. Rule files are limited to 12,000 characters (the global file to 6,000, per a
third-party linter): a longer file gets a note, since the docs do not say what is cut.
AGENTS.md (WS-F1): at the workspace root an always-on rule; in a subdirectory a glob rule
``<directory>/**``, applied when Cascade works on files below it. Auto-generated memories
(WS-F3) are per workspace and not modelled. The legacy ``.windsurfrules`` at the workspace
root (older builds' rules file, which Cline and Zed read as Windsurf's) is shown at start with
that caveat: the current docs no longer mention it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from rulelens.agents import fsio, profiles
from rulelens.agents.globmatch import first_match, split_globs
from rulelens.agents.meta import yaml_meta
from rulelens.agents.record import Agent
from rulelens.agents.view import AgentView, ViewBuilder, ViewFile

PROFILE = profiles.WINDSURF
ID = PROFILE.agent
DISPLAY = PROFILE.display
DOCS = "per Windsurf docs"
DOCS_URL = "https://docs.windsurf.com/windsurf/cascade/memories"
AGENTS_URL = "https://docs.windsurf.com/windsurf/cascade/agents-md"
AGENTS_SRC = f"{AGENTS_URL} (seen 2026-12)"
RULE_DIRS = tuple(d.path for d in PROFILE.rules_dirs)
GLOBAL_RULES = os.path.join(".codeium", "windsurf", "memories", "global_rules.md")
TRIGGERS = ("always_on", "glob", "model_decision", "manual")
#: WS-F2: rule files are limited to 12,000 characters; the global file to 6,000 (agnix WS-010,
#: third-party).
MAX_RULE_CHARS = 12_000
MAX_GLOBAL_CHARS = 6_000
AGENTS_NAMES = ("AGENTS.md", "agents.md")
LEGACY = ".windsurfrules"


repo_root = fsio.repo_root


_rel = fsio.rel_below


def trigger_of(meta: Mapping[str, object]) -> str | None:
    """The ``trigger`` value as written (``None`` when absent or not a string)."""
    value = meta.get("trigger")
    return value.strip() if isinstance(value, str) else None


def _rule(b: ViewBuilder, path: str, owner: str, cwd: str, file: str | None,
          long: list[str]) -> None:
    text = fsio.read_text(path)
    if text is None:
        b.skip(path, "unreadable", "cannot be read")
        return
    meta, body, err = yaml_meta(text)
    if len(text) > MAX_RULE_CHARS:
        long.append(path)
    where = "" if owner == cwd else f" (from {os.path.relpath(owner, cwd)}/)"
    trigger = trigger_of(meta)
    size = fsio.size(path)
    if trigger == "always_on":
        b.add(ViewFile(path, "start", f"trigger: always_on — in the system prompt on every"
                       f" message{where} ({DOCS})", "rule", "project", size, body))
    elif trigger == "glob":
        globs = split_globs(meta.get("globs"))
        if not globs:
            b.skip(path, "no-globs", f"trigger: glob without globs: the rule matches no file"
                   f" ({DOCS})")
            return
        rel = _rel(file, cwd)
        hit = first_match(globs, rel) if rel is not None else None
        note = ""
        if hit is None and owner != cwd:
            local = _rel(file, owner)
            hit = first_match(globs, local) if local is not None else None
            note = (f" (relative to {os.path.relpath(owner, cwd)}/; the glob base of rules in"
                    " subdirectories is not documented)")
        if hit is not None:
            b.add(ViewFile(path, "on-read", f"trigger: glob, {hit} matches this file{note};"
                           f" applied when Cascade reads or edits it ({DOCS})", "rule",
                           "project", size, body))
        else:
            b.skip(path, "globs-no-match", f"trigger: glob, {', '.join(globs)} — does not"
                   f" match {rel or 'this file'} ({DOCS})")
    elif trigger == "model_decision":
        desc = meta.get("description")
        said = f" (\"{desc.strip()[:80]}\")" if isinstance(desc, str) and desc.strip() else ""
        b.add(ViewFile(path, "may", f"trigger: model_decision{said}: Cascade decides from the"
                       f" description whether to apply it ({DOCS})", "rule", "project", size,
                       body))
    elif trigger == "manual":
        stem = os.path.basename(path).rsplit(".", 1)[0]
        b.skip(path, "manual", f"trigger: manual — applied only when @-mentioned as @{stem}"
               f" ({DOCS})")
    else:
        what = "no trigger" if trigger is None else f"trigger: {trigger!r} is not one of" \
            f" {', '.join(TRIGGERS)}"
        broken = f"; the frontmatter does not parse ({err})" if err else ""
        b.skip(path, "no-trigger", f"{what}{broken}: the docs name no default, so RuleLens does"
               f" not count it as applied ({DOCS})")


def _rules_dirs(b: ViewBuilder, d: str, cwd: str, file: str | None, long: list[str]) -> None:
    for sub in RULE_DIRS:
        top = os.path.join(d, sub)
        if not fsio.is_dir(top):
            continue
        for path in fsio.walk_files(top, ""):
            if os.path.dirname(path) != top:
                continue  # the docs name `.windsurf/rules/*.md`: direct children
            if not path.endswith(".md"):
                b.skip(path, "wrong-extension", f"Windsurf reads `*.md` rule files ({DOCS})")
                continue
            _rule(b, path, d, cwd, file, long)


def _agents_md(b: ViewBuilder, cwd: str, file: str | None) -> None:
    for name in AGENTS_NAMES:
        p = os.path.join(cwd, name)
        if fsio.is_file(p):
            b.add(ViewFile(p, "start", f"{name} at the workspace root: an always-on rule"
                           f" ({DOCS})", "project", "project", fsio.size(p),
                           fsio.read_text(p) or "", source=AGENTS_SRC))
            break
    if file is None:
        return
    for d in fsio.between(cwd, os.path.dirname(file)):
        for name in AGENTS_NAMES:
            p = os.path.join(d, name)
            if fsio.is_file(p):
                rel = os.path.relpath(d, cwd).replace(os.sep, "/")
                b.add(ViewFile(p, "on-read", f"{name} in {rel}/: a glob rule {rel}/**, applied"
                               f" when Cascade reads or edits files there ({DOCS})", "project",
                               "project", fsio.size(p), fsio.read_text(p) or "",
                               source=AGENTS_SRC))
                break


def view(cwd: str, file: str | None, env: Mapping[str, str]) -> AgentView:
    home = env.get("HOME") or os.path.expanduser("~")
    b = ViewBuilder()
    long: list[str] = []
    glob_file = os.path.join(home, GLOBAL_RULES)
    if fsio.is_file(glob_file):
        text = fsio.read_text(glob_file) or ""
        b.add(ViewFile(glob_file, "start", f"global rules (~/{GLOBAL_RULES}), always on"
                       f" ({DOCS})", "user", "home", fsio.size(glob_file), text))
        if len(text) > MAX_GLOBAL_CHARS:
            b.notes.append(f"{glob_file}: {len(text):,} characters, over the 6,000 a global"
                           " rules file may hold (per a third-party linter, agnix WS-010).")
    root = repo_root(cwd)
    chain = fsio.ancestors(cwd, root)[::-1] if root is not None else [cwd]
    for d in chain:
        _rules_dirs(b, d, cwd, file, long)
    _agents_md(b, cwd, file)
    if file is not None:
        for d in fsio.between(cwd, os.path.dirname(file)):
            _rules_dirs(b, d, cwd, file, long)
    for p in long:
        b.notes.append(f"{p}: over the 12,000 characters a rule file may hold ({DOCS}); the docs"
                       " do not say what Cascade does with the rest.")
    legacy = os.path.join(cwd, LEGACY)
    if fsio.is_file(legacy):
        b.add(ViewFile(legacy, "start", f"legacy {LEGACY} at the workspace root, the rules"
                       " file of older Windsurf builds (the current docs describe"
                       " `.windsurf/rules/` and do not say it stopped being read; Cline and Zed"
                       f" read it as Windsurf's file; {DOCS})", "project", "project",
                       fsio.size(legacy), fsio.read_text(legacy) or ""))
    b.notes.append("Rules in `.windsurf/rules` folders elsewhere in the workspace are discovered"
                   " too; this view shows those from the git root down to this file."
                   " Auto-generated memories are not shown.")
    return AgentView(ID, DISPLAY, cwd, file, root, b.files(), b.not_loaded(),
                     notes=tuple(b.notes), basis="docs", basis_label=DOCS, rendered=None)


#: This agent's record in :data:`rulelens.agents.registry.AGENTS`.
AGENT = Agent(
    id=ID, short="Windsurf", display=DISPLAY, profiles=(PROFILE,),
    markers=(".windsurf/rules", ".devin/rules", ".windsurfrules"),
    formats=("windsurf-rule",), view=view,
)
