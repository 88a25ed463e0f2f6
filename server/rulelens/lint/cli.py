"""SHELL: ``rulelens lint [PATHS...] [--format text|json|sarif] [--fix]``.

Walks each directory for instruction files (see :mod:`rulelens.lint.walk`), lints each with
the chain that loads it, prints, and exits 1 when an error-severity finding remains (0
otherwise; 2 for bad arguments). ``--fix`` applies *safe* fixes only, one at a time with a
re-lint in between, and reports what is left; unsafe fixes (``.gitignore`` edits, moves
that change which agents read a file) are never applied from the command line.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections.abc import Iterable, Iterator

from rulelens.lint import output
from rulelens.lint.model import Finding, Range
from rulelens.lint.session import LintSession
from rulelens.lint.walk import iter_instruction_files
from rulelens.rules import AgentEnvironment


@contextlib.contextmanager
def batch_gc() -> Iterator[None]:
    """Fewer garbage collections while linting a tree.

    A run builds many small objects that live until the end (chains, scans, findings);
    with the default gen-0 threshold of 700 the collector walks them again and again (a
    quarter of the run time on 1,000 files). Reference counting still frees everything
    else immediately; the old thresholds are restored afterwards.
    """
    old = gc.get_threshold()
    gc.set_threshold(50_000, 20, 20)
    try:
        yield
    finally:
        gc.set_threshold(*old)


def collect(paths: Iterable[str], env: AgentEnvironment) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for p in paths:
        absolute = os.path.abspath(p)
        if os.path.isdir(absolute) and not os.path.basename(absolute).endswith(".md"):
            found = list(iter_instruction_files(absolute, env.home, dict(env.env)))
        else:
            found = [absolute]
        for f in found:
            if f not in seen:
                seen.add(f)
                out.append(f)
    return out


def run(args: argparse.Namespace) -> int:
    with batch_gc():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    missing = [p for p in args.paths if not os.path.lexists(p)]
    if missing:
        print(f"rulelens: error: {missing[0]}: no such file or directory", file=sys.stderr)
        return 2
    linter = LintSession(AgentEnvironment.from_env())
    files = collect(args.paths, linter.env)
    if args.fix:
        fixed: list[str] = []
        for f in files:
            final, notes = linter.fix(f)
            fixed.append(final)
            for note in notes:
                print(f"rulelens: {note}", file=sys.stderr)
        files = fixed
        linter = LintSession(linter.env)
    findings: list[Finding] = []
    for f in files:
        try:
            findings.extend(linter.lint(f))
        except Exception as exc:  # a bug in a check must not hide the other files' findings
            print(f"rulelens: internal error while linting {f}: {exc!r}", file=sys.stderr)
            findings.append(Finding("RL203", "error", f"internal linter error: {exc!r}",
                                    Range.point(0), f))
    base = os.getcwd()
    problems = linter.problems
    for p in problems:
        if args.format != "text":
            print(f"rulelens: config: {p}", file=sys.stderr)
    if args.format == "json":
        sys.stdout.write(output.dumps(output.to_json_list(findings, base)))
    elif args.format == "sarif":
        sys.stdout.write(output.dumps(output.to_sarif(findings, base)))
    else:
        sys.stdout.write(output.to_text(findings, base, problems))
    return 1 if any(f.severity == "error" for f in findings) else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("lint", help="check instruction files: frontmatter, discovery, size,"
                       " content")
    p.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                   help="files or directories (default: .); directories are walked")
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    p.add_argument("--fix", action="store_true", help="apply safe fixes, then report the rest")
    p.set_defaults(func=run)
