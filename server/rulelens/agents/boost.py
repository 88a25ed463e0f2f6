"""Laravel Boost's project rules: ``.ai/rules/index.md`` and the rule files its globs point
to, exact from source at 8d8cb703 (research agent-profiles.md §6, facts numbered there).

Boost is not an agent: its guidelines (inside ``<laravel-boost-guidelines>`` in the agent's
own file) tell the model to open the index before planning or editing, read every rule
file whose globs cover the path, and grep ``.ai/rules`` (fact 9). So everything here is
*may* (model-performed), never loaded by a harness. Rule files are ``.ai/rules/*.md`` minus
``index.md`` plus managed ``.ai/rules/boost/*.md`` (3); a file's globs are its ``paths``
frontmatter (4); the index lists files with paths, sorted by relative path (5) and goes
stale when rule files are edited by hand (6); files without paths are found only by the
grep step (10). Boost's writes (7, 8: ``boost:install`` rewriting ``.ai/rules/boost/``,
the ``record-rule`` MCP tool) are not reads: a note states them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from rulelens.agents import fsio, profiles
from rulelens.agents.globmatch import first_match, refused_notes
from rulelens.agents.meta import safe_yaml
from rulelens.agents.record import Agent
from rulelens.agents.view import AgentView, ViewBuilder, ViewFile

PROFILE = profiles.BOOST
ID = PROFILE.agent
DISPLAY = PROFILE.display
INDEX_LEAD = ("Before planning or editing, find the row whose globs match the file's path and"
              " read that rule file.")
GUIDELINE_TAG = "<laravel-boost-guidelines>"
GUIDELINE_FILES = ("CLAUDE.md", "AGENTS.md", "GEMINI.md", ".github/copilot-instructions.md",
                   ".cursor/rules/laravel-boost.mdc", ".junie/guidelines.md")
SOURCE = "exact from Laravel Boost source @8d8cb703"
#: Facts 7-8: what Boost writes into .ai/rules (RuleLens only reads it).
WRITES_NOTE = (
    "Boost writes here too: `php artisan boost:install` deletes and rewrites .ai/rules/boost/"
    " (one file per scoped path set) only when rules and BOOST_RULES_SCOPED_GUIDELINES are on,"
    " else clears it; the record-rule MCP tool appends a rule to the area file whose globs"
    " match (else a new <slug>.md with paths), never into boost/ or index.md, and rewrites"
    f" index.md ({SOURCE}).")
_FRONT = re.compile(r"^\s*---\s*\n(.*?)\n---\s*\n?", re.DOTALL)


def rule_paths(content: str) -> list[str]:
    """``RuleFrontmatter::parse``'s ``paths`` (fact 4): a scalar counts as one glob,
    non-string entries are dropped, bad YAML or no block means none."""
    content = content.replace("\r\n", "\n").replace("\r", "\n")
    m = _FRONT.match(content)
    if m is None:
        return []
    meta, _error = safe_yaml(m.group(1))  # bounded: a recursive alias or bomb is no paths
    raw = meta.get("paths", []) if isinstance(meta, dict) else []
    items = raw if isinstance(raw, list) else ([] if raw is None else [raw])
    return [p for p in items if isinstance(p, str)]


def project_root(cwd: str) -> str:
    """``base_path()``: the nearest directory with ``artisan``, else the git root, else cwd."""
    for d in fsio.ancestors(cwd):
        if fsio.is_file(os.path.join(d, "artisan")):
            return d
    for d in fsio.ancestors(cwd):
        if os.path.lexists(os.path.join(d, ".git")):
            return d
    return cwd


def rule_files(rules_dir: str) -> list[str]:
    """Fact 3: direct ``*.md`` (not ``index.md``) then managed ``boost/*.md``, each sorted."""
    def md_in(d: str, exclude_index: bool) -> list[str]:
        return [os.path.join(d, n) for n in fsio.listdir(d)
                if n.endswith(".md") and fsio.is_file(os.path.join(d, n))
                and not (exclude_index and n == "index.md")]
    return md_in(rules_dir, True) + md_in(os.path.join(rules_dir, "boost"), False)


def index_text(root: str, files: Mapping[str, list[str]]) -> str:
    """``writeIndex``'s exact output for ``{path: globs}`` (fact 5)."""
    def rel(p: str) -> str:
        return os.path.relpath(p, root).replace(os.sep, "/")
    rows = sorted((rel(p), g) for p, g in files.items() if g)
    table = ("No rules recorded yet." if not rows else
             "| Applies to | Rule file |\n| --- | --- |\n"
             + "\n".join(f"| {', '.join(g)} | {r} |" for r, g in rows))
    return f"# Project Rules Index\n\n{INDEX_LEAD}\n\n{table}\n"


def index_rows(text: str) -> dict[str, list[str]]:
    """``{relative rule path: globs}`` read back from an index table."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        m = re.match(r"^\|\s*(.+?)\s*\|\s*(.+?)\s*\|\s*$", line)
        if not m or m.group(1) in ("Applies to", "---"):
            continue
        out[m.group(2)] = [g.strip() for g in m.group(1).split(",") if g.strip()]
    return out


def rules_enabled(root: str, env: Mapping[str, str]) -> bool:
    """Fact 2: ``boost.rules.enabled`` = ``env('BOOST_RULES_ENABLED', true)``: the process
    environment first, then the project's ``.env`` (Laravel's order); false/0/off/no/empty
    string "(false)" turn it off."""
    value = env.get("BOOST_RULES_ENABLED")
    if value is None:
        for line in (fsio.read_text(os.path.join(root, ".env"), 1 << 20) or "").splitlines():
            key, sep, raw = line.strip().partition("=")
            if sep and key.strip() == "BOOST_RULES_ENABLED":
                value = raw.strip().strip("\"'")
    return value is None or value.strip().lower() not in ("false", "(false)", "0", "off", "no")


def view(cwd: str, file: str | None, env: Mapping[str, str]) -> AgentView:
    b = ViewBuilder()
    root = project_root(cwd)
    rules_dir = os.path.join(root, ".ai", "rules")
    index = os.path.join(rules_dir, "index.md")
    if not fsio.is_dir(rules_dir):
        b.notes.append("No .ai/rules directory: Boost's guidelines say to continue without it.")
        return _done(cwd, file, root, b)
    if not rules_enabled(root, env):
        for path in [index, *rule_files(rules_dir)]:
            if fsio.is_file(path):
                b.skip(path, "rules-disabled", "BOOST_RULES_ENABLED is false: Boost's guidelines"
                       " carry no Project Rules section, so no model is told to read .ai/rules")
        return _done(cwd, file, root, b)
    guided = [g for g in GUIDELINE_FILES
              if GUIDELINE_TAG in (fsio.read_text(os.path.join(root, g), 1 << 20) or "")]
    if not guided:
        b.notes.append("No agent file here carries <laravel-boost-guidelines>: no model is told to"
                       " open .ai/rules/index.md (run `php artisan boost:install`).")
    else:
        b.notes.append("Guidelines in " + ", ".join(guided) + " tell the model to open"
                       " .ai/rules/index.md before planning or editing (model-performed).")
    b.notes.append(WRITES_NOTE)
    files = {p: rule_paths(fsio.read_text(p) or "") for p in rule_files(rules_dir)}
    expected = index_text(root, files)
    actual = fsio.read_text(index)
    rows = index_rows(actual or "")
    if actual is None:
        b.notes.append("index.md is missing: run `php artisan boost:update` to write it.")
    elif actual != expected:
        b.notes.append("index.md is stale (it differs from what Boost would write for the rule"
                       " files now): run `php artisan boost:update`.")
    if actual is not None:
        b.add(ViewFile(index, "may", "the index the guidelines tell the model to open before"
                       " planning or editing (Boost, model-performed)", "index", "project",
                       fsio.size(index), actual))
    rel = None
    if file is not None and fsio.is_below(file, root) and file != root:
        rel = os.path.relpath(file, root).replace(os.sep, "/")
    for path, globs in files.items():
        rrel = os.path.relpath(path, root).replace(os.sep, "/")
        listed = rows.get(rrel)
        if not globs:
            b.skip(path, "no-paths", "no paths frontmatter: not in the index; the model finds it"
                   " only through the `grep -rin` step")
            continue
        if listed is None:
            b.skip(path, "stale-index", f"not listed in index.md (paths: {', '.join(globs)});"
                   " the model will not find it by glob until `php artisan boost:update`")
            continue
        b.notes.extend(refused_notes(path, "paths", listed))
        hit = first_match(listed, rel) if rel is not None else None
        if hit is not None:
            text = fsio.read_text(path) or ""
            b.add(ViewFile(path, "may", f"index row {hit} matches {rel}: the model is told to read"
                           " it (advisory; the glob dialect is the model's)", "rule", "project",
                           fsio.size(path), text))
        else:
            b.skip(path, "globs-no-match", f"index globs {', '.join(listed)} do not match"
                   f" {rel or 'this file'}")
    return _done(cwd, file, root, b)


def _done(cwd: str, file: str | None, root: str, b: ViewBuilder) -> AgentView:
    return AgentView(ID, DISPLAY, cwd, file, root, b.files(), b.not_loaded(),
                     notes=tuple(b.notes), basis="code",
                     basis_label="exact from Laravel Boost source (@8d8cb703)", rendered=None)


#: This agent's record in :data:`rulelens.agents.registry.AGENTS`.
AGENT = Agent(
    id=ID, short="Boost", display=DISPLAY, profiles=(PROFILE,),
    markers=(".ai/rules",),
    formats=("boost-rule",), view=view,
)
