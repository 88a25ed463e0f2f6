"""SHELL: ``rulelens memory search|index|status|chunks|manifest|context|remember``.

Parses arguments, calls :class:`~rulelens.memory.service.MemoryService`, prints. The JSON
shapes are a contract shared with the language server (docs/protocol.md).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from rulelens.memory.agentfiles import StoreView, memory_agents
from rulelens.memory.agentmemory import ALL, AgentSearch, AgentStores, memory_agent, preview
from rulelens.memory.agentmemory import plan_remember as plan_agent_note
from rulelens.memory.agentmemory import remember as remember_agent_note
from rulelens.memory.best import matched_line
from rulelens.memory.remember import RememberError
from rulelens.memory.search import SearchOutcome
from rulelens.memory.service import MemoryError_, MemoryService
from rulelens.memory.settings import EMBEDDER_KINDS
from rulelens.memory.status import MemoryStatus
from rulelens.memory.stores import RANKS, SOURCES, V2_SEARCH_MODELS, AgentMemory, SearchReport
from rulelens.memory.transcripts import when
from rulelens.memory.v2 import Enablement, V2Location, list_v2_files, skipped_v2_files
from rulelens.present import display_path, json_text


def _print_json(obj: object) -> None:
    sys.stdout.write(json_text(obj))  # valid UTF-8 whatever bytes a path or query holds


class _Bar:
    """Progress on stderr: a one-line bar on a terminal, else (``plain``) periodic lines.

    Plain lines go out at most every ``every`` seconds plus one when a phase completes, so
    a log file or CI output shows a long first index moving without a flood of lines.
    """

    def __init__(self, plain: bool = False, every: float = 2.0) -> None:
        self.tty = sys.stderr.isatty()
        self.plain = plain and not self.tty
        self.every = every
        self.last = 0.0

    @staticmethod
    def _phase(message: str) -> str:
        return "embedding chunks" if message == "embedding" else "indexing memory files"

    def __call__(self, done: int, total: int, message: str) -> None:
        if total <= 0:
            return
        now = time.monotonic()
        if self.plain:
            if done < total and now - self.last < self.every:
                return
            self.last = now
            tail = "" if done >= total or message in ("done", "embedding") else f" ({message})"
            sys.stderr.write(f"rulelens: {self._phase(message)}: {done}/{total}{tail}\n")
            sys.stderr.flush()
            return
        if not self.tty:
            return
        if done < total and now - self.last < 0.05:
            return
        self.last = now
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}"
                         f" {message[:40]:<40}")
        if done >= total:
            sys.stderr.write("\r" + " " * (width + 60) + "\r")
        sys.stderr.flush()


def _service(args: argparse.Namespace) -> MemoryService:
    return MemoryService(embedder_kind=getattr(args, "embedder", None))


def format_search_table(outcome: SearchOutcome, wide: bool,
                        explained: SearchReport | None = None) -> str:
    out = [f"query:    {outcome.query}",
           f"keywords: {', '.join(outcome.keywords) if outcome.keywords else '(none)'}",
           f"mode:     {outcome.mode}"]
    if outcome.note:
        out.append(f"note:     {outcome.note}")
    out.append("")
    if not outcome.results:
        out.append("No memory results: the agent's memory_search returns nothing for this query.")
        return "\n".join(out) + "\n"
    for i, r in enumerate(outcome.results, 1):
        flags = []
        if wide:
            flags.append("agent returns" if r.agent_returns else "editor only")
        if r.injected_first_turn:
            flags.append("first-turn injection")
        start = r.start_line + 1
        head = (f"{i:>2}. {r.score:.2f} (raw {r.raw_score:.3f})  {r.source:<9}"
                f" {display_path(r.path)}:{start}-{max(r.end_line, start)}")
        out.append(head + (f"  [{', '.join(flags)}]" if flags else ""))
        if r.staleness:
            out.append("    " + r.staleness.strip().replace("**", ""))
        snippet = " ".join(r.snippet.split())
        out.append("    " + (snippet[:160] + "…" if len(snippet) > 160 else snippet))
        if explained is not None:
            e = explained.explanations.get(r.chunk_id)
            if e is not None:
                out.append("    " + _explain_agent(e))
            why = e.why_not if e is not None else explained.why_not(r.chunk_id)
            if why:
                out.append("    " + why)
    shown = sum(r.agent_returns for r in outcome.results)
    out += ["", f"{shown} result(s) the agent's memory_search would return"
                + (f"; {len(outcome.results) - shown} more shown for the editor" if wide else "")
                + "."]
    return "\n".join(out) + "\n"


def _agent_memory(args: argparse.Namespace, svc: MemoryService) -> AgentMemory:
    try:
        return AgentMemory(svc, getattr(args, "agent", None),
                           v2_search=getattr(args, "v2_search", None) or "fts")
    except ValueError as exc:
        raise MemoryError_(str(exc)) from exc


def _sources(text: str) -> tuple[str, ...]:
    parts = tuple(p.strip() for p in text.split(",") if p.strip())
    for p in parts:
        if p not in SOURCES:
            raise argparse.ArgumentTypeError(
                f"unknown source {p!r} (sources: {', '.join(SOURCES)})")
    return parts or ("memory",)


def _explain_agent(e: Any) -> str:
    parts = []
    if e.keyword_score is not None:
        parts.append(f"keyword {e.keyword_score:.2f} (#{e.keyword_rank})")
    if e.vector_similarity is not None:
        parts.append(f"vector {e.vector_similarity:.2f}")
    decay = (f"decay {e.decay:.2f} (age {e.age_days:.1f} d, half-life"
             f" {e.half_life_days:g} d)" if e.half_life_days and e.decay != 1.0
             else "no decay (evergreen)" if e.decay == 1.0 else f"decay {e.decay:.2f}")
    parts += [f"merged {e.merged:.2f}", decay, f"source weight {e.source_weight:g}",
              f"access boost {e.access_boost:.2f}",
              f"= {e.display:.2f} {'>=' if e.display >= e.min_score else '<'} min_score"
              f" {e.min_score:.2f}"]
    if e.rank_before_mmr is not None:
        parts.append(f"MMR #{e.rank_before_mmr} -> #{e.rank_after_mmr}")
    return "agent: " + ", ".join(parts)


def _explain_best(r: Any) -> list[str]:
    e = r.explanation
    kw = (f"bm25 {e.bm25:.2f} (#{e.bm25_rank})" if e.bm25 is not None else "no keyword hit")
    vec = (f"cosine {e.cosine:.2f} (#{e.vector_rank})" if e.cosine is not None else "no vector")
    out = [f"best:  {kw}, coverage {e.coverage:.2f}"
           + (f" [{', '.join(e.matched)}]" if e.matched else "") + f", {vec},"
           f" rrf {e.rrf:.2f} -> {e.base:.3f}; cut-off: {e.cutoff}"]
    if e.superseded_by:
        out.append(f"       older than a near-duplicate ({e.superseded_by.rsplit(':', 1)[0]}),"
                   " so it is placed after it")
    return out


def format_best_table(report: SearchReport, explain: bool) -> str:
    best = report.best
    assert best is not None
    out = [f"query:    {report.query}",
           f"keywords: {', '.join(best.keywords) if best.keywords else '(none)'}",
           "rank:     best (for people: cosine + keyword coverage, newest of near-duplicates"
           " first, weak matches cut)" + ("" if best.vectors else "; no vectors: keywords only"),
           ""]
    if not best.results:
        out.append("No results: nothing matches the query well enough (weak-match cut-off).")
    for i, r in enumerate(best.results, 1):
        start = r.start_line + 1
        agent = report.explanations.get(r.chunk_id)
        flags = ["agent returns" if agent and agent.agent_returns else "agent: no"]
        if r.explanation.superseded_by:
            flags.append("superseded")
        out.append(f"{i:>2}. {r.score:.2f}  {r.source:<9} {display_path(r.path)}:{start}-"
                   f"{max(r.end_line, start)}  [{', '.join(flags)}]")
        out.append("    " + matched_line(r.snippet, best.keywords)[0][:160])
        if explain:
            out += ["    " + x for x in _explain_best(r)]
            if agent:
                out.append("    " + _explain_agent(agent))
            why = report.why_not(r.chunk_id)
            if why:
                out.append("    " + why)
    return "\n".join(out) + "\n"


def format_transcripts(report: SearchReport) -> str:
    if not report.transcripts:
        return ("\ntranscripts (not searched by the agent's memory tools): no match\n")
    out = ["", "transcripts (not searched by the agent's memory tools):"]
    for i, t in enumerate(report.transcripts, 1):
        title = t.title or t.session_id
        out.append(f"{i:>2}. {t.score:.2f}  {t.role:<9} {display_path(t.path)}:{t.line}"
                   f"  {when(t.timestamp)}  {title}")
        out.append("    " + " ".join(t.text.split())[:160])
    return "\n".join(out) + "\n"


def format_agent_search(found: AgentSearch) -> str:
    """``--agent claude|…|all``: hits grouped by nothing, each with its agent and label."""
    out = [f"query:    {found.query}",
           f"agents:   {', '.join(found.agents)}",
           "rank:     best (for people)" + ("" if found.vectors else "; keywords only"), ""]
    if not found.hits:
        out.append("No results: nothing matches the query well enough.")
    for i, h in enumerate(found.hits, 1):
        mark = "injected at start" if h.injected == "start" else (
            "on demand" if h.injected == "on-demand" else "not read by the agent")
        out.append(f"{i:>2}. {h.score:.2f}  {h.agent:<7} {display_path(h.path)}:{h.start_line}-"
                   f"{h.end_line}  [{mark}]")
        out.append("    " + " ".join(h.snippet.split())[:160])
    if found.transcripts is not None:
        out += ["", "transcripts (not searched by the agent's memory tools):"]
        if not found.transcripts:
            out.append("    no match")
        for i, t in enumerate(found.transcripts, 1):
            out.append(f"{i:>2}. {t.score:.2f}  {t.agent:<7} {t.role:<9}"
                       f" {display_path(t.path)}:{t.line}  {when(t.timestamp)}"
                       f"  {t.title or t.session_id}")
            out.append("    " + " ".join(t.text.split())[:160])
    out += [f"note: {n}" for n in found.notes]
    return "\n".join(out) + "\n"


def _search_agents(args: argparse.Namespace, agent: str) -> int:
    svc = _service(args)
    stores = AgentStores(svc)
    try:
        found = stores.search(agent, args.workspace, args.query, args.max_results,
                              sources=args.sources)
    finally:
        stores.close()
        svc.close()
    if args.rank == "agent" and agent != ALL:
        found.notes.insert(0, f"{agent} has no memory search RuleLens models; results are"
                              " ranked for people (--rank best)")
    if args.json:
        _print_json(found.to_json())
    else:
        sys.stdout.write(format_agent_search(found))
    return 0


def _cmd_search(args: argparse.Namespace) -> int:
    other = memory_agent(args.agent)
    if other is not None:
        if args.agent_format:
            raise MemoryError_("--agent-format is Grok's only; use --agent grok")
        return _search_agents(args, other)
    svc = _service(args)
    memory = _agent_memory(args, svc)
    try:
        report = memory.search(args.workspace, args.query, rank=args.rank, explain=args.explain,
                               sources=args.sources, wide=args.all,
                               max_results=args.max_results, min_score=args.min_score,
                               progress=_Bar())
    finally:
        memory.close()
        svc.close()
    for w in report.warnings():
        print(f"rulelens: {w}", file=sys.stderr)
    if args.agent_format:
        sys.stdout.write(memory.agent_text(report))
    elif args.json:
        _print_json(report.to_json(args.explain))
    elif args.rank == "best":
        sys.stdout.write(format_best_table(report, args.explain))
    else:
        assert report.outcome is not None
        sys.stdout.write(format_search_table(report.outcome, args.all, report if args.explain
                                             else None))
    if "transcript" in args.sources and not args.json and not args.agent_format:
        sys.stdout.write(format_transcripts(report))
    return 0


def _cmd_index(args: argparse.Namespace) -> int:
    svc = _service(args)
    try:
        outcome = svc.index(args.workspace, progress=_Bar(plain=True))
    finally:
        svc.close()
    if args.json:
        _print_json(outcome.to_json())
    else:
        s = outcome.sync
        print(f"{s.files} file(s); reindexed {len(s.reindexed)}: +{s.added} ~{s.updated}"
              f" -{s.removed} chunks; {len(s.deleted_paths)} deleted file(s) dropped"
              f" in {s.seconds:.2f} s")
        if s.rebuilt:
            print(f"the index was corrupt and has been rebuilt ({s.rebuilt})")
        for k in s.skipped:
            print(f"skipped {display_path(k.path)}: {k.reason}")
        if outcome.embedder != "none":
            print(f"embedded {outcome.embedded} chunk(s) with the {outcome.embedder} embedder")
    if outcome.index_unavailable:
        print(f"rulelens: index unavailable: {outcome.index_unavailable}; nothing was stored"
              " (search still answers from the memory files)", file=sys.stderr)
        return 1
    if outcome.embedder_error:
        print(f"rulelens: embedder: {outcome.embedder_error} (FTS index is complete)",
              file=sys.stderr)
        return 1
    return 0


def format_store(e: Enablement, agent: str, v2: V2Location | None) -> list[str]:
    """Which store the agent uses and why (§A7.1), and the v2 scopes when v2 is on."""
    out = [f"agent:         {agent}", f"store:         {e.reason}"]
    out += [f"note: {n}" for n in e.notes]
    if v2 is not None:
        files = list_v2_files(v2)
        for scope in v2.scopes():
            n = sum(1 for f in files if f.source == scope.kind)
            state = f"{n} file(s)" if os.path.isdir(scope.dir) else "does not exist yet"
            out.append(f"v2 {scope.kind + ':':<11}{display_path(scope.dir)}  ({state})")
        out += [f"  skipped   {display_path(k.path)}: {k.reason}" for k in skipped_v2_files(v2)]
    return [*out, ""]


def format_dream(st: MemoryStatus) -> list[str]:
    d = st.dream
    if d.last_consolidation:
        last = (time.strftime("%Y-%m-%d %H:%M", time.localtime(d.last_consolidation))
                + f"; {d.hours_since} h ago (needs {d.min_hours})")
    else:
        last = ("never (no .dream-lock): the time gate counts from 1970, so it is passed")
    return ["", "dream (consolidation) gates:", f"  last consolidation: {last}",
            f"  sessions since:     {d.sessions_since} (needs {d.min_sessions})",
            f"  would run:          {'yes' if d.would_run else 'no'}: {d.reason}"]


def format_status(st: MemoryStatus, store: list[str] | None = None, v2: bool = False) -> str:
    legacy_head = (["legacy store (the agent does not read it while memory v2 is on):"]
                   if v2 else [])
    out = [*(store or []), *legacy_head, f"workspace:     {st.cwd}",
           f"memory name:   {st.workspace_name}  (from "
           + (f"origin {st.identity!r})" if st.identity else f"path {st.hash_input!r})"),
           f"global dir:    {display_path(st.global_dir)}",
           f"workspace dir: {display_path(st.workspace_dir)}"
           + ("" if os.path.isdir(st.workspace_dir) else "  (does not exist yet)"),
           f"memory:        {'enabled' if st.memory_enabled else 'disabled in the agent config'}"
           + ("; temp folder: the agent skips workspace writes" if st.ephemeral else ""),
           f"embedder:      {st.embedder}", ""]
    if st.files:
        out.append(f"files ({len(st.files)}):")
        for f in st.files:
            state = "indexed" if f.fresh else ("changed since indexed" if f.indexed
                                                else "not indexed yet")
            out.append(f"  {f.source:<9} {f.bytes:>8} B  {display_path(f.path)}  [{state}]")
    else:
        out.append("files: none (the agent has not written memory for this workspace)")
    for k in st.skipped:
        out.append(f"  skipped   {display_path(k.path)}: {k.reason}")
    sync = (time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(st.last_sync))
            if st.last_sync else "never")
    out += ["", f"index:         {st.chunks} chunk(s), {st.vectors} vector(s); last sync {sync}"
                + (f"; {len(st.stale_files)} file(s) stale" if st.stale_files else "")]
    if st.agent_index:
        out.append(f"agent index:   {display_path(st.agent_index)} (read-only)")
    out += (["", "dream (consolidation): memory v2 consolidates on its own schedule"
                 " (v2_consolidation, batch_dream*), which RuleLens does not model; the legacy"
                 " .dream-lock gates do not apply"] if v2 else format_dream(st))
    for note in st.notes:
        out.append(f"note: {note}")
    return "\n".join(out) + "\n"


def format_store_view(view: StoreView) -> str:
    """One agent's memory files and what reaches its model at start."""
    out = [f"agent:         {view.agent}", f"workspace:     {view.cwd}"]
    if view.project:
        out.append(f"project:       {view.project}")
    for scope, root in view.roots.items():
        if root:
            out.append(f"{scope + ' root:':<15}{display_path(root)}")
    out.append("")
    if view.files:
        out.append(f"files ({len(view.files)}):")
    for f in view.files:
        reach = {"start": "injected at start", "on-demand": "on demand",
                 "no": "not read by the agent"}[f.injected]
        if f.injected == "start":
            reach += (f", {f.injected_bytes} B" + (f", cut after line {f.cut_at_line}"
                                                   f" of {f.lines}" if f.cut_at_line else ""))
        out.append(f"  {f.scope:<9} {f.bytes:>8} B  {display_path(f.path)}  [{reach}]")
    for k in view.skipped:
        out.append(f"  skipped   {display_path(k.path)}: {k.reason}")
    out += [f"note: {n}" for n in view.notes]
    return "\n".join(out) + "\n"


def _status_agents(args: argparse.Namespace, agent: str) -> int:
    svc = _service(args)
    stores = AgentStores(svc)
    try:
        views = stores.views(agent, args.workspace)
    finally:
        stores.close()
        svc.close()
    if args.json:
        _print_json(views[0].to_json() if agent != ALL else
                    {"agents": [v.to_json() for v in views]})
    else:
        sys.stdout.write("\n".join(format_store_view(v) for v in views))
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    other = memory_agent(args.agent)
    if other is not None:
        return _status_agents(args, other)
    svc = _service(args)
    memory = _agent_memory(args, svc)
    try:
        st = svc.status(args.workspace)
        e = memory.enablement()
        v2 = memory.v2_location(args.workspace) if memory.features.has_v2 else None
    finally:
        memory.close()
        svc.close()
    if args.json:
        skipped = skipped_v2_files(v2) if v2 is not None else []
        extra = ({"v2_skipped": [{"path": k.path, "reason": k.reason} for k in skipped]}
                 if skipped else {})
        _print_json({**st.to_json(), "agent": memory.features.agent, "store": e.to_json(),
                     **extra})
    else:
        sys.stdout.write(format_status(st, format_store(
            e, memory.features.agent, v2 if e.mode == "v2" or (v2 and os.path.isdir(v2.root))
            else None), v2=e.mode == "v2"))
    return 0


def _cmd_manifest(args: argparse.Namespace) -> int:
    svc = _service(args)
    memory = _agent_memory(args, svc)
    try:
        if not memory.features.has_v2:
            raise MemoryError_(f"{memory.features.agent} has no memory v2 (no generated"
                               " MEMORY.md); use --agent grok@1.0.45")
        manifests = memory.manifests(args.workspace)
    finally:
        memory.close()
        svc.close()
    chosen = [m for m in manifests if args.scope in ("both", m[0])]
    if args.json:
        _print_json([{"scope": k, "dir": d, "path": os.path.join(d, "MEMORY.md"), "text": t,
                      "bytes": len(t.encode())} for k, d, t in chosen])
    elif len(chosen) == 1:
        sys.stdout.write(chosen[0][2])
    else:
        for n, (_, d, t) in enumerate(chosen):
            sys.stdout.write(("\n" if n else "") + f"==> {os.path.join(d, 'MEMORY.md')} <==\n" + t)
    return 0


def _cmd_context(args: argparse.Namespace) -> int:
    svc = _service(args)
    memory = _agent_memory(args, svc)
    try:
        block = memory.context(args.workspace, args.query or "", args.post_compaction)
    finally:
        memory.close()
        svc.close()
    if args.json:
        _print_json({**block.to_json(), "agent": memory.features.agent})
    else:
        sys.stdout.write(block.text)
        print(f"rulelens: {block.reason}", file=sys.stderr)
    return 0


def _confirmed(args: argparse.Namespace) -> int | None:
    """None to go on writing; else the exit code (not confirmed)."""
    if args.yes:
        return None
    if not sys.stdin.isatty():
        print("rulelens: not written: pass --yes to confirm", file=sys.stderr)
        return 2
    answer = input("Write this note? [y/N] ").strip().lower()
    if answer not in ("y", "yes"):
        print("rulelens: not written", file=sys.stderr)
        return 1
    return None


def _remember_agent(args: argparse.Namespace, agent: str) -> int:
    if agent == ALL:
        raise MemoryError_("remember writes one agent's memory: pass --agent ID")
    svc = _service(args)
    try:
        plan = plan_agent_note(svc, agent, args.workspace, args.text, args.scope)
        print(f"{agent} {plan.scope} memory ({plan.format}): {display_path(plan.path)}\n"
              f"--- exact bytes appended ---\n{preview(plan).decode()}---", file=sys.stderr)
        if args.dry_run:
            return 0
        stop = _confirmed(args)
        if stop is not None:
            return stop
        remember_agent_note(plan)
    except RememberError as exc:
        print(f"rulelens: error: {exc}", file=sys.stderr)
        return 2
    finally:
        svc.close()
    print(plan.path)
    return 0


def _cmd_remember(args: argparse.Namespace) -> int:
    other = memory_agent(args.agent)
    if other is not None:
        return _remember_agent(args, other)
    svc = _service(args)
    memory = _agent_memory(args, svc)
    try:
        store, path, text = memory.plan_remember(args.workspace, args.text,
                                                 args.scope or "global")
        print(f"{'memory v2 inbox' if store == 'v2' else 'legacy global MEMORY.md'}:"
              f" {display_path(path)}\n--- exact text written ---\n{text}\n---",
              file=sys.stderr)
        if args.dry_run:
            return 0
        stop = _confirmed(args)
        if stop is not None:
            return stop
        written, _ = memory.remember(args.workspace, args.text, args.scope or "global")
    except RememberError as exc:
        print(f"rulelens: error: {exc}", file=sys.stderr)
        return 2
    finally:
        memory.close()
        svc.close()
    print(written)
    return 0


def _cmd_chunks(args: argparse.Namespace) -> int:
    svc = _service(args)
    chunks = svc.chunks(args.file, args.max_chars, args.overlap)
    if args.json:
        _print_json([{"start_line": c.start_line, "end_line": c.end_line, "text": c.text,
                      "hash": c.hash} for c in chunks])
        return 0
    for i, c in enumerate(chunks):
        print(f"--- chunk {i}: lines {c.start_line}-{c.end_line} (0-based, end exclusive;"
              f" editor lines {c.start_line + 1}-{max(c.end_line, c.start_line + 1)}),"
              f" {len(c.text.encode())} bytes, {c.hash[:12]}")
        print(c.text)
    if not chunks:
        print("(no chunks: the file is empty)")
    return 0


def _wrap(func: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        try:
            return int(func(args))
        except MemoryError_ as exc:
            print(f"rulelens: error: {exc}", file=sys.stderr)
            return 2
    return run


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be >= 0")
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be >= 1")
    return value


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    memory = sub.add_parser("memory", help="search and inspect the agent's memory (~/.grok/memory)")
    msub = memory.add_subparsers(dest="memory_command", metavar="SUBCOMMAND")

    def usage(_: argparse.Namespace) -> int:
        memory.print_help(sys.stderr)
        return 2

    memory.set_defaults(func=usage)

    def workspace(p: argparse.ArgumentParser) -> None:
        p.add_argument("--workspace", default=".", metavar="PATH",
                       help="the folder an agent session starts in (default: .)")

    def agent(p: argparse.ArgumentParser) -> None:
        p.add_argument("--agent", default=None, metavar="ID",
                       help="grok (newest, default), grok@1.0.45, grok@1.0.6, or another"
                            f" agent's memory: {', '.join(memory_agents()[1:])}; all (search,"
                            " status)")

    def embedder(p: argparse.ArgumentParser) -> None:
        p.add_argument("--embedder", choices=EMBEDDER_KINDS, default=None,
                       help="override the configured embedder for this run")

    p = msub.add_parser("search", help="what the agent's memory_search returns for QUERY")
    p.add_argument("query")
    workspace(p)
    p.add_argument("--all", action="store_true",
                   help="also show results the agent would not return, marked")
    p.add_argument("--max-results", type=_positive_int, default=None, metavar="N")
    p.add_argument("--min-score", type=float, default=None, metavar="X")
    embedder(p)
    p.add_argument("--agent-format", action="store_true",
                   help="print byte for byte the text the agent's memory_search returns")
    p.add_argument("--rank", choices=RANKS, default="agent",
                   help="agent: exactly the agent's ranking (default); best: ranked for people")
    p.add_argument("--explain", action="store_true",
                   help="say why each result ranked where it did, and what the agent does")
    p.add_argument("--sources", type=_sources, default=("memory",), metavar="LIST",
                   help="memory (default), transcript (session transcripts of Grok, Codex"
                        " and Claude Code; not searched by the agent's memory tools), or both:"
                        " memory,transcript")
    p.add_argument("--v2-search", choices=V2_SEARCH_MODELS, default="fts",
                   help="memory v2 only (UNCONFIRMED how the agent searches it): fts = the"
                        " agent's pipeline without vectors over the v2 files (default); none ="
                        " mark no result as returned by the agent")
    agent(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_wrap(_cmd_search))

    p = msub.add_parser("index", help="bring RuleLens' memory index up to date")
    workspace(p)
    embedder(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_wrap(_cmd_index))

    p = msub.add_parser("status", help="which store the agent uses, roots, files, index, dream")
    workspace(p)
    agent(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_wrap(_cmd_status))

    p = msub.add_parser("manifest", help="memory v2's generated MEMORY.md, as the agent renders it")
    workspace(p)
    agent(p)
    p.add_argument("--scope", choices=("global", "workspace", "both"), default="both")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_wrap(_cmd_manifest))

    p = msub.add_parser("context", help="the first-turn <memory-context> block for QUERY")
    p.add_argument("query", nargs="?", default="",
                   help="the user's first message (a greeting or short text falls back)")
    workspace(p)
    agent(p)
    embedder(p)
    p.add_argument("--post-compaction", action="store_true",
                   help="the block injected after a compaction instead")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_wrap(_cmd_context))

    p = msub.add_parser("remember", help="save a note where the agent's /remember would")
    p.add_argument("text")
    workspace(p)
    agent(p)
    p.add_argument("--scope", choices=("global", "workspace"), default=None,
                   help="Grok legacy store: global MEMORY.md (the agent's /remember, default)"
                        " or the workspace's; memory v2 always writes a global observation."
                        " Claude: workspace only; Gemini: global (default) or workspace")
    p.add_argument("--dry-run", action="store_true", help="show the exact text, write nothing")
    p.add_argument("--yes", action="store_true", help="write without asking")
    p.set_defaults(func=_wrap(_cmd_remember))

    p = msub.add_parser("chunks", help="how the agent chunks FILE")
    p.add_argument("file")
    p.add_argument("--max-chars", type=_positive_int, default=None, metavar="N",
                   help="chunk limit in UTF-8 bytes (default: [memory.index] max_chunk_chars)")
    p.add_argument("--overlap", type=_non_negative_int, default=None, metavar="N",
                   help="overlap in characters (default: [memory.index] chunk_overlap_chars)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_wrap(_cmd_chunks))
