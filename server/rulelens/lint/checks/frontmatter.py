"""Frontmatter family: does the YAML parse, and do its keys and values mean what they say?

Per-format key tables come from the research file §b: ``.claude/rules`` and Laravel Boost
``.ai/rules`` read ``paths`` (a list of globs); Cursor ``.mdc`` reads ``description``,
``globs``, ``alwaysApply``; Copilot ``.instructions.md`` reads ``applyTo`` and
``excludeAgent`` (VS Code adds ``name``, ``description``); Windsurf reads ``trigger``,
``description``, ``globs`` (``trigger`` one of four); Kiro steering reads ``inclusion``,
``fileMatchPattern``, ``name``, ``description``. Grok strips rule frontmatter without reading
any key, so Grok rules only get the syntax checks.
"""

from __future__ import annotations

import json
import os
import re

from rulelens.agents.formats import FORMATS
from rulelens.lint.context import Context
from rulelens.lint.document import Field, Item, ParsedFrontmatter
from rulelens.lint.formats import GROK_RULE_DIRS, SCOPE_KEY
from rulelens.lint.globs import split_comma
from rulelens.lint.model import FileRename, Fix, Range, TextEdit

CODES = ("RL101", "RL102", "RL103", "RL104", "RL105", "RL106", "RL107", "RL108", "RL109",
         "RL110", "RL111", "RL112", "RL113", "RL114", "RL115", "RL116", "RL117", "RL118",
         "RL119", "RL120", "RL121")

# Per-format tables, read from the format rows (rulelens.agents.formats).
ALLOWED: dict[str, frozenset[str]] = {
    f.kind: f.allowed_keys for f in FORMATS if f.allowed_keys is not None}
FOREIGN_SCOPE = frozenset({"paths", "globs", "glob", "applyTo", "applyto", "apply_to"})
STRICT = frozenset(f.kind for f in FORMATS if f.strict_yaml)
AGENT = {f.kind: f.agent for f in FORMATS if f.container is not None}
UNSCOPED = {f.kind: f.unscoped for f in FORMATS if f.unscoped}
#: ``cloud-agent``: the coding agent's newer name, as GitHub's custom-instructions page is
#: quoted by many repositories (docs, third-party copies; the github/docs text we could read
#: still says ``coding-agent``). Accepted: a documented value must never fail a CI run.
EXCLUDE_AGENTS = ("code-review", "coding-agent", "cloud-agent")
_ALLOWED = "`code-review`, `coding-agent` or `cloud-agent`"

_UNQUOTED = re.compile(r"^(?P<lead>[ \t]*(?:-[ \t]+|(?P<key>[A-Za-z_][\w.-]*)[ \t]*:[ \t]+))"
                       r"(?P<val>[*{][^#\r]*?)[ \t]*(?:#.*)?$")
_YAMLISH = re.compile(r"^[A-Za-z_][\w.-]*[ \t]*:")


def run(ctx: Context) -> None:
    display = ctx.display  # the agent's name
    doc = ctx.doc
    kind = doc.fmt.kind
    fm = doc.frontmatter
    if kind == "named":
        if fm is not None and fm.block.end_line is not None:
            _named_frontmatter(ctx, fm)
        return
    if not doc.fmt.is_rule:
        return
    if fm is None:
        _content_before(ctx)
        if _missing_opener(ctx):
            return  # the block is there, only its first line is not: no "add frontmatter"
        if kind == "cursor-rule" and doc.path.lower().endswith(".mdc"):
            ctx.emit("RL110", "This `.mdc` rule has no frontmatter, so Cursor never attaches it on"
                     " its own (manual @-mention only). Add `description`, `globs` or"
                     " `alwaysApply`.", doc.whole())
        if kind == "copilot-instructions" and doc.path.endswith(".instructions.md"):
            ctx.emit("RL111", "No `applyTo`: VS Code does not apply this file automatically."
                     " Add frontmatter with `applyTo: \"**\"` or a narrower glob, or with a"
                     " `description` for agent mode to read it when a task fits.", doc.whole())
        return
    if fm.block.end_line is None:
        ctx.emit("RL102", f"Frontmatter opened on line {fm.block.start_line + 1} is never closed"
                 f" with `---`: it is not recognised, so its keys do nothing and {display}"
                 " injects the"
                 " YAML as text.", doc.line_range(fm.block.start_line))
        return
    _bom(ctx)
    flagged = _unquoted_globs(ctx, fm) if kind in STRICT else set()
    if fm.problem is not None:
        message, rng, what = fm.problem
        if what == "limit":
            ctx.emit("RL103", f"Frontmatter not parsed: {message}.", rng)
        elif rng.start.line not in flagged:
            agent = AGENT.get(kind, "The agent")
            raw = " and injects the whole file, fence included" if kind == "cline-rule" else ""
            ctx.emit("RL101", f"Frontmatter YAML does not parse: {message}. {agent} ignores"
                     f" all of its keys{raw}.", rng)
        return
    if kind not in ALLOWED:
        return
    _keys(ctx, fm)
    _scope_ignored_by_grok(ctx, fm)
    if kind in ("claude-rule", "boost-rule"):
        _paths(ctx, fm)
    elif kind == "cursor-rule":
        _cursor(ctx, fm)
    elif kind == "copilot-instructions":
        _copilot(ctx, fm)
    elif kind == "windsurf-rule":
        _windsurf(ctx, fm)
    elif kind == "kiro-steering":
        _kiro(ctx, fm)
    elif kind == "cline-rule":
        _cline_paths(ctx, fm)
    elif kind == "qwen-rule":
        _qwen_paths(ctx, fm)
    elif kind == "continue-rule":
        _continue(ctx, fm)


# -------------------------------------------------------------------- named files
def _named_frontmatter(ctx: Context, fm: ParsedFrontmatter) -> None:
    display = ctx.display  # the agent's name
    doc = ctx.doc
    if doc.fmt.misnamed or ctx.skip_records:
        return  # the agent does not load it under this name (RL2xx says why)
    end = fm.block.end_line or 0
    rng = Range.of(fm.block.start_line, 0, end, doc.line_length(end))
    body = min(fm.block.body_line, doc.line_count - 1)
    cut = Range.of(0, 0, body, 0) if fm.block.body_line < doc.line_count else \
        Range.of(0, 0, end, doc.line_length(end))
    fixes = [Fix("Remove the frontmatter block", "unsafe", (TextEdit(doc.path, cut, ""),))]
    stem = os.path.basename(doc.path).rsplit(".", 1)[0].replace(".", "-").lower()
    target = os.path.join(doc.fmt.owner, ".grok", "rules", f"{stem}.md")
    if not os.path.lexists(target):
        fixes.append(Fix(f"Move to {ctx.rel(target)}, where {display} strips frontmatter"
                         " (other agents stop reading it as a named file)", "unsafe",
                         (FileRename(doc.path, target),)))
    ctx.emit("RL115", f"{os.path.basename(doc.path)} is injected verbatim: these {end - 1}"
             " line(s) of YAML reach the model as text and none of the keys has an effect."
             " Frontmatter is only stripped from files in rules directories.", rng,
             fixes=fixes)


def _missing_opener(ctx: Context) -> bool:
    """RL119: ``key:`` lines from line 1 down to a ``---`` line, with no ``---`` above
    them: the opening fence is missing, so the whole block is body text."""
    doc = ctx.doc
    if not _YAMLISH.match(doc.line(0).lstrip("\ufeff")) or "\n---" not in doc.text:
        return False
    known = ALLOWED.get(doc.fmt.kind, frozenset()) | FOREIGN_SCOPE
    limit = min(doc.line_count, 40)
    keys: set[str] = set()
    for i in range(limit):
        line = doc.line(i).rstrip("\r").lstrip("\ufeff")
        m = _YAMLISH.match(line)
        if m is not None:
            keys.add(line.split(":", 1)[0].strip())
        if i and line.rstrip() == "---":
            if keys.isdisjoint(known):
                return False  # "Note: ..." above a horizontal rule, not a scope block
            fix = Fix("Add the opening `---` on line 1", "safe",
                      (TextEdit(doc.path, Range.point(0), "---\n"),))
            ctx.emit("RL119", f"Missing opening `---` on line 1: lines 1-{i} are"
                     f" `key: value` lines closed by the `---` on line {i + 1}, but without the"
                     " opening fence the agent reads them as body text and applies no scope.",
                     doc.line_range(0), fixes=[fix])
            return True
        if line.strip() and m is None and not line.startswith((" ", "\t", "-", "#")):
            return False
    return False


def _bom(ctx: Context) -> None:
    """RL117 for a byte-order mark before the opening ``---`` where the reader needs
    ``---`` first (Laravel Boost; Claude Code, Grok and Copilot accept the BOM)."""
    if ctx.doc.fmt.kind != "boost-rule" or not ctx.doc.text.startswith("\ufeff"):
        return
    fix = Fix("Remove the byte-order mark", "safe",
              (TextEdit(ctx.doc.path, Range.of(0, 0, 0, 1), ""),))
    ctx.emit("RL117", "A byte-order mark (U+FEFF) comes before the opening `---`: Laravel"
             " Boost's parser needs `---` as the very first characters, so it sees no"
             " frontmatter and leaves the rule out of `.ai/rules/index.md`.",
             Range.of(0, 0, 0, 1),
             fixes=[fix])


def _scope_ignored_by_grok(ctx: Context, fm: ParsedFrontmatter) -> None:
    """RL118: a scope key on a rule file Grok reads and injects into every session."""
    display = ctx.display  # the agent's name
    kind = ctx.doc.fmt.kind
    if kind not in GROK_RULE_DIRS or kind == "grok-rule":
        return
    key = SCOPE_KEY.get(kind)
    f = fm.get(key) if key else None
    entry = ctx.chain_entry
    if f is None or f.value in (None, "", []) or entry is None:
        return
    # H-multi seam: "which agents read this file" will come from the agent profiles.
    honours = AGENT[kind]
    ctx.emit("RL118", f"{honours} honours `{key}` and loads this rule only for matching"
             f" files; {display} ignores `{key}` in {ctx.rel(ctx.doc.fmt.rules_dir or '')} and"
             f" injects this file into every session (~{entry.tokens} tokens).", f.key_range)


def _content_before(ctx: Context) -> None:
    """A frontmatter-looking block that does not start on line 1."""
    if "\n---" not in ctx.doc.text:
        return  # no line after the first starts with ---: settled by one C-level search
    limit = min(ctx.doc.line_count, 40)
    lines = [ctx.doc.line(i) for i in range(limit)]  # only these are looked at
    for i in range(1, limit):
        if lines[i].rstrip("\r").rstrip() != "---":
            continue
        if not any(ln.strip() for ln in lines[:i]):
            return  # leading blank lines only: Grok trims; others vary, not this check
        nxt = next((j for j in range(i + 1, limit) if lines[j].strip()), None)
        if nxt is None or not _YAMLISH.match(lines[nxt]):
            return
        close = next((j for j in range(nxt, limit)
                      if lines[j].rstrip("\r").rstrip() == "---"), None)
        if close is None:
            return
        block = "\n".join(ln.rstrip("\r") for ln in lines[i:close + 1]) + "\n"
        before = "\n".join(ln.rstrip("\r") for ln in lines[:i])
        tail_end = Range.of(close + 1, 0, close + 1, 0) if close + 1 < ctx.doc.line_count else \
            Range.of(close, 0, close, ctx.doc.line_length(close))
        new = block + before + ("\n" if close + 1 < ctx.doc.line_count else "")
        fix = Fix("Move the frontmatter block to the top of the file", "safe",
                  (TextEdit(ctx.doc.path, Range(Range.point(0).start, tail_end.end), new),))
        ctx.emit("RL117", f"Frontmatter starts on line {i + 1}, not line 1, so it is read as"
                 " body text: its scope keys are ignored and the YAML is injected.",
                 ctx.doc.line_range(i), fixes=[fix])
        return


# ------------------------------------------------------------------------ keys
def _keys(ctx: Context, fm: ParsedFrontmatter) -> None:
    kind = ctx.doc.fmt.kind
    allowed = ALLOWED[kind]
    own = SCOPE_KEY.get(kind)
    present = {f.key for f in fm.fields}
    for f in fm.fields:
        if f.key in allowed:
            continue
        if f.key in FOREIGN_SCOPE and own is not None:
            fixes = []
            if own not in present:
                fixes.append(Fix(f"Rename `{f.key}` to `{own}`", "safe",
                                 (TextEdit(ctx.doc.path, f.key_range, own),)))
            effect = UNSCOPED[kind]
            ctx.emit("RL106", f"{AGENT[kind]} reads `{own}`, not `{f.key}`: {effect}.",
                     f.key_range, fixes=fixes)
            continue
        ctx.emit("RL107", f"`{f.key}` is not a {AGENT[kind]} frontmatter key (known:"
                 f" {', '.join(sorted(allowed))}); it is ignored.", f.key_range)


def _as_list_text(globs: list[str], indent: str = "  ") -> str:
    return ":" + "".join(f"\n{indent}- {json.dumps(g, ensure_ascii=False)}" for g in globs)


def _paths(ctx: Context, fm: ParsedFrontmatter) -> None:
    f = fm.get("paths")
    if f is None:
        return
    agent = AGENT[ctx.doc.fmt.kind]
    if isinstance(f.value, str):
        globs = split_comma(f.value) or [f.value]
        edit = TextEdit(ctx.doc.path, Range(f.key_range.end, f.value_range.end),
                        _as_list_text(globs))
        ctx.emit("RL104", f"`paths` is a string; {agent} needs a YAML list of globs and a string"
                 " silently never matches.", f.value_range,
                 fixes=[Fix("Turn `paths` into a list", "safe", (edit,))])
        return
    if f.items is None:
        ctx.emit("RL105", f"`paths` must be a list of glob strings, not"
                 f" {_type_name(f.value)}.", f.value_range)
        return
    if not f.items:
        ctx.emit("RL105", "`paths` is an empty list: the rule scopes to no file.",
                 f.value_range)
        return
    _glob_values(ctx, f, split_strings=False)


def _cursor(ctx: Context, fm: ParsedFrontmatter) -> None:
    aa = fm.get("alwaysApply")
    globs = fm.get("globs")
    desc = fm.get("description")
    always = False
    if aa is not None:
        if isinstance(aa.value, bool):
            always = aa.value
        elif aa.value is not None:
            fixes = []
            text = str(aa.value).strip().lower()
            if text in ("true", "false", "yes", "no"):
                new = "true" if text in ("true", "yes") else "false"
                fixes.append(Fix(f"Write `alwaysApply: {new}`", "safe",
                                 (TextEdit(ctx.doc.path, aa.value_range, new),)))
            ctx.emit("RL108", f"`alwaysApply` must be `true` or `false`, not {_show(aa.value)}.",
                     aa.value_range, fixes=fixes)
    has_globs = globs is not None and globs.value not in (None, "", [])
    if globs is not None and has_globs:
        if isinstance(globs.value, str) or (globs.items is not None and all(
                isinstance(i.value, str) for i in globs.items)):
            _glob_values(ctx, globs, split_strings=True)
        else:
            ctx.emit("RL105", "`globs` must be a comma-separated string or a list of strings,"
                     f" not {_type_name(globs.value)}.", globs.value_range)
    has_desc = desc is not None and bool(str(desc.value or "").strip())
    start = ctx.doc.line_range(fm.block.start_line)
    if always and has_globs and globs is not None:
        ctx.emit("RL109", "`alwaysApply: true` makes this an Always rule; Cursor ignores"
                 " `globs`.", globs.key_range)
    elif not always and not has_globs and not has_desc and not ctx.has("RL108"):
        ctx.emit("RL109", "Manual rule: no `alwaysApply`, `globs` or `description`, so Cursor"
                 " uses it only when @-mentioned.", start)


def _copilot(ctx: Context, fm: ParsedFrontmatter) -> None:
    apply_to = fm.get("applyTo")
    if apply_to is None:
        # A `description` alone is an on-demand file, not a manual-only one: in agent mode
        # VS Code lists every instructions file in the prompt's `<instructions>` index with
        # its `<description>` and `<file>`, for the model to read when the task fits
        # (microsoft/vscode@e06a3cee src/vs/workbench/contrib/chat/common/promptSyntax/
        # computeAutomaticInstructions.ts, `_getInstructionsWithPatternsList`; renamed
        # `_getCustomizationsIndex` later, same listing). Without one the file is listed as
        # a bare path, which gives the model no reason to open it.
        desc = fm.get("description")
        described = desc is not None and isinstance(desc.value, str) and bool(desc.value.strip())
        if not described and not ctx.has("RL106") and ctx.doc.path.endswith(".instructions.md"):
            ctx.emit("RL111", "No `applyTo`: VS Code does not apply this file automatically."
                     " Add `applyTo: \"**\"` or a narrower glob, or a `description` for agent"
                     " mode to read it when a task fits.",
                     ctx.doc.line_range(fm.block.start_line))
    elif not isinstance(apply_to.value, str):
        ctx.emit("RL105", "`applyTo` must be one string (separate several globs with commas),"
                 f" not {_type_name(apply_to.value)}.", apply_to.value_range)
    else:
        _glob_values(ctx, apply_to, split_strings=True)
    ex = fm.get("excludeAgent")
    if ex is not None:
        _exclude_agent(ctx, ex)


def _exclude_agent(ctx: Context, ex: Field) -> None:
    """RL112: ``excludeAgent`` is one allowed value or a list of them. VS Code's prompt
    validator takes a string or a list (``validateExcludeAgent`` in microsoft/vscode
    src/vs/workbench/contrib/chat/common/promptSyntax/languageProviders/promptValidator.ts;
    it required a list for a while, microsoft/vscode#291924), so ``['coding-agent']`` is
    as good as ``coding-agent``; each item of a list is judged on its own."""
    value = ex.value
    if isinstance(value, str):
        if value not in EXCLUDE_AGENTS:
            ctx.emit("RL112", f"`excludeAgent` must be {_ALLOWED}, not {_show(value)}.",
                     ex.value_range)
        return
    if isinstance(value, list) and value:
        items = ex.items if ex.items is not None and len(ex.items) == len(value) else \
            tuple(Item(v, ex.value_range) for v in value)
        for item in items:
            if not isinstance(item.value, str):
                ctx.emit("RL112", f"Each `excludeAgent` item must be {_ALLOWED}, not"
                         f" {_type_name(item.value)}.", item.range)
            elif item.value not in EXCLUDE_AGENTS:
                ctx.emit("RL112", f"`excludeAgent` items must be {_ALLOWED}, not"
                         f" {_show(item.value)}.", item.range)
        return
    what = "an empty list" if isinstance(value, list) else _type_name(value)
    ctx.emit("RL112", f"`excludeAgent` must be {_ALLOWED} (one string or a list of them),"
             f" not {what}.", ex.value_range)


def _mode(ctx: Context, fm: ParsedFrontmatter, key: str, allowed: tuple[str, ...],
          default: str | None) -> str | None:
    """The value of a mode key (Windsurf ``trigger``, Kiro ``inclusion``); RL105 for a
    non-string, RL120 for a value outside ``allowed``; ``None`` when unusable."""
    f = fm.get(key)
    if f is None or f.value is None:
        return default
    agent = AGENT[ctx.doc.fmt.kind]
    if not isinstance(f.value, str):
        ctx.emit("RL105", f"`{key}` must be one of {', '.join(allowed)}, not"
                 f" {_type_name(f.value)}.", f.value_range)
        return None
    if f.value not in allowed:
        near = next((a for a in allowed if a.lower() == f.value.strip().lower()), None)
        fixes = [Fix(f"Write `{key}: {near}`", "safe",
                     (TextEdit(ctx.doc.path, f.value_range, near),))] if near else []
        ctx.emit("RL120", f"`{key}: {f.value}` is not one of {', '.join(allowed)}: {agent}"
                 " documents no other value, so it does not apply the file as intended.",
                 f.value_range, fixes=fixes)
        return None
    return f.value


def _windsurf(ctx: Context, fm: ParsedFrontmatter) -> None:
    """Windsurf rules: the trigger, and the globs a ``glob`` trigger needs."""
    trigger = _mode(ctx, fm, "trigger", ("always_on", "glob", "model_decision", "manual"),
                    None)
    globs = fm.get("globs")
    has_globs = globs is not None and globs.value not in (None, "", [])
    if globs is not None and has_globs:
        _glob_values(ctx, globs, split_strings=True)
    if trigger == "glob" and not has_globs:
        ctx.emit("RL121", "`trigger: glob` without `globs`: the rule matches no file, so it"
                 " never applies.", ctx.doc.line_range(fm.block.start_line))


def _kiro(ctx: Context, fm: ParsedFrontmatter) -> None:
    """Kiro steering: ``inclusion`` and the ``fileMatchPattern`` a ``fileMatch`` needs."""
    inclusion = _mode(ctx, fm, "inclusion", ("always", "fileMatch", "manual", "auto"),
                      "always")
    pattern = fm.get("fileMatchPattern")
    has_pattern = pattern is not None and pattern.value not in (None, "", [])
    if pattern is not None and has_pattern:
        if isinstance(pattern.value, str) or pattern.items is not None:
            _glob_values(ctx, pattern, split_strings=False)
        else:
            ctx.emit("RL105", "`fileMatchPattern` must be a glob string or a list of globs,"
                     f" not {_type_name(pattern.value)}.", pattern.value_range)
    if inclusion != "fileMatch":
        return
    where = ctx.doc.line_range(fm.block.start_line)
    if not has_pattern:
        ctx.emit("RL121", "`inclusion: fileMatch` without `fileMatchPattern`: no file"
                 " matches, so Kiro never includes this steering file.", where)
        return
    home = ctx.home_dir
    if home and ctx.doc.fmt.owner.rstrip(os.sep) == home.rstrip(os.sep):
        ctx.emit("RL121", "`inclusion: fileMatch` in the global steering folder never"
                 " triggers (observed in Kiro 0.12.263, kirodotdev/Kiro#9176): move this"
                 " file to a workspace's `.kiro/steering/`, or use `always` or `auto`.", where)


def _cline_paths(ctx: Context, fm: ParsedFrontmatter) -> None:
    """Cline ``paths`` (@864419d8 ``evaluatePathsConditional``): anything but a list of
    non-empty strings is ignored (the rule loads with every task); ``[]`` never loads."""
    f = fm.get("paths")
    if f is None:
        return
    if isinstance(f.value, str):
        globs = split_comma(f.value) or [f.value]
        edit = TextEdit(ctx.doc.path, Range(f.key_range.end, f.value_range.end),
                        _as_list_text(globs))
        ctx.emit("RL104", "`paths` is a string; Cline ignores a `paths` that is not a list"
                 " and loads the rule with every task (fail-open).", f.value_range,
                 fixes=[Fix("Turn `paths` into a list", "safe", (edit,))])
        return
    if f.items is None:
        ctx.emit("RL105", f"`paths` must be a list of glob strings, not {_type_name(f.value)};"
                 " Cline ignores it and loads the rule with every task.", f.value_range)
        return
    if not [i for i in f.items if not (isinstance(i.value, str) and not i.value.strip())]:
        ctx.emit("RL105", "`paths` is an empty list: Cline never loads this rule"
                 " (fail-closed).", f.value_range)
        return
    bad = next((i for i in f.items if not (isinstance(i.value, str) and i.value)), None)
    if bad is not None:
        ctx.emit("RL105", f"`paths` items must be non-empty glob strings, not"
                 f" {_type_name(bad.value)}: one such item makes Cline ignore the whole"
                 " `paths` and load the rule with every task.", bad.range)
        return
    _glob_values(ctx, f, split_strings=False)


def _qwen_paths(ctx: Context, fm: ParsedFrontmatter) -> None:
    """Qwen Code ``paths`` (@1aba1b9f ``parseRuleFile``): one glob or a list; an empty list
    counts as no ``paths``, so the rule loads at session start."""
    f = fm.get("paths")
    if f is None:
        return
    if isinstance(f.value, str) or (f.items is not None and f.items):
        _glob_values(ctx, f, split_strings=False)
    elif f.items is not None:
        ctx.emit("RL105", "`paths` is an empty list: Qwen Code treats it as no `paths` and"
                 " loads the rule at session start, for every file.", f.value_range)
    else:
        ctx.emit("RL105", f"`paths` must be a glob or a list of globs, not"
                 f" {_type_name(f.value)}; Qwen Code then loads the rule at session start.",
                 f.value_range)


def _continue(ctx: Context, fm: ParsedFrontmatter) -> None:
    """Continue rules (per its docs): ``alwaysApply`` a boolean, ``globs`` and ``regex``
    a string or a list of strings."""
    aa = fm.get("alwaysApply")
    if aa is not None and aa.value is not None and not isinstance(aa.value, bool):
        text = str(aa.value).strip().lower()
        fixes = [Fix(f"Write `alwaysApply: {text}`", "safe",
                     (TextEdit(ctx.doc.path, aa.value_range, text),))] \
            if text in ("true", "false") else []
        ctx.emit("RL108", f"`alwaysApply` must be `true` or `false`, not {_show(aa.value)}:"
                 " Continue then treats it as absent.", aa.value_range, fixes=fixes)
    for key in ("globs", "regex"):
        f = fm.get(key)
        if f is None or f.value in (None, "", []):
            continue
        if not (isinstance(f.value, str) or f.items is not None):
            ctx.emit("RL105", f"`{key}` must be a string or a list of strings, not"
                     f" {_type_name(f.value)}.", f.value_range)
        elif key == "globs":
            _glob_values(ctx, f, split_strings=False)


# ----------------------------------------------------------------------- globs
def _glob_values(ctx: Context, f: Field, *, split_strings: bool) -> None:
    entries: list[tuple[str, Range]] = []
    if f.items is not None:
        for item in f.items:
            if not isinstance(item.value, str):
                ctx.emit("RL105", f"`{f.key}` items must be glob strings, not"
                         f" {_type_name(item.value)}.", item.range)
                continue
            entries.append((item.value, item.range))
    elif isinstance(f.value, str):
        parts = split_comma(f.value) if split_strings else [f.value]
        for part in parts or [f.value]:
            entries.append((part, _sub_range(ctx, f.value_range, part)))
    root = ctx.doc.fmt.owner
    check_workspace = ctx.git_root is not None and (
        root == ctx.git_root or root.startswith(ctx.git_root.rstrip(os.sep) + os.sep))
    max_files = ctx.config.thresholds.glob_scan_max_files
    valid: list[tuple[str, Range]] = []
    for glob, rng in entries:
        why = ctx.caches.globs.problem(glob)
        if why is not None:
            shown = glob if len(glob) <= 80 else f"{glob[:60]}… ({len(glob):,} characters)"
            ctx.emit("RL113", f"Invalid glob `{shown}`: {why}.", rng)
        else:
            valid.append((glob, rng))
    if not valid or not check_workspace or not ctx.config.enabled("RL114"):
        return
    # The rule is judged by all its patterns together: it never loads only when none of
    # them matches a file (one dead pattern next to live ones is not "never").
    if all(ctx.caches.globs.matches_any(root, glob, max_files) is False for glob, _ in valid):
        where = ctx.rel(root) or root
        if len(valid) == 1:
            glob, rng = valid[0]
            ctx.emit("RL114", f"`{glob}` matches no file under {where}, so this rule never"
                     " loads for any file there.", rng)
        else:
            names = ", ".join(f"`{g}`" for g, _ in valid)
            ctx.emit("RL114", f"None of {names} matches a file under {where}, so this rule"
                     " never loads for any file there.", f.value_range)


def _sub_range(ctx: Context, whole: Range, part: str) -> Range:
    if whole.start.line != whole.end.line:
        return whole
    line = ctx.doc.line(whole.start.line)
    at = line.find(part, whole.start.character, whole.end.character or None)
    if at < 0:
        return whole
    return Range.of(whole.start.line, at, whole.start.line, at + len(part))


def _unquoted_globs(ctx: Context, fm: ParsedFrontmatter) -> set[int]:
    """RL116 on each unquoted ``*``/``{`` value line; returns the flagged lines."""
    flagged: set[int] = set()
    doc = ctx.doc
    end = fm.block.end_line or 0
    kind = doc.fmt.kind
    for i in range(fm.block.start_line + 1, end):
        line = doc.line(i).rstrip("\r")
        m = _UNQUOTED.match(line)
        if m is None:
            continue
        val = m.group("val")
        if val.startswith("{") and ": " in val:
            continue  # a real flow mapping
        if val.startswith("*") and re.fullmatch(r"\*[\w-]+", val):
            continue  # a real alias
        start, stop = m.start("val"), m.start("val") + len(val)
        key = m.group("key")
        if key == "paths" and kind in ("claude-rule", "boost-rule", "cline-rule"):
            globs = split_comma(val) or [val]
            col = line.index(":", m.start("key"))
            edit = TextEdit(doc.path, Range.of(i, col, i, stop), _as_list_text(globs))
            title = "Quote the glob and make `paths` a list"
        else:
            edit = TextEdit(doc.path, Range.of(i, start, i, stop),
                            json.dumps(val, ensure_ascii=False))
            title = "Quote the glob"
        ctx.emit("RL116", f"`{val}` starts with `{val[0]}`, which YAML reads as "
                 f"{'an alias' if val[0] == '*' else 'a flow mapping'}: the frontmatter does"
                 " not parse. Quote it.", Range.of(i, start, i, stop),
                 fixes=[Fix(title, "safe", (edit,))])
        flagged.add(i)
    return flagged


def _type_name(value: object) -> str:
    if value is None:
        return "an empty value"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _show(value: object) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else repr(value)
