"""SHELL: ``rulelens lint [PATHS...] [--format text|json|sarif|github] [--fix | --diff]``
and ``rulelens explain RL123``.

Walks each directory for instruction files (see :mod:`rulelens.lint.walk`), lints each with
the chain that loads it, prints, and exits 1 when an error-severity finding remains (0
otherwise; 2 for bad arguments). Hint findings (another agent's file, a file loaded once
only) are for the editor and are left out unless ``--hints`` is given.

``--fix`` applies *safe* fixes only: edits of an instruction file's own text, one at a
time with a re-lint in between; it never renames, moves or deletes a file and never
edits any other file (those fixes are offered in the editor, with a preview). A file is
written only if it still holds the bytes that were linted (compare-and-swap under a lock,
see :mod:`rulelens.lint.fixes`); otherwise one line says it changed, nothing is written
and the exit code is 1. ``--diff``
prints what ``--fix`` would change and changes nothing (exit 1 when it would change
something).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from rulelens.agents.fs import captured_environ, discover_git_root, home_of
from rulelens.lint import replay
from rulelens.lint.walk import iter_instruction_files

if TYPE_CHECKING:
    from rulelens.lint.model import Finding
    from rulelens.lint.resultcache import ResultCache
    from rulelens.lint.session import LintSession

# The engine (session, checks, resolver) is imported only when a file must be linted: a
# run whose files all answer from the result cache walks, hashes and prints (a one-file
# project: 50 ms against 150 ms).


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


def collect(paths: Iterable[str], environ: dict[str, str],
            dirs: list[tuple[str, int]] | None = None,
            nested: list[str] | None = None) -> list[str]:
    """Files to lint; ``dirs`` receives every walked directory and its mtime, and a
    ``None`` entry for a path given as a file (no tree signature then); ``nested`` the
    nested git repositories the walk left out."""
    out: list[str] = []
    seen: set[str] = set()
    for p in paths:
        absolute = os.path.abspath(p)
        if os.path.isdir(absolute) and not os.path.basename(absolute).endswith(".md"):
            found = list(iter_instruction_files(absolute, home_of(environ), environ, dirs,
                                                nested))
        else:
            found = [absolute]
            if dirs is not None:
                dirs.append(("", -1))  # a single file: its tree is not walked
        for f in found:
            if f not in seen:
                seen.add(f)
                out.append(f)
    return out


def nested_note(nested: list[str], base: str, shown: int = 3) -> str:
    """One line: how many nested git repositories the walk skipped, and which (the first
    ``shown``)."""
    from rulelens.present import display_path

    names = [display_path(p, base) for p in sorted(set(nested))]
    listed = ", ".join(names[:shown]) + (f", +{len(names) - shown} more"
                                         if len(names) > shown else "")
    noun = "repository" if len(names) == 1 else "repositories"
    return (f"rulelens: skipped {len(names)} nested git {noun} (their own projects: lint"
            f" each with `rulelens lint PATH`): {listed}")


def run(args: argparse.Namespace) -> int:
    with batch_gc():
        return _run(args)


def _fix(linter: LintSession, files: list[str], write: bool, base: str) -> tuple[int, int]:
    """Apply (``write``) or show the safe fixes of ``files``: ``(files changed, files
    left alone because they changed since they were linted or could not be written)``."""
    from rulelens.lint import output
    from rulelens.lint.fixes import write_if_unchanged

    changed = refused = 0
    for f in files:
        result = linter.fixed_text(f)
        if result is None:
            continue
        raw, before, after, notes = result
        if after == before:
            for note in notes:
                print(f"rulelens: {note}", file=sys.stderr)
            continue
        if write:
            # Compare-and-swap: written only if the file still holds the linted bytes.
            problem = write_if_unchanged(f, raw, after.encode("utf-8", "surrogateescape"))
            if problem is not None:
                print(f"rulelens: {problem}", file=sys.stderr)
                refused += 1
                continue
        for note in notes:
            print(f"rulelens: {note}", file=sys.stderr)
        changed += 1
        if not write:
            import difflib  # --diff only

            name = output.display_path(f, base)
            sys.stdout.writelines(difflib.unified_diff(
                before.splitlines(keepends=True), after.splitlines(keepends=True),
                f"a/{name}", f"b/{name}"))
    return changed, refused


def _run(args: argparse.Namespace) -> int:
    missing = [p for p in args.paths if not os.path.lexists(p)]
    if missing:
        print(f"rulelens: error: {missing[0]}: no such file or directory", file=sys.stderr)
        return 2
    base = os.getcwd()
    environ = captured_environ()
    if args.agent is not None:
        from rulelens.agents.profiles import UnknownAgent, grok_profile

        try:
            grok_profile(args.agent)
        except UnknownAgent as exc:
            print(f"rulelens: error: {exc}", file=sys.stderr)
            return 2
    walked: list[tuple[str, int]] = []
    nested: list[str] = []
    files = collect(args.paths, environ, walked, nested)
    if nested:
        print(nested_note(nested, base), file=sys.stderr)
    results = None if (args.no_cache or args.fix or args.diff) else _results(args, environ,
                                                                              walked)
    per_file: dict[str, list[Finding]] = {}
    problems: set[str] = set()
    if results is not None:
        for f in files:
            entry = results.get(f)
            if entry is not None:
                per_file[f] = entry.findings
                problems.update(entry.problems)
    todo = [f for f in files if f not in per_file]
    refused = 0
    if todo or args.fix or args.diff:
        linter = _session(args, environ)
        linter.results = results
        if args.diff:
            return 1 if _fix(linter, files, False, base)[0] else 0
        if args.fix:
            refused = _fix(linter, files, True, base)[1]
            linter.invalidate(None)  # the files changed: lint them as they are now
        from rulelens.lint.parallel import default_jobs, lint_files

        jobs = args.jobs if args.jobs else default_jobs()
        found, seen = lint_files(linter, todo, jobs)
        per_file.update(zip(todo, found, strict=True))
        problems.update(seen)
        if results is not None:
            results.save(files)
    findings = [x for f in files for x in per_file[f]]
    if not args.hints:
        findings = [f for f in findings if f.severity != "hint"]
    status = _report(args, findings, sorted(problems), base, refused)
    recorder: replay.Recorder | None = getattr(args, "recorder", None)
    wanted = None if recorder is None or results is None else results.depended_on(files)
    if recorder is not None and results is not None and wanted is not None:
        dirs = list(walked)
        for p in args.paths:
            dirs += _up_to_root(os.path.abspath(p), wanted, environ)
        recorder.save(status, results.code, dirs, {p: results.digest(p) for p in wanted})
    return status


def _up_to_root(top: str, wanted: set[str], environ: dict[str, str]
                ) -> list[tuple[str, int]]:
    """Each directory from a walked ``top`` up to its git root (or ``/``) with its mtime (a
    ``.git`` created or removed there changes the run's repository root); the root's git
    ignore inputs join ``wanted``."""
    from rulelens.rules.gitignore import ignore_inputs

    root = discover_git_root(top)
    if root is not None:
        wanted.update(ignore_inputs(root, home_of(environ), environ))
    out = []
    current = top
    while True:
        with contextlib.suppress(OSError):
            out.append((current, os.stat(current).st_mtime_ns))
        parent = os.path.dirname(current)
        if current == (root or os.sep) or parent == current:
            return out
        current = parent


def _session(args: argparse.Namespace, environ: dict[str, str]) -> LintSession:
    """A lint session for this run; a bad Grok ``config.toml`` raises ``ConfigError``."""
    from rulelens.agents.profiles import grok_profile
    from rulelens.lint.session import LintSession
    from rulelens.rules import AgentEnvironment, Resolver

    env = AgentEnvironment.from_env(environ)
    # Trust is a property of the user's machine, not of the repository: lint (and CI)
    # reasons about the chain of a trusted folder.
    resolver = Resolver(env, grok_profile(args.agent), "trusted")
    return LintSession(env, resolver=resolver, hints=args.hints)


def _report(args: argparse.Namespace, findings: list[Finding], problems: list[str],
            base: str, refused: int) -> int:
    from rulelens.lint import output

    for p in problems:
        if args.format != "text":
            print(f"rulelens: config: {p}", file=sys.stderr)
    if args.format == "json":
        sys.stdout.write(output.dumps_list(output.to_json_list(findings, base)))
    elif args.format == "sarif":
        sys.stdout.write(output.dumps(output.to_sarif(findings, base)))
    elif args.format == "github":
        sys.stdout.write(output.to_github(findings, base))
    else:
        sys.stdout.write(output.to_text(findings, base, problems))
    return 1 if refused or any(f.severity == "error" for f in findings) else 0


def _explain(args: argparse.Namespace) -> int:
    from rulelens.lint.docs import page
    from rulelens.lint.registry import BY_CODE

    code = args.code.upper()
    check = BY_CODE.get(code)
    if check is None:
        print(f"rulelens: error: {args.code}: no such check (see `docs/checks.md`)",
              file=sys.stderr)
        return 2
    sys.stdout.write(page(check))
    return 0


def _results(args: argparse.Namespace, environ: dict[str, str],
             walked: list[tuple[str, int]]) -> ResultCache | None:
    """The result cache for a run over walked directories (a path given as a file has no
    tree signature, so nothing is cached for that run)."""
    from rulelens.lint.replay import cache_dir
    from rulelens.lint.resultcache import ResultCache, tree_signature

    if any(mtime < 0 for _, mtime in walked):
        return None
    options = f"hints={args.hints};agent={args.agent}"
    key = "\0".join(sorted(os.path.abspath(p) for p in args.paths))
    return ResultCache(cache_dir(environ), options, environ, tree_signature(walked), key)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("lint", help="check instruction files: frontmatter, discovery, size,"
                       " content, references")
    p.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                   help="files or directories (default: .); directories are walked")
    p.add_argument("--format", choices=("text", "json", "sarif", "github"), default="text",
                   help="github: workflow annotations (::error file=...)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--fix", action="store_true",
                      help="apply safe fixes (edits of instruction files only), then report")
    mode.add_argument("--diff", action="store_true",
                      help="show what --fix would change as a unified diff; change nothing")
    p.add_argument("--jobs", type=int, default=0, metavar="N",
                   help="processes for large trees (default: one per core; 1: no others)")
    p.add_argument("--hints", action="store_true",
                   help="also report hint findings (shown in the editor by default)")
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write results kept in $XDG_CACHE_HOME/rulelens")
    p.add_argument("--agent", default=None, metavar="ID",
                   help="the Grok profile whose chains are checked (default: grok, the"
                   " newest; `rulelens agents` lists them); the folder counts as trusted")
    p.set_defaults(func=run)
    e = sub.add_parser("explain", help="print a lint check's documentation: rulelens explain"
                       " RL207")
    e.add_argument("code", metavar="CHECK", help="a check id such as RL207")
    e.set_defaults(func=_explain)


def main(argv: list[str]) -> int:
    """``rulelens lint ...`` and ``rulelens explain ...`` without the other subcommands'
    imports (see :mod:`rulelens.startup`); the same parser, output and exit codes as the
    full command line (:func:`rulelens.cli.main`)."""
    from rulelens import __version__

    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = argparse.ArgumentParser(prog="rulelens")
    parser.add_argument("--version", action="version", version=f"rulelens {__version__}")
    register(parser.add_subparsers(dest="command", metavar="COMMAND"))
    args = parser.parse_args(argv)
    # A plain run over unchanged files is answered from its record next time (lint.replay).
    args.recorder = (replay.Recorder(argv, captured_environ())
                     if args.func is run and replay.replayable(argv) else None)
    try:
        return int(args.func(args))
    except _config_error() as exc:  # evaluated only when an exception is raised
        print(f"rulelens: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        if args.recorder is not None:
            args.recorder.close()


def _config_error() -> type[Exception]:
    """``ConfigError`` (a bad agent configuration), imported only when something failed."""
    from rulelens.agents.compat import ConfigError

    return ConfigError
