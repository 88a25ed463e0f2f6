"""``make``: which targets a Makefile defines, as GNU make would find them.

Explicit rules, double-colon rules, ``.PHONY`` names, pattern rules (``%.o: %.c`` makes
``foo.o``), ``include``/``-include``/``sinclude`` (followed, relative to the directory make
runs in), ``-C dir``/``--directory=dir``/``-f file``/``--file=file``, and targets computed
from variables the Makefile assigns plainly (``PROGS = a b`` then ``$(PROGS):`` makes ``a``
and ``b``; ``$(TOOLS)/lint`` makes no bare ``deploy``). A construct that could define the
name asked about (a target computed from a variable RuleLens cannot know, ``$(eval ...)``,
an include whose name is computed or that cannot be read) is not guessed at: a target that
is not found is then not reported as missing (RL506) but named in an information note
(RL507) that says which construct, where, may define it; every other target of the same
Makefile is still checked. A target that is an existing file, or a file make's built-in
rules can build (``make hello`` with ``hello.c``), is defined. Each Makefile is parsed once
per :class:`~rulelens.lint.commands.project.Project`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from rulelens.lint.commands.finding import Problem
from rulelens.lint.commands.place import Place
from rulelens.lint.commands.project import Project, read_manifest
from rulelens.lint.commands.shell import Word, placeholder

TOOLS = frozenset({"make", "gmake"})
NAMES = ("GNUmakefile", "makefile", "Makefile")
_RULE = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?(?![=])(?!\S*=)")
_INCLUDE = re.compile(r"^\s*(?:-include|sinclude|include)\s+(.+)$")
_DEFINE = re.compile(r"^\s*define\s")
_TOP_CALL = re.compile(r"^\s*\$\((?:eval|call|foreach)\b")
_VALUE_OPTS = frozenset({"-C", "--directory", "-f", "--file", "--makefile", "-j", "--jobs",
                         "-l", "-o", "-W", "-I"})
_MAX_INCLUDES = 20
_ASSIGNMENT = re.compile(r"^\s*(?:(?:export|override|private)\s+)*([A-Za-z_][\w.-]*)\s*"
                         r"(:::=|::=|:=|\?=|!=|\+=|=)\s*(.*)$")
#: ``$(VAR)``, ``${VAR}``, ``$V`` (nested references are not split: see :func:`_shape`).
_REF = re.compile(r"(\$\([^()$]*\)|\$\{[^{}$]*\}|\$[^({])")
_VAR = re.compile(r"[A-Za-z_][\w.-]*")
_MAX_EXPANSIONS = 64
_MAX_WILDCARDS = 4
#: A dotenv file (``KEY=value`` lines) included for its variables: absent, it defines nothing.
_ENV_FILE = re.compile(r"(?:^|/)\.env(?:\.[\w.-]+)?$|\.env$")
_MAX_SHOWN = 40


@dataclass
class Targets:
    names: set[str] = field(default_factory=set)
    patterns: list[re.Pattern[str]] = field(default_factory=list)
    #: The Makefile and the files it includes, as read.
    files: list[str] = field(default_factory=list)
    #: Constructs not understood, each as "`what` (file:line, why)".
    unknown: list[str] = field(default_factory=list)
    #: The text of those constructs (a name written in one, as in ``$(eval gen: ...)``, is
    #: taken as defined).
    unknown_text: list[str] = field(default_factory=list)
    #: The computed name each stands for (``tools/$(X)``), ``None``: it may define any name.
    unknown_name: list[str | None] = field(default_factory=list)
    #: Simple variable assignments (``X = a``, ``X := a``), each value as written; ``None``
    #: for a value RuleLens does not know (``?=``, ``+=``, ``!=``, ``define``).
    variables: dict[str, list[str | None]] = field(default_factory=dict)

    def defines(self, target: str) -> bool:
        return target in self.names or any(p.fullmatch(target) for p in self.patterns)

    def not_understood(self, what: str, text: str, name: str | None = None) -> None:
        self.unknown.append(what)
        self.unknown_text.append(text[:_MAX_SHOWN * 4])
        self.unknown_name.append(name)

    def unknown_for(self, target: str) -> list[str]:
        """The constructs not understood that could define ``target``: a computed name
        only when its shape, variables expanded, fits (``$(TOOLS)/lint`` never makes
        ``deploy``)."""
        out = []
        for what, name in zip(self.unknown, self.unknown_name, strict=True):
            shape = None if name is None else _shape_of(name, self.variables)
            if shape is None or re.fullmatch(shape[0], target):
                out.append(what)
        return out

    def computes(self, target: str) -> bool:
        """Whether a computed name whose variables are all known makes ``target``
        (``PROGS = a b`` and ``$(PROGS):`` make ``a``)."""
        for name in self.unknown_name:
            shape = None if name is None else _shape_of(name, self.variables)
            if shape is not None and shape[1] and re.fullmatch(shape[0], target):
                return True
        return False

    def may_define(self, target: str) -> bool:
        """Whether a construct not understood spells ``target`` out (``$(eval gen: ...)``)."""
        return any(re.search(rf"(?<![\w.-]){re.escape(target)}(?![\w.-])", t)
                   for t in self.unknown_text)


def targets(makefile: str, project: Project) -> Targets | None:
    """Targets of ``makefile`` and what it includes; ``None`` when it cannot be read.
    Parsed once per project; the files it read are recorded again on every answer (the
    result cache keys each document on them)."""
    if makefile in project.parsed:
        cached = project.parsed[makefile]
        if isinstance(cached, Targets):
            project.read.update(cached.files)
            return cached
        return None
    out = Targets()
    found = out if _read(makefile, os.path.dirname(makefile), out, project, 0) else None
    project.parsed[makefile] = found
    return found


def _read(path: str, run_dir: str, out: Targets, project: Project, depth: int) -> bool:
    text = read_manifest(path, project.skipped)
    if text is None:
        return False
    project.read.add(path)
    out.files.append(path)
    rel = os.path.relpath(path, project.root)
    text = re.sub(r"\\\n", " ", text)
    in_define = False
    for n, line in enumerate(text.split("\n"), 1):
        if in_define:
            in_define = not line.strip().startswith("endef")
            continue
        if _DEFINE.match(line):
            in_define = True
            defined = line.split("define", 1)[1].split()
            if defined:  # `define NAME`: a value RuleLens does not know
                out.variables.setdefault(defined[0], []).append(None)
            continue
        if line.startswith("\t") or not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _INCLUDE.match(line)
        if m:
            for name in m.group(1).split("#", 1)[0].split():
                if "$" in name or any(c in name for c in "*?["):
                    out.not_understood(f"`include {name}` ({rel}:{n}, a computed file name)",
                                       line)
                    continue
                inc = os.path.join(run_dir, name)
                read = depth < _MAX_INCLUDES and _read(inc, run_dir, out, project, depth + 1)
                if not read and not _ENV_FILE.search(name):  # `.env`: variables, no rules
                    out.not_understood(f"`include {name}` ({rel}:{n}, not readable)", line)
            continue
        if _TOP_CALL.match(line):
            out.not_understood(f"`{_shown(line.strip())}` ({rel}:{n}, make code RuleLens does"
                               " not run)", line)
            continue
        m = _ASSIGNMENT.match(line)
        if m:
            value = m.group(3).split("#", 1)[0].strip()
            known = m.group(2) in ("=", ":=", "::=", ":::=")
            out.variables.setdefault(m.group(1), []).append(value if known else None)
            continue
        m = _RULE.match(line)
        if not m:
            continue
        head = m.group(1)
        if head.startswith((".PHONY", ".SECONDARY", ".PRECIOUS", ".INTERMEDIATE")):
            rest = line.split(":", 1)[1].split("#", 1)[0]
            out.names.update(w for w in rest.split() if "$" not in w)
            continue
        if "=" in head or head.strip().startswith(("export ", "override ", "ifeq", "ifneq",
                                                   "ifdef", "ifndef", "else", "endif")):
            continue
        for name in head.split():
            if "$" in name:
                out.not_understood(f"`{_shown(name)}` ({rel}:{n}, a computed target name)",
                                   line, name)
            elif "%" in name:
                out.patterns.append(re.compile(re.escape(name).replace("%", ".+")))
            else:
                out.names.add(name)
    return True


def check(words: Sequence[Word], place: Place, cwd: str | None) -> Iterator[Problem]:
    run_dir = cwd
    makefile: str | None = None
    goals: list[Word] = []
    i = 1
    while i < len(words):
        w = words[i].text
        opt: str | None = None
        value = ""
        if w.startswith("--") and "=" in w:  # `--directory=docs`
            opt, _, value = w.partition("=")
        elif w in _VALUE_OPTS and i + 1 < len(words):  # `-C docs`
            opt, value = w, words[i + 1].text
            i += 1
        elif w[:2] in ("-C", "-f") and len(w) > 2:  # `-Cdocs`
            opt, value = w[:2], w[2:]
        if opt in ("-C", "--directory"):
            found = place.resolve_dir(value, run_dir)
            if found is None:
                return
            run_dir = found
        elif opt in ("-f", "--file", "--makefile"):
            makefile = value
        elif opt is None and not w.startswith("-") and "=" not in w:
            goals.append(words[i])
        i += 1
    if makefile is not None:
        path = os.path.join(run_dir or place.doc_dir, makefile)
        if not os.path.isfile(path):
            return
        files = [path]
    elif run_dir is not None:
        found = next((os.path.join(run_dir, n) for n in NAMES
                      if os.path.isfile(os.path.join(run_dir, n))), None)
        if found is None:
            return
        files = [found]
    else:
        files = []
        for d in place.fixed_dirs() + place.context_dirs(goals[0].at if goals else 0):
            found = place.project.nearest(d, NAMES)
            if found is not None and found not in files:
                files.append(found)
    if not files:
        return
    parsed = [(f, targets(f, place.project)) for f in files] if goals else []
    for goal in goals:
        name = goal.text
        if placeholder(name) or not re.fullmatch(r"[\w.+/-]+", name):
            continue
        skipped = [f for f in files if f in place.project.skipped]
        for f in skipped:  # too large or unreadable: named once, its targets unchecked
            yield Problem(f"`make {name}`: {_rel(place, f)} {place.project.skipped[f]}; its"
                          " targets were not checked.", goal.at, len(name))
        if skipped:
            continue
        if any(t is None or t.defines(name) or t.may_define(name) or t.computes(name)
               for _, t in parsed):
            continue
        if any(_builtin_buildable(os.path.dirname(f), name) for f in files):
            continue
        if run_dir is None and makefile is None and _elsewhere(place, name, files):
            continue
        where = " or ".join(_rel(place, f) for f, _ in parsed)
        unknown = [u for _, t in parsed if t is not None for u in t.unknown_for(name)]
        if unknown:  # only what such a construct could define is left unchecked
            more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
            yield Problem(f"`make {name}`: not checked: no target `{name}` is among those"
                          f" RuleLens read in {where}, but {unknown[0]}{more} may define it."
                          " Every other target is checked.", goal.at, len(name), "RL507")
            continue
        yield Problem(f"`make {name}`: no target `{name}` is defined in {where}.",
                      goal.at, len(name))


def _shape_of(name: str, variables: dict[str, list[str | None]]) -> tuple[str, bool] | None:
    """:func:`_shape`, bounded: at most :data:`_MAX_EXPANSIONS` variable values expanded
    and :data:`_MAX_WILDCARDS` "any text" parts (more, and the name may be anything: a
    hostile Makefile can make neither the expansion nor the match slow)."""
    found = _shape(name, variables, 0, [_MAX_EXPANSIONS])
    if found is None or found[0].count(".*") > _MAX_WILDCARDS:
        return None
    return found


def _shape(name: str, variables: dict[str, list[str | None]], depth: int, budget: list[int]
           ) -> tuple[str, bool] | None:
    """A regular expression of the names a computed target can be, and whether it is
    exact (every reference a variable assigned plainly: ``X = a b``, ``X := $(Y)/a``, in
    any branch); any other reference is any text. ``None`` when nested references make
    it unclear."""
    parts = _REF.split(name)
    if any("$" in p or "(" in p or ")" in p for p in parts[::2]):
        return None
    out = []
    exact = True
    for i, part in enumerate(parts):
        if i % 2 == 0:
            out.append(re.escape(part).replace("%", ".+"))
            continue
        var = part[2:-1] if part[1] in "({" else part[1:]
        values = variables.get(var) if depth < 4 and _VAR.fullmatch(var) else None
        alternatives: list[str] = []
        for value in values or [None]:
            budget[0] -= 1
            words = value.split() if value is not None and budget[0] >= 0 else None
            if words is None or (len(words) > 1 and (len(parts) > 3 or parts[0] or parts[2])):
                alternatives, exact = [".*"], False  # unknown, or a list inside a name
                break
            for word in words or [""]:
                inner = _shape(word, variables, depth + 1, budget)
                alternatives.append(".*" if inner is None else inner[0])
                exact = exact and inner is not None and inner[1]
        out.append("(?:" + "|".join(dict.fromkeys(alternatives)) + ")")
    return "".join(out), exact


def _shown(text: str) -> str:
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN - 1] + "…"


def _rel(place: Place, path: str) -> str:
    return os.path.relpath(path, place.root).replace(os.sep, "/")


def _builtin_buildable(directory: str, name: str) -> bool:
    if os.path.exists(os.path.join(directory, name)):
        return True
    try:
        return any(e.startswith(name + ".") for e in os.listdir(directory))
    except OSError:
        return False


def _elsewhere(place: Place, name: str, checked: list[str]) -> bool:
    """Whether a sub-Makefile the text may mean defines ``name`` (or cannot say)."""
    for n in NAMES:
        for path in place.project.files_named(n):
            if path in checked:
                continue
            t = targets(path, place.project)
            if t is None or t.defines(name):
                return True
    return False
