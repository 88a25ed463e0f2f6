"""Parsing JSON and TOML that others control with the nesting bounded before the parser runs.

``json.loads`` and ``tomllib.loads`` recurse once per level of ``[[[...`` or ``{"a":{...``:
a 100,000-deep ``settings.json``, ``config.toml``, ``package.json`` or transcript line
raises ``RecursionError`` (or, in C, exhausts the stack). So the text is scanned first, by
one regular-expression pass that skips strings (and TOML comments), counting the depth of
brackets and braces; deeper than the caller's bound is :class:`TooDeep`, a ``ValueError``
whose message is one line. The scan is skipped when the text has fewer brackets in total
than the bound (a C-level count), which is every ordinary file.

Ground floor: standard library only.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

#: Nesting allowed in an agent's settings, a ``package.json``, a transcript line. Real
#: files stay below ten levels; the parsers' recursion limit is near a thousand.
MAX_DEPTH = 64

# A string always matches (to its closing quote, or to the end when it has none), so every
# byte is looked at once: no backtracking, however hostile the quotes.
_JSON_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*+"?|[\[\]{}]', re.DOTALL)
_TOML_TOKENS = re.compile(
    rb'"""(?:[^\\]|\\.)*?(?:"""|\\?\Z)|\'\'\'.*?(?:\'\'\'|\Z)|"(?:[^"\\\n]|\\.)*+"?'
    rb"|'[^'\n]*'?|#[^\n]*|[\[\]{}]", re.DOTALL)
_OPEN = frozenset(b"[{")
_CLOSE = frozenset(b"]}")


class TooDeep(ValueError):
    """Text nested deeper than the bound; not parsed."""

    def __init__(self, depth_limit: int) -> None:
        super().__init__(f"nested deeper than {depth_limit} levels; not parsed")
        self.limit = depth_limit


def _scan(data: bytes, tokens: re.Pattern[bytes], limit: int) -> None:
    if data.count(b"[") + data.count(b"{") <= limit:
        return
    depth = 0
    for m in tokens.finditer(data):
        first = data[m.start()]
        if m.end() - m.start() != 1:
            continue  # a string or a comment
        if first in _OPEN:
            depth += 1
            if depth > limit:
                raise TooDeep(limit)
        elif first in _CLOSE and depth:
            depth -= 1


def _bytes(text: str | bytes) -> bytes:
    return text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")


def check_json(text: str | bytes, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`TooDeep` when the JSON text nests deeper than ``limit``."""
    _scan(_bytes(text), _JSON_TOKENS, limit)


def check_toml(text: str | bytes, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`TooDeep` when the TOML text's arrays and inline tables nest deeper
    than ``limit``."""
    _scan(_bytes(text), _TOML_TOKENS, limit)


def json_loads(text: str | bytes, limit: int = MAX_DEPTH) -> Any:
    """``json.loads`` after the depth scan; ``ValueError`` (or :class:`TooDeep`) for bad
    input, never ``RecursionError``."""
    check_json(text, limit)
    try:
        return json.loads(text)
    except RecursionError:  # a bound above the interpreter's limit
        raise TooDeep(limit) from None


def toml_loads(text: str, limit: int = MAX_DEPTH) -> dict[str, Any]:
    """``tomllib.loads`` after the depth scan; ``tomllib.TOMLDecodeError`` or
    :class:`TooDeep` (both ``ValueError``) for bad input, never ``RecursionError``."""
    check_toml(text, limit)
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise TooDeep(limit) from None
