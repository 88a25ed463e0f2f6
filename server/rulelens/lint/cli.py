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
import stat
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from rulelens.lint import output
from rulelens.lint.config import LintConfig, load_config
from rulelens.lint.disk import Snapshot
from rulelens.lint.engine import chain_dir, invalidate, lint_document
from rulelens.lint.fixes import FixError, apply_fix
from rulelens.lint.model import FileRename, Finding, Range
from rulelens.lint.walk import iter_instruction_files
from rulelens.rules import AgentEnvironment, Resolver
from rulelens.rules.model import Chain


@dataclass
class Linter:
    """One CLI run: a resolver and per-repository configs shared by every file."""

    env: AgentEnvironment
    resolver: Resolver = field(init=False)
    configs: dict[str, LintConfig] = field(default_factory=dict)
    #: Directory → repository root (or itself): files of one directory share the walk up.
    roots: dict[str, str] = field(default_factory=dict)
    #: Other files' stats, asked once per run (a fix starts a new snapshot).
    disk: Snapshot = field(default_factory=Snapshot)

    def __post_init__(self) -> None:
        self.resolver = Resolver(self.env)

    def config_for(self, path: str, is_dir: bool | None = None) -> LintConfig:
        """The configuration of the repository holding ``path`` (``is_dir``: whether
        ``path`` is a directory, when the caller knows)."""
        if is_dir is None:
            is_dir = os.path.isdir(path)
        start = path if is_dir else os.path.dirname(path)
        root = self.roots.get(start)
        if root is None:
            # discover_git_root's walk, through the resolver's listings and memo: the
            # chains of the same directories have walked it already.
            root = self.resolver.git_root(
                self.resolver.canonical_dir(os.path.abspath(start))) or start
            self.roots[start] = root
        found = self.configs.get(root)
        if found is None:
            found = load_config(root)
            self.configs[root] = found
        return found

    def lint(self, path: str) -> list[Finding]:
        chain = self.resolver.resolve(chain_dir(path))
        # A file the chain has just loaded was read, as a file, as valid UTF-8, which the
        # decoding below would give unchanged: one read (and no stat) per file and run.
        text = self.resolver.loaded_text(path)
        if text is not None:
            return lint_document(path, text, chain, self.config_for(path, False), self.disk)
        # Read first: a file that opens is no directory (Python's open refuses those with
        # IsADirectoryError), so the usual case costs no stat; any other failure takes
        # the stat-first path below and reports exactly as before.
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
        except IsADirectoryError:
            return lint_document(path, "", chain, self.config_for(path, True), self.disk)
        except OSError:
            return self._lint_unread(path, chain)
        text = raw.decode("utf-8", "surrogateescape")
        return lint_document(path, text, chain, self.config_for(path, False), self.disk)

    def _lint_unread(self, path: str, chain: Chain) -> list[Finding]:
        """A path that did not open as a file: a directory, or an error to report."""
        try:
            is_dir = stat.S_ISDIR(os.stat(path).st_mode)
        except (OSError, ValueError):
            is_dir = False  # os.path.isdir's answer; reading below reports the error
        config = self.config_for(path, is_dir)
        if is_dir:
            return lint_document(path, "", chain, config, self.disk)
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
        except OSError as exc:
            found = lint_document(path, "", chain, config, self.disk)
            if any(f.code == "RL203" for f in found):
                return found
            return [Finding("RL203", "error", f"cannot be read ({exc.strerror or exc})",
                            Range.point(0), path)]
        text = raw.decode("utf-8", "surrogateescape")
        return lint_document(path, text, chain, config, self.disk)

    def fix(self, path: str, max_steps: int = 25) -> tuple[str, list[str]]:
        """Apply safe fixes until none is left; returns the final path and messages."""
        notes: list[str] = []
        applied: set[tuple[str, str]] = set()
        current = path
        for _ in range(max_steps):
            candidates = [f for f in self.lint(current) if f.safe_fix is not None]
            if not candidates:
                break
            finding = candidates[0]
            fix = finding.safe_fix
            assert fix is not None
            key = (finding.code, fix.title)
            if key in applied:
                notes.append(f"{current}: {finding.code} still reported after its fix; stopped")
                break
            applied.add(key)
            try:
                changed = apply_fix(fix)
            except (FixError, OSError) as exc:
                notes.append(f"{current}: could not apply '{fix.title}': {exc}")
                break
            notes.append(f"{current}: fixed {finding.code}: {fix.title}")
            for edit in fix.edits:
                if isinstance(edit, FileRename) and edit.old == current:
                    current = edit.new
            touched = [*changed, path, current]
            self.disk = Snapshot()
            self.resolver.invalidate(touched)
            invalidate(touched)
        return current, notes


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
    linter = Linter(AgentEnvironment.from_env())
    files = collect(args.paths, linter.env)
    if args.fix:
        fixed: list[str] = []
        for f in files:
            final, notes = linter.fix(f)
            fixed.append(final)
            for note in notes:
                print(f"rulelens: {note}", file=sys.stderr)
        files = fixed
        linter = Linter(linter.env)
    findings: list[Finding] = []
    for f in files:
        try:
            findings.extend(linter.lint(f))
        except Exception as exc:  # a bug in a check must not hide the other files' findings
            print(f"rulelens: internal error while linting {f}: {exc!r}", file=sys.stderr)
            findings.append(Finding("RL203", "error", f"internal linter error: {exc!r}",
                                    Range.point(0), f))
    base = os.getcwd()
    problems = sorted({p for c in linter.configs.values() for p in c.problems})
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
