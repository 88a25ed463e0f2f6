"""Every enabled agent's view of an open file, for the language server (no pygls here).

:class:`AgentViews` owns the per-(agent, start directory, file) cache of
:class:`~rulelens.agents.view.AgentView` values; the session's invalidation clears it. The
start directory is the session's ``agent_cwd`` (the workspace folder, or ``agentCwd``);
the enabled agents come from the ``agents`` setting (a list, or ``"all"``), else Grok plus
every agent whose files exist at the workspace folder. The strings built here (lens title,
hover table, payloads) are what both clients show.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rulelens import tokens
from rulelens.agents import registry, scan
from rulelens.agents.compat import ConfigError
from rulelens.agents.readers import SCOPED
from rulelens.agents.registry import AGENTS, BY_ID, ORDER, family, present
from rulelens.agents.view import AgentView, NotLoaded, ViewFile
from rulelens.multichain import view_json
from rulelens.present import display_path
from rulelens.rules.model import Chain
from rulelens.rules.perfile import (
    CELL_LEGEND,
    EVIDENCE_LEGEND,
    MARKS,
    cell_mark,
    column_name,
    line_notes,
    short_name,
    side_by_side,
    views_for_file,
)
from rulelens.rules.render import estimate_tokens_for


def refused_view(agent: str, cwd: str, path: str | None, reason: str) -> AgentView:
    """The view of an agent whose own config file RuleLens refused to parse (nested too
    deeply, say): nothing listed, the reason as its note."""
    display = registry.DISPLAY.get(family(agent), agent)
    return AgentView(agent, display, cwd, path, None, (), (), notes=(f"not shown: {reason}",))


def enabled_agents(setting: object, workspace: str | None,
                   env: Mapping[str, str] | None = None) -> list[str]:
    """The ``rulelens.agents`` setting (list of ids or ``"all"``), else the default: every
    agent whose markers exist in ``workspace`` (Grok also when its home exists in ``env``)."""
    if setting == "all":
        return list(ORDER)
    if isinstance(setting, list | tuple):
        chosen = [a for a in setting if isinstance(a, str) and family(a) in ORDER]
        if chosen:
            return list(dict.fromkeys(chosen))
    return present(workspace, env)


#: Views kept at once (least recently used dropped first): a view holds the injected text
#: of every file it lists, so 2,000 open files x 7 agents would hold it 14,000 times.
MAX_VIEWS = 256


@dataclass
class AgentViews:
    """Per-agent views (a bounded LRU) and the strings made of them (the lens title, the
    hover table: one per open document and start directory); thread-safe."""

    environ: Mapping[str, str]
    _cache: OrderedDict[tuple[str, str, str], AgentView] = field(default_factory=OrderedDict)
    _texts: dict[tuple[str, tuple[str, ...], str, str], str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    #: Walks and reads the agents' modules share while building views; cleared with them.
    scans: scan.ScanCache = field(default_factory=scan.ScanCache)
    #: (start directory, file) -> [lock, users]: one thread computes a document's views,
    #: another asking meanwhile (didOpen's fingerprint and the first lens) waits for them.
    _building: dict[tuple[str, str], list[Any]] = field(default_factory=dict)
    #: Bumped by :meth:`clear` (the disk changed): what was computed before is not stored.
    _generation: int = 0

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()
            self._texts.clear()
            self._generation += 1
        self.scans.clear()

    def text(self, kind: str, path: str, cwd: str, agents: Sequence[str],
             resolve: Callable[[str], Chain], build: Callable[[list[AgentView]], str]) -> str:
        """``build(views)`` for this document, remembered until it changes or closes."""
        key = (kind, tuple(agents), cwd, path)
        with self._lock:
            hit = self._texts.get(key)
            generation = self._generation
        if hit is None:
            hit = build(self.views(path, cwd, agents, resolve))
            with self._lock:
                if generation == self._generation:
                    self._texts[key] = hit
        return hit

    def views(self, path: str, cwd: str, agents: Sequence[str],
              resolve: Callable[[str], Chain]) -> list[AgentView]:
        with self._lock:
            entry = self._building.setdefault((cwd, path), [threading.Lock(), 0])
            entry[1] += 1
        try:
            # Not computed twice at once: without this the first lens, racing didOpen's
            # fingerprint, took +36 % (in-process A/B, 150 files of bench/lsp.py's tree).
            with entry[0]:
                return self._views(path, cwd, agents, resolve)
        finally:
            with self._lock:
                entry[1] -= 1
                if not entry[1]:
                    del self._building[(cwd, path)]

    def _views(self, path: str, cwd: str, agents: Sequence[str],
               resolve: Callable[[str], Chain]) -> list[AgentView]:
        out: list[AgentView] = []
        for agent in agents:
            key = (agent, cwd, path)
            with self._lock:
                hit = self._cache.get(key)
                if hit is not None:
                    self._cache.move_to_end(key)
                generation = self._generation
            if hit is None:
                try:
                    with scan.using(self.scans):
                        hit = views_for_file(path, cwd, [agent], self.environ, resolve)[0]
                except ConfigError as exc:  # the agent's own config refused: a note
                    hit = refused_view(agent, cwd, path, str(exc))
                with self._lock:
                    if generation == self._generation:  # else computed from an old disk
                        self._cache[key] = hit
                    while len(self._cache) > MAX_VIEWS:
                        self._cache.popitem(last=False)
            out.append(hit)
        out.sort(key=lambda v: ORDER.index(family(v.agent)) if family(v.agent) in ORDER else 99)
        return out

    def forget_texts(self, path: str) -> None:
        """Drop the strings built for ``path`` (its last-session verdict changed: the hover
        table's observed marks with it); its views stay."""
        with self._lock:
            for tkey in [k for k in self._texts if k[3] == path]:
                del self._texts[tkey]

    def forget(self, path: str) -> None:
        """Drop every view of ``path`` (its document closed: nothing of it may remain)."""
        with self._lock:
            for key in [k for k in self._cache if k[2] == path]:
                del self._cache[key]
            for tkey in [k for k in self._texts if k[3] == path]:
                del self._texts[tkey]

    def size(self) -> int:
        with self._lock:
            return len(self._cache) + len(self._texts)


def fingerprint(views: list[AgentView]) -> tuple[object, ...]:
    """What the per-agent lens, hover and Active Rules groups show that the disk can change:
    per agent, each file's path, when and size, and each skip's path and reason."""
    return tuple((v.agent, tuple((f.path, f.when, f.bytes, f.truncated_at) for f in v.files),
                  tuple((s.path, s.reason) for s in v.not_loaded), v.notes) for v in views)


def start_label(cwd: str, workspace: str | None) -> str:
    """The start directory as users read it: ``./`` for the workspace folder, ``src/``."""
    label = display_path(cwd, workspace) if workspace else cwd
    return "./" if label in (".", "") else label.rstrip("/") + "/"


#: Skip reasons that only say "this agent does not read that name": with the file loaded by
#: another agent, such a row is that agent's business, shown collapsed (issue 20).
GENERIC_SKIPS = frozenset({"unrecognized-name", "not-read"})
#: Names several agents share: a user asks why an agent does not read them, so they stay.
SHARED_NAMES = frozenset({"AGENTS.md", "AGENTS.override.md", "AGENT.md"})


def withheld(view: AgentView) -> int:
    """Project files folder trust withholds from this agent."""
    return sum(1 for s in view.not_loaded if s.reason == "untrusted-folder")


def headline_parts(views: list[AgentView]) -> list[str]:
    """Per agent ``Claude 4 · 4.1k tok``: the files it loads for the file (at start and when
    it reads it), ``(+9 after trust)`` where folder trust withholds some, and what its
    start costs (the text injected at start, in its own estimate: ``rulelens.tokens``)."""
    parts = []
    for v in views:
        n = sum(1 for f in v.files if f.when != "may")
        held = withheld(v)
        cost = tokens.short(int(tokens.tokens(v, None)["start"]))
        parts.append(f"{short_name(v.agent)} {n}" + (f" (+{held} after trust)" if held else "")
                     + f" · {cost} tok")
    return parts


def headline(views: list[AgentView]) -> str:
    """``Claude 4 · 4.1k tok · Codex 1 · 900 tok``: :func:`headline_parts` joined. The one
    headline the lens, the status bar, the hover and the sidebar share."""
    return " · ".join(headline_parts(views))


#: Characters a lens keeps before ``+N more``: one line in a narrow editor column.
LENS_WIDTH = 90


def trust_lines(views: list[AgentView]) -> list[str]:
    """One line per agent whose folder trust withholds files: how many, and the command."""
    out = []
    for v in views:
        held = withheld(v)
        if held:
            record = BY_ID.get(family(v.agent))
            command = (f"; run `{record.trust_command}` here"
                       if record is not None and record.trust_command else "")
            out.append(f"{v.display}: folder not trusted yet, {held} project"
                       f" file{'s' if held != 1 else ''} withheld{command}")
    return out


def _holds_loaded(path: str, loaded_by: dict[str, set[str]], agent: str) -> bool:
    """``path`` is a folder (``.clinerules``) holding a file another agent loads."""
    prefix = path.rstrip("/") + "/"
    return any(p.startswith(prefix) and who - {agent} for p, who in loaded_by.items())


def lens_title(views: list[AgentView], workspace: str | None) -> str:
    """``Claude 4 · 4.1k tok · Codex 1 · 900 tok``; ``from src/: …`` when sessions start
    elsewhere than the workspace folder. One line: past :data:`LENS_WIDTH` the rest is
    ``+N more`` agents (every agent is in the hover, the status bar's tooltip and the
    sidebar)."""
    start = start_label(views[0].cwd if views else "", workspace)
    title = "" if start == "./" else f"from {start}: "
    parts = headline_parts(views)
    shown: list[str] = []
    for i, part in enumerate(parts):
        rest = len(parts) - i - 1
        tail = f" · +{rest} more" if rest else ""
        if shown and len(title + " · ".join([*shown, part]) + tail) > LENS_WIDTH:
            return title + " · ".join(shown) + f" · +{len(parts) - i} more"
        shown.append(part)
    return title + " · ".join(shown)


def foreign_paths(views: list[AgentView]) -> dict[str, set[str]]:
    """Per agent, the files it merely does not read that another enabled agent loads
    (another agent's rules, not a near miss of its own): one collapsed line in its group."""
    loaded_by: dict[str, set[str]] = {}
    for v in views:
        for f in v.files:
            loaded_by.setdefault(f.path, set()).add(v.agent)
    out: dict[str, set[str]] = {}
    for v in views:
        out[v.agent] = {s.path for s in v.not_loaded
                        if s.reason in GENERIC_SKIPS
                        and os.path.basename(s.path) not in SHARED_NAMES
                        and (loaded_by.get(s.path, set()) - {v.agent}
                             or _holds_loaded(s.path, loaded_by, v.agent))}
    return out


def readers_title(views: list[AgentView], path: str, workspace: str | None) -> str:
    """For an instruction file itself: ``from ./: read by Grok, Codex · not by Claude, …``
    (``may`` counts as read: the model is pointed at it)."""
    reads, skips = [], []
    for v in views:
        entry = v.find(path)
        if isinstance(entry, ViewFile):
            reads.append(short_name(v.agent))
        elif isinstance(entry, NotLoaded) and entry.reason in SCOPED:
            reads.append(f"{short_name(v.agent)} (for matching files)")
        elif isinstance(entry, NotLoaded) and entry.reason == "untrusted-folder":
            reads.append(f"{short_name(v.agent)} (after trust)")
        else:
            skips.append(short_name(v.agent))
    start = start_label(views[0].cwd if views else "", workspace)
    parts = [f"read by {', '.join(reads)}" if reads else "read by no enabled agent"]
    if reads and skips:
        parts.append(f"not by {', '.join(skips)}")
    return f"from {start}: " + " · ".join(parts)


def hover_table(views: list[AgentView], workspace: str | None,
                env: Mapping[str, str] | None = None,
                observed: Mapping[str, Mapping[str, str]] | None = None) -> str:
    """The side-by-side table as Markdown, with its start directory; a cell the agent's last
    session shows loaded carries ``ᵒ`` (``observed``: per agent, the files its session
    shows injected); then what each agent's loading costs (:func:`cost_lines`)."""
    if not views:
        return ""
    seen = observed or {}
    base = views[0].root or views[0].cwd
    start = start_label(views[0].cwd, workspace)
    head = "| file | " + " | ".join(column_name(v) for v in views) + " |"
    sep = "|---|" + "---|" * len(views)
    lines = [f"**{headline(views)}** · sessions started in `{start}`", ""]
    trust = trust_lines(views)
    lines += [f"> **{line}**" for line in trust] + ([""] if trust else [])
    lines += [head, sep]
    for row in side_by_side(views):
        name = display_path(row.path, base).replace("|", "\\|")
        cells = [cell_mark(c, why) + (f" {MARKS['observed']}" if row.path in
                                      seen.get(v.agent, {}) and c in ("start", "on-read") else "")
                 for v, (c, why) in zip(views, row.cells, strict=True)]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", *cost_lines(views, env, base)]
    lines += ["", CELL_LEGEND.replace(" (see --why)", ""), "", EVIDENCE_LEGEND]
    for p, v, note in line_notes(views):
        name = display_path(p, base).replace("|", "\\|")
        lines.append(f"- † `{name}` ({v.display}): {note}")
    for v in views:
        if v.basis == "docs":
            lines.append(f"- {v.display}: {v.basis_label} — {v.source}")
    return "\n".join(lines)


#: Files named per agent in the hover's cost breakdown (the rest are summed as ``others``).
TOP_FILES = 3


def cost_lines(views: list[AgentView], env: Mapping[str, str] | None, base: str) -> list[str]:
    """The hover's "what it costs" block: per agent the tokens injected at start, added on
    read and (where its memory loads at start) memory, and the top files' shares of it
    all; then which estimate each agent's figures use."""
    out = ["**What it costs** (tokens, file texts only)", ""]
    methods: dict[str, list[str]] = {}
    for v in views:
        t = tokens.tokens(v, env)
        method = tokens.method_of(v.agent)
        methods.setdefault(str(t["estimate"]), []).append(short_name(v.agent))
        memory = t.get("memory_start")
        total = int(t["start"]) + int(t["on_read"]) + int(memory or 0)
        head = f"- {v.display}: {tokens.short(int(t['start']))} at start"
        head += f" · +{tokens.short(int(t['on_read']))} on read"
        if memory is not None:
            head += f" · memory at start {tokens.short(int(memory))}"
        per = sorted(((estimate_tokens_for(f.content, method), f.path) for f in v.files
                      if f.when != "may"), key=lambda x: -x[0])
        shares = [f"{display_path(p, base)} {100 * n / total:.0f}%"
                  for n, p in per[:TOP_FILES] if total]
        if memory and total:
            shares.append(f"memory {100 * int(memory) / total:.0f}%")
        if len(per) > TOP_FILES and total:
            rest = sum(n for n, _p in per[TOP_FILES:])
            others = len(per) - TOP_FILES
            shares.append(f"{others} other{'s' if others != 1 else ''}"
                          f" {100 * rest / total:.0f}%")
        out.append(head + (" — " + ", ".join(shares) if shares else ""))
    out += ["", "Estimates: " + "; ".join(f"{', '.join(names)}: {how}"
                                          for how, names in methods.items())]
    return out


def tables_as_lists(markdown: str) -> str:
    """Markdown table rows as list items (``| a | b |`` -> ``- a · b``), separator rows
    dropped: for clients whose hover window shows tables as raw pipes (the ``hoverFormat:
    "list"`` setting, which the Neovim plugin sends)."""
    out = []
    for line in markdown.split("\n"):
        stripped = line.strip()
        if stripped.startswith("|") and stripped.endswith("|"):
            body = stripped[1:-1].replace("\\|", "\0")
            cells = [c.strip().replace("\0", "|") for c in body.split("|")]
            if all(set(c) <= set("-: ") for c in cells):
                continue
            out.append("- " + " · ".join(c for c in cells if c))
        else:
            out.append(line)
    return "\n".join(out)


#: What a file leading out of the workspace shows instead of its text.
OUTSIDE_TEXT = ("a link out of the workspace: RuleLens shows no text from outside the"
                " workspace folders and the agents' homes (`rulelens chain` in a terminal"
                " shows it)")


def withhold_outside(files: list[dict[str, Any]], leaves: Callable[[str], bool]) -> int:
    """Blank the ``content`` of files whose real path leaves the workspace; how many."""
    n = 0
    for f in files:
        if isinstance(f.get("path"), str) and leaves(f["path"]):
            f["content"] = ""
            f["withheld"] = OUTSIDE_TEXT
            n += 1
    return n


def agents_payload(views: list[AgentView], path: str, enabled: list[str],
                   workspace: str | None = None) -> dict[str, Any]:
    """``rulelens/agentsForFile``: every view (``chain --json`` shape per agent) plus the
    side-by-side rows."""
    rows = []
    for row in side_by_side(views):
        rows.append({"path": row.path, "cells": [
            {"agent": v.agent, "when": cell, "why": why}
            for v, (cell, why) in zip(views, row.cells, strict=True)]})
    foreign = foreign_paths(views)
    agents = []
    for v in views:
        entry = view_json(v)
        entry["foreign"] = sorted(foreign.get(v.agent, ()))
        record = BY_ID.get(family(v.agent))
        entry["trust_command"] = record.trust_command if record is not None else None
        agents.append(entry)
    return {"cwd": views[0].cwd if views else os.path.dirname(path), "file": path,
            "enabled": enabled, "headline": headline(views),
            "lens": lens_title(views, workspace), "agents": agents, "rows": rows}


def agents_list(workspace: str | None, enabled: Sequence[str],
                env: Mapping[str, str]) -> list[dict[str, Any]]:
    """``rulelens/agents``: every agent in the registry, in column order, with its names,
    how sure its facts are, whether its files exist in ``workspace`` (``present``) and
    whether it is enabled there."""
    on = {family(a) for a in enabled}
    out = []
    for a in AGENTS:
        entry = a.to_json(present=a.used_in(workspace, env))
        entry["enabled"] = a.id in on
        entry["trust_command"] = a.trust_command
        out.append(entry)
    return out
