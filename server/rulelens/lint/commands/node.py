"""npm, pnpm, yarn and bun: which ``package.json`` a script is looked up in.

* ``npm run X`` / ``pnpm run X`` / ``npm test``: a script of the package where it runs;
* ``yarn run X`` / ``bun run X`` and bare ``pnpm X`` / ``yarn X`` / ``bun X``: a script
  *or* a binary. Binaries are unknowable in a checkout without ``node_modules``, so a bare
  name is judged only when it cannot be one (``test:unit``: binaries have no ``:``), and a
  ``run`` name only when it is neither a dependency, a known CLI nor in ``.bin``;
* ``npx``/``bunx``/``pnpm dlx``/``pnpm exec``: binaries, never scripts (not judged);
* where: ``-w``/``--workspace``/``--filter``/``-F``/``yarn workspace``/``--cwd``/``-C``/
  ``--prefix`` name the package (a name, a directory or a glob: unresolvable is not
  judged); ``-r``/``--workspaces`` mean every package; otherwise any place of
  :class:`~rulelens.lint.commands.place.Place`, and a script some other package of the
  repository defines is not reported (the text may mean that package).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence

from rulelens.lint.commands.finding import Problem
from rulelens.lint.commands.place import Place
from rulelens.lint.commands.project import Package
from rulelens.lint.commands.shell import Word, placeholder

TOOLS = frozenset({"npm", "pnpm", "yarn", "bun"})
_RUN = frozenset({"run", "run-script", "rum", "urn"})
_EXEC = frozenset({"exec", "dlx", "x"})
_VALUE = {
    "npm": {"-w", "--workspace", "--prefix", "--loglevel"},
    "pnpm": {"-F", "--filter", "--filter-prod", "-C", "--dir", "--reporter", "--loglevel",
             "--workspace-concurrency", "--test-pattern"},
    "yarn": {"--cwd"},
    "bun": {"-F", "--filter", "--cwd", "--elide-lines"},
}
_BUILTIN = frozenset({
    "install", "i", "ci", "add", "a", "remove", "rm", "uninstall", "un", "update", "up",
    "upgrade", "why", "list", "ls", "outdated", "audit", "publish", "pack", "store", "config",
    "init", "create", "import", "link", "ln", "unlink", "rebuild", "rb", "prune", "patch",
    "patch-commit", "deploy", "fetch", "env", "setup", "self-update", "licenses", "server",
    "root", "bin", "dedupe", "approve-builds", "catalog", "info", "version", "set", "dlx",
    "exec", "x", "workspaces", "plugin", "constraints", "cache", "login", "logout", "whoami",
    "npm", "node", "help", "build", "test", "repl", "pm", "completions", "owner", "search",
    "view", "doctor", "explain", "query", "docs", "t", "start", "restart", "stop",
    "install-test", "it", "cit", "tag", "dist-tag", "team", "token", "unpublish", "shrinkwrap",
    "global", "generate-lock-entry", "upgrade-interactive", "autoclean", "check", "policies",
    "sdks", "unplug", "stage", "dedup", "recursive", "m", "multi", "-r",
})
#: Command-line tools so common that a ``yarn run``/``bun run`` of them is a binary.
KNOWN_CLIS = frozenset({
    "tsc", "eslint", "prettier", "vitest", "jest", "biome", "turbo", "nx", "next", "vite",
    "tsx", "ts-node", "playwright", "cypress", "changeset", "lerna", "rimraf", "tsup",
    "esbuild", "rollup", "webpack", "storybook", "prisma", "drizzle-kit", "wrangler", "vercel",
    "netlify", "expo", "react-native", "astro", "nuxt", "nuxi", "svelte-kit", "tailwindcss",
    "knip", "oxlint", "lint-staged", "husky", "concurrently", "nodemon", "mocha", "ava", "c8",
    "nyc", "typedoc", "vue-tsc", "svelte-check", "electron", "electron-builder", "vsce",
    "tauri", "sst", "serverless", "cdk", "hardhat", "graphql-codegen", "syncpack", "manypkg",
    "sherif", "publint", "attw", "commitlint", "semantic-release", "zx", "shx", "cross-env",
    "dotenv", "kysely", "trigger", "mintlify", "docusaurus", "remix", "react-router",
    "vitepress", "typeorm", "knex", "nest", "ng", "lefthook", "dprint", "size-limit",
    "madge", "depcheck", "node", "tsdown", "unbuild", "ncu", "patch-package",
})


def check(words: Sequence[Word], place: Place, cwd: str | None
          ) -> Iterator[Problem | Sequence[Word]]:
    """Problems of one npm/pnpm/yarn/bun command; a word sequence is a nested command
    (``pnpm exec turbo run build``) for the dispatcher."""
    tool = words[0].text
    values = _VALUE.get(tool, set())
    selectors: list[str] = []
    dirs: list[str] = []
    every = root_only = if_present = False
    sub: Word | None = None
    name: Word | None = None
    i = 1
    while i < len(words):
        w = words[i].text
        if w == "--":
            break
        if w.startswith("-"):
            key, eq, value = w.partition("=")
            if key in values and not eq and i + 1 < len(words):
                value = words[i + 1].text
                i += 1
            if (key in ("-w", "--workspace") and tool == "npm") or key in (
                    "-F", "--filter", "--filter-prod"):
                selectors.append(value)
            elif key in ("-C", "--dir", "--prefix", "--cwd"):
                dirs.append(value)
            elif key in ("-r", "--recursive", "-ws", "--workspaces"):
                every = True
            elif key in ("-w", "--workspace-root") and tool == "pnpm":
                root_only = True
            elif key == "--if-present":
                if_present = True
            i += 1
            continue
        if sub is None:
            if tool == "yarn" and w == "workspace" and i + 1 < len(words):
                selectors.append(words[i + 1].text)
                i += 2
                continue
            if tool == "yarn" and w == "workspaces":
                every = True
                i += 1
                continue
            sub = words[i]
            if sub.text in _EXEC or (tool == "yarn" and sub.text == "foreach"):
                if sub.text in _EXEC and i + 1 < len(words):
                    yield words[i + 1:]
                return
        elif name is None:
            name = words[i]
        i += 1
    if sub is None or if_present:
        return
    if sub.text in _RUN:
        kind = "run" if tool in ("npm", "pnpm") else "run-or-bin"
    elif sub.text in ("test", "t", "tst") and tool in ("npm", "pnpm"):
        kind, name = "run", Word("test", sub.at)  # `npm t`: the script `test`
    elif sub.text in _BUILTIN or tool == "npm":
        return
    else:
        kind, name = "bare", sub
        if name.text in KNOWN_CLIS or name.text in ("turbo", "nx"):
            yield words[words.index(sub):]
            return
    if name is None or placeholder(name.text) or name.text.startswith("-"):
        return
    script = name.text
    length = len(sub.text) if name.at == sub.at else len(script)
    if tool == "bun" and ("/" in script or os.path.splitext(script)[1] in (
            ".ts", ".js", ".mjs", ".cjs", ".tsx", ".jsx", ".mts", ".cts")):
        return  # `bun run scripts/x.ts`: a file (see the path check)
    if kind == "bare" and ":" not in script:
        return  # may be a binary of node_modules/.bin
    shown = _shown(words, name)
    skipped = place.project.skipped
    where: list[Package] | None = _explicit(place, selectors, dirs, every, root_only, cwd)
    if where is None:
        return  # a selector that matches nothing known: not judged
    if where:
        if any(p.scripts is None or script in p.scripts for p in where):
            return
        if kind != "run" and _binary(script, place, where):
            return
        elsewhere = [p for p in place.project.all_packages()
                     if p.scripts is not None and script in p.scripts]
        names = " or ".join(_rel(place, p) for p in where)
        also = (f" (`{elsewhere[0].name or _rel(place, elsewhere[0])}` defines it)"
                if elsewhere else "")
        yield Problem(f"`{shown}`: no script `{script}` is defined in {names}{also}.",
                      name.at, length)
        return
    candidates = _implicit(place, name.at)
    lines = [p for p in candidates if _manifest(p) in skipped]
    for p in lines:  # too large, nested too deeply, not a file: named, not checked
        yield Problem(f"`{shown}`: {_rel(place, p)} {skipped[_manifest(p)]}; its scripts"
                      " were not checked.", name.at, length)
    if lines:
        return
    if any(p.scripts is None or script in p.scripts for p in candidates):
        return
    everywhere = place.project.all_packages()
    if any(p.scripts is None or script in p.scripts for p in everywhere):
        return  # defined in a package the text may mean
    if kind != "run" and _binary(script, place, everywhere):
        return
    if not candidates:
        return  # no package.json where it runs: nothing to check against
    names = " or ".join(_rel(place, p) for p in candidates)
    more = len(everywhere) - len(candidates)
    tail = f" nor in the repository's {more} other package.json files" if more > 0 else ""
    yield Problem(f"`{shown}`: no script `{script}` is defined in {names}{tail}.",
                  name.at, length)


def _shown(words: Sequence[Word], name: Word) -> str:
    out = []
    for w in words:
        out.append(w.text)
        if w.at == name.at:
            break
    return " ".join(out)


def _manifest(pkg: Package) -> str:
    return os.path.join(pkg.directory, "package.json")


def _rel(place: Place, pkg: Package) -> str:
    return os.path.relpath(_manifest(pkg), place.root).replace(os.sep, "/")


def _explicit(place: Place, selectors: list[str], dirs: list[str], every: bool,
              root_only: bool, cwd: str | None) -> list[Package] | None:
    """Packages an explicit selector names; ``[]`` when there is none; ``None`` when one
    cannot be resolved."""
    project = place.project
    out: list[Package] = []
    base = cwd
    for d in dirs:
        moved = place.resolve_dir(d, base)
        if moved is None:
            return None
        base = moved
    if dirs:
        pkg = project.nearest_package(base or place.root)
        if pkg is None:
            return None
        if not selectors and not every and not root_only:
            return [pkg]
    if root_only:
        pkg = project.package(place.root)
        return [pkg] if pkg is not None else None
    if every:
        return project.all_packages() or None
    for sel in selectors:
        selected = _select(place, sel.strip("'\""))
        if not selected:
            return None
        out.extend(selected)
    if not selectors and cwd is not None:
        pkg = project.nearest_package(cwd)
        return [pkg] if pkg is not None else None
    return out


def _select(place: Place, sel: str) -> list[Package]:
    """Packages a ``--filter``/``--workspace`` value names (pnpm's ``...``/``^`` graph
    suffixes dropped; ``{dir}`` and ``./dir`` are directories)."""
    sel = sel.strip("{}").removesuffix("...").removeprefix("...").removesuffix("^")
    if not sel or sel.startswith("!") or "[" in sel:
        return []
    everything = place.project.all_packages()
    if sel.startswith((".", "/")) or ("/" in sel and not sel.startswith("@")):
        rel = sel.removeprefix("./").rstrip("/")
        if any(c in rel for c in "*?"):
            return [p for p in everything
                    if fnmatch.fnmatch(os.path.relpath(p.directory, place.root), rel)]
        path = place.resolve_dir(rel)
        if path is None:
            return []
        pkg = place.project.package(path)
        return [pkg] if pkg is not None else []
    if any(c in sel for c in "*?"):
        return [p for p in everything if p.name and fnmatch.fnmatch(p.name, sel)]
    found = [p for p in everything if p.name == sel]
    if not found:  # `-w web` may name the folder
        path = place.resolve_dir(sel) or place.resolve_dir(os.path.join("packages", sel)) \
            or place.resolve_dir(os.path.join("apps", sel))
        pkg = place.project.package(path) if path else None
        found = [pkg] if pkg is not None else []
    return found


def _implicit(place: Place, offset: int) -> list[Package]:
    out: list[Package] = []
    for d in place.fixed_dirs() + place.context_dirs(max(offset, 0)):
        pkg = place.project.nearest_package(d)
        if pkg is not None and pkg not in out:
            out.append(pkg)
    return out


def _binary(name: str, place: Place, packages: list[Package]) -> bool:
    """Whether ``name`` may be a binary of those packages' dependencies."""
    if name in KNOWN_CLIS:
        return True
    for pkg in packages + [p for p in [place.project.package(place.root)] if p]:
        if os.path.exists(os.path.join(pkg.directory, "node_modules", ".bin", name)):
            return True
        for dep in pkg.deps:
            base = dep.rsplit("/", 1)[-1]
            if name in (dep, base) or base in (f"{name}-cli", f"{name}js") or \
                    base.removesuffix("-cli") == name:
                return True
    return False
