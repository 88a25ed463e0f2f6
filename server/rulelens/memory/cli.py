"""SHELL: ``rulelens memory search|index|status|chunks``.

Parses arguments, calls :class:`~rulelens.memory.service.MemoryService`, prints. The JSON
shapes are a contract shared with the language server (docs/protocol.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from rulelens.memory.search import SearchOutcome, format_memory_search
from rulelens.memory.service import MemoryError_, MemoryService
from rulelens.memory.settings import EMBEDDER_KINDS
from rulelens.memory.status import MemoryStatus
from rulelens.present import display_path


def _print_json(obj: object) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2) + "\n")


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


def format_search_table(outcome: SearchOutcome, wide: bool) -> str:
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
    shown = sum(r.agent_returns for r in outcome.results)
    out += ["", f"{shown} result(s) the agent's memory_search would return"
                + (f"; {len(outcome.results) - shown} more shown for the editor" if wide else "")
                + "."]
    return "\n".join(out) + "\n"


def _cmd_search(args: argparse.Namespace) -> int:
    svc = _service(args)
    try:
        outcome = svc.search(args.workspace, args.query, wide=args.all,
                             max_results=args.max_results, min_score=args.min_score,
                             progress=_Bar())
    finally:
        svc.close()
    if args.agent_format:
        sys.stdout.write(format_memory_search(outcome.agent_results))
    elif args.json:
        _print_json(outcome.to_json())
    else:
        sys.stdout.write(format_search_table(outcome, args.all))
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
    if outcome.embedder_error:
        print(f"rulelens: embedder: {outcome.embedder_error} (FTS index is complete)",
              file=sys.stderr)
        return 1
    return 0


def format_status(st: MemoryStatus) -> str:
    out = [f"workspace:     {st.cwd}",
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
    d = st.dream
    last = (time.strftime("%Y-%m-%d %H:%M", time.localtime(d.last_consolidation))
            if d.last_consolidation else "never (.dream-lock missing)")
    out += ["", "dream (consolidation) gates:",
            f"  last consolidation: {last}; {d.hours_since} h ago (needs {d.min_hours})",
            f"  sessions since:     {d.sessions_since} (needs {d.min_sessions})",
            f"  would run:          {'yes' if d.would_run else 'no'}: {d.reason}"]
    for note in st.notes:
        out.append(f"note: {note}")
    return "\n".join(out) + "\n"


def _cmd_status(args: argparse.Namespace) -> int:
    svc = _service(args)
    try:
        st = svc.status(args.workspace)
    finally:
        svc.close()
    if args.json:
        _print_json(st.to_json())
    else:
        sys.stdout.write(format_status(st))
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
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_wrap(_cmd_search))

    p = msub.add_parser("index", help="bring RuleLens' memory index up to date")
    workspace(p)
    embedder(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_wrap(_cmd_index))

    p = msub.add_parser("status", help="memory roots, files, index and dream gates")
    workspace(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_wrap(_cmd_status))

    p = msub.add_parser("chunks", help="how the agent chunks FILE")
    p.add_argument("file")
    p.add_argument("--max-chars", type=_positive_int, default=None, metavar="N",
                   help="chunk limit in UTF-8 bytes (default: [memory.index] max_chunk_chars)")
    p.add_argument("--overlap", type=_non_negative_int, default=None, metavar="N",
                   help="overlap in characters (default: [memory.index] chunk_overlap_chars)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_wrap(_cmd_chunks))
