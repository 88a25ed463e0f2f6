"""Frontmatter as the non-Grok agents read it: just enough to find the scoping keys.

``yaml_meta`` parses the block with PyYAML's safe loader (Claude's ``paths``, Copilot's
``applyTo``, Boost's ``paths``) through :mod:`rulelens.agents.yamlbound` (nesting and
alias expansion bounded, a recursive alias refused, before any value is built);
``loose_meta`` reads ``key: value`` lines the way Cursor does, so an unquoted
``globs: **/*.ts`` (an alias error in strict YAML) still counts. Both cap the block at
64 KiB; a bad block is "no frontmatter" plus an error string.
"""

from __future__ import annotations

import re
from typing import Any

from rulelens.agents import yamlbound

_MAX = 64 * 1024
#: Nesting and expanded-node bounds for agents' frontmatter (lint's are configurable).
_MAX_DEPTH = 64
_MAX_NODES = 10_000
_OPEN = re.compile(r"^\ufeff?\s*---[ \t]*\r?\n")


def block(text: str) -> tuple[str, str] | None:
    """``(yaml_text, body)`` when ``text`` opens with a ``---`` … ``---`` block."""
    m = _OPEN.match(text)
    if not m:
        return None
    rest = text[m.end():]
    close = re.search(r"^---[ \t]*(?:\r?\n|\Z)", rest, re.MULTILINE)
    if close is None:
        return None
    return rest[: close.start()], rest[close.end():]


def yaml_meta(text: str) -> tuple[dict[str, Any], str, str | None]:
    """``(fields, body, error)``; fields empty when there is no (valid) block."""
    found = block(text)
    if found is None:
        return {}, text, None
    raw, body = found
    data, error = safe_yaml(raw)
    return (data if isinstance(data, dict) else {}), body, error


def safe_yaml(raw: str, what: str = "frontmatter", max_bytes: int = _MAX
              ) -> tuple[Any, str | None]:
    """``yaml.safe_load(raw)`` under the bounds: ``(value, None)`` or ``(None, error)``
    (``what`` names the text in the error)."""
    if len(raw) > max_bytes:
        return None, f"{what} over {max_bytes // 1024} KiB"
    doc = yamlbound.compose(raw, max_bytes=max_bytes, max_depth=_MAX_DEPTH,
                            max_nodes=_MAX_NODES)
    if doc.problem is not None:
        if doc.problem.kind == "syntax":
            return None, f"{what} is not valid YAML ({doc.problem.message})"
        return None, f"{what} refused: {doc.problem.message}"
    return (None if doc.node is None else yamlbound.construct(doc.node)), None


def loose_meta(text: str) -> tuple[dict[str, Any], str]:
    """Cursor-style ``key: value`` lines; ``true``/``false`` become booleans, quoted
    strings stay strings (so ``alwaysApply: "true"`` is not true), ``[a, b]`` a list."""
    found = block(text)
    if found is None:
        return {}, text
    raw, body = found
    out: dict[str, Any] = {}
    for line in raw[:_MAX].splitlines():
        m = re.match(r"^([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$", line)
        if not m:
            continue
        key, value = m.group(1), m.group(2)
        out[key] = _scalar(value)
    return out, body


def _scalar(value: str) -> Any:
    if value in ("true", "True"):
        return True
    if value in ("false", "False"):
        return False
    if value == "":
        return None
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    if value.startswith("[") and value.endswith("]"):
        return [v.strip().strip("\"'") for v in value[1:-1].split(",") if v.strip()]
    return value
