"""JetBrains Junie (closed source): one guidelines file per project, per JetBrains docs
(research agent-profiles-more.md §7; every detail says so).

JU-F1: ``.junie/guidelines.md`` at the project root (RuleLens: the start directory) is given
to Junie with every task. One file per project: a "Guidelines path" setting in the IDE (not in
a project file) can point elsewhere, which RuleLens cannot see, so a note says so. Newer
builds also accept ``AGENTS.md`` at the project root; the docs do not state firmly which wins
when both exist, so RuleLens shows ``.junie/guidelines.md`` (the documented default) and
names AGENTS.md as not used, with that caveat. Nothing below the root, no frontmatter, no
imports.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from rulelens.agents import fsio, profiles
from rulelens.agents.record import Agent
from rulelens.agents.view import AgentView, ViewBuilder, ViewFile

PROFILE = profiles.JUNIE
ID = PROFILE.agent
DISPLAY = PROFILE.display
DOCS = "per JetBrains Junie docs"
DOCS_URL = "https://www.jetbrains.com/help/junie/customize-guidelines.html"
GUIDELINES, AGENTS = PROFILE.base_names


def view(cwd: str, file: str | None, env: Mapping[str, str]) -> AgentView:
    b = ViewBuilder()
    guidelines = os.path.join(cwd, GUIDELINES)
    agents = os.path.join(cwd, AGENTS)
    if fsio.is_file(guidelines):
        b.add(ViewFile(guidelines, "start", f"{GUIDELINES} at the project root, given to Junie"
                       f" with every task ({DOCS})", "project", "project", fsio.size(guidelines),
                       fsio.read_text(guidelines) or ""))
        if fsio.is_file(agents):
            b.skip(agents, "one-file", f"Junie uses one guidelines file per project and"
                   f" {GUIDELINES} is the default; newer builds also accept AGENTS.md, but which"
                   f" wins when both exist is not stated firmly ({DOCS})")
    elif fsio.is_file(agents):
        b.add(ViewFile(agents, "start", f"AGENTS.md at the project root: newer builds accept it"
                       f" when there is no {GUIDELINES} (older builds read only {GUIDELINES};"
                       f" {DOCS})", "project", "project", fsio.size(agents),
                       fsio.read_text(agents) or ""))
    if file is not None:
        for d in fsio.between(cwd, os.path.dirname(file)):
            for name in (GUIDELINES, AGENTS):
                p = os.path.join(d, name)
                if fsio.is_file(p):
                    b.skip(p, "below-root", f"Junie reads its guidelines file at the project"
                           f" root only, not in {os.path.relpath(d, cwd)}/ ({DOCS})")
    b.notes.append("The IDE's \"Guidelines path\" setting can point Junie at another file; it is"
                   " not stored in the project, so RuleLens shows the default location.")
    return AgentView(ID, DISPLAY, cwd, file, cwd, b.files(), b.not_loaded(),
                     notes=tuple(b.notes), basis="docs", basis_label=DOCS, rendered=None)


#: This agent's record in :data:`rulelens.agents.registry.AGENTS`.
AGENT = Agent(
    id=ID, short="Junie", display=DISPLAY, profiles=(PROFILE,),
    markers=(".junie",), view=view,
)
