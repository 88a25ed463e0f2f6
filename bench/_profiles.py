"""Per-profile lookups for ``bench/chain.py``: every agent's view of one file per directory.

For a sample of directories, a file in each, and the session started at the repository
root (the editor's default), it times per profile (every row of every agent in the
registry: each Grok version too):

* ``cold``  the view computed from nothing (Grok: a fresh Resolver; the others' modules
            keep no state, so every call is cold: what ``rulelens chain`` pays);
* ``session`` the view of each next file in a language-server session (one
            :class:`~rulelens.lsp.agentviews.AgentViews`: its scan cache keeps the start
            directory's walks and reads, its Resolver the chains), the cold lens's share;
* ``warm``  the language server's per-document cache answering again (what the code
            lens asks on every refresh: :meth:`rulelens.lsp.agentviews.AgentViews.text`,
            the lens title made of the views).

The baseline is the same run's bare ``os.stat`` of that agent's candidate names in each
directory from the root to the file (``stat``), so the ratios compare like with like.
"""

from __future__ import annotations

import contextlib
import functools
import os
import statistics
import time

from rulelens.agents.profiles import profile
from rulelens.agents.registry import AGENTS, MARKERS, family
from rulelens.lsp.agentviews import AgentViews, lens_title
from rulelens.rules import AgentEnvironment, Chain, Resolver
from rulelens.rules.perfile import views_for_file

#: Names each agent probes per directory (for the stat baseline).
PROBES: dict[str, tuple[str, ...]] = {
    **MARKERS,
    "grok": ("AGENTS.md", "CLAUDE.md", "CLAUDE.local.md", ".grok/rules", ".claude/rules",
             ".cursor/rules"),
}


def _stat(paths: list[str]) -> float:
    t0 = time.perf_counter()
    for p in paths:
        with contextlib.suppress(OSError):
            os.stat(p)
    return time.perf_counter() - t0


def _chain_dirs(root: str, directory: str) -> list[str]:
    rel = os.path.relpath(directory, root)
    parts = [] if rel == "." else rel.split(os.sep)
    return [os.path.join(root, *parts[:i]) for i in range(len(parts) + 1)]


def report(repo: str, env: dict[str, str], dirs: list[str],
           sample: int) -> dict[str, tuple[float, float, float]]:
    """Prints and returns ``{profile: (cold median ms, warm median ms, cold/stat)}``."""
    picked = dirs[:: max(1, len(dirs) // sample)][:sample]
    files = []
    for d in picked:
        names = sorted(n for n in os.listdir(d) if os.path.isfile(os.path.join(d, n)))
        if names:
            files.append(os.path.join(d, names[0]))
    environment = AgentEnvironment.from_env(env)  # the same environment the chains use

    out: dict[str, tuple[float, float, float]] = {}
    print(f"\nper-profile views of one file in each of {len(files)} directories,"
          " session started at the repository root")
    print(f"{'profile':<18}{'cold ms':>9}{'cold p95':>10}{'session':>9}{'sess p95':>10}"
          f"{'warm ms':>9}{'stat ms':>9}{'cold/stat':>11}")
    for agent in [row.id for a in AGENTS for row in a.profiles]:
        new_resolver = functools.partial(Resolver, environment, profile(agent))
        shared = new_resolver()

        def resolve(cwd: str, shared: Resolver = shared) -> Chain:
            return shared.resolve(cwd)

        cold: list[float] = []
        stat: list[float] = []
        for f in files:
            probes = [os.path.join(d, n) for d in _chain_dirs(repo, os.path.dirname(f))
                      for n in PROBES[family(agent)]]
            stat.append(min(_stat(probes) for _ in range(3)))
            fresh = new_resolver() if family(agent) == "grok" else shared
            t0 = time.perf_counter()
            views_for_file(f, repo, [agent], env, fresh.resolve)
            cold.append(time.perf_counter() - t0)
        session: list[float] = []
        cache = AgentViews(env)
        for f in files:
            t0 = time.perf_counter()
            cache.text("lens", f, repo, [agent], resolve, lambda vs: lens_title(vs, repo))
            session.append(time.perf_counter() - t0)
        warm: list[float] = []
        for f in files:
            t0 = time.perf_counter()
            cache.text("lens", f, repo, [agent], resolve, lambda vs: lens_title(vs, repo))
            warm.append(time.perf_counter() - t0)
        c, ss, w, s = (statistics.median(x) * 1e3 for x in (cold, session, warm, stat))
        p95, sp95 = (statistics.quantiles(x, n=20)[-1] * 1e3 for x in (cold, session))
        out[agent] = (c, w, c / s if s else float("inf"))
        print(f"{agent:<18}{c:>9.3f}{p95:>10.3f}{ss:>9.3f}{sp95:>10.3f}{w:>9.4f}{s:>9.4f}"
              f"{c / s:>10.1f}x")
    return out
