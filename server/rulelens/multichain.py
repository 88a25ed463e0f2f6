"""SHELL helpers for ``rulelens chain|render FILE --agent claude|…|all [--cwd DIR]``.

One agent prints its view (loaded at start, added on read, may pull in, not loaded, the
import graph); ``all`` prints the side-by-side table (one column per agent, one row per
instruction file). ``--json`` keeps ``rulelens chain --json``'s shape per agent and adds
``when``/``why``/``imported_by``/``truncated_at`` per file; ``all`` wraps them as
``{"agents": [...]}``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from rulelens.agents.registry import DEFAULT_AGENT, ORDER, choices, family
from rulelens.agents.view import WHENS, AgentView
from rulelens.present import byte_size, display_path
from rulelens.rules.model import Chain
from rulelens.rules.perfile import (
    CELL_LEGEND,
    EVIDENCE_LEGEND,
    MARKS,
    ResolveChain,
    cell_mark,
    column_name,
    line_notes,
    short_name,
    side_by_side,
    views_for_file,
)
from rulelens.tokens import cell as token_cell
from rulelens.tokens import tokens

TOKENS_LEGEND = ("~tokens = at start +on read (m = memory at start), file texts only: ")
LEGEND = CELL_LEGEND
TITLES = {"start": "Loaded at start", "on-read": "Added when the agent works on this file",
          "may": "The model may pull in (not loaded)"}


def parse_agents(value: str | None) -> list[str]:
    """``all`` → every agent; ``claude,codex`` → both; ``None`` → Grok."""
    if not value:
        return [DEFAULT_AGENT]
    if value == "all":
        return list(ORDER)
    out = [v.strip() for v in value.split(",") if v.strip()]
    for a in out:
        if family(a) not in ORDER:
            raise ValueError(f"unknown agent {a!r} (known: {choices()}, all)")
    return out


def views(path: str, cwd: str | None, agents: list[str], env: Mapping[str, str],
          resolve: ResolveChain) -> list[AgentView]:
    absolute = os.path.abspath(path)
    is_dir = os.path.isdir(absolute)
    start = os.path.abspath(cwd) if cwd else (absolute if is_dir else os.path.dirname(absolute))
    return views_for_file(None if is_dir else absolute, start, agents, env, resolve)


def view_json(v: AgentView, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Grok: today's ``chain --json`` plus the per-file fields; others: their view. With
    ``env`` (the CLI), a ``tokens`` object (``rulelens.tokens``) too."""
    chain = v.extra.get("chain")
    if not isinstance(chain, Chain):
        out = v.to_json()
        if env is not None:
            out["tokens"] = tokens(v, env)
        return out
    out = chain.to_json()
    out.setdefault("agent", v.agent)
    out["display"] = v.display
    out["basis_label"] = v.basis_label
    out["file"] = v.file
    out["basis"] = v.basis
    out["evidence_source"] = v.source
    for entry, f in zip(out["files"], v.files, strict=False):
        entry.update({"when": f.when, "why": f.why, "imported_by": None, "truncated_at": None,
                      **v.evidence_of(f)})
    known = {s["path"] for s in out["skipped"]}
    for entry in out["skipped"]:
        entry.update({"evidence": v.basis, "evidence_source": v.source})
    out["skipped"] += [s.to_json(v.basis, v.source) for s in v.not_loaded
                       if s.path not in known]
    out["notes"] = list(v.notes)
    out["imports"] = []
    if env is not None:
        out["tokens"] = tokens(v, env)
    return out


def observed_json(v: AgentView, env: Mapping[str, str], resolve: ResolveChain
                  ) -> dict[str, Any]:
    """:func:`view_json` with ``evidence: "observed"`` (and the session as its source) on
    each file the agent's last session in the start directory shows loaded."""
    from rulelens.agents.sessionfacts import facts
    from rulelens.sessions.observed import mark_view_json, observed_files

    out = view_json(v, env)
    if v.file is not None and facts(v.agent).reader is not None:
        from rulelens.sessions import verify

        try:
            result = verify.verify(v.agent, v.cwd, v.file, env, resolve)
        except ValueError:  # an agent RuleLens cannot verify: its grades stay
            return out
        mark_view_json(out, observed_files(result))
    return out


def _base(v: AgentView) -> str:
    return v.root or v.cwd


def format_view(v: AgentView) -> str:
    base = _base(v)
    out = [f"{v.display} — start directory: {v.cwd}"]
    if v.file:
        out.append(f"file: {display_path(v.file, base)}")
    out.append(f"({v.basis_label})" if v.basis_label else "")
    if v.source:
        out.append(f"evidence: {v.basis}{MARKS.get(v.basis, '')} · source: {v.source}")
    for note in v.notes:
        out.append(f"note: {note}")
    for when in WHENS:
        group = v.of(when)
        out += ["", f"{TITLES[when]} ({len(group)}):"]
        if not group:
            out.append("  (none)")
        for i, f in enumerate(group, 1):
            cut = f" · cut at byte {f.truncated_at:,}" if f.truncated_at is not None else ""
            out.append(f"  {i:>2}. {display_path(f.path, base)}  {byte_size(f.bytes)},"
                       f" ~{f.tokens} tokens{cut}")
            out.append(f"      {f.why}")
            out += [f"      † {note}" for note in f.notes]
    if v.not_loaded:
        out += ["", f"Not loaded ({len(v.not_loaded)}):"]
        for s in v.not_loaded:
            out.append(f"  {display_path(s.path, base)}  [{s.reason}]")
            out.append(f"      {s.detail}")
            out += [f"      † {note}" for note in s.notes]
    if v.imports:
        out += ["", "Imports (in the order the agent sees them):"]
        for e in v.imports:
            target = display_path(e.target, base) if e.target else "?"
            out.append(f"  {'  ' * (e.depth - 1)}{display_path(e.source, base)}:{e.line}"
                       f" @{e.spec} → {target} [{e.status}]")
    return "\n".join(out) + "\n"


def format_table(vs: list[AgentView], why: bool = False,
                 env: Mapping[str, str] | None = None) -> str:
    base = _base(vs[0]) if vs else "."
    cwd = vs[0].cwd if vs else "."
    file = vs[0].file if vs else None
    rows = side_by_side(vs)
    header = ["file", *[column_name(v) for v in vs]]
    table = [header]
    for r in rows:
        table.append([display_path(r.path, base),
                      *[cell_mark(c, reason) for c, reason in r.cells]])
    costs = [tokens(v, env) for v in vs]
    table.append(["~tokens", *[token_cell(t) for t in costs]])
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    out = [f"start directory: {cwd}"]
    if file:
        out.append(f"file:            {display_path(file, base)}")
    out.append("")
    for i, row in enumerate(table):
        out.append("  ".join(c.ljust(widths[j]) for j, c in enumerate(row)).rstrip())
        if i == 0 or i == len(table) - 2:
            out.append("  ".join("-" * w for w in widths))
        if i != 0 and i < len(table) - 1 and why:
            for v, (cell, reason) in zip(vs, rows[i - 1].cells, strict=True):
                if cell != "—":
                    out.append(f"    {v.display}: {cell} — {reason}")
    methods = sorted({t["estimate"] for t in costs})
    notes = line_notes(vs)
    if notes:
        out += ["", "Known bugs on these lines:"]
        out += [f"  † {display_path(p, base)} ({v.display}): {note}" for p, v, note in notes]
    out += ["", LEGEND, EVIDENCE_LEGEND, TOKENS_LEGEND + "; ".join(methods) + "."]
    if why:
        w = max(len(column_name(v)) for v in vs)
        out += ["", "Sources:"] + [f"  {column_name(v).ljust(w)}  {v.source}" for v in vs]
    out += ["", summary(vs)]
    return "\n".join(out) + "\n"


def summary(vs: list[AgentView]) -> str:
    """``Grok 3 · Claude 5 · Codex 2 (cut at 32 KiB)``: files each agent loads for the file."""
    parts = []
    for v in vs:
        n = sum(1 for f in v.files if f.when != "may")
        name = short_name(v.agent)
        cut = next((f for f in v.files if f.truncated_at is not None), None)
        extra = ""
        if cut is not None:
            extra = f" (cut at {byte_size(int(v.extra.get('budget', 0)))})"
        may = sum(1 for f in v.files if f.when == "may")
        if may:
            extra += f" +{may} may"
        parts.append(f"{name} {n}{extra}")
    return " · ".join(parts)


def rendered(v: AgentView) -> str | None:
    return v.rendered


def cmd_chain(path: str, cwd: str | None, agent: str | None, as_json: bool, why: bool,
              env: Mapping[str, str], resolve: ResolveChain) -> str:
    """The text ``rulelens chain`` prints (raises ``ValueError`` for a bad agent)."""
    import json

    agents = parse_agents(agent)
    vs = views(path, cwd, agents, env, resolve)
    if as_json:
        out = [observed_json(v, env, resolve) for v in vs]
        if agent == "all" or len(vs) > 1:
            return json.dumps({"agents": out}, ensure_ascii=False, indent=2) + "\n"
        return json.dumps(out[0], ensure_ascii=False, indent=2) + "\n"
    if len(vs) > 1:
        return format_table(vs, why, env)
    return format_view(vs[0])


def cmd_render(path: str, cwd: str | None, agent: str, env: Mapping[str, str],
               resolve: ResolveChain) -> tuple[str | None, str]:
    """``(text, message)``: the injected text where the agent's framing is known, else
    ``None`` and a sentence saying so."""
    agents = parse_agents(agent)
    if len(agents) != 1:
        raise ValueError("render takes one agent, not a list or `all`")
    v = views(path, cwd, agents, env, resolve)[0]
    if v.rendered is None:
        return None, (f"{v.display}'s injected text is not known (no framing in the sources"
                      " RuleLens read); `rulelens chain --agent "
                      f"{family(v.agent)}` shows what it loads")
    return v.rendered, ""
