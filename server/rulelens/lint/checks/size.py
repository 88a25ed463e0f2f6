"""Size family: per-file limits of each agent and Codex's budget over the whole chain.

Numbers and their sources are in :class:`rulelens.lint.config.Thresholds`. Sizes are
measured on the text the engine was given (the editor buffer, not the file on disk), so a
finding updates while typing.
"""

from __future__ import annotations

import os
import re

from rulelens.agents import fsio
from rulelens.agents.view import AgentView, NotLoaded, ViewFile
from rulelens.lint.checks.agents import agent_env, codex_budget, codex_names
from rulelens.lint.context import Context
from rulelens.lint.formats import CLAUDE_NAMED
from rulelens.lint.model import Range, Related

SKILL_FILE = "SKILL.md"

CODES = ("RL301", "RL302", "RL303", "RL304", "RL305", "RL306", "RL308")

_HTML_COMMENT = re.compile(r"^[ \t]*<!--.*?-->[ \t]*\r?$\n?", re.DOTALL | re.MULTILINE)


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB" if n >= 1024 * 1024 else f"{n / 1024:.1f} KiB"


def run(ctx: Context) -> None:
    doc = ctx.doc
    t = ctx.config.thresholds
    kind = doc.fmt.kind
    name = doc.name
    text = doc.text
    nbytes = len(text) if text.isascii() else len(text.encode("utf-8", "surrogateescape"))
    claude_named = kind == "named" and name in CLAUDE_NAMED
    if (claude_named or kind == "claude-rule") and nbytes > t.claude_max_bytes:
        ctx.emit("RL302", f"{_mib(nbytes)} is over Claude Code's {_mib(t.claude_max_bytes)}"
                 " limit: Claude skips this file entirely.", doc.whole())
    if claude_named:
        n_lines = _lines(doc.line_count, text)
        if n_lines > t.claude_max_lines and len(text) <= t.max_lint_bytes:
            counted = _count_without_comments(text)
            if counted > t.claude_max_lines:
                line = min(t.claude_max_lines, doc.line_count - 1)
                ctx.emit("RL301", f"{counted} lines (without HTML comments); Claude's docs ask"
                         f" for under {t.claude_max_lines} lines per CLAUDE.md. Split it into"
                         " `.claude/rules/` files or imports.", doc.line_range(line))
    if kind in ("named", "other") and name in codex_names(ctx):
        _codex(ctx, nbytes)
    if kind == "cursor-rule":
        n_lines = _lines(doc.line_count, text)
        if n_lines > t.cursor_max_lines:
            ctx.emit("RL304", f"{n_lines} lines; Cursor recommends rules under"
                     f" {t.cursor_max_lines} lines.", doc.line_range(t.cursor_max_lines))
    if kind == "windsurf-rule" and len(text) > t.windsurf_max_chars:
        line, col = doc.position(t.windsurf_max_chars)
        ctx.emit("RL305", f"{len(text)} characters; Windsurf reads the first"
                 f" {t.windsurf_max_chars} of a workspace rule. The rest starts here.",
                 Range.of(line, col, line, doc.line_length(line)))
    _always_on(ctx)
    if kind in ("copilot-instructions", "copilot-repo") and len(text) > t.copilot_review_chars:
        line, col = doc.position(t.copilot_review_chars)
        ctx.emit("RL306", f"{len(text)} characters; Copilot code review reads only the first"
                 f" {t.copilot_review_chars}, so it never sees the text from here on.",
                 Range.of(line, col, line, doc.line_length(line)))


def _lines(line_count: int, text: str) -> int:
    """The file's lines as an editor numbers them (RL301 and RL304 alike): as many as
    newlines when the text ends in one, else one more; ``line_count`` also counts the empty
    piece after a final newline."""
    return line_count - (1 if text == "" or text.endswith("\n") else 0)


def _always_on(ctx: Context) -> None:
    """RL308 on the file at which the chain's estimated tokens cross the budget."""
    display = ctx.display  # the agent's name
    budget = ctx.config.thresholds.always_on_max_tokens
    entry = ctx.chain_entry
    if budget <= 0 or entry is None or ctx.chain is None or ctx.index is None:
        return
    hit = ctx.index.crossing(budget)
    if hit is None or hit[0] is not entry:
        return
    if _in_skill(ctx, ctx.chain.cwd, None):
        return  # a chain started inside a skill's folder, where no agent is started (as RL303)
    before = hit[1]
    ctx.emit("RL308", f"The {display} chain reaches ~{ctx.chain.total_tokens} tokens (estimate) in"
             f" {len(ctx.chain.files)} file(s); it crosses the {budget}-token always-on budget"
             f" here (~{before} before this file, ~{entry.tokens} in it).", ctx.doc.whole())


def _count_without_comments(text: str) -> int:
    stripped = _HTML_COMMENT.sub("", text) if "<!--" in text else text
    # ``len(stripped.split("\n"))`` less a final empty piece, counted without the split.
    return stripped.count("\n") + (0 if not stripped or stripped.endswith("\n") else 1)


def _codex(ctx: Context, own_bytes: int) -> None:
    """RL303 from Codex's own discovery (:func:`rulelens.agents.codex.view`, started in the
    document's directory): its project root markers, its fallback names, one file per
    directory; the sizes above this file against the budget."""
    from rulelens.agents import codex  # the module brings TOML; only for AGENTS-like files

    doc = ctx.doc
    # Codex's own config.toml decides its budget; lint's threshold when it sets none.
    budget, source = codex_budget(ctx, ctx.config.thresholds.codex_max_bytes)
    if budget <= 0:
        return
    set_by = f" (set in {source})" if source else ""
    view = codex.view(doc.directory, None, agent_env(ctx))
    mine = view.find(doc.path)
    if isinstance(mine, NotLoaded) and mine.reason == "shadowed":
        return  # another name wins this directory (AGENTS.override.md): Codex skips this file
    if _in_skill(ctx, doc.directory, view.root):
        return  # a skill's own file: read whole when the skill is used, not a Codex cwd chain
    before = 0
    related: list[Related] = []
    for path in _above(view, doc.directory):
        size = ctx.disk.regular_size(path)
        if size:
            before += size
            related.append(Related(path, Range.point(0), f"{size} bytes earlier in"
                                   " Codex's chain"))
    if not doc.text.strip():
        return  # whitespace-only files cost nothing
    after = before + own_bytes
    if before >= budget:
        ctx.emit("RL303", f"Codex drops this file: the AGENTS.md files above it already use"
                 f" {before} of the {budget}-byte `project_doc_max_bytes` budget{set_by}.",
                 doc.whole(), related=related)
    elif after > budget:
        keep = budget - before
        line, col = doc.position(min(len(doc.text), _char_index(doc.text, keep)))
        ctx.emit("RL303", f"Codex truncates this file: the chain from the project root is"
                 f" {after} bytes, over the {budget}-byte `project_doc_max_bytes` budget{set_by};"
                 f" only the first {keep} bytes of this file are read (cut here).",
                 Range.of(line, col, line, doc.line_length(line)), related=related)


def _in_skill(ctx: Context, directory: str, codex_root: str | None) -> bool:
    """Whether ``directory`` or a folder above it, up to the repository root (else Codex's
    project root, else ``directory`` alone), holds a ``SKILL.md``: an agent skill's folder.
    Its files are read whole when the skill is used; nobody starts Codex (RL303) or any
    other agent (RL308) inside it."""
    stop = next((r for r in (ctx.git_root, codex_root) if r and fsio.is_below(directory, r)),
                None)
    dirs = fsio.ancestors(directory, stop) if stop is not None else [directory]
    return any(ctx.disk.regular_size(os.path.join(d, SKILL_FILE)) is not None for d in dirs)


def _above(view: AgentView, directory: str) -> list[str]:
    """The project files Codex takes in the directories above ``directory``, root first:
    loaded, or dropped by its budget (their bytes count against lint's budget too); an
    empty file costs nothing."""
    out = []
    entries: list[ViewFile | NotLoaded] = [*view.files, *view.not_loaded]
    for e in entries:
        if isinstance(e, ViewFile) and e.role != "project":
            continue
        if isinstance(e, NotLoaded) and e.reason != "over-budget":
            continue
        if os.path.dirname(e.path) != directory:
            out.append(e.path)
    return sorted(out, key=lambda p: p.count(os.sep))


def _char_index(text: str, nbytes: int) -> int:
    """Index of the character containing byte ``nbytes`` of the UTF-8 encoding."""
    if text.isascii():
        return nbytes
    return len(text.encode("utf-8", "surrogateescape")[:nbytes].decode("utf-8", "ignore"))
