"""Every agent's view of one file: Grok's chain as an :class:`AgentView`, next to the
other agents' (``rulelens.agents.registry``), and the side-by-side rows built from them.

Two inputs: the start directory (where the session starts) and the file. Grok loads only
the chain from the git root down to the start directory; instruction files between the
start directory and the file are honestly *not loaded* (its runtime tracker is not wired),
so no view ever lists a file as loaded and as "only mentioned" at once.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from rulelens.agents import fsio
from rulelens.agents.compat import ConfigError
from rulelens.agents.environment import AgentEnvironment
from rulelens.agents.profiles import DEFAULT_AGENT, UnknownAgent, grok_profile, profile
from rulelens.agents.registry import BY_ID, DISPLAY, ORDER, SHORT, choices, family
from rulelens.agents.view import AgentView, NotLoaded, ViewBuilder, ViewFile
from rulelens.rules.discovery import Resolver
from rulelens.rules.model import Chain
from rulelens.rules.render import render

ResolveChain = Callable[[str], Chain]


def grok_view(chain: Chain, file: str | None, resolve: ResolveChain) -> AgentView:
    """Grok's chain for the start directory, plus what it does not load for ``file``."""
    cwd = chain.cwd
    base = chain.git_root or cwd
    b = ViewBuilder()
    for f in chain.files:
        d = os.path.dirname(f.path)
        if f.role == "home":
            why = "home file, loaded in every session"
        elif d == cwd:
            why = f"{f.name} in the start directory (git root → start dir; deeper wins)"
        else:
            why = (f"{f.name} in {os.path.relpath(d, base) if fsio.is_below(d, base) else d}/"
                   " (git root → start dir; deeper wins)")
        b.add(ViewFile(f.path, "start", why, f.kind, f.role, f.bytes, f.content))
    for s in chain.skipped:
        b.skip(s.path, str(s.reason), s.detail)
    loaded = {f.canonical for f in chain.files}
    if file is not None:
        fdir = os.path.dirname(file)
        if fsio.is_below(fdir, cwd) and fdir != cwd:
            deeper = resolve(fdir)
            below = [f.path for f in deeper.files
                     if f.canonical not in loaded and f.role == "project"]
            # In an untrusted folder the deeper files are withheld, not loaded: still below.
            here = {s.path for s in chain.skipped}
            below += [str(s.path) for s in deeper.skipped
                      if str(s.reason) == "untrusted-folder" and s.path not in here]
            for path in below:
                b.skip(path, "below-start-dir",
                       f"below the start directory ({cwd}): Grok loads files from the git"
                       " root down to where the session starts, and its runtime tracker"
                       f" is not wired; start the session in {os.path.dirname(path)}/"
                       " to load it")
        elif not fsio.is_below(fdir, cwd):
            b.notes.append(f"{file} is outside the start directory: Grok's chain does not"
                           " change for it.")
    trust = getattr(chain, "trust", None)
    reason = getattr(trust, "reason", None)
    if isinstance(reason, str) and getattr(trust, "state", "") in ("untrusted", "undecided"):
        b.notes.append(reason)
    agent = getattr(chain, "agent", None) or DEFAULT_AGENT
    return AgentView(str(agent), "Grok", cwd, file, chain.git_root, b.files(), b.not_loaded(),
                     notes=tuple(b.notes), basis="code",
                     basis_label="exact from Grok Build source", rendered=render(chain.files),
                     extra={"chain": chain})


def grok_discover(cwd: str, file: str | None, env: Mapping[str, str],
                  agent: str | None = None) -> AgentView:
    """Grok's registry entry point (``rulelens.agents.grok.view``): its view from a fresh
    resolver over ``env``; a config.toml Grok rejects is a note, not a traceback."""
    row = grok_profile(agent)
    try:
        environment = AgentEnvironment.from_env(env)
    except ConfigError as exc:
        return AgentView(row.id, row.display, cwd, file, None, (), (),
                         notes=(f"{exc}; Grok does not start with this config.toml",),
                         basis="code", basis_label="exact from Grok Build source")
    resolver = Resolver(environment, row)
    return grok_view(resolver.resolve(cwd), file, resolver.resolve)


def views_for_file(file: str | None, cwd: str, agents: Iterable[str],
                   env: Mapping[str, str], resolve: ResolveChain) -> list[AgentView]:
    """One view per agent id, in ``ORDER``; an agent whose engine is ``rules`` (Grok)
    through the session's ``resolve``, every other through its record's ``view``."""
    wanted = list(dict.fromkeys(agents))
    wanted.sort(key=lambda a: ORDER.index(family(a)) if family(a) in ORDER else len(ORDER))
    out = []
    for agent in wanted:
        record = BY_ID.get(family(agent))
        if record is None:
            raise ValueError(f"unknown agent {agent!r} (known: {choices()})")
        if record.engine:
            found = grok_view(resolve(cwd), file, resolve)
        else:
            found = record.view(cwd, file, env)
        out.append(with_source(found))
    return out


def with_source(view: AgentView) -> AgentView:
    """``view`` naming where its facts come from: the source of its profile row (the exact
    version, ``grok@1.0.6``, or the agent's newest row), unless the module named one."""
    if view.source:
        return view
    try:
        row = profile(view.agent)
    except UnknownAgent:
        return view
    return dataclasses.replace(view, source=row.source)


#: ``start`` | ``on-read`` | ``may`` | ``no`` (not loaded) | ``—`` (the agent does not look)
Cell = str


@dataclass(frozen=True)
class Row:
    """One instruction file across agents: per agent a cell and the reason behind it."""

    path: str
    cells: tuple[tuple[Cell, str], ...]


def side_by_side(views: list[AgentView]) -> list[Row]:
    """Rows in first-seen order (each agent's load order, Grok first); a cell is
    ``start``/``on-read``/``may``, ``no`` (not loaded) or ``—`` (not looked for), each with
    its reason."""
    paths: dict[str, None] = {}
    for v in views:
        for f in v.files:
            paths.setdefault(f.path, None)
    for v in views:
        for s in v.not_loaded:
            paths.setdefault(s.path, None)
    rows = []
    for p in paths:
        cells: list[tuple[Cell, str]] = []
        for v in views:
            entry = v.find(p)
            if isinstance(entry, ViewFile):
                cells.append((entry.when, entry.why))
            elif isinstance(entry, NotLoaded):
                cells.append(("no", f"{entry.reason}: {entry.detail}"))
            else:
                cells.append(("—", f"{DISPLAY.get(family(v.agent), v.display)} does not look"
                                   " for this file here"))
        rows.append(Row(p, tuple(cells)))
    return rows


#: A "not loaded" cell, told apart by why: the agent looked for the file and a rule kept it
#: out. Every other reason reads ``no``; ``—`` stays "the agent does not look for it".
_NO_MARKS: tuple[tuple[str, frozenset[str]], ...] = (
    ("trust", frozenset({"untrusted-folder"})),
    ("below", frozenset({"below-start-dir", "below-root"})),
    ("dup", frozenset({"shadowed", "name-shadowed", "global-shadowed", "same-file",
                       "duplicate"})),
    ("off", frozenset({"compat-disabled", "claude-disabled", "rules-disabled", "toggled-off",
                       "budget-disabled", "project-config-disabled", "excluded"})),
    ("scope", frozenset({"globs-no-match", "paths-no-match", "applyto-no-match",
                         "pattern-no-match"})),
)
#: What each mark of a side-by-side table means (the CLI and hover legends).
CELL_LEGEND = ("start = injected when the session starts · on-read = added when the agent"
               " reads this file · may = the model may pull it in · no = not loaded (see"
               " --why) · trust = withheld until the folder is trusted · below = below the"
               " start directory · dup = a duplicate of a file it loads · off = switched off"
               " in its config · scope = scoped to other files · — = the agent does not look"
               " for it")


def cell_mark(cell: str, reason: str) -> str:
    """The table's mark for a cell: ``no`` split by its reason (``trust``, ``below``, …)."""
    if cell != "no":
        return cell
    code = reason.split(":", 1)[0]
    return next((mark for mark, reasons in _NO_MARKS if code in reasons), "no")


def short_name(agent: str) -> str:
    return SHORT.get(family(agent), agent)


#: How sure a line is, compactly: from the agent's code, its documentation, or observed.
MARKS = {"code": "ᶜ", "docs": "ᵈ", "observed": "ᵒ"}
EVIDENCE_LEGEND = ("ᶜ = from the agent's own code · ᵈ = from its documentation · ᵒ = observed"
                   " (issue reports, or your last session of the agent) · † = a known,"
                   " version-gated bug (below)")


def column_name(view: AgentView) -> str:
    """``Claudeᵈ``: the agent's short name with the mark of how sure its view is."""
    return short_name(view.agent) + MARKS.get(view.basis, "")


def line_notes(views: list[AgentView]) -> list[tuple[str, AgentView, str]]:
    """``(path, view, note)`` for every line that carries a known-bug note, in view order."""
    out: list[tuple[str, AgentView, str]] = []
    for v in views:
        entries: list[ViewFile | NotLoaded] = [*v.files, *v.not_loaded]
        for entry in entries:
            out += [(entry.path, v, note) for note in entry.notes]
    return out
