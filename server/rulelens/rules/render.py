"""The exact ``<system-reminder>`` block Grok injects, and a token estimate.

Rendering (spec §3.7) concatenates a fixed preamble, one ``## From:`` section per file in
load order, and a fixed closing. Paths and contents pass through :func:`neutralize`, which
escapes the ``<`` of anything that looks like a reminder tag so a rule file cannot close
the block early.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rulelens.agents.rusttext import WHITE_SPACE
from rulelens.rules.model import RuleFile

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


def render(files: Iterable[RuleFile]) -> str:
    """The injected text; the empty string when nothing loads."""
    parts = [f"\n## From: {neutralize(f.path)}\n{neutralize(f.content)}\n" for f in files]
    if not parts:
        return ""
    return PREAMBLE + "".join(parts) + CLOSING


def estimate_tokens(text: str) -> int:
    """A model-agnostic estimate: one token per four characters, rounded up.

    Good to within about 20% for English prose and Markdown with common tokenizers; used
    for budgets and tables, never for anything exact.
    """
    return (len(text) + 3) // 4
