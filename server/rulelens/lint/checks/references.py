"""Reference family: what an instruction file points at must exist where agents read it.

* ``@imports`` (Claude Code and Gemini CLI syntax, outside code spans and fences): the
  target is missing (RL501), gitignored so it can never be committed (RL502), part of an
  import cycle (RL503) or deeper than the agent's limit (RL504: Claude Code four hops,
  Gemini CLI five for a ``GEMINI.md``; the limits come from the profile rows);
* relative Markdown links and backticked repository paths that look like files, or
  folders written with their trailing slash (``pkg/toolsets/``) (RL505), judged
  conservatively: globs, placeholders, negative examples ("do not create `x`"), build
  outputs and gitignored paths (nested ``.gitignore`` files too), files the text downloads,
  paths in another repository and the files of vendored dependencies are never reported;
* ``npm|pnpm|yarn|bun run X`` against the nearest ``package.json`` and the repository
  root's, and ``make X`` against the nearest ``Makefile``, both where written as code (a
  code span or fence; "make sure" is prose) (RL506): "not defined in <file>", never a
  guess.

Every reference is evaluated from the directory the agent reads the file in (its spelled
path) and, for a file reached through a symlink, from its real location too: a link that
works only from the real file is reported as such.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from typing import Any
from urllib.parse import unquote

from rulelens.agents import fsio, safeio
from rulelens.agents.approval import MAX_IMPORTS, Approval
from rulelens.agents.fs import canonical
from rulelens.agents.imports import claude_imports
from rulelens.lint.candidates import NOT_SOURCE, slot
from rulelens.lint.checks.agents import import_limit
from rulelens.lint.context import Context
from rulelens.lint.formats import is_instruction_file
from rulelens.lint.globs import glob_list
from rulelens.lint.model import Range

CODES = ("RL501", "RL502", "RL503", "RL504", "RL505", "RL506", "RL507")

_MAX_PER_CHECK = 20
_IMPORT = re.compile(r"(?:(?<=\s)|^)@((?:\.{1,2}/|~/|/)?[\w.-][\w./-]*)", re.MULTILINE)
_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"\n]*\")?\s*\)")
_SPAN = re.compile(r"(`+)([^`\n]+?)\1")
#: A backticked path that looks like a file of the repository.
_PATHLIKE = re.compile(r"^(?:\./)?[\w.-]+(?:/[\w.-]+)+\.[A-Za-z0-9]{1,8}$")
#: A heading line, and a folder it names (`js/app/`, (packages/web)).
_HEADING = re.compile(r"^#{1,6}[ \t]+([^\n]+)$", re.MULTILINE)
_HEADING_DIR = re.compile(r"(?<![\w./-])([\w.-]+(?:/[\w.-]+)*/|[\w.-]+(?:/[\w.-]+)+)(?![\w/.-])")
#: A backticked folder of two segments or more, written with its trailing slash (`pkg/x/`).
_DIRLIKE = re.compile(r"^(?:\./)?[\w.-]+(?:/[\w.-]+)+/$")
_NEGATIVE = re.compile(r"\b(?:do not|don't|never|avoid|instead of|not|no longer|remove"
                       r"|delete|deprecated|e\.g\.|for example|such as|like)\b", re.IGNORECASE)
_IMPORT_KINDS = ("named", "claude-rule")
#: A sentence about a file to make, not one that exists.
_CREATE = re.compile(r"\b(?:create[sd]?|creating|add a new|new file|generate[sd]?|scaffold"
                     r"|will be (?:written|created|generated)|write (?:it |them )?(?:to|into)"
                     r"|output(?:s|ted)? (?:to|into)|emit(?:s|ted)? (?:to|into)|touch|mkdir"
                     r"|rename[sd]? (?:it |them )?to|move[sd]? (?:it |them )?to)\b",
                     re.IGNORECASE)
#: A sentence about a file in another repository.
_ELSEWHERE = re.compile(r"\b(?:that|another|other|sibling|upstream|separate|external|their"
                        r"|the [\w.-]+)\s+(?:repo|repository|project|codebase)\b"
                        r"|\bin `?[\w.-]+/[\w.-]+`? (?:repo|repository)\b"
                        r"|\bin \[`?[\w.-]+/[\w.-]+`?\]\(https?://", re.IGNORECASE)
#: A line that shows an example, not a file of this repository.
_EXAMPLE = re.compile(r"\b(?:e\.g\.|for example|for instance|such as|example\b|if it exists"
                      r"|if (?:one )?exists|if present|if any)", re.IGNORECASE)
#: A path shown as the form of something ("using relative paths (`./state.md`)").
_FORM_OF = re.compile(r"\b(?:paths?|links?|names?|form|format|style|syntax|convention)"
                      r"\s*\(\s*$", re.IGNORECASE)
#: A sentence about the user's own machine (home or user-level settings).
_PERSONAL_LINE = re.compile(r"~/|\$HOME|%USERPROFILE%|\buser[- ]level\b|\bhome director"
                            r"|\bglobal (?:config|settings)|\byour (?:own )?machine\b",
                            re.IGNORECASE)


def run(ctx: Context) -> None:
    doc = ctx.doc
    kind = doc.fmt.kind
    if kind == "other":
        return
    text = doc.text
    # One-character tests run at memchr speed; multi-character searches of every text
    # would cost more than the checks (a thousand files of prose have none of these).
    has_at = kind in _IMPORT_KINDS and "@" in text
    has_link = "]" in text and "](" in text
    has_code = "`" in text or "~" in text
    has_span = has_code and "`" in text
    has_script = has_code or " run " in text  # code, or `npm run x` in prose
    if not (has_at or has_link or has_span or has_script):
        return  # the usual case for prose: one C-level search each
    if _vendored(ctx):
        return  # `vendor/go.opentelemetry.io/otel/AGENTS.md`: its own project's references
    scan = _Scan(ctx)
    if has_at:
        scan.imports()
    if scan.echo == "same":
        return  # `CLAUDE.md -> AGENTS.md`: the real file's findings, reported once there
    if has_link:
        scan.links()
    if has_span:
        scan.backticked()
    if has_script and scan.echo is None:
        scan.commands()


class _Scan:
    """The document's text with its fences and code spans, and the places to resolve from."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        doc = ctx.doc
        self.text = doc.text
        self.start = doc.offset_of_line(doc.body_line) if doc.body_line else 0
        # Fences at any indentation (a fence inside a list item is code too).
        from rulelens.lint.commands.shell import code_blocks  # only files with references

        self.blocks = code_blocks(self.text, self.start)
        self.fences = [(self.text.rfind("\n", 0, max(a - 1, 0)) + 1, b)
                       for a, b in self.blocks]
        self.fence_starts = [a for a, _ in self.fences]
        self.spelled_dir = doc.directory
        real = ctx.canonical_path
        self.real_dir = os.path.dirname(real) if real != doc.path else None
        self.root = ctx.git_root
        #: The folder the file governs (a rules directory's owner: the workspace root).
        self.owner_dir = doc.fmt.owner
        self.rules_dir = doc.fmt.rules_dir is not None
        #: Imports are opened only inside the repository (without one: the folder the
        #: file governs and its own): whether a path outside exists never changes a finding.
        self.approval = Approval.of([self.root] if self.root else
                                    [self.owner_dir, self.spelled_dir,
                                     *([self.real_dir] if self.real_dir else [])])
        self.counts: dict[str, int] = {}
        self.reported: set[str] = set()
        #: Nested ``.gitignore`` matchers by folder (None: the folder has none).
        self.nested_ignores: dict[str, Any] = {}
        self._scope_dirs: list[str] | None = None
        #: A symlink to another instruction file of the repository, linted on its own:
        #: "same" (same folder: every reference resolves alike), "other" (only what works
        #: from the real file and not from here is this spelling's finding), else None.
        self.echo: str | None = None
        if self.real_dir is not None and self.root is not None and \
                real.startswith(self.root.rstrip(os.sep) + os.sep) and is_instruction_file(real):
            self.echo = "same" if os.path.normpath(self.real_dir) == \
                os.path.normpath(self.spelled_dir) else "other"

    # ------------------------------------------------------------------ helpers
    def in_fence(self, offset: int) -> bool:
        i = bisect_right(self.fence_starts, offset) - 1
        return i >= 0 and self.fences[i][0] <= offset < self.fences[i][1]

    def line_of(self, offset: int) -> tuple[int, int, str]:
        """(line number, offset of its start, its text)."""
        start = self.text.rfind("\n", 0, offset) + 1
        end = self.text.find("\n", offset)
        line, _ = self.ctx.doc.position(start)
        return line, start, self.text[start:end if end >= 0 else len(self.text)]

    def in_span(self, offset: int) -> bool:
        _, start, line = self.line_of(offset)
        col = offset - start
        return any(m.start() <= col < m.end() for m in _SPAN.finditer(line))

    def emit(self, code: str, message: str, offset: int, length: int) -> None:
        n = self.counts.get(code, 0)
        if n >= _MAX_PER_CHECK:
            return
        self.counts[code] = n + 1
        line, col = self.ctx.doc.position(offset)
        self.ctx.emit(code, message, Range.of(line, col, line, col + length))

    def ignored(self, path: str, folder: bool = False) -> bool:
        if self.root is None:
            return False
        ignore = self.ctx.caches.ignore_for(self.root)
        return ignore is not None and (ignore.is_ignored_dir(path) if folder
                                       else ignore.is_ignored(path))

    def ancestors(self) -> list[str]:
        """The folders between the file's folder and the repository root (exclusive)."""
        out: list[str] = []
        root = self.root
        directory = os.path.dirname(self.spelled_dir)
        while root and len(directory) > len(root.rstrip(os.sep)) and directory.startswith(root):
            out.append(directory)
            directory = os.path.dirname(directory)
        return out

    def scope_dirs(self) -> list[str]:
        """The folders a scoped rule is about (``applyTo: 'src/standalone/**/*.ts'`` ->
        ``src/standalone``) or its headings name ("# Frontend Development (js/app/)"): its
        paths may be written from there ("add it to `api/index.ts`")."""
        if self._scope_dirs is None:
            self._scope_dirs = []
            base = self.root or self.owner_dir
            named = [m.group(1) for line in _HEADING.findall(self.text, self.start)
                     for m in _HEADING_DIR.finditer(line)]
            for glob in [*_scopes(self.ctx), *named]:
                fixed = []
                for part in glob.strip().strip("'\"").lstrip("/").split("/"):
                    if any(c in part for c in "*?[]{}!"):
                        break
                    fixed.append(part)
                if fixed and fixed != [".."]:
                    folder = os.path.normpath(os.path.join(base, *fixed))
                    if os.path.isdir(folder) and folder not in self._scope_dirs:
                        self._scope_dirs.append(folder)
        return self._scope_dirs

    def ignored_below(self, path: str) -> bool:
        """Whether a ``.gitignore`` of a folder between the repository root and ``path``
        (git reads those; the agents' matcher reads the root one only) ignores it:
        ``ca/*.crt`` in ``agent-think/.gitignore`` for "drop the CA at `ca/warp-ca.crt`"."""
        root = self.root
        if root is None or not path.startswith(root.rstrip(os.sep) + os.sep):
            return False
        folder = path.endswith("/")  # `build/`-style patterns match a folder only
        path = path.rstrip("/")
        directory = os.path.dirname(path)
        while len(directory) > len(root.rstrip(os.sep)) and directory.startswith(root):
            spec = self.nested_ignores.get(directory, False)
            if spec is False:
                spec = self.nested_ignores[directory] = _nested_ignore(directory)
                if spec is not None:
                    self.ctx.caches.deps.add(os.path.join(directory, ".gitignore"))
            rel = os.path.relpath(path, directory) + ("/" if folder else "")
            if spec is not None and spec.match_file(rel):
                return True
            directory = os.path.dirname(directory)
        return False

    def resolve(self, ref: str) -> tuple[str, bool, str | None]:
        """``(path from the spelled directory, exists there, path from the real directory
        when only that one exists)``."""
        spelled = os.path.normpath(os.path.join(self.spelled_dir, ref))
        if self.approval.resolve(spelled) is None:
            return spelled, True, None  # outside the repository: not judged, never probed
        if os.path.lexists(spelled):
            return spelled, True, None
        if self.real_dir is not None:
            real = os.path.normpath(os.path.join(self.real_dir, ref))
            if self.approval.resolve(real) is not None and os.path.lexists(real):
                return spelled, False, real
        return spelled, False, None

    def missing_message(self, ref: str, what: str, real: str | None) -> str:
        ctx = self.ctx
        if real is not None:
            return (f"{what} `{ref}` works from the real file"
                    f" {ctx.rel(ctx.canonical_path)} but not from {ctx.rel(ctx.doc.path)},"
                    f" where agents read it (a symlink): {ctx.rel(real)} exists,"
                    f" {ctx.rel(os.path.normpath(os.path.join(self.spelled_dir, ref)))}"
                    " does not.")
        target = ctx.rel(os.path.normpath(os.path.join(self.spelled_dir, ref)))
        from_root = os.path.normpath(os.path.join(self.root, ref)) if self.root else None
        if (self.rules_dir or what in ("The path", "The folder")) and from_root and from_root != \
                os.path.normpath(os.path.join(self.spelled_dir, ref)) and \
                self.approval.resolve(from_root) is not None:
            return (f"{what} `{ref}` points to {target}, which does not exist, nor does"
                    f" {ctx.rel(from_root)} (from the repository root).")
        return f"{what} `{ref}` points to {target}, which does not exist."

    # ------------------------------------------------------------------ imports
    def imports(self) -> None:
        for m in _IMPORT.finditer(self.text, self.start):
            ref = m.group(1).rstrip(".,;:")
            if not _looks_like_import(ref) or ref.startswith(("~/", "/")):
                continue  # a mention (@alice), a package scope, or a file outside the repo
            if self.in_fence(m.start()) or self.in_span(m.start()):
                continue  # Claude ignores imports in code
            if self.approval.resolve(os.path.join(self.spelled_dir, ref)) is None:
                continue  # outside the repository: never probed, like `/` and `~/`
            path, exists, real = self.resolve(ref)
            at = m.start()
            if not exists:
                self.emit("RL501", self.missing_message(ref, "The import", real)
                          + " Claude Code and Gemini CLI load nothing for it.", at, len(ref) + 1)
                continue
            if self.ignored(path) and not self.ignored(self.ctx.doc.path):
                self.emit("RL502", f"The import `@{ref}` names a gitignored file: it can"
                          " never be committed, so nobody else's agent loads it.",
                          at, len(ref) + 1)
            depth, cycle = _import_tree(canonical(path), canonical(self.ctx.doc.path),
                                        self.approval)
            if cycle:
                self.emit("RL503", f"The import `@{ref}` leads into an import cycle (a file"
                          " that imports itself again, directly or through others): Claude Code"
                          " stops expanding it there.", at, len(ref) + 1)
            else:
                hops, agent = import_limit(self.ctx.doc.name)  # Gemini CLI 5, Claude Code 4
                if 1 + depth > hops:
                    self.emit("RL504", f"The import `@{ref}` reaches {1 + depth} hops of"
                              f" nested imports; {agent} follows at most {hops}, so the"
                              " deepest files never load.", at, len(ref) + 1)

    # -------------------------------------------------------------------- links
    def links(self) -> None:
        for m in _LINK.finditer(self.text, self.start):
            target = m.group(1)
            if self.in_fence(m.start()) or self.in_span(m.start()):
                continue
            ref = unquote(target.split("#", 1)[0].split("?", 1)[0])
            if ref.startswith("mdc:"):
                self.mdc_link(ref[4:], m.start(), m.start(1), len(target))
                continue
            if not ref or _is_url(target) or ref.startswith(("/", "~")) or _placeholder(ref):
                continue
            if "/" not in ref and "." not in ref:
                continue  # `[text](link)`: a bare word is a placeholder, not a file name
            _, _, line = self.line_of(m.start())
            if _not_a_claim(line, ref):
                continue
            if self.rules_dir and any(os.path.lexists(os.path.join(b, ref))
                                      for b in (self.root, self.owner_dir) if b):
                continue  # a rule file's link written from the repository or workspace root
            self.check_path(ref, "The link", m.start(1), len(target))

    def mdc_link(self, ref: str, at: int, offset: int, length: int) -> None:
        """Cursor's ``[x](mdc:path)``: a path from the workspace root (the repository root;
        the rule's owner folder and the file's own folder are the other readings), as the
        links Cursor's rule editor writes are (``mdc:.cursor/rules/x.mdc`` from inside
        ``.cursor/rules``). Examples and placeholders (``mdc:path/to/file``) are no claim."""
        if not ref or ":" in ref or ref.startswith(("/", "~")) or _placeholder(ref) or \
                ref.startswith("path/to/") or ("/" not in ref and "." not in ref):
            return
        _, _, line = self.line_of(at)
        if _not_a_claim(line, ref):
            return
        bases = [b for b in (self.root, self.owner_dir, self.spelled_dir, self.real_dir) if b]
        paths = [os.path.normpath(os.path.join(b, ref)) for b in bases
                 if self.approval.resolve(os.path.join(b, ref)) is not None]
        if not paths or any(os.path.lexists(p) for p in paths):
            return  # outside the repository from every base (never probed), or it exists
        if self.ignored(paths[0]) or _below_build(paths[0], self.root):
            return  # made by a build or personal
        if self.echo is not None or ref in self.reported:
            return  # through a symlink: the same root, reported on the real file
        self.reported.add(ref)
        self.emit("RL505", f"The link `mdc:{ref}` points to {self.ctx.rel(paths[0])}, which"
                  " does not exist (Cursor reads `mdc:` links from the workspace root).",
                  offset, length)

    def backticked(self) -> None:
        for m in _SPAN.finditer(self.text, self.start):
            ref = m.group(2).strip()
            folder = _DIRLIKE.match(ref) is not None
            if not (folder or _PATHLIKE.match(ref)) or self.in_fence(m.start()):
                continue
            if self.text.startswith("](", m.end()) and _is_url(
                    self.text[m.end() + 2:m.end() + 12]):
                continue  # [`docs/drive/`](https://github.com/...): another repository's
            _, line_start, line = self.line_of(m.start())
            if _NEGATIVE.search(line) or _not_a_claim(line, ref):
                continue  # "do not create `x`", "e.g. `src/foo.ts`": not a claim it exists
            if ref.removeprefix("./").split("/", 1)[0] in NOT_SOURCE:
                continue  # build output: made by a build, absent from a fresh checkout
            if ref.startswith("../"):
                continue  # an import specifier (`../utils.js`), relative to some source file
            if slot(ref) or _FORM_OF.search(line[:m.start() - line_start]):
                continue  # `test_action_EventNameHere.py`; "relative paths (`./state.md`)"
            if f"~/{ref.removeprefix('./')}" in self.text:
                continue  # `~/.claude/settings.json` then `.claude/settings.json`: a
                # program's config locations (user, then any project), not this repository
            # A backticked path is usually written from the repository root; from the
            # file's directory is the other reading. Either one existing is enough, and it
            # is judged only where its directory exists (a file that moved), not when the
            # whole path is relative to something else ("each extension has
            # `assets/preview.png`").
            bases = [b for b in (self.root, self.owner_dir, self.spelled_dir, self.real_dir)
                     if b and self.approval.resolve(os.path.join(b, ref)) is not None]
            if not bases:
                continue  # outside the repository from every base: never probed
            if any(os.path.lexists(os.path.join(b, ref)) for b in bases):
                continue
            if not any(os.path.isdir(os.path.dirname(os.path.join(b, ref.rstrip("/"))))
                       for b in bases):
                continue
            if folder and any(os.path.isdir(os.path.join(d, ref)) for d in self.ancestors()):
                continue  # `client/schemas/` written from the package folder above
            # A scoped rule's path may be written from its scope: existing there is
            # enough (not a reason to judge a path whose folder exists only there).
            if any(os.path.lexists(os.path.join(d, ref)) for d in self.scope_dirs()):
                continue
            self.check_path(ref, "The folder" if folder else "The path", m.start(2), len(ref))

    def check_path(self, ref: str, what: str, offset: int, length: int) -> None:
        if ref in self.reported:
            return  # one finding per missing target and file
        path, exists, real = self.resolve(ref)
        if exists:
            return
        folder = ref.endswith("/")
        if real is None and (self.ignored(path, folder) or _below_build(path, self.root)
                             or self.ignored_below(path + "/" if folder else path)):
            return  # made by a build or personal: absent from a checkout by design
        if real is None and self.echo is not None:
            return  # missing from the real file's folder too: reported on the real file
        self.reported.add(ref)
        self.emit("RL505", self.missing_message(ref, what, real), offset, length)

    # ----------------------------------------------------------------- commands
    def commands(self) -> None:
        """Scripts, targets, recipes and tasks, each where the command runs, and the
        files handed to interpreters (:mod:`rulelens.lint.commands`)."""
        from rulelens.lint.commands import Place
        from rulelens.lint.commands import problems as command_problems

        ctx = self.ctx
        root = self.root or ctx.doc.fmt.owner
        project = ctx.caches.project_for(root)
        project.read.clear()
        place = Place(project, self.spelled_dir, ctx.doc.fmt.owner, self.text,
                      _scopes(ctx))
        for problem in command_problems(self.text, self.start, self.blocks, place,
                                        self.ignored):
            if problem.code == "RL505":
                ref = self.text[problem.at:problem.at + problem.length]
                if ref in self.reported:
                    continue
                self.reported.add(ref)
            self.emit(problem.code, problem.message, problem.at, problem.length)
        ctx.caches.deps.update(project.read, project.skipped)


def _vendored(ctx: Context) -> bool:
    """Whether the file lies in a dependency or build folder of the repository (a Go
    ``vendor/`` tree is committed): its commands and paths belong to the project it was
    copied from, whose Makefile and files are not here."""
    root = ctx.git_root
    path = ctx.doc.path
    if root is None or not path.startswith(root.rstrip(os.sep) + os.sep):
        return False
    return any(part in NOT_SOURCE for part in
               os.path.relpath(os.path.dirname(path), root).split(os.sep))


def _scopes(ctx: Context) -> tuple[str, ...]:
    """The globs a scoped rule applies to (``applyTo``, ``globs``, ``paths``)."""
    fm = ctx.doc.frontmatter
    if fm is None:
        return ()
    out: list[str] = []
    for key in ("applyTo", "globs", "paths"):
        field = fm.get(key)
        if field is not None:
            out.extend(glob_list(field.value))
    return tuple(out)


def _not_a_claim(line: str, ref: str) -> bool:
    """The line asks to create ``ref``, places it in another repository, names a personal
    file (``.env``, ``*.local.*``, ``~/...``), shows an example ("Example: ...", "e.g.") or
    hedges ("if it exists"): not a claim the repository has it."""
    name = ref.rsplit("/", 1)[-1]
    if name.startswith(".env") or ".local." in name or name.endswith(".local"):
        return True
    return bool(_CREATE.search(line) or _ELSEWHERE.search(line) or _PERSONAL_LINE.search(line)
                or _EXAMPLE.search(line))


def _looks_like_import(ref: str) -> bool:
    """A path, not a mention: it has an extension or starts like a relative path."""
    return ref.startswith(("./", "../", "~/", "/")) or bool(
        re.search(r"\.[A-Za-z][A-Za-z0-9]{0,7}$", ref))  # `@1.2.3` is a version


def _is_url(target: str) -> bool:
    return bool(re.match(r"^[A-Za-z][\w+.-]*:", target)) or target.startswith(("#", "//"))


def _placeholder(ref: str) -> bool:
    return any(c in ref for c in "<>{}$*?[]") or "..." in ref


def _nested_ignore(directory: str) -> Any:
    """The ``.gitignore`` of ``directory`` as a git-wildmatch spec (bounded read through
    safeio), or None when it has none."""
    try:
        data, _more = safeio.read_head(os.path.join(directory, ".gitignore"), 256 * 1024)
    except (OSError, ValueError):
        return None
    from pathspec import GitIgnoreSpec  # only when a missing path is judged

    lines = data.decode("utf-8", "replace").splitlines()
    return GitIgnoreSpec.from_lines(lines) if any(line.strip() for line in lines) else None


def _below_build(path: str, root: str | None) -> bool:
    rel = path[len(root.rstrip(os.sep)) + 1:] if root and path.startswith(root) else path
    return any(part in NOT_SOURCE for part in rel.split(os.sep)[:-1])


def _imports_of(path: str, approval: Approval) -> list[str]:
    """Canonical paths of the files ``path`` imports (outside fences and code spans) that
    lie inside the approved roots; read through safeio (a FIFO never blocks), 1 MiB."""
    try:
        data, _more = safeio.read_head(path, 1024 * 1024)
    except (OSError, ValueError):
        return []
    text = data.decode("utf-8", errors="replace")
    out = []
    for _, spec in claude_imports(text):  # the agents' scanner: fences and code spans skipped
        ref = spec.rstrip(".,;:")
        if not _looks_like_import(ref) or ref.startswith(("~/", "/")):
            continue
        real = approval.resolve(os.path.join(os.path.dirname(path), ref))
        if real is not None and fsio.is_file(real):
            out.append(real)
    return out


def _import_tree(start: str, origin: str, approval: Approval, limit: int = 16,
                 max_files: int = MAX_IMPORTS) -> tuple[int, bool]:
    """(hops of the deepest import chain below ``start``, whether one leads back to
    ``origin`` or into a loop), bounded by ``limit`` hops and ``max_files`` files read:
    each file is read and measured once, so an import "diamond" costs its size, not the
    number of its paths."""
    imports: dict[str, list[str]] = {}
    memo: dict[str, int] = {}
    on_path = {origin, start}
    cycle = False

    def deepest(path: str, depth: int) -> int:
        nonlocal cycle
        if path in memo:
            return memo[path]
        if depth >= limit or cycle:
            return 0
        if path not in imports:
            imports[path] = _imports_of(path, approval) if len(imports) < max_files else []
        best = 0
        for target in imports[path]:
            if target in on_path:
                cycle = True
                return best
            on_path.add(target)
            best = max(best, 1 + deepest(target, depth + 1))
            on_path.discard(target)
            if cycle:
                return best
        memo[path] = best
        return best

    found = deepest(start, 0)
    return found, cycle
