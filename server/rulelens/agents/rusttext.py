"""Rust string semantics that the agent relies on, for exact ports.

Grok Build is written in Rust. Where it trims, splits lines or measures lengths, Python's
built-ins differ in small ways that change results (spec §1):

* Rust ``trim`` strips the Unicode ``White_Space`` set; ``str.strip()`` also strips the
  information separators U+001C..U+001F.
* Rust ``str::lines`` splits on ``\\n`` only and drops one ``\\r`` before it;
  ``str.splitlines()`` also breaks on ``\\r``, ``\\x0b``, ``\\x0c``, ``\\u2028`` and more.
* Rust ``len`` counts UTF-8 bytes.
"""

from __future__ import annotations

#: The Unicode White_Space property (Rust ``char::is_whitespace``).
WHITE_SPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u0085\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def trim(text: str) -> str:
    """Rust ``str::trim``."""
    return text.strip(WHITE_SPACE)


def trim_start(text: str) -> str:
    """Rust ``str::trim_start``."""
    return text.lstrip(WHITE_SPACE)


def trim_end(text: str) -> str:
    """Rust ``str::trim_end``."""
    return text.rstrip(WHITE_SPACE)


def lines(text: str) -> list[str]:
    """Rust ``str::lines``: split on ``\\n``, drop one ``\\r`` before each ``\\n``.

    A final ``\\n`` does not start an extra empty line; a lone ``\\r`` at the very end
    is kept; the empty string has no lines.
    """
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
        return [p[:-1] if p.endswith("\r") else p for p in parts]
    last = parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts] + [last]


def byte_len(text: str) -> int:
    """Rust ``str::len``: UTF-8 byte length."""
    return len(text.encode("utf-8", "surrogatepass"))
