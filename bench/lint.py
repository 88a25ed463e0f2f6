"""Benchmark: `rulelens lint` side by side with agnix, and the in-process cost breakdown.

Builds (in a temp dir) a real git repository with 1,000 instruction files: AGENTS.md and
CLAUDE.md in nested packages, `.grok/rules`, `.claude/rules` (with `paths` frontmatter),
`.cursor/rules/*.mdc`, `.github/instructions`; 70 % small (0.2-2 KB), 25 % medium
(2-20 KB), 5 % large (50-200 KB). Two trees: ``root rules`` (the rules directories hold
~400 rule files at the repository root, so each of the 101 chains loads all of them) and
``spread rules`` (the same files with each rule file in a package's rules directories, so
a chain loads about ten files).

**Side by side with agnix** (the targets of issue #14), each tool in a fresh process, in
one run, on the same trees, alternating, ``--rounds`` times; medians of wall time:

* ``rulelens lint --format json TREE`` vs ``agnix TREE`` on both 1,000-file trees, cold
  (an empty result-cache directory) and warm (the cache of a previous run): targets of
  issue #23 cold <= 1.5x, warm <= 1.0x (rulelens uses every core for large trees, as
  agnix does);
* the same on a one-file project (target: <= 3x) and, with ``--corpus DIR``, on every
  repository checked out in DIR (summed per round).

agnix is a bench-only tool: ``pip install agnix`` in the bench's environment or in
``~/.cache/rulelens-tools/agnix-venv`` (the npm package fetches its binary from GitHub);
without it the comparison is skipped and said so.

**In process** (same run, warm page cache), best round of each, for reading the ratio:

* ``baseline``  read each file, decode UTF-8, split frontmatter, ``yaml.compose`` +
                construct it with the same (libyaml) loader the linter uses;
* ``lint``      the real per-file path (``LintSession.lint``: repository config, chain
                resolution, read, ``lint_document`` with every check on) on a new
                ``LintSession`` per round ("cold": the session owns every lint cache;
                only the rules engine's pure per-pattern memo of gitignore lines lives
                on, as ``re``'s does), one process, under the CLI's garbage-collector
                setting (``batch_gc``);
* ``warm``      a second pass of one ``LintSession`` with every cache kept;
* ``floor``     the chain-aware floor: the baseline's work + every chain resolved + each
                loaded file outlined once, no check.

    .venv/bin/python bench/lint.py [--files 1000] [--rounds 5] [--keep DIR]
                                   [--scenario root|spread|both] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

from rulelens.agents.yamlbound import _Loader
from rulelens.lint.cli import batch_gc
from rulelens.lint.engine import chain_dir
from rulelens.lint.markdown import outline
from rulelens.lint.session import LintSession
from rulelens.rules import AgentEnvironment, Resolver
from rulelens.rules.frontmatter import split
from rulelens.rules.model import Chain

WORDS = ("always", "run", "the", "tests", "before", "committing;", "prefer", "small",
         "functions;", "use", "type", "hints;", "never", "log", "secrets;", "keep", "modules",
         "and", "name", "things", "after", "domain;", "document", "why,", "not", "what;")


def _body(rng: random.Random, size: int) -> str:
    out: list[str] = []
    n = 0
    section = 0
    while n < size:
        if rng.random() < 0.15:
            section += 1
            line = f"\n## Section {section}\n"
        else:
            line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 16))) + ".\n"
        out.append(line)
        n += len(line)
    return "".join(out)


def _size(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.70:
        return rng.randint(200, 2_000)
    if r < 0.95:
        return rng.randint(2_000, 20_000)
    return rng.randint(50_000, 200_000)


def build(dest: str, total: int, seed: int = 7, spread: bool = False) -> list[str]:
    """The tree; ``spread`` puts each rule file in a package's rules directories instead
    of the repository root's (same files, sizes and frontmatter otherwise)."""
    rng = random.Random(seed)
    repo = os.path.join(dest, "repo")
    os.makedirs(os.path.join(dest, "home", ".grok"))
    os.makedirs(repo)
    subprocess.run(["git", "init", "-q", repo], check=True)
    with open(os.path.join(repo, ".gitignore"), "w") as fh:
        fh.write("node_modules/\nbuild/\n*.log\n")
    files: list[str] = []

    def write(rel: str, text: str) -> None:
        path = os.path.join(repo, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        files.append(path)

    n_pkgs = total // 10
    for i in range(n_pkgs):
        pkg = f"packages/p{i // 10}/m{i}"
        write(f"{pkg}/src/main.py", "print('x')\n")
        files.pop()  # source files are not instruction files
        write(f"{pkg}/AGENTS.md", f"# Package {i}\n\n" + _body(rng, _size(rng)))
        write(f"{pkg}/CLAUDE.md", f"# Claude notes {i}\n\n" + _body(rng, _size(rng)))
    kinds = (".grok/rules/r{}.md", ".claude/rules/c{}.md", ".cursor/rules/k{}.mdc",
             ".github/instructions/g{}.instructions.md")
    i = 0
    while len(files) < total:
        kind = kinds[i % len(kinds)]
        m = i % n_pkgs
        rel = (f"packages/p{m // 10}/m{m}/" if spread else "") + kind.format(i)
        if kind.startswith(".claude"):
            fm = f'---\npaths:\n  - "packages/p{m // 10}/m{m}/**"\n  - "**/*.py"\n---\n'
        elif kind.startswith(".cursor"):
            fm = f"---\ndescription: module {m}\nglobs: packages/p{m // 10}/**/*.py\n" \
                 "alwaysApply: false\n---\n"
        elif kind.startswith(".github"):
            fm = f'---\napplyTo: "packages/p{m // 10}/**"\n---\n'
        else:
            fm = ""
        write(rel, fm + f"# Rule {i}\n\n" + _body(rng, _size(rng)))
        i += 1
    return files


def _parse(text: str) -> None:
    fm = split(text)
    if fm is not None and fm.end_line is not None:
        node = yaml.compose(fm.yaml_text, Loader=_Loader)
        if node is not None:
            yaml.constructor.SafeConstructor().construct_document(node)


def baseline(files: list[str]) -> float:
    start = time.perf_counter()
    for path in files:
        with open(path, "rb") as fh:
            _parse(fh.read().decode("utf-8"))
    return time.perf_counter() - start


def floor(files: list[str], env: AgentEnvironment) -> float:
    """Seconds for the work a chain-aware linter of this design cannot skip, with no check:
    the baseline's read and parse of every file, every chain resolved (which reads the
    loaded files, so those are not read twice), and each loaded file's content outlined
    once for the duplicate and shadowing comparisons."""
    resolver = Resolver(env)
    chains: dict[int, Chain] = {}  # holding each chain keeps its id from being reused
    outlined: set[str] = set()
    start = time.perf_counter()
    for path in files:
        chain = resolver.resolve(chain_dir(path))
        text = resolver.loaded_text(path)
        if text is None:
            with open(path, "rb") as fh:
                text = fh.read().decode("utf-8")
        _parse(text)
        if id(chain) not in chains:
            chains[id(chain)] = chain
            for f in chain.files:
                if f.canonical not in outlined:
                    outlined.add(f.canonical)
                    outline(f.content)
    return time.perf_counter() - start


def lint_all(files: list[str], env: AgentEnvironment) -> tuple[float, float, int]:
    """Total seconds, seconds of it spent resolving chains (rules engine), findings.

    Exactly what ``rulelens lint`` does per file (:meth:`LintSession.lint`: config for the
    repository, chain, read, lint) on a new :class:`LintSession`. The chain is resolved
    once more just before, through the same resolver, only to time it apart:
    ``LintSession.lint`` then gets it from the resolver's cache.
    """
    linter = LintSession(env, hints=False)  # as `rulelens lint` runs (hints are off)
    findings = 0
    resolving = 0.0
    start = time.perf_counter()
    for path in files:
        t0 = time.perf_counter()
        linter.resolver.resolve(chain_dir(path))
        resolving += time.perf_counter() - t0
        findings += len(linter.lint(path))
    return time.perf_counter() - start, resolving, findings


def lint_warm(files: list[str], env: AgentEnvironment) -> float:
    """Seconds for a second pass of one :class:`LintSession` over the files: every chain,
    table, outline and stat is cached, so this is the per-file floor of the pipeline itself
    (the unloaded files are still read and every frontmatter parsed again)."""
    linter = LintSession(env, hints=False)  # as `rulelens lint` runs (hints are off)
    for path in files:
        linter.lint(path)
    start = time.perf_counter()
    for path in files:
        linter.lint(path)
    return time.perf_counter() - start


def _agnix() -> str | None:
    """agnix next to this Python, in ``~/.cache/rulelens-tools/agnix-venv`` (``pip install
    agnix`` there: the npm package downloads its binary from GitHub), or on ``PATH``."""
    for here in (os.path.join(os.path.dirname(sys.executable), "agnix"),
                 os.path.expanduser("~/.cache/rulelens-tools/agnix-venv/bin/agnix")):
        if os.path.exists(here):
            return here
    return shutil.which("agnix")


def _wall(cmd: list[str], cwd: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return time.perf_counter() - start


def side_by_side(label: str, repo: str | list[str], env: dict[str, str], rounds: int) -> None:
    """Median wall times, fresh processes, alternating: `rulelens lint` cold (an empty
    result-cache directory each round), warm (the cache a previous run left), and agnix
    on ``repo`` (or on each of several repositories, summed per round)."""
    repos = [repo] if isinstance(repo, str) else repo
    agnix = _agnix()
    cache_root = tempfile.mkdtemp(prefix="rulelens-bench-cache-")
    # An installed package has its bytecode compiled; with PYTHONDONTWRITEBYTECODE (set in
    # some CI images) an edited checkout would compile its changed modules on every run.
    env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    warm_env = {**env, "XDG_CACHE_HOME": os.path.join(cache_root, "warm")}

    def ours(run_env: dict[str, str]) -> float:
        return sum(_wall([sys.executable, "-m", "rulelens", "lint", "--format", "json", r],
                         r, run_env) for r in repos)

    def cold_env(i: int) -> dict[str, str]:
        return {**env, "XDG_CACHE_HOME": os.path.join(cache_root, f"cold-{i}")}

    ours(cold_env(-1))  # page cache and .pyc warm for every run
    ours(warm_env)  # fills the warm cache
    if agnix is not None:
        for r in repos:
            _wall([agnix, r], r, env)
    cold: list[float] = []
    warm: list[float] = []
    theirs: list[float] = []
    for i in range(rounds):
        cold.append(ours(cold_env(i)))
        warm.append(ours(warm_env))
        if agnix is not None:
            theirs.append(sum(_wall([agnix, r], r, env) for r in repos))
    shutil.rmtree(cache_root, ignore_errors=True)
    c, w = statistics.median(cold), statistics.median(warm)
    if agnix is None:
        print(f"{label}: rulelens lint cold {c * 1000:.0f} ms, warm {w * 1000:.0f} ms (medians"
              f" of {rounds}); agnix not installed (pip install agnix): no ratio")
        return
    other = statistics.median(theirs)
    print(f"{label}: rulelens lint cold {c * 1000:.0f} ms ({c / other:.2f}x), warm"
          f" {w * 1000:.0f} ms ({w / other:.2f}x), agnix {other * 1000:.0f} ms"
          f" (medians of {rounds}, fresh processes)")


def one_file_project(dest: str, rounds: int, env: dict[str, str]) -> None:
    repo = os.path.join(dest, "one-file")
    os.makedirs(repo)
    subprocess.run(["git", "init", "-q", repo], check=True)
    with open(os.path.join(repo, "AGENTS.md"), "w", encoding="utf-8") as fh:
        fh.write("# Rules\n\nRun the tests before committing.\n")
    side_by_side("[one-file project] (targets: <= 3x)", repo, env, rounds)


def _environ(home: str) -> dict[str, str]:
    return {"HOME": home, "GROK_HOME": os.path.join(home, ".grok"),
            "PATH": os.environ.get("PATH", "")}


def run_scenario(label: str, dest: str, n_files: int, rounds: int, spread: bool,
                 side_only: bool = False) -> None:
    files = build(dest, n_files, spread=spread)
    home = os.path.join(dest, "home")
    environ = _environ(home)
    env = AgentEnvironment.from_env(environ)
    total_bytes = sum(os.path.getsize(f) for f in files)
    print(f"[{label}] {len(files)} files, {total_bytes / 1e6:.1f} MB, yaml loader:"
          f" {_Loader.__name__}")
    side_by_side("side by side (targets: cold <= 1.5x, warm <= 1.0x)", os.path.join(dest, "repo"),
                 {**os.environ, **environ}, rounds)
    if side_only:
        return
    baseline(files)  # warm the page cache for both measurements
    base_t: list[float] = []
    lint_t: list[tuple[float, float]] = []
    warm_t: list[float] = []
    floor_t: list[float] = []
    findings = 0
    for _ in range(rounds):
        gc.collect()
        base_t.append(baseline(files))
        gc.collect()
        with batch_gc():  # exactly as `rulelens lint` runs
            t, resolving, findings = lint_all(files, env)
        lint_t.append((t, resolving))
        gc.collect()
        with batch_gc():
            warm_t.append(lint_warm(files, env))
        gc.collect()
        with batch_gc():
            floor_t.append(floor(files, env))
    b = min(base_t)
    lt, res = min(lint_t)
    w = min(warm_t)
    fl = min(floor_t)
    n = len(files)
    print(f"baseline read+YAML: {b * 1000:8.1f} ms  {n / b:10.0f} files/s")
    print(f"lint (cold):        {lt * 1000:8.1f} ms  {n / lt:10.0f} files/s"
          f"  ({findings} findings)")
    print(f"  of which chain resolution (rules engine, {len({chain_dir(f) for f in files})}"
          f" chains): {res * 1000:.1f} ms; lint engine: {(lt - res) * 1000:.1f} ms")
    print(f"ratio lint/baseline: {lt / b:.2f}x  (engine only: {(lt - res) / b:.2f}x);"
          f" > 1,000 files/s: {'yes' if n / lt > 1000 else 'NO'}")
    print(f"for reference, warm (2nd pass of one LintSession, every cache kept): {w * 1000:.1f} ms"
          f" = {w / b:.2f}x baseline; the cold-only work (chains, outlines and tables, first"
          f" stats and globs) is {(lt - w) * 1000:.1f} ms")
    print(f"chain-aware floor (baseline's work + chain resolution + Markdown outline of each"
          f" loaded file, no check): {fl * 1000:.1f} ms = {fl / b:.2f}x baseline; every check"
          f" together adds {(lt - fl) * 1000:.1f} ms ({(lt - fl) / n * 1e6:.0f} us per file)")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--keep", help="build the trees here and keep them")
    ap.add_argument("--side-only", action="store_true",
                    help="only the side-by-side wall times (no in-process breakdown)")
    ap.add_argument("--corpus", help="a directory of checked-out real repositories: each is"
                    " linted by both tools, cold and warm (issue #23)")
    ap.add_argument("--scenario", choices=("root", "spread", "both"), default="both",
                    help="root: the target's tree (rule files at the repository root);"
                         " spread: rule files in package directories")
    args = ap.parse_args()
    dest = args.keep or tempfile.mkdtemp(prefix="rulelens-bench-lint-")
    try:
        if args.scenario in ("root", "both"):
            run_scenario("root rules: the target's scenario", os.path.join(dest, "root"),
                         args.files, args.rounds, spread=False, side_only=args.side_only)
        if args.scenario in ("spread", "both"):
            if args.scenario == "both":
                print()
            run_scenario("spread rules: second scenario, rule files in package directories",
                         os.path.join(dest, "spread"), args.files, args.rounds, spread=True,
                         side_only=args.side_only)
        print()
        home = os.path.join(dest, "one-home")
        os.makedirs(os.path.join(home, ".grok"))
        one_file_project(dest, args.rounds, {**os.environ, **_environ(home)})
        if args.corpus:
            repos = sorted(os.path.join(args.corpus, n) for n in os.listdir(args.corpus)
                           if os.path.isdir(os.path.join(args.corpus, n, ".git")))
            print()
            side_by_side(f"[corpus: {len(repos)} real repositories, summed] (targets: cold"
                         " <= 1.5x, warm <= 1.0x)", repos, {**os.environ, **_environ(home)},
                         args.rounds)
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(dest, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
