"""GitHub Copilot (VS Code agent and the coding agent; CLI differences named in the detail
text), per GitHub and VS Code docs (research agent-profiles.md §5).

Start (facts 1, 5, 6): ``.github/copilot-instructions.md``, root ``AGENTS.md`` and (VS Code)
root ``CLAUDE.md``; user ``~/.copilot/copilot-instructions.md`` (CLI). On read (2, 4, 5, 6):
every ``.github/instructions/**/*.instructions.md`` (and, for the CLI, every
``~/.copilot/instructions/**/*.instructions.md``) whose ``applyTo`` (comma-separated globs,
relative to the repository root) matches, and VS Code's ``.claude/rules`` by ``paths``
(default ``**``). A file with no ``applyTo`` is not applied automatically; with a
``description`` VS Code may attach it (shown as *may*). ``excludeAgent`` (3) and code
review's 4,000-character cut (7) are named per file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from rulelens.agents import fsio, profiles
from rulelens.agents.globmatch import first_match, refused_notes, split_globs
from rulelens.agents.meta import yaml_meta
from rulelens.agents.record import Agent
from rulelens.agents.view import AgentView, Role, ViewBuilder, ViewFile

PROFILE = profiles.COPILOT
ID = PROFILE.agent
DISPLAY = PROFILE.display
DOCS = "per GitHub Copilot docs, 2026-08"
REVIEW_CHARS = PROFILE.budget.max_bytes if PROFILE.budget else 4000
#: A version-gated bug users report (observed; shown on the lines it affects).
JETBRAINS_LOCAL_BUG = ("JetBrains Copilot 1.12.1 in Local mode ignores `applyTo` and loads"
                       " every instruction file (Copilot CLI mode lets the model choose);"
                       " observed: microsoft/copilot-intellij-feedback#1624")


repo_root = fsio.repo_root


_rel = fsio.rel_below


def _review_note(text: str) -> str:
    if len(text) > REVIEW_CHARS:
        return f"; code review reads only its first {REVIEW_CHARS:,} characters"
    return ""


def _exclude_note(meta: Mapping[str, object]) -> str:
    ex = meta.get("excludeAgent")
    if ex == "code-review":
        return "; excludeAgent: code-review (the coding agent only)"
    if ex == "coding-agent":
        return "; excludeAgent: coding-agent (code review only)"
    return ""


def _start(b: ViewBuilder, path: str, why: str, role: str = "project") -> None:
    if fsio.is_file(path):
        text = fsio.read_text(path) or ""
        b.add(ViewFile(path, "start", why + _review_note(text) + f" ({DOCS})", "project",
                       "home" if role == "home" else "project", fsio.size(path), text))


def _instructions(b: ViewBuilder, directory: str, rel: str | None, role: Role,
                  where: str) -> None:
    """Every ``*.instructions.md`` below ``directory`` (facts 2, 5): by its ``applyTo``,
    matched against the file's path relative to the repository root."""
    for path in fsio.walk_files(directory, ".instructions.md"):
        text = fsio.read_text(path) or ""
        meta, body, err = yaml_meta(text)
        globs = split_globs(meta.get("applyTo"))
        b.notes.extend(refused_notes(path, "applyTo", globs))
        size = fsio.size(path)
        extra = _exclude_note(meta) + _review_note(text) + where
        if err:
            b.skip(path, "bad-frontmatter", f"{err}: applyTo cannot be read ({DOCS})")
        elif globs:
            hit = first_match(globs, rel) if rel is not None else None
            if hit is not None:
                b.add(ViewFile(path, "on-read", f"applyTo: {hit} matches {rel}; used together with"
                               f" the repository-wide file{extra} ({DOCS})", "instructions",
                               role, size, body))
            else:
                b.skip(path, "applyto-no-match", f"applyTo: {', '.join(globs)} — does not match"
                       f" {rel or 'this file'}{where} ({DOCS})")
            b.annotate(path, JETBRAINS_LOCAL_BUG)
        elif isinstance(meta.get("description"), str) and str(meta["description"]).strip():
            b.add(ViewFile(path, "may", f"no applyTo; description \"{str(meta['description'])[:80]}"
                           f"\": VS Code may attach it when the task matches{extra} ({DOCS})",
                           "instructions", role, size, body))
        else:
            b.skip(path, "no-applyto", f"no applyTo: not applied automatically; attach it by"
                   f" hand in chat{where} ({DOCS})")


def view(cwd: str, file: str | None, env: Mapping[str, str]) -> AgentView:
    b = ViewBuilder()
    root = repo_root(cwd) or cwd
    home = env.get("HOME") or os.path.expanduser("~")
    _start(b, os.path.join(home, ".copilot", "copilot-instructions.md"),
           "user instructions (Copilot CLI)", "home")
    _start(b, os.path.join(root, ".github", "copilot-instructions.md"),
           "repository-wide .github/copilot-instructions.md")
    _start(b, os.path.join(root, "AGENTS.md"), "AGENTS.md at the repository root")
    _start(b, os.path.join(root, "CLAUDE.md"), "CLAUDE.md at the repository root (VS Code;"
           " the CLI reads it at the root too)")
    gemini = os.path.join(root, "GEMINI.md")
    if fsio.is_file(gemini):
        b.skip(gemini, "cli-only", f"GEMINI.md at the root is read by Copilot CLI only ({DOCS})")
    rel = _rel(file, root)
    _instructions(b, os.path.join(home, ".copilot", "instructions"), rel, "home",
                  " (user instructions, Copilot CLI)")
    _instructions(b, os.path.join(root, ".github", "instructions"), rel, "project", "")
    for path in fsio.walk_files(os.path.join(root, ".claude", "rules"), ".md"):
        text = fsio.read_text(path) or ""
        meta, body, _err = yaml_meta(text)
        globs = split_globs(meta.get("paths")) or ["**"]
        b.notes.extend(refused_notes(path, "paths", globs))
        hit = first_match(globs, rel) if rel is not None else None
        if hit is not None:
            b.add(ViewFile(path, "on-read", f"VS Code reads .claude/rules too: paths {hit}"
                           f" matches ({DOCS})", "rule", "project", fsio.size(path), body))
        else:
            b.skip(path, "paths-no-match", f"paths: {', '.join(globs)} — does not match"
                   f" {rel or 'this file'} (VS Code; {DOCS})")
    if file is not None:
        for d in fsio.between(root, os.path.dirname(file)):
            nested = os.path.join(d, "AGENTS.md")
            if fsio.is_file(nested) and not b.loaded(nested):
                b.skip(nested, "nested-agents-md",
                       "nested AGENTS.md: VS Code reads it only with its experimental nested"
                       " AGENTS.md setting; Copilot CLI reads AGENTS.md in directories on the"
                       f" path of a file it works on ({DOCS})")
    b.notes.append("Copilot gives no order between instruction files (the docs call the choice"
                   " between conflicting ones non-deterministic).")
    return AgentView(ID, DISPLAY, cwd, file, root, b.files(), b.not_loaded(),
                     notes=tuple(b.notes), basis="docs", basis_label=DOCS, rendered=None)


#: This agent's record in :data:`rulelens.agents.registry.AGENTS`.
AGENT = Agent(
    id=ID, short="Copilot", display=DISPLAY, profiles=(PROFILE,),
    markers=(".github/copilot-instructions.md", ".github/instructions"),
    formats=("copilot-instructions", "copilot-repo"), view=view,
)
