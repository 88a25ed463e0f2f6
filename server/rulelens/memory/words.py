"""Word splitting with Rust ``char::is_alphanumeric`` semantics (spec §1).

Rust's alphanumeric is Unicode *Alphabetic* or *Numeric* (Nd/Nl/No). Python's
``str.isalnum()`` misses ~1,300 combining marks with Other_Alphabetic (Indic vowel
signs, for example), so keyword extraction would split Hindi words where the agent does
not. The ``regex`` module knows ``\\p{Alphabetic}``; without it we fall back to
``isalpha()`` plus the numeric categories, which differs only on those marks.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

_NUMERIC = frozenset({"Nd", "Nl", "No"})

_split: Callable[[str], list[str]]
try:
    import regex

    _SEPARATOR = regex.compile(r"[^\p{Alphabetic}\p{Nd}\p{Nl}\p{No}_]")

    def _split(text: str) -> list[str]:
        return [str(piece) for piece in _SEPARATOR.split(text)]

except ImportError:  # pragma: no cover - exercised only without the optional module

    def _word_char(ch: str) -> bool:
        return ch == "_" or ch.isalpha() or unicodedata.category(ch) in _NUMERIC

    def _split(text: str) -> list[str]:
        out: list[str] = []
        cur: list[str] = []
        for ch in text:
            if _word_char(ch):
                cur.append(ch)
            else:
                out.append("".join(cur))
                cur = []
        out.append("".join(cur))
        return out


def split_words(text: str) -> list[str]:
    """Split on every character that is not (alphanumeric or ``_``); empty pieces kept."""
    return _split(text)


def is_numeric_word(word: str) -> bool:
    """Every character is Rust-numeric (Nd/Nl/No); not Python's ``isnumeric`` (which accepts 一)."""
    return all(unicodedata.category(ch) in _NUMERIC for ch in word)
