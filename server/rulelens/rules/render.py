"""The exact ``<system-reminder>`` block Grok injects, the ``<rules>`` frame, token estimates.

Rendering (spec §3.7) concatenates a fixed preamble, one ``## From:`` section per file in
load order, and a fixed closing. Paths and contents pass through :func:`neutralize`, which
escapes the ``<`` of anything that looks like a reminder tag so a rule file cannot close
the block early.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from rulelens.agents.fs import is_within
from rulelens.agents.rusttext import WHITE_SPACE, trim

if TYPE_CHECKING:
    from rulelens.agents.profiles import AgentProfile
    from rulelens.rules.model import Chain, RuleFile

_WS = "[" + re.escape(WHITE_SPACE) + "]"
_TAG = re.compile(r"<(" + _WS + r"*/?" + _WS + r"*system[-_]reminder)", re.IGNORECASE)

PREAMBLE = (
    "\n\n<system-reminder>\nAs you answer the user's questions, you can use the following context"
    " (ordered from repo root to current directory - deeper files take precedence on conflicts):\n"
)
CLOSING = (
    "\nFollow these instructions exactly. When working in subdirectories not listed above, check"
    " for additional project instruction files (AGENTS.md, Claude.md, etc.)."
    "\n</system-reminder>"
)


def neutralize(text: str) -> str:
    """Escape the ``<`` of ``<system-reminder``-like tags (any case, ``-`` or ``_``) as ``&lt;``."""
    return _TAG.sub(r"&lt;\1", text)


def path_display(path: str) -> str:
    """Rust ``Path::display``: bytes of the name that are not UTF-8 become U+FFFD."""
    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # surrogates that are no escaped bytes
        raw = path.encode("utf-8", "replace")
    return raw.decode("utf-8", "replace")


def render(files: Iterable[RuleFile]) -> str:
    """The injected text; the empty string when nothing loads."""
    parts = [f"\n## From: {neutralize(path_display(f.path))}\n{neutralize(f.content)}\n"
             for f in files]
    if not parts:
        return ""
    return PREAMBLE + "".join(parts) + CLOSING


def estimate_tokens(text: str) -> int:
    """A model-agnostic estimate: one token per four characters, rounded up.

    Good to within about 20% for English prose and Markdown with common tokenizers; used
    for budgets and tables, never for anything exact.
    """
    return (len(text) + 3) // 4


def estimate_tokens_for(text: str, method: str) -> int:
    """The token figure a profile shows: ``chars-ceil-4`` (:func:`estimate_tokens`) or
    ``bytes-floor-4``, ``grok inspect``'s ``approxTokens`` (UTF-8 bytes // 4, addendum
    §A8.2)."""
    if method == "bytes-floor-4":
        return len(text.encode("utf-8", "surrogatepass")) // 4
    return estimate_tokens(text)


def estimate_tokens_counted(chars: int, nbytes: int, method: str) -> int:
    """:func:`estimate_tokens_for` of a text known only by its length and UTF-8 size."""
    return nbytes // 4 if method == "bytes-floor-4" else (chars + 3) // 4


#: The longest text held back at a chunk's end because it may begin a reminder tag.
_HOLD = 4096
_TAG_START = re.compile(r"<" + _WS + r"*(?:/" + _WS + r"*)?(?:s(?:y(?:s(?:t(?:e(?:m(?:[-_]"
                        r"(?:r(?:e(?:m(?:i(?:n(?:d(?:e(?:r)?)?)?)?)?)?)?)?)?)?)?)?)?)?)?\Z",
                        re.IGNORECASE)


def neutralize_stream(chunks: Iterable[str]) -> Iterator[str]:
    """:func:`neutralize` of the concatenated ``chunks``, chunk by chunk: a tag split
    across two chunks is still caught (a possible tag start at a chunk's end is held
    back, up to :data:`_HOLD` characters of blanks)."""
    carry = ""
    for chunk in chunks:
        text = carry + chunk
        at = text.rfind("<", max(0, len(text) - _HOLD))
        if at >= 0 and _TAG_START.match(text, at):
            text, carry = text[:at], text[at:]
        else:
            carry = ""
        if text:
            yield neutralize(text)
    if carry:
        yield neutralize(carry)


def render_iter(files: Iterable[RuleFile],
                unheld: Callable[[RuleFile], Iterable[str]]) -> Iterator[str]:
    """:func:`render`, in pieces; the content of a file not held comes from ``unheld``
    (its injected text in chunks), so no file is ever held whole."""
    started = False
    for f in files:
        if not started:
            yield PREAMBLE
            started = True
        yield f"\n## From: {neutralize(path_display(f.path))}\n"
        if f.held:
            yield neutralize(f.content)
        else:
            yield from neutralize_stream(unheld(f))
        yield "\n"
    if started:
        yield CLOSING


# --------------------------------------------------------------- the <rules> frame
#: Addendum §A3.11 (``format_rules_section``, user_message.rs @Z 21d45e4).
RULES_INTRO = (
    "The rules section has a number of possible rules/memories/context that you should"
    " consider. In each subsection, we provide instructions about what information the"
    " subsection contains and how you should consider/follow the contents of the subsection."
)
WORKSPACE_OPEN = ('<always_applied_workspace_rules description="These are workspace-level'
                  ' rules that the agent must always follow.">\n')
USER_OPEN = ('<user_rules description="These are rules set by the user that you should'
             ' follow if appropriate.">\n')
_FRAME_TAGS = ("</rules>", "<rules>", "</system-reminder>", "<system-reminder>",
               "</system_reminder>", "<system_reminder>")


def neutralize_rule(text: str) -> str:
    """``neutralize_file_rule_content``: six literal tags get ``&lt;`` (exact case only)."""
    for tag in _FRAME_TAGS:
        text = text.replace(tag, "&lt;" + tag[1:])
    return text


def _push_body(out: list[str], body: str) -> None:
    """``push_rule_body`` (1.0.45): a newline after the opening tag and before the closing
    one unless the body already has it, so a heading stays a heading."""
    if not body.startswith("\n"):
        out.append("\n")
    out.append(body)
    if not body.endswith("\n"):
        out.append("\n")


def is_user_instruction_path(path: str, grok_home: str, vendor_homes: Iterable[str],
                             workspace_roots: Iterable[str]) -> bool:
    """``is_user_instruction_path`` (addendum §A3.11): lexical prefix tests, in order."""
    parent = os.path.dirname(path)
    homes = tuple(vendor_homes)
    if parent in (grok_home, os.path.join(grok_home, "rules")):
        return True
    if any(parent in (h, os.path.join(h, "rules")) for h in homes):
        return True
    if any(is_within(path, root) for root in workspace_roots):
        return False
    return any(is_within(path, h) for h in (grok_home, *homes))


def render_rules(files: Iterable[RuleFile], grok_home: str, vendor_homes: Iterable[str],
                 workspace_roots: Iterable[str]) -> str:
    """The ``<rules>`` block Plan and custom templates inject; ``""`` when nothing loads.

    A file is a user rule when it is ``configured`` or :func:`is_user_instruction_path`;
    the others are workspace rules; load order is kept within each list.
    """
    homes = tuple(vendor_homes)
    roots = tuple(workspace_roots)
    workspace: list[RuleFile] = []
    user: list[RuleFile] = []
    for f in files:
        is_user = f.source == "configured" or is_user_instruction_path(
            f.path, grok_home, homes, roots)
        (user if is_user else workspace).append(f)
    if not workspace and not user:
        return ""
    out = ["<rules>\n", RULES_INTRO, "\n\n\n"]
    if workspace:
        out.append(WORKSPACE_OPEN)
        for i, f in enumerate(workspace):
            if i:
                out.append("\n")
            out.append(f'<always_applied_workspace_rule name="{path_display(f.path)}">')
            _push_body(out, neutralize_rule(trim(f.content)))
            out.append("</always_applied_workspace_rule>\n")
        out.append("</always_applied_workspace_rules>")
        out.append("\n\n" if user else "\n")
    if user:
        out.append(USER_OPEN)
        for i, f in enumerate(user):
            if i:
                out.append("\n")
            out.append("<user_rule>")
            _push_body(out, neutralize_rule(f.content) if f.path else f.content)
            out.append("</user_rule>\n")
        out.append("</user_rules>\n")
    out.append("</rules>")
    return "".join(out)


def empty_reason(chain: Chain, chosen: AgentProfile) -> str:
    """One line for a chain with no files: why nothing loads, and what to do next."""
    home = os.path.expanduser("~")
    where = ("~" + chain.cwd[len(home):] if chain.cwd == home or chain.cwd.startswith(home + "/")
             else chain.cwd)
    head = f"{chosen.display} ({chosen.id}) loads no instruction file in {where}"
    if chain.withheld:
        return (f"{head}: {len(chain.withheld)} project file(s) withheld because the folder is"
                " not trusted; preview them with `rulelens render --trust trusted`, or trust the"
                f" folder in {chosen.display} (`grok --trust`)")
    if chain.skipped:
        return (f"{head}: {len(chain.skipped)} file(s) found but not loaded;"
                " `rulelens chain` says why for each")
    names = ", ".join(chosen.names()[:4])
    dirs = ", ".join(d.path for d in chosen.rules_dirs[:2])
    return (f"{head}: none of {names}, … nor {dirs} there or in the folders above it, and"
            " none in its home; `rulelens chain --agent all` shows the other agents")
