"""Chains and rule-file states as editor views: code lens titles, hover Markdown, payloads.

One ``Chain`` value feeds every view, so the lens count, the hover table and the
``rulelens/chain`` payload cannot disagree. Strings are built here and wrapped in
lsprotocol types by the server; tests read the same strings.
"""

from __future__ import annotations

import pathlib
import re
from typing import Any

from rulelens.lsp.session import TrackerSplit
from rulelens.present import byte_size, display_path, printable_data
from rulelens.rules import Chain, SkipReason
from rulelens.rules.render import empty_reason, render


def _base(chain: Chain) -> str:
    return chain.git_root or chain.cwd


def _dir_label(directory: str, base: str | None) -> str:
    return display_path(directory, base).rstrip("/") + "/"

def _link(path: str, base: str | None) -> str:
    # A link to the base directory itself is labelled by its full (home-shortened) path,
    # not ".", which would say nothing in a list of files.
    label = display_path(path, None if path == base else base)
    label = label.replace("|", "\\|").replace("]", "\\]")
    return f"[{label}]({pathlib.Path(path).as_uri()})"


# ---------------------------------------------------------------- folder trust
def trust_command(chain: Chain) -> str:
    """The command that grants trust (``grok --trust``), from the profile."""
    from rulelens.agents.profiles import profile

    rule = profile(chain.agent).trust
    return rule.command if rule is not None else ""


def trust_note(chain: Chain) -> str | None:
    """One line when folder trust withholds files, with the command that changes it."""
    if chain.trust is None or not chain.trust.withholds:
        return None
    n = len(chain.withheld)
    state = "not trusted" if chain.trust.state == "untrusted" else "not trusted yet"
    return (f"Folder {state}: {n} project file{'' if n == 1 else 's'} withheld; run"
            f" `{trust_command(chain)}` here to load {'it' if n == 1 else 'them'}")


# ------------------------------------------------------------------ code lens
_REASONS = {
    SkipReason.GITIGNORED: "gitignored",
    SkipReason.NOT_UTF8: "not valid UTF-8",
    SkipReason.UNREADABLE: "cannot be read",
    SkipReason.NOT_A_FILE: "not a regular file",
    SkipReason.COMPAT_DISABLED: "its [compat] switch is off",
    SkipReason.NESTED_IN_RULES_DIR: "nested inside a rules directory",
    SkipReason.UNRECOGNIZED_NAME: "Grok does not read this name",
    SkipReason.DUPLICATE: "duplicate of a file that already loads",
    SkipReason.IGNORE_UNCHECKED: "its patterns could not all be applied",
    SkipReason.UNTRUSTED_FOLDER: "the folder is not trusted (grok --trust)",
}


def _short_reason(reason: SkipReason) -> str:
    return _REASONS.get(reason, str(reason))


# ---------------------------------------------------------------------- hover
def chain_hover(chain: Chain, split: TrackerSplit | None) -> str:
    """The chain as a Markdown table in load order, the skipped files, the tracker split."""
    base = _base(chain)
    out = [f"**RuleLens** · an agent started in `{_dir_label(chain.cwd, base)}` loads"
           f" {len(chain.files)} instruction file{'' if len(chain.files) == 1 else 's'}", ""]
    note = trust_note(chain)
    if note is not None:
        out += [f"> **{_md(note)}.** {_md(chain.trust.reason if chain.trust else '')}", ""]
    if chain.files:
        out += ["| # | file | role | kind | size | ~tokens |",
                "|--:|:--|:--|:--|--:|--:|"]
        for f in chain.files:
            out.append(f"| {f.precedence} | {_link(f.path, base)} | {f.source} | {f.kind} |"
                       f" {byte_size(f.bytes)} | {f.tokens} |")
        out.append(f"| | **total** | | | **{byte_size(chain.total_bytes)}** |"
                   f" **{chain.total_tokens}** |")
        out += ["", "Loaded first to last: the last (deepest) file wins on conflicts."]
    else:
        out.append("No instruction files load here.")
    if chain.skipped:
        out += ["", f"**Not loaded ({len(chain.skipped)})**", ""]
        for s in chain.skipped:
            out.append(f"- {_link(s.path, base)} — `{s.reason}`: {_md(s.detail)}")
    if split is not None:
        out += ["", *tracker_lines(split, base)]
    ages = age_lines(chain, base)
    if ages:
        out += ["", *ages]
    return "\n".join(out) + "\n"


#: Files of a chain whose age the hover shows at most (two git calls each).
MAX_AGED = 8


def age_lines(chain: Chain, base: str | None) -> list[str]:
    """``**Age**`` lines: when each loaded file last changed and how many commits touched
    what it governs since (:mod:`rulelens.rules.age`); none outside git."""
    import time

    from rulelens.rules.age import describe, file_age

    root = chain.git_root
    if root is None:
        return []
    now = time.time()
    lines = []
    for f in chain.files[:MAX_AGED]:
        age = file_age(f.path, root)
        if age is not None:
            lines.append(f"- {_link(f.path, base)}: {describe(age, now)}")
    return ["**Age** (from git)", "", *lines] if lines else []


def tracker_lines(split: TrackerSplit, base: str | None) -> list[str]:
    out = [f"**Tracker view** · agent session started in `{_dir_label(split.agent_cwd, base)}`",
           "",
           f"- Loaded at session start ({len(split.session_files)}):"
           f" {_list(split.session_files, base)}",
           f"- Only mentioned by path when the agent touches this file"
           f" ({len(split.mentioned_by_path)}): {_list(split.mentioned_by_path, base)}"]
    if split.unreached:
        out.append(f"- Beyond the tracker's walk ({len(split.unreached)}):"
                   f" {_list(split.unreached, base)}")
    out += ["", f"> {split.note}"]
    return out


def _list(paths: tuple[str, ...], base: str | None) -> str:
    if not paths:
        return "none"
    return ", ".join(_link(p, base) for p in paths)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def chain_payload(chain: Chain, split: TrackerSplit | None) -> dict[str, Any]:
    """``rulelens chain --json`` for the file, plus ``tracker`` (docs/protocol.md)."""
    data = chain.to_json()
    data["tracker"] = split.to_json() if split is not None else None
    note = trust_note(chain)
    if note is not None:
        data["trustNote"] = note
    shown: dict[str, Any] = printable_data(data)  # a name not in UTF-8 reads as \xff
    return shown


def render_payload(chain: Chain) -> dict[str, Any]:
    """``complete`` is false when a file was too large to hold: its section is empty
    (``rulelens render`` streams it)."""
    out: dict[str, Any] = {"text": render(chain.files),
                           "complete": all(f.held for f in chain.files)}
    if not chain.files:  # say why, and what next (`empty` is absent when text is not)
        from rulelens.agents.profiles import profile

        out["empty"] = empty_reason(chain, profile(chain.agent))
    return out


# ------------------------------------------------------------- frontmatter keys
_GROK_RULE = ("Grok Build strips the frontmatter before injecting a rule file and reads no"
              " key: this key changes nothing for Grok; the file loads whenever its directory"
              " is in the chain.")
_GROK_NAMED = ("Grok Build injects this file verbatim, frontmatter included: the model reads"
               " this line as text, and no key changes when the file loads.")

#: What each agent does with a frontmatter key (rule-formats research, 2026).
FRONTMATTER_KEYS: dict[str, tuple[tuple[str, str], ...]] = {
    "description": (
        ("Cursor", "With no `globs` and `alwaysApply: false`, the agent reads the description"
                   " to decide whether to pull the rule in (\"Apply Intelligently\")."),
        ("GitHub Copilot (VS Code)", "Optional; used to match an instruction file that has"
                                     " no `applyTo`."),
        ("Windsurf / Devin", "Required by `trigger: model_decision`."),
        ("Claude Code", "Not read for `.claude/rules` files."),
    ),
    "globs": (
        ("Cursor", "A comma-separated glob string (unquoted `**/*.ts` is accepted): the rule"
                   " attaches when a matching file is in context."),
        ("Windsurf / Devin", "Used with `trigger: glob`; Devin CLI requires a list."),
        ("Claude Code", "Ignored in `.claude/rules` (the key is `paths`): a rule with only"
                        " `globs` loads unconditionally."),
    ),
    "alwaysApply": (
        ("Cursor", "`true`: the rule is always included; must be a boolean."),
        ("Claude Code / Copilot", "Ignored."),
    ),
    "paths": (
        ("Claude Code", "A YAML list of globs: the rule loads when Claude reads a matching"
                        " file; without `paths` it loads at launch."),
        ("Laravel Boost", "`.ai/rules` files with non-empty `paths` enter the rules index."),
        ("Cursor", "Unknown key; ignored."),
    ),
    "applyTo": (
        ("GitHub Copilot", "A glob string (comma-separated; `**` = all) for"
                           " `*.instructions.md`; without it VS Code does not apply the file"
                           " automatically."),
        ("Cursor / Claude Code", "Ignored."),
    ),
    "excludeAgent": (
        ("GitHub Copilot", "`code-review`, `coding-agent` or `cloud-agent`: the agent that"
                           " skips this file."),
    ),
    "trigger": (
        ("Windsurf / Devin", "`always_on`, `model_decision` (needs `description`), `glob`"
                             " (needs `globs`) or `manual` (only by @mention)."),
    ),
    "name": (
        ("GitHub Copilot (VS Code)", "Optional display name of the instruction file."),
    ),
}

_KEY = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*:")


def frontmatter_key_at(line: str, character: int) -> str | None:
    """The key under the cursor when the line is ``key: value`` and the cursor is on the key."""
    m = _KEY.match(line)
    if m is None or not (m.start(1) <= character <= m.end(1)):
        return None
    return m.group(1)


def frontmatter_hover(key: str, kind: str | None) -> str:
    """What ``key`` does for each agent that reads it; ``kind`` is how Grok loads the file."""
    grok = _GROK_NAMED if kind == "named" else _GROK_RULE
    rows = FRONTMATTER_KEYS.get(key)
    out = [f"**Frontmatter `{key}`**", "", "| agent | effect |", "|:--|:--|",
           f"| Grok Build | {grok} |"]
    if rows is None:
        out.append("| others | No agent RuleLens knows reads this key. |")
    else:
        out += [f"| {agent} | {_md(text)} |" for agent, text in rows]
    return "\n".join(out) + "\n"
