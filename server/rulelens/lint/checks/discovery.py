"""Discovery family: files that will never load (or load twice), and why.

Most findings come straight from the chain engine's ``Skipped`` records for this path, so
the linter and the chain view can never disagree. Misspellings, nesting and other tools'
files are judged from the path itself so they are reported even without a chain.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from rulelens.agents import safeio
from rulelens.agents.compat import BASE_FILENAMES
from rulelens.lint.checks.agents import readers_sentence
from rulelens.lint.context import Context
from rulelens.lint.formats import GROK_RULE_DIRS, NAMED_FILES
from rulelens.lint.model import FileRename, Fix, Range, Related, TextEdit
from rulelens.rules.model import Skipped, SkipReason

CODES = ("RL201", "RL202", "RL203", "RL204", "RL205", "RL206", "RL207", "RL208", "RL209",
         "RL210", "RL211", "RL212")

_SURROGATE = re.compile("[\udc80-\udcff]")
_NON_SPACE = re.compile(r"\S")  # \S is exactly "not str.isspace()"
_LOWER = {n.lower(): n for n in NAMED_FILES}
#: Files of other agents Grok does not read, with advice. The message names who reads the
#: file from the registry's agents (:mod:`rulelens.lint.checks.agents`).
_OTHER_AGENT: dict[str, str] = {
    "GEMINI.md": "",
    "AGENTS.override.md": "",
    ".cursorrules": " A legacy Cursor rules file: current Cursor prefers `.cursor/rules`.",
    ".windsurfrules": "",
    ".clinerules": "",
    "AGENTS.local.md": " A personal-override name some tools use: use CLAUDE.local.md, and"
                       " keep it out of .gitignore.",
    "AGENT.local.md": " A personal-override name some tools use: use CLAUDE.local.md, and"
                      " keep it out of .gitignore.",
}


def run(ctx: Context) -> None:
    display = ctx.display  # the agent's name
    doc = ctx.doc
    first = doc.whole()
    for rec in ctx.skip_records:
        _from_record(ctx, rec, first)
    if not ctx.has("RL202") and not doc.text.isascii():
        bad = _first_surrogate(doc.text)
        if bad is not None:
            line, col = doc.position(bad)
            ctx.emit("RL202", f"Not valid UTF-8 (first bad byte on line {line + 1});"
                     f" {display} drops"
                     " the file silently. Re-save it as UTF-8.",
                     Range.of(line, col, line, col + 1))
    _names(ctx, first)
    _case_twins(ctx, first)
    _empty(ctx, first)


def _first_surrogate(text: str) -> int | None:
    """Index of the first undecodable byte (a surrogate escape), found by the C encoder."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start if _SURROGATE.match(text, exc.start) else None
    return None


def _from_record(ctx: Context, rec: Skipped, first: Range) -> None:
    display = ctx.display  # the agent's name
    reason = rec.reason
    if reason is SkipReason.GITIGNORED:
        related = []
        fixes = []
        if rec.ignore_source is not None:
            source, line, pattern = rec.ignore_source
            related.append(Related(source, Range.of(line - 1, 0, line - 1, len(pattern)),
                                   f"`{pattern}` ignores it"))
            fix = _unignore(ctx, source, line, pattern)
            if fix is not None:
                fixes.append(fix)
        extra = ""
        if ctx.doc.name == "CLAUDE.local.md":
            extra = (f" Claude Code's convention is to gitignore CLAUDE.local.md; {display} then"
                     " never reads it.")
        ctx.emit("RL201", f"{display} skips this file: {rec.detail}.{extra}", first,
                 related=related, fixes=fixes)
    elif reason is SkipReason.NOT_UTF8:
        ctx.emit("RL202", f"{display} drops this file: {rec.detail}.", first)
    elif reason is SkipReason.UNREADABLE:
        ctx.emit("RL203", f"{display} drops this file: {rec.detail}.", first)
    elif reason is SkipReason.NOT_A_FILE:
        ctx.emit("RL204", f"{display} drops this candidate: {rec.detail}.", first)
    elif reason is SkipReason.COMPAT_DISABLED:
        ctx.emit("RL205", f"Not loaded by {display}: {rec.detail}.", first)
    elif reason is SkipReason.DUPLICATE:
        ctx.emit("RL209", f"Loaded once only: {rec.detail}.", first)
    # NESTED_IN_RULES_DIR and UNRECOGNIZED_NAME are judged from the path in _names().


def _unignore(ctx: Context, source: str, line: int, pattern: str) -> Fix | None:
    """Append a negation right after the ignoring line, inside the repository only."""
    root = ctx.git_root
    if root is None or not source.startswith(root.rstrip(os.sep) + os.sep):
        return None
    rel = os.path.relpath(ctx.doc.path, root).replace(os.sep, "/")
    bare = pattern.strip().lstrip("/").rstrip("/")
    if pattern.rstrip().endswith("/") or (bare and rel.startswith(bare + "/")):
        return None  # git cannot re-include a file below an excluded directory
    try:
        raw = safeio.read_bytes(source, safeio.CONFIG_LIMIT)
        lines = raw.decode("utf-8", "replace").split("\n")
    except OSError:
        return None
    if line < len(lines):
        edit = TextEdit(source, Range.point(line, 0), f"!/{rel}\n")
    else:
        last = len(lines) - 1
        edit = TextEdit(source, Range.point(last, len(lines[last].rstrip("\r"))), f"\n!/{rel}")
    return Fix(f"Un-ignore {rel} in {os.path.relpath(source, root)} (git will then show it"
               " as untracked)", "unsafe", (edit,))


def _rename_fix(ctx: Context, new: str, title: str) -> list[Fix]:
    """A rename offered in the editor, never applied by ``--fix``: it changes which agents
    read the file, and what else refers to it by name."""
    if os.path.lexists(new) and not _same_file_case(ctx.doc.path, new):
        return []
    return [Fix(title, "unsafe", (FileRename(ctx.doc.path, new),))]


def _same_file_case(a: str, b: str) -> bool:
    """A case-only rename on a case-insensitive file system sees ``b`` as existing."""
    try:
        return a.lower() == b.lower() and os.path.samefile(a, b)
    except OSError:
        return False


def _names(ctx: Context, first: Range) -> None:
    display = ctx.display  # the agent's name
    doc = ctx.doc
    fmt = doc.fmt
    name = doc.name
    directory = doc.directory
    low = name.lower()
    if fmt.kind == "named" and fmt.misnamed:
        proper = "AGENTS.md" if low == "agents.md" else _LOWER[low]
        new = os.path.join(directory, proper)
        ctx.emit("RL207", f"{display} looks for exact names; `{name}` is not one of them on a"
                 f" case-sensitive file system, so it never loads. Rename it to `{proper}`.",
                 first, fixes=_rename_fix(ctx, new, f"Rename to {proper}"))
    elif fmt.kind in ("named", "legacy") and name in _OTHER_AGENT:
        advice = _OTHER_AGENT[name]
        _rl208(ctx, first, lambda: readers_sentence(ctx) + "." + advice)
    elif fmt.kind == "cline-rule":
        _rl208(ctx, first, lambda: readers_sentence(ctx) + ".")
    elif fmt.kind == "copilot-repo":
        _rl208(ctx, first, lambda: readers_sentence(ctx) + f". Put instructions for {display}"
               " in AGENTS.md.")
    if fmt.kind in GROK_RULE_DIRS and fmt.rules_dir is not None:
        rules_dir = fmt.rules_dir
        stem, _, ext = name.rpartition(".")
        if ext.lower() != "md" or not stem:
            if fmt.kind == "cursor-rule" and low.endswith(".mdc"):
                _rl208(ctx, first, lambda: readers_sentence(ctx) + f". {display} reads only"
                       " `*.md` files in `.cursor/rules`.")
            elif low.endswith((".markdown", ".mdc", ".txt")) and stem:
                new = os.path.join(directory, f"{stem}.md")
                ctx.emit("RL207", f"{display} reads only `*.md` files in rules directories;"
                         f" `{name}`"
                         f" never loads. Rename it to `{stem}.md`.", first,
                         fixes=_rename_fix(ctx, new, f"Rename to {stem}.md"))
            return
        if fmt.nested:
            new = os.path.join(rules_dir, name)
            rel = os.path.relpath(doc.path, rules_dir)
            ctx.emit("RL206", f"{display} reads only files directly inside"
                     f" {ctx.rel(rules_dir)}; this one is nested ({rel}) and never loads."
                     " Move it up into the rules directory.", first,
                     fixes=_rename_fix(ctx, new, f"Move to {ctx.rel(new)}"))
    if fmt.kind == "copilot-instructions" and not name.endswith(".instructions.md") \
            and low.endswith(".md"):
        stem = name[:-3]
        new = os.path.join(directory, f"{stem}.instructions.md")
        ctx.emit("RL212", f"Copilot reads only `*.instructions.md` in .github/instructions;"
                 f" rename to `{stem}.instructions.md`.", first,
                 fixes=_rename_fix(ctx, new, f"Rename to {stem}.instructions.md"))


def _rl208(ctx: Context, first: Range, message: Callable[[], str]) -> None:
    """RL208, a hint whose message asks every agent profile who reads the file: built
    only when the check is on (the CLI turns hints off unless ``--hints``)."""
    if ctx.config.enabled("RL208") and not ({"RL208", "*"} & ctx.doc.disabled):
        ctx.emit("RL208", message(), first)


def _case_twins(ctx: Context, first: Range) -> None:
    """RL210: another official name differing only in case, as a separate file here.

    Probed by name, as the agent finds named files (no listing of the directory)."""
    display = ctx.display  # the agent's name
    name = ctx.doc.name
    directory = ctx.doc.directory
    for other in _TWINS.get(name, ()):
        other_path = os.path.join(directory, other)
        if ctx.disk.regular_size(other_path) is None \
                or ctx.disk.same_file(other_path, ctx.doc.path) is not False:
            continue  # no such file, not a file, or this very file (case-insensitive disk)
        ctx.emit("RL210", f"`{name}` and `{other}` are different files here and {display} loads"
                 " both (on macOS or Windows they would be one file). Merge them into one.",
                 first, related=[Related(other_path, Range.point(0), "the case twin")])


#: Official name → the other official names that differ from it only in case.
_TWINS = {n: tuple(o for o in BASE_FILENAMES if o != n and o.lower() == n.lower())
          for n in BASE_FILENAMES}


def _empty(ctx: Context, first: Range) -> None:
    doc = ctx.doc
    if doc.fmt.kind == "other" or any(ctx.has(c) for c in ("RL202", "RL203", "RL204")):
        return
    if _NON_SPACE.search(doc.text, doc.offset_of_line(doc.body_line)) is not None:
        return  # some line below the frontmatter is neither empty nor white space only
    what = "only frontmatter" if doc.body_line else "empty"
    ctx.emit("RL211", f"This instruction file is {what}: it tells the agent nothing.", first)
