"""Commands in instruction files, each checked where it would run (RL506), and the files
handed to them (RL505).

* :mod:`.shell`: command lines in fences, code spans and prose, split like a shell;
* :mod:`.place`: where a command may run (``cd``, the file's folder, the root, packages
  named around it, the scope of a scoped rule);
* :mod:`.project`: what the repository defines, read through bounded reads, once;
* one resolver per ecosystem: :mod:`.node` (npm, pnpm, yarn, bun), :mod:`.make`,
  :mod:`.runners` (just, task, composer, nox, tox, turbo, nx).

``uv run``/``poetry run``/``pdm run``/``hatch run``/``npx``/``bunx`` run binaries or
project scripts, which a checkout cannot enumerate: only the files they are handed are
checked.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence

from rulelens.lint.candidates import NOT_SOURCE, slot
from rulelens.lint.commands import make, node, runners
from rulelens.lint.commands.finding import Problem
from rulelens.lint.commands.place import Place
from rulelens.lint.commands.project import Project
from rulelens.lint.commands.shell import Invocation, Word, code_blocks, invocations, placeholder

__all__ = ["Place", "Problem", "Project", "code_blocks", "problems"]

_RESOLVERS: dict[str, Callable[[Sequence[Word], Place, str | None],
                               Iterator[Problem | Sequence[Word]]]] = {
    **{t: node.check for t in node.TOOLS},
    **{t: make.check for t in make.TOOLS},
    "just": runners.check_just,
    "task": runners.check_task,
    "composer": runners.check_composer,
    "nox": runners.check_nox,
    "tox": runners.check_tox,
    "turbo": runners.check_turbo,
    "nx": runners.check_nx,
}
#: Runners of binaries or project scripts: the rest of the line is a command.
_WRAPPERS = frozenset({"npx", "bunx", "pnpx"})
_PY_RUNNERS = frozenset({"uv", "poetry", "pdm", "hatch", "rye", "pipenv"})
#: Interpreters whose first non-option argument is a file.
_INTERPRETERS = frozenset({"python", "python3", "py", "node", "bash", "sh", "zsh", "source",
                           ".", "tsx", "ts-node", "ruby", "perl", "php", "pwsh", "deno",
                           "bun", "Rscript"})
_FILE = re.compile(r"^(?:\./)?(?:[\w@.-]+/)*[\w@.-]+\.(?:py|js|mjs|cjs|ts|mts|tsx|sh|bash"
                   r"|rb|pl|php|ps1|R)$|^(?:\./)?[\w.-]+/[\w./-]*[\w-]$")
_SCRIPT_EXT = re.compile(r"\.(?:py|js|mjs|cjs|ts|sh|bash|rb|pl|php|ps1)$")
_MAX_DEPTH = 3
#: ``node bin/cli`` runs ``bin/cli.js``: Node's loader tries these for a path without an
#: extension (tsx, ts-node, bun and deno try TypeScript too).
_NODE_LIKE = frozenset({"node", "tsx", "ts-node", "bun", "deno"})
_NODE_SUFFIXES = ("", ".js", ".mjs", ".cjs", ".json", ".node", ".ts", ".mts", ".cts", ".tsx",
                  "/index.js", "/index.mjs", "/index.cjs", "/index.ts")


def problems(text: str, start: int, blocks: list[tuple[int, int]], place: Place,
             ignored: Callable[[str], bool]) -> Iterator[Problem]:
    """Every command problem of the document."""
    for inv in invocations(text, start, blocks):
        cwd = None
        if inv.cd is not None:
            cwd = place.resolve_dir(inv.cd)
            if cwd is None:
                continue  # `cd` somewhere unknown: where it runs is unknown
        for problem in _dispatch(inv, inv.words, place, cwd, ignored, 0):
            if problem.code == "RL505" and _made_here(
                    text, text[problem.at:problem.at + problem.length]):
                continue  # `wget …/dotnet-install.sh && ./dotnet-install.sh`
            yield problem


def _dispatch(inv: Invocation, words: Sequence[Word], place: Place, cwd: str | None,
              ignored: Callable[[str], bool], depth: int) -> Iterator[Problem]:
    if not words or depth > _MAX_DEPTH:
        return
    head = words[0].text
    if head in _WRAPPERS or head in _PY_RUNNERS:
        rest = [w for w in words[1:] if not w.text.startswith("-")]
        if head in _PY_RUNNERS:
            if not rest or rest[0].text != "run":
                return
            rest = rest[1:]
        yield from _dispatch(inv, rest, place, cwd, ignored, depth + 1)
        return
    if not inv.code and head not in node.TOOLS:
        return
    resolver = _RESOLVERS.get(head)
    if resolver is not None:
        for found in resolver(words, place, cwd):
            if isinstance(found, Problem):
                yield found
            else:
                yield from _dispatch(inv, found, place, cwd, ignored, depth + 1)
        return
    if inv.code and not any(placeholder(w.text) and "=" not in w.text for w in words):
        yield from _handed_path(words, place, cwd, ignored, inv.fenced or depth > 0)


def _made_here(text: str, ref: str) -> bool:
    """Whether the text fetches or makes the file it then runs (``wget URL/x.sh``,
    ``curl -o x.sh``, ``cp a x.sh``, ``> x.sh``): absent from a checkout by design."""
    name = re.escape(ref.rsplit("/", 1)[-1])
    return re.search(rf"\b(?:wget|curl|touch|cp|mv|ln|tee|unzip|tar|git clone)\b[^\n]*?"
                     rf"(?<![\w.-]){name}(?![\w.-])|>\s*\S*(?<![\w.-]){name}(?![\w.-])",
                     text) is not None


def _runs_a_file(head: str, fenced: bool, n_words: int) -> bool:
    """``./tools/x.sh`` or ``scripts/seed.py`` as the command itself (in a fence, or in a
    span with arguments: a lone backticked path is a mention, judged as one)."""
    script = "/" in head and _SCRIPT_EXT.search(head) is not None
    return (fenced and (script or head.startswith(("./", "../")))) or (n_words > 1 and script)


def _handed_path(words: Sequence[Word], place: Place, cwd: str | None,
                 ignored: Callable[[str], bool], fenced: bool) -> Iterator[Problem]:
    """The file an interpreter is handed, or a command that is itself a path."""
    head = words[0].text
    arg: Word | None = None
    if head in _INTERPRETERS:
        for w in words[1:]:
            if w.text in ("-m", "-c", "-e", "--eval", "-p", "--print", "-r"):
                return  # a module or inline code, not a file
            if w.text.startswith("-") or (head == "deno" and w.text in ("run", "task")):
                continue
            arg = w
            break
        if head == "deno" and len(words) > 1 and words[1].text == "task":
            return
    elif _runs_a_file(head, fenced, len(words)):
        arg = words[0]  # `./tools/x.sh`, `scripts/seed.py`: the command is a file
    if arg is None:
        return
    ref = arg.text
    if not _FILE.match(ref) or placeholder(ref) or slot(ref) or ref.startswith(("/", "~", "-")):
        return
    if "/" not in ref and cwd is None:
        return  # `node cline-core.js`, `php artisan`: from a folder the text does not say
    parts = ref.removeprefix("./").split("/")
    if any(p in NOT_SOURCE or p == ".." for p in parts[:-1]):
        return
    dirs = [cwd] if cwd is not None else place.fixed_dirs() + place.context_dirs(arg.at)
    tried = [os.path.normpath(os.path.join(d, ref)) for d in dirs]
    suffixes = _NODE_SUFFIXES if head in _NODE_LIKE and not os.path.splitext(ref)[1] else ("",)
    if any(os.path.lexists(p + s) for p in tried for s in suffixes):
        return
    if any(ignored(p) for p in tried):
        return
    if not any(os.path.isdir(os.path.dirname(p)) for p in tried):
        return  # the whole path is relative to something else
    rel = os.path.relpath(tried[0], place.root).replace(os.sep, "/")
    from_where = "where the command runs" if cwd is not None else \
        "the repository root or the file's folder"
    yield Problem(f"The path `{ref}` (run with `{head}`) does not exist from {from_where}"
                  f" ({rel}).", arg.at, len(ref), "RL505")
