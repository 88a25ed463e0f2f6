"""Benchmark: chain resolution for every directory of a large synthetic repository.

Builds (in a temp dir) a real git repository with >= 50,000 files in >= 5,000 directories,
instruction files at several depths, a realistic ``.gitignore`` and a fake home. Then, for
every directory, it measures in the same run:

* ``stat``   the bare cost of ``os.stat`` on the candidate paths the agent probes for that
             directory (every agent file name and rules directory, in every home root and
             every chain directory) - the baseline;
* ``cold``   a fresh :class:`Resolver` per lookup: nothing cached at all;
* ``shared`` one Resolver visiting every directory once: the chain is never cached, but
             per-directory scans of ancestors are (what an editor session does);
* ``warm``   the same Resolver asked again: the per-directory chain cache;
* ``cold, no memo`` as ``cold`` on every 10th directory, with the process-wide memo of
             gitignore-pattern translation (a pure function of the pattern text) and
             :mod:`re`'s compiled-pattern cache cleared too.

Every shared-scan chain is checked equal to the fresh one for the same directory.

Prints per-lookup medians and the cold/stat ratios. Targets: warm < 0.1 ms, cold <= 5x stat.

    .venv/bin/python bench/chain.py [--dirs 5000] [--files-per-dir 10] [--keep DIR]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rulelens.agents.profiles import profile
from rulelens.rules import AgentEnvironment, Resolver
from rulelens.rules.gitignore import _compile

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _profiles

GITIGNORE = """\
# dependencies
node_modules/
.venv/
vendor/bundle/
# build output
build/
dist/
target/
*.egg-info/
__pycache__/
*.py[cod]
coverage/
.coverage
# logs and temp
*.log
*.tmp
tmp/
# editors and OS
.idea/
.vscode/*
!.vscode/settings.json
.DS_Store
*.swp
# personal agent files
CLAUDE.local.md
.env
.env.*
!.env.example
/generated/
docs/_build/
"""

EXTS = (".py", ".ts", ".tsx", ".md", ".json", ".txt", ".css", ".go", ".rs", ".yaml")
WORDS = ("core", "api", "ui", "util", "model", "view", "auth", "db", "net", "cli", "web",
         "jobs", "lib", "app", "pkg", "test", "docs", "tools", "build", "node_modules", "tmp")


def build_repo(base: Path, n_dirs: int, files_per_dir: int, seed: int = 7) -> Path:
    """A deterministic tree: directories attached at random to shallower ones (depth <= 8)."""
    rng = random.Random(seed)
    repo = base / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".gitignore").write_text(GITIGNORE)
    dirs: list[tuple[Path, int]] = [(repo, 0)]
    while len(dirs) < n_dirs:
        parent, depth = dirs[rng.randrange(len(dirs))] if rng.random() < 0.7 else dirs[-1]
        if depth >= 8:
            continue
        child = parent / f"{rng.choice(WORDS)}{rng.randrange(100)}"
        if child.exists():
            continue
        child.mkdir()
        dirs.append((child, depth + 1))
    for i, (d, depth) in enumerate(dirs):
        for j in range(files_per_dir):
            (d / f"f{j}{EXTS[(i + j) % len(EXTS)]}").write_text("x\n")
        r = rng.random()
        if d == repo or r < 0.06:
            (d / "AGENTS.md").write_text(f"# rules at depth {depth}\n" + "Do things.\n" * 20)
        if r < 0.01:
            (d / "CLAUDE.local.md").write_text("personal, gitignored\n")
        if d == repo or r < 0.02:
            rules = d / ".grok" / "rules"
            rules.mkdir(parents=True, exist_ok=True)
            for k in range(3):
                (rules / f"r{k}.md").write_text(f"---\ndescription: rule {k}\n---\nBody {k}\n")
        if r > 0.985:
            rules = d / ".claude" / "rules"
            rules.mkdir(parents=True, exist_ok=True)
            (rules / "style.md").write_text("---\npaths: src/**\n---\nUse tabs.\n")
        if r > 0.995:
            (d / ".cursor" / "rules").mkdir(parents=True, exist_ok=True)
            (d / ".cursor" / "rules" / "c.mdc").write_text("---\nglobs: '*'\n---\n")
    (repo / "CLAUDE.md").write_text("# project\n" + "Be careful.\n" * 50)
    return repo


def build_home(base: Path, repo: Path) -> Path:
    home = base / "home"
    (home / ".grok" / "rules").mkdir(parents=True)
    # The user has trusted the repository once (`grok --trust`), so grok@1.0.45 loads it.
    (home / ".grok" / "trusted_folders.toml").write_text(
        f'[folders."{os.path.realpath(repo)}"]\ntrusted = true\ndecided_at = 1759190400\n')
    (home / ".grok" / "AGENTS.md").write_text("# personal\nBe brief.\n")
    (home / ".grok" / "rules" / "style.md").write_text("---\nx: 1\n---\nPrefer tabs.\n")
    (home / ".claude").mkdir()
    (home / ".claude" / "CLAUDE.md").write_text("# claude home\n")
    (home / ".gitignore").write_text("*.orig\n")
    return home


def all_dirs(repo: Path) -> list[str]:
    out: list[str] = []
    for dirpath, dirnames, _ in os.walk(repo):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        out.append(dirpath)
    return out


def candidate_paths(env: AgentEnvironment, directory: str, git_root: str) -> list[str]:
    """Every path the agent probes for ``directory``: names + rules dirs in every root."""
    names = env.compat.agent_filenames()
    subdirs = env.compat.project_rules_dirs()
    roots: list[tuple[str, tuple[str, ...]]] = [(env.grok_home, ("rules",))]
    roots += [(os.path.join(env.home, v), ("rules",)) for v in (".claude", ".cursor")]
    chain: list[str] = []
    d = directory
    while True:
        chain.append(d)
        if d == git_root or os.path.dirname(d) == d:
            break
        d = os.path.dirname(d)
    roots += [(c, subdirs) for c in reversed(chain)]
    return [os.path.join(r, n) for r, subs in roots for n in (*names, *subs)]


def time_stats(paths: list[str]) -> float:
    stat = os.stat
    t0 = time.perf_counter()
    for p in paths:
        try:  # noqa: SIM105 - contextlib.suppress would slow the baseline down
            stat(p)
        except OSError:
            pass
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dirs", type=int, default=5000)
    ap.add_argument("--files-per-dir", type=int, default=10)
    ap.add_argument("--keep", help="build the tree here and keep it")
    ap.add_argument("--profiles", type=int, default=500, metavar="N",
                    help="per-profile views (every agent) of one file in N directories"
                         " (bench/_profiles.py; 0 skips)")
    ap.add_argument("--agent", default="grok",
                    help="the Grok profile to resolve with (default grok = the newest)")
    args = ap.parse_args()
    chosen = profile(args.agent)

    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="rulelens-bench-"))
    base = Path(os.path.realpath(base))
    try:
        t0 = time.perf_counter()
        repo = build_repo(base, args.dirs, args.files_per_dir)
        home = build_home(base, repo)
        dirs = all_dirs(repo)
        n_files = sum(len(files) for _, _, files in os.walk(repo))
        print(f"built {n_files} files in {len(dirs)} directories"
              f" in {time.perf_counter() - t0:.1f}s ({base}); profile {chosen.id}")
        env = AgentEnvironment.from_env({"HOME": str(home), "PATH": os.environ.get("PATH", "")})

        def new_resolver() -> Resolver:
            return Resolver(env, chosen)
        root = str(repo)

        stat_t: list[float] = []
        cold_t: list[float] = []
        loaded = skipped = 0
        gc.disable()
        for d in dirs:
            paths = candidate_paths(env, d, root)
            t_stat = min(time_stats(paths) for _ in range(3))
            t1 = time.perf_counter()
            chain = new_resolver().resolve(d)
            cold_t.append(time.perf_counter() - t1)
            stat_t.append(t_stat)
            loaded += len(chain.files)
            skipped += len(chain.skipped)
            assert chain.git_root == root
            assert not chain.withheld, "the bench repository is trusted"
        gc.enable()
        gc.collect()

        fresh = {d: new_resolver().resolve(d) for d in dirs}
        shared = new_resolver()
        shared_t: list[float] = []
        gc.disable()
        for d in dirs:
            t1 = time.perf_counter()
            chain = shared.resolve(d)
            shared_t.append(time.perf_counter() - t1)
            assert chain == fresh[d], f"shared-scan chain differs for {d}"
        warm_t: list[float] = []
        for d in dirs:
            t1 = time.perf_counter()
            shared.resolve(d)
            warm_t.append(time.perf_counter() - t1)
        nomemo_t: list[float] = []
        nomemo_stat: list[float] = []
        for d in dirs[::10]:
            nomemo_stat.append(min(time_stats(candidate_paths(env, d, root)) for _ in range(3)))
            _compile.cache_clear()
            re.purge()
            t1 = time.perf_counter()
            new_resolver().resolve(d)
            nomemo_t.append(time.perf_counter() - t1)
        gc.enable()

        def ms(xs: list[float]) -> str:
            return f"{statistics.median(xs) * 1e3:8.4f} ms"

        ratios = [c / s for c, s in zip(cold_t, stat_t, strict=True)]
        shared_ratios = [c / s for c, s in zip(shared_t, stat_t, strict=True)]
        print(f"lookups: {len(dirs)} directories; {loaded / len(dirs):.1f} files load and"
              f" {skipped / len(dirs):.1f} are skipped per directory on average")
        print(f"median bare stat of candidates   {ms(stat_t)}"
              f"  ({statistics.median(len(candidate_paths(env, d, root)) for d in dirs):.0f}"
              " paths)")
        print(f"median cold (fresh Resolver)     {ms(cold_t)}")
        print(f"median cold (shared dir scans)   {ms(shared_t)}")
        print(f"median warm (cached chain)       {ms(warm_t)}")
        nomemo_ratios = [c / s for c, s in zip(nomemo_t, nomemo_stat, strict=True)]
        print(f"median cold, no memo (1 in 10)   {ms(nomemo_t)}"
              f"  ({statistics.median(nomemo_ratios):.2f}x its stat baseline)")
        print(f"cold / stat: median per directory {statistics.median(ratios):.2f}x,"
              f" p90 {statistics.quantiles(ratios, n=10)[-1]:.2f}x")
        print(f"shared-scan cold / stat: median {statistics.median(shared_ratios):.2f}x")
        warm_ok = statistics.median(warm_t) < 1e-4
        cold_ok = statistics.median(ratios) <= 5.0
        print(f"targets: warm < 0.1 ms {'MET' if warm_ok else 'MISSED'};"
              f" cold <= 5x stat {'MET' if cold_ok else 'MISSED'}")
        if args.profiles:
            _profiles.report(root, {"HOME": str(home), "PATH": os.environ.get("PATH", "")},
                             dirs, args.profiles)
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
