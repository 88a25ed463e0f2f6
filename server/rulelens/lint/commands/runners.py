"""Task runners other than npm and make: ``just``, ``task``, ``composer``, ``nox``,
``tox``, ``turbo`` and ``nx``. Each reads its own file from where the command runs (the
file's folder up to the repository root, or a ``cd``); a file it cannot read, or a
construct that can define any name (an unreadable justfile ``import``, a Taskfile include
with ``flatten: true``, computed nox session names, generative tox environments, nx plugins
that infer targets), leaves the name alone. Justfile imports are followed; a justfile
``mod NAME`` and a Taskfile ``includes:`` key are namespaces (``just NAME recipe``,
``task NAME:task``) whose own names are not read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence

from rulelens.agents import bounded
from rulelens.lint.commands.finding import Problem
from rulelens.lint.commands.place import Place
from rulelens.lint.commands.project import Project, read_manifest
from rulelens.lint.commands.shell import Word, placeholder

_NAME = re.compile(r"[\w][\w.:-]*")


def _files(place: Place, cwd: str | None, names: tuple[str, ...]) -> list[str]:
    dirs = [cwd] if cwd is not None else place.fixed_dirs()
    out: list[str] = []
    for d in dirs:
        found = place.project.nearest(d, names)
        if found is not None and found not in out:
            out.append(found)
    return out


def _rel(place: Place, path: str) -> str:
    return os.path.relpath(path, place.root).replace(os.sep, "/")


def _judge(place: Place, cwd: str | None, names: tuple[str, ...], tool: str,
           goals: Sequence[Word], defined: Callable[[str, Project], set[str] | None],
           kind: str) -> Iterator[Problem]:
    """Report each goal defined by none of the files ``names`` where the command runs
    (``defined`` returns ``None`` for a file it cannot judge; an entry ending in ``:`` is a
    namespace whose names are not read: ``docs:`` covers ``docs:build``)."""
    files = _files(place, cwd, names)
    if not files:
        return
    sets = [defined(f, place.project) for f in files]
    if any(s is None for s in sets):
        return
    for f in files:
        place.project.read.add(f)
    for goal in goals:
        name = goal.text
        if placeholder(name) or not _NAME.fullmatch(name):
            continue
        if any(_covers(s, name) for s in sets if s is not None):
            continue
        if cwd is None and any(  # a sub-project's file the text may mean
                (s := defined(p, place.project)) is None or _covers(s, name)
                for n in names for p in place.project.files_named(n) if p not in files):
            continue
        where = " or ".join(_rel(place, f) for f in files)
        yield Problem(f"`{tool} {name}`: no {kind} `{name}` is defined in {where}.",
                      goal.at, len(name))


def _covers(names: set[str], name: str) -> bool:
    return name in names or any(name.startswith(n) for n in names if n.endswith(":"))


def _positionals(words: Sequence[Word], value_opts: frozenset[str]) -> tuple[list[Word], bool]:
    """Non-option words before ``--``, and whether a listing/help option was given."""
    out: list[Word] = []
    listing = False
    i = 1
    while i < len(words):
        w = words[i].text
        if w == "--":
            break
        if w.startswith("-"):
            if w in ("-l", "--list", "--summary", "-h", "--help", "--choose", "--dump",
                     "--evaluate", "--show", "--init", "--version", "-v"):
                listing = True
            i += 2 if w in value_opts else 1
            continue
        out.append(words[i])
        i += 1
    return out, listing


# --------------------------------------------------------------------------- just
_JUST_NAMES = ("justfile", "Justfile", ".justfile", "JUSTFILE")
_RECIPE = re.compile(r"^@?([A-Za-z_][\w-]*)(?:\s+[^:]*)?:(?![=])")
_ALIAS = re.compile(r"^alias\s+([\w-]+)\s*:=")


_JUST_IMPORT = re.compile(r"""^import(\?)?\s+(['"])([^'"]+)\2\s*(?:#.*)?$""")
_JUST_MOD = re.compile(r"^mod\??\s+([A-Za-z_][\w-]*)\b")


def _just_recipes(path: str, project: Project, depth: int = 0) -> set[str] | None:
    """Recipes and aliases of a justfile and the files it ``import``s (followed, as make's
    includes are); a ``mod NAME`` is the module ``NAME`` (``just NAME recipe``,
    ``NAME::recipe``), its recipes not read; ``None`` when a required import is unreadable."""
    text = read_manifest(path, project.skipped)
    if text is None:
        return None
    out: set[str] = set()
    for line in text.split("\n"):
        m = _JUST_IMPORT.match(line)
        if m:
            target = os.path.join(os.path.dirname(path), m.group(3))
            if m.group(1) and not os.path.lexists(target):
                continue  # `import? 'local.just'`, absent: imports nothing
            found = _just_recipes(target, project, depth + 1) if depth < 8 else None
            if found is None:
                return None
            project.read.add(target)
            out |= found
            continue
        m = _JUST_MOD.match(line)
        if m:
            out.update((m.group(1), m.group(1) + ":"))
            continue
        if re.match(r"^(?:import|mod)\b", line):
            return None  # a form not read here
        m = _ALIAS.match(line) or _RECIPE.match(line)
        if m and not line.startswith(("set ", "export ")):
            out.add(m.group(1))
    return out


def check_just(words: Sequence[Word], place: Place, cwd: str | None) -> Iterator[Problem]:
    goals, listing = _positionals(words, frozenset({"-f", "--justfile", "-d",
                                                    "--working-directory", "--set"}))
    if listing or not goals or any(w.text in ("-f", "--justfile") for w in words):
        return
    # `just recipe arg1 arg2`: only the first word is surely a recipe.
    yield from _judge(place, cwd, _JUST_NAMES, "just", goals[:1], _just_recipes, "recipe")


# --------------------------------------------------------------------------- task
_TASK_NAMES = ("Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml",
               "Taskfile.dist.yml", "taskfile.dist.yml")


_TASK_KEY = re.compile(r"""(['"]?)(.+?)\1\s*:(?:\s|$)""")


def _task_names(path: str, project: Project) -> set[str] | None:
    text = read_manifest(path, project.skipped)
    if text is None:
        return None
    out: set[str] = set()
    section = None
    indent: int | None = None
    for line in text.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        lead = len(line) - len(line.lstrip())
        if lead == 0:
            section = line.split(":", 1)[0].strip()
            indent = None
            continue
        if section == "includes":  # `docs: ./docs`: tasks `docs:NAME`, not read here
            if re.match(r"\s*flatten:\s*true\b", line):
                return None  # flattened: the included names are this file's own
            if indent is None:
                indent = lead
            if lead == indent:  # `task docs` runs the namespace's default task
                key = line.strip().split(":", 1)[0].strip().strip("'\"")
                out.update((key, key + ":"))
            continue
        if section != "tasks":
            continue
        if indent is None:
            indent = lead
        if lead == indent:
            # The key ends at the colon that ends the line or precedes a space:
            # `lint:fix:` is the task `lint:fix` (Task namespaces with colons).
            m = _TASK_KEY.match(line.strip())
            key = (m.group(2) if m else line.strip().split(":", 1)[0]).strip().strip("'\"")
            if "*" in key:
                return None  # wildcard task names
            out.add(key)
            m = re.search(r"aliases:\s*\[([^\]]*)\]", line)
            if m:
                out.update(a.strip().strip("'\"") for a in m.group(1).split(","))
        elif lead > indent and line.strip().startswith("aliases:"):
            m = re.search(r"\[([^\]]*)\]", line)
            if m:
                out.update(a.strip().strip("'\"") for a in m.group(1).split(","))
            else:
                return None  # aliases as a block list: not read here
    return out


def check_task(words: Sequence[Word], place: Place, cwd: str | None) -> Iterator[Problem]:
    goals, listing = _positionals(words, frozenset({"-d", "--dir", "-t", "--taskfile",
                                                    "-o", "--output", "-c", "--color"}))
    if listing or any(w.text in ("-t", "--taskfile", "-d", "--dir", "-g", "--global")
                      for w in words):
        return
    goals = [g for g in goals if "=" not in g.text]
    yield from _judge(place, cwd, _TASK_NAMES, "task", goals, _task_names, "task")


# ----------------------------------------------------------------------- composer
_COMPOSER_BUILTIN = frozenset({
    "about", "archive", "audit", "browse", "home", "bump", "check-platform-reqs",
    "clear-cache", "clearcache", "cc", "config", "create-project", "depends", "why",
    "diagnose", "dump-autoload", "dumpautoload", "exec", "fund", "global", "help", "init",
    "install", "i", "licenses", "list", "outdated", "prohibits", "why-not", "reinstall",
    "remove", "rm", "require", "r", "run-script", "run", "search", "self-update",
    "selfupdate", "show", "info", "status", "suggests", "update", "u", "upgrade",
    "validate", "test",
})


def _composer_scripts(path: str, project: Project) -> set[str] | None:
    text = read_manifest(path, project.skipped)
    if text is None:
        return None
    try:
        data = bounded.json_loads(text)
    except ValueError:  # not JSON, or nested too deeply (scanned before parsing)
        return None
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return set(scripts) if isinstance(scripts, dict) else set()


def check_composer(words: Sequence[Word], place: Place, cwd: str | None
                   ) -> Iterator[Problem]:
    goals, listing = _positionals(words, frozenset({"-d", "--working-dir"}))
    if listing or not goals or any(w.text.startswith(("-d", "--working-dir"))
                                   for w in words[1:]):
        return
    sub = goals[0]
    if sub.text in ("run-script", "run"):
        names = goals[1:2]
    elif sub.text in _COMPOSER_BUILTIN or ":" not in sub.text:
        return  # a command of composer or of a plugin
    else:
        names = [sub]
    tool = "composer" if names and names[0] is sub else f"composer {sub.text}"
    yield from _judge(place, cwd, ("composer.json",), tool, names, _composer_scripts,
                      "script")


# --------------------------------------------------------------------------- nox
_NOX_DEF = re.compile(r"@nox\.session(\([^)]*\))?\s*\n(?:\s*@[^\n]*\n)*\s*def\s+(\w+)")
_NOX_NAME = re.compile(r"name\s*=\s*(['\"])([^'\"]+)\1")


def _nox_sessions(path: str, project: Project) -> set[str] | None:
    text = read_manifest(path, project.skipped)
    if text is None:
        return None
    out: set[str] = set()
    for m in _NOX_DEF.finditer(text):
        args = m.group(1) or ""
        if "name=" in args.replace(" ", ""):
            named = _NOX_NAME.search(args)
            if named is None:
                return None
            out.add(named.group(2))
        else:
            out.add(m.group(2))
            out.add(m.group(2).replace("_", "-"))
    if "session(" in text and not out:
        return None
    return out


def check_nox(words: Sequence[Word], place: Place, cwd: str | None) -> Iterator[Problem]:
    goals: list[Word] = []
    for i, w in enumerate(words[:-1]):
        if w.text in ("-s", "--session", "--sessions", "-e"):
            for g in words[i + 1:]:
                if g.text.startswith("-"):
                    break
                goals.append(g)
    # `-s tests-3.12` / `tests(django='4')`: the session is the name before the suffix.
    bare = [Word(re.split(r"-\d|\(", g.text, maxsplit=1)[0], g.at) for g in goals]
    yield from _judge(place, cwd, ("noxfile.py",), "nox -s", bare, _nox_sessions, "session")


# --------------------------------------------------------------------------- tox
_TOX_SECTION = re.compile(r"^\[(?:testenv|env):([^\]]+)\]", re.MULTILINE)


def _tox_envs(path: str, project: Project) -> set[str] | None:
    text = read_manifest(path, project.skipped)
    if text is None:
        return None
    if path.endswith("pyproject.toml") and "[tool.tox" not in text:
        return None
    if "{" in text.split("[testenv", 1)[0] or "{" in "".join(_TOX_SECTION.findall(text)):
        return None  # generative environment names
    out = set(_TOX_SECTION.findall(text))
    m = re.search(r"^\s*env_?list\s*=\s*(.+(?:\n[ \t]+.+)*)", text, re.MULTILINE)
    if m:
        out.update(w.strip(" ,[]'\"") for w in re.split(r"[,\s]+", m.group(1)) if w.strip())
    # Every word of the file counts as a factor (`lint: ...` conditionals).
    out.update(re.findall(r"[\w.-]+", text))
    return out


def check_tox(words: Sequence[Word], place: Place, cwd: str | None) -> Iterator[Problem]:
    goals: list[Word] = []
    for i, w in enumerate(words[:-1]):
        if w.text in ("-e", "--env"):
            g = words[i + 1]
            at = g.at
            for part in g.text.split(","):
                goals.append(Word(part, at))
                at += len(part) + 1
    goals = [g for g in goals if g.text and not re.fullmatch(
        r"(?:py\d*|pypy\d*|py3\.\d+)(?:-.*)?|ALL", g.text)]
    # A factor name (`py311-lint`) is defined when each factor is.
    for goal in goals:
        for part in goal.text.split("-"):
            yield from _judge(place, cwd, ("tox.ini", "tox.toml"), "tox -e",
                              [Word(part, goal.at)], _tox_envs, "environment")


# ------------------------------------------------------------------------- turbo
_TURBO_BUILTIN = frozenset({"prune", "gen", "generate", "login", "logout", "link", "unlink",
                            "daemon", "ls", "query", "info", "telemetry", "boundaries",
                            "scan", "bin", "completion", "devtools", "help", "docs"})


def _turbo_tasks(path: str, project: Project) -> set[str] | None:
    text = read_manifest(path, project.skipped)
    if text is None:
        return None
    try:
        data = bounded.json_loads(re.sub(r"^\s*//.*$", "", text, flags=re.MULTILINE))
    except ValueError:  # not JSON, or nested too deeply (scanned before parsing)
        return None
    tasks = data.get("tasks", data.get("pipeline")) if isinstance(data, dict) else None
    if not isinstance(tasks, dict):
        return None
    return {k.rsplit("#", 1)[-1] for k in tasks}


def check_turbo(words: Sequence[Word], place: Place, cwd: str | None) -> Iterator[Problem]:
    goals, listing = _positionals(words, frozenset({"--filter", "-F", "--concurrency",
                                                    "--output-logs", "--log-order", "--cwd",
                                                    "--cache-dir", "--graph", "--env-mode",
                                                    "--log-prefix", "--cache", "--ui"}))
    if listing or not goals or goals[0].text in _TURBO_BUILTIN:
        return
    if goals[0].text in ("run", "watch"):
        goals = goals[1:]
    root = place.project.nearest(place.root, ("turbo.json", "turbo.jsonc"))
    if root is None:
        return
    tasks = _turbo_tasks(root, place.project)
    if tasks is None:
        return
    place.project.read.add(root)
    scripts = {s for p in place.project.all_packages() if p.scripts for s in p.scripts}
    for goal in goals:
        name = goal.text
        if placeholder(name) or name in tasks or name in scripts or "#" in name:
            continue
        yield Problem(f"`turbo run {name}`: no task `{name}` is defined in"
                      f" {_rel(place, root)} nor as a script of any package.", goal.at,
                      len(name))


# ---------------------------------------------------------------------------- nx
def check_nx(words: Sequence[Word], place: Place, cwd: str | None) -> Iterator[Problem]:
    goals, listing = _positionals(words, frozenset({"-c", "--configuration", "-p",
                                                    "--projects", "--exclude", "--base",
                                                    "--head", "--parallel"}))
    if listing or not goals or goals[0].text != "run" or len(goals) < 2:
        return
    spec = goals[1]
    if ":" not in spec.text:
        return
    project_name = spec.text.split(":", 1)[0]
    nx_json = os.path.join(place.root, "nx.json")
    text = read_manifest(nx_json) or ""
    if '"plugins"' in text or placeholder(project_name):
        return  # plugins infer projects and targets
    names = {p.name for p in place.project.all_packages() if p.name}
    names.update(os.path.basename(p.directory) for p in place.project.all_packages())
    for path in place.project.files_named("project.json"):
        found = read_manifest(path) or ""
        m = re.search(r'"name"\s*:\s*"([^"]+)"', found)
        names.add(m.group(1) if m else os.path.basename(os.path.dirname(path)))
    if project_name not in names:
        yield Problem(f"`nx run {spec.text}`: no project `{project_name}` is defined in the"
                      " workspace (project.json or package.json names).", spec.at,
                      len(project_name))
