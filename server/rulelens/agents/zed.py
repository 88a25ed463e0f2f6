"""Zed (Agent Panel; open source): one rules file per worktree root and the personal
AGENTS.md, from Zed's code where it was read and its docs for the rest (research
agent-profiles-more.md §6, corrected by the code).

From the code (zed-industries/zed @0023f768 ``crates/agent/src/agent.rs``
``load_worktree_rules_file`` and its test ``test_maintaining_project_context``): per visible
worktree (RuleLens: the start directory) the **first** of the rules file names that is a
regular file at the worktree root is read, trimmed, and included in every Agent Panel
interaction; a directory with one of the names (Cline's ``.clinerules/`` folder) is passed
over; nothing below the root is read, nothing is imported. From the docs
(``docs/src/ai/rules.md`` @00111873, ZD-F1): the name order ``.rules``, ``.cursorrules``,
``.windsurfrules``, ``.clinerules``, ``.github/copilot-instructions.md``, ``AGENT.md``,
``AGENTS.md``, ``CLAUDE.md``, ``GEMINI.md`` (an older stored ``prompt_store`` put
``CLAUDE.md`` before ``AGENT.md``: where only that order decides, the line says docs), and
since v1.4.0 the personal ``~/.config/zed/AGENTS.md`` in every conversation, before the
project rules, which win on conflict. The Rules Library (now Skills) is not modelled.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from rulelens.agents import fsio, profiles
from rulelens.agents.record import Agent
from rulelens.agents.view import AgentView, ViewBuilder, ViewFile

PROFILE = profiles.ZED
ID = PROFILE.agent
DISPLAY = PROFILE.display
CODE = "zed-industries/zed@0023f768:crates/agent/src/agent.rs"
DOCS_SRC = "zed-industries/zed@00111873:docs/src/ai/rules.md"
DOCS = "per Zed docs"
#: ZD-F1, in the docs' order (``prompt_store::RULES_FILE_NAMES``).
NAMES: tuple[str, ...] = PROFILE.base_names
#: The names whose relative order differs between the stored code and the docs.
CONTESTED = frozenset({"AGENT.md", "AGENTS.md", "CLAUDE.md"})
PERSONAL = os.path.join("zed", "AGENTS.md")


def personal_file(env: Mapping[str, str]) -> str:
    """``~/.config/zed/AGENTS.md`` (docs: macOS and Linux)."""
    home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".config", PERSONAL)


def pick(root: str) -> tuple[str | None, list[str]]:
    """The rules file Zed reads at ``root`` (first name that is a regular file) and the names
    after it that also exist as files."""
    chosen: str | None = None
    shadowed: list[str] = []
    for name in NAMES:
        if fsio.is_file(os.path.join(root, name)):
            if chosen is None:
                chosen = name
            else:
                shadowed.append(name)
    return chosen, shadowed


def _contested(chosen: str, other: str) -> bool:
    """Only the name order the stored code and the docs disagree on decides between them."""
    return chosen != other and chosen in CONTESTED and other in CONTESTED


def _basis(chosen: str, other: str) -> str:
    """The words for how sure the choice between ``chosen`` and ``other`` is."""
    if _contested(chosen, other):
        return f"the order {chosen} before {other} is {DOCS} ({DOCS_SRC}); older code read" \
               " CLAUDE.md before AGENT.md"
    return f"from Zed's code, {CODE}"


def view(cwd: str, file: str | None, env: Mapping[str, str]) -> AgentView:
    b = ViewBuilder()
    personal = personal_file(env)
    if fsio.is_file(personal):
        b.add(ViewFile(personal, "start", f"personal AGENTS.md (~/.config/{PERSONAL}), in every"
                       f" conversation before the project rules (v1.4.0+, {DOCS})", "user",
                       "home", fsio.size(personal), fsio.read_text(personal) or "",
                       evidence="docs", source=DOCS_SRC))
    chosen, shadowed = pick(cwd)
    if chosen is not None:
        p = os.path.join(cwd, chosen)
        lost = [n for n in shadowed if _contested(chosen, n)]
        order = f"; its lead over {', '.join(lost)} is {DOCS}" if lost else ""
        b.add(ViewFile(p, "start", f"{chosen}: the first rules file at the worktree root, in"
                       f" every Agent Panel interaction ({_basis(chosen, chosen)}{order})",
                       "project", "project", fsio.size(p), (fsio.read_text(p) or "").strip(),
                       evidence="docs" if lost else None, source=DOCS_SRC if lost else None))
        for name in shadowed:
            docs = _contested(chosen, name)
            b.skip(os.path.join(cwd, name), "shadowed", f"Zed reads one rules file per"
                   f" worktree: {chosen} comes first in its list ({_basis(chosen, name)})",
                   evidence="docs" if docs else None, source=DOCS_SRC if docs else None)
    for name in NAMES:
        p = os.path.join(cwd, name)
        if fsio.is_dir(p):
            b.skip(p, "not-a-file", f"a directory: Zed reads {name} only as a file and passes"
                   f" over a folder of that name (from Zed's code, {CODE})")
    if file is not None:
        for d in fsio.between(cwd, os.path.dirname(file)):
            for name in NAMES:
                p = os.path.join(d, name)
                if fsio.is_file(p):
                    b.skip(p, "below-root", f"Zed reads rules files only at the worktree root,"
                           f" not in {os.path.relpath(d, cwd)}/ (from Zed's code, {CODE})")
    b.notes.append("Rules Library / Skills entries live in Zed's database and ~/.agents/skills:"
                   " not shown.")
    return AgentView(ID, DISPLAY, cwd, file, cwd, b.files(), b.not_loaded(),
                     notes=tuple(b.notes), basis="code", basis_label=f"from Zed's code, {CODE}",
                     rendered=None)


#: This agent's record in :data:`rulelens.agents.registry.AGENTS`.
AGENT = Agent(
    id=ID, short="Zed", display=DISPLAY, profiles=(PROFILE,),
    markers=(".rules", ".zed"), view=view,
)
