"""Generates docs/agents.md from the profile rows and the discovery modules' docstrings.

``python -m rulelens.agents.agentdocs > docs/agents.md``; a unit test fails when the page
and this output disagree, so the table and the page cannot drift apart.
"""

from __future__ import annotations

import inspect
import sys
from types import ModuleType

from rulelens.agents.profiles import PROFILES, AgentProfile
from rulelens.agents.registry import AGENTS
from rulelens.agents.sessionfacts import describe

#: Each agent's discovery module (its docstring is what RuleLens models), from the registry;
#: Grok's engine is ``rulelens.rules``, described by its profile rows alone.
MODULES: dict[str, ModuleType] = {
    a.id: module for a in AGENTS
    if not a.engine and (module := inspect.getmodule(a.view)) is not None}

BOUNDARY = {
    "git-root": "from the git root of the start directory down to it",
    "repo-dir-chain": "from the repository root down to the start directory (canonical walk;"
                      " a repository at `$HOME` is not a root)",
    "marker": "from the nearest directory holding a root marker ({markers}) down to the start"
              " directory; without one, the start directory only",
    "filesystem-root": "every directory from `/` down to the start directory",
    "cwd": "the start directory (the workspace folder) only",
    "root-parent": "from the parent of the nearest `.git` root (without one, the parent of"
                   " `$HOME`) down to the start directory",
}
UP_TO = {
    "cwd": "between the start directory and the file",
    "project-root": "from the file's directory up to the project root",
    "workspace": "between the workspace folder and the file",
}
FRONTMATTER = {
    "strip-rules": "stripped from rule files; named files are injected verbatim",
    "verbatim": "not interpreted: files are injected as they are",
    "scope": "read for its scope key, which decides when a file applies",
}
RENDERERS = {
    "system-reminder": "`<system-reminder>` with one `## From: <path>` section per file",
    "rules": "the `<rules>` frame (Plan and custom templates)",
    "claude-md": "`<system-reminder>` … `# claudeMd` … `Contents of <path> (<kind>):` per"
                 " file (observed output)",
    "codex-instructions": "one user message `# AGENTS.md instructions for <cwd>` +"
                          " `<INSTRUCTIONS>`; `--- project-doc ---` after the global file",
    "gemini-context": "`--- Context from: <path> ---` … `--- End of Context from: <path> ---`"
                      " per file; on-read files after a tool result",
    "cline-instructions": "`USER'S CUSTOM INSTRUCTIONS`, then one `# .clinerules/`,"
                          " `# .cursorrules`, `# .cursor/rules`, `# .windsurfrules`, `# AGENTS.md`"
                          " section per source, each rule as `<relative path>` + its body",
    "opencode-instructions": "`Instructions from: <absolute path>` + the content, per file;"
                             " on-read files attached to the read tool's result",
    "qwen-context": "`--- Context from: <path relative to the start directory> ---` per file,"
                    " then baseline rules as `--- Rule from: <path relative to the root> ---`",
}


def _names(p: AgentProfile) -> str:
    return ", ".join(f"`{n.name}`" for n in p.named_files) or "none"


def _dirs(p: AgentProfile) -> str:
    if not p.rules_dirs:
        return "none"
    return ", ".join(f"`{d.path}/{'**/' if d.recursive else ''}*`" for d in p.rules_dirs)


def _homes(p: AgentProfile) -> str:
    out = []
    for h in p.home_roots:
        base = f"${p.home_env}" if h.base == "agent-home" else "~"
        root = f"{base}/{h.path}" if h.path else base
        named = ", ".join(f"`{n}`" for n in h.names) if h.names else "named files"
        what = [w for w, on in ((named, h.named), (f"`{h.rules_dir}/`", h.rules_dir)) if on]
        out.append(f"`{root}`" + (f" ({', '.join(what)})" if what else ""))
    return "; ".join(out) or "none"


def section(p: AgentProfile) -> str:
    lines = [f"## {p.display} (`{p.id}`)", "", f"*{p.title}*", ""]
    lines.append(f"- **Named files** (probe order): {_names(p)}")
    lines.append(f"- **Rules directories**: {_dirs(p)}")
    lines.append(f"- **Home roots**: {_homes(p)}")
    markers = ", ".join(f"`{m}`" for m in p.boundary_markers) or "`.git`"
    lines.append(f"- **How far up**: {BOUNDARY[p.boundary].format(markers=markers)}")
    lines.append(f"- **Frontmatter**: {FRONTMATTER[p.frontmatter]}")
    lines.append("- **`.gitignore`**: " + ("gitignored instruction files are skipped"
                                          if p.gitignore else "not consulted"))
    if p.on_read is not None:
        names = ", ".join(f"`{n}`" for n in p.on_read.names) or "no named files"
        scoped = "; scoped rules whose globs match the file" if p.on_read.scoped_rules else ""
        lines.append(f"- **Added when the agent works on a file**: {names} in directories"
                     f" {UP_TO[p.on_read.up_to]}{scoped}")
    else:
        lines.append("- **Added when the agent works on a file**: nothing")
    if p.imports is not None:
        lines.append(f"- **Imports**: `{p.imports.syntax}`, {p.imports.max_depth} deep"
                     + (", not inside code" if p.imports.skips_code else ""))
    if p.budget is not None:
        lines.append(f"- **Budget**: {p.budget.max_bytes:,} bytes, {p.budget.scope},"
                     f" over it: {p.budget.overflow}")
    if p.trust is not None:
        lines.append(f"- **Folder trust**: `{p.trust.kind}` (store `{p.trust.store}`);"
                     f" grant: {p.trust.command}")
    frames = "; ".join(RENDERERS.get(r, r) for r in p.renderers) or (
        "not reproduced by RuleLens: `rulelens render` says so" if p.evidence == "code" else
        "not known (not in the sources RuleLens read): `rulelens render` says so")
    lines.append(f"- **Injected text**: {frames}")
    lines.append(f"- **Sessions** (`rulelens verify`): {describe(p.agent)}")
    lines.append("- **Sources**: " + "; ".join(f"{s.note} — {s.upstream}" for s in p.sources))
    module = MODULES.get(p.agent)
    if module is not None and module.__doc__:
        lines += ["", "What RuleLens models (from `rulelens.agents." + p.agent + "`):", "",
                  inspect.cleandoc(module.__doc__)]
    return "\n".join(lines)


#: Agents RuleLens does not model, and why: the sentence the page ends with.
NOT_MODELLED: tuple[tuple[str, str], ...] = (
    ("Amp", "No first-party source says which files Amp (ampcode.com) loads: the stored"
            " ampcode.com pages searched for this (December 2026) describe none, and the only"
            " detailed accounts are third-party reverse engineering (decodeclaude.com"
            " amp-code-spec, syllago.dev), so RuleLens has no Amp column."),
)


def render() -> str:
    head = [
        "# What each agent loads",
        "",
        "<!-- Generated by `python -m rulelens.agents.agentdocs` from the profile rows in",
        "     server/rulelens/agents/profiles.py and the discovery modules; a test checks it. -->",
        "",
        "Every view takes two inputs: the **start directory** (where the agent session starts;"
        " in the editor the workspace folder by default) and the **file** being worked on."
        " Per agent a file is loaded *at start*, added *on read* (when the agent works on the"
        " file), something the model *may* pull in itself (never counted as loaded), or *not"
        " loaded* with a reason. Facts from an agent's source code are exact; facts from"
        " documentation say so (\"per … docs\") wherever RuleLens shows them.",
        "",
        "`rulelens chain FILE --agent all --cwd DIR` shows them side by side;"
        " `rulelens chain FILE --agent codex --json` one agent's view.",
        "",
        "",
    ]
    tail = ["## Not modelled", ""] + [f"- **{name}**: {why}" for name, why in NOT_MODELLED]
    return ("\n".join(head) + "\n\n".join(section(p) for p in PROFILES) + "\n\n"
            + "\n".join(tail) + "\n")


if __name__ == "__main__":
    sys.stdout.write(render())
