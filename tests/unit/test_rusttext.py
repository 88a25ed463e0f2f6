"""Rust string semantics (spec §1): where Python's built-ins would give other answers."""

from __future__ import annotations

import pytest

from rulelens.agents.rusttext import WHITE_SPACE, byte_len, lines, trim, trim_end, trim_start


def test_white_space_is_the_unicode_property() -> None:
    assert len(WHITE_SPACE) == 25
    for ch in "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000":
        assert ch in WHITE_SPACE
    # Python's str.strip() also strips these information separators; Rust trim does not.
    for ch in "\x1c\x1d\x1e\x1f":
        assert ch not in WHITE_SPACE
        assert (ch + "a").strip() == "a" and trim(ch + "a") == ch + "a"
    assert "\u200b" not in WHITE_SPACE  # zero-width space is not White_Space


def test_trim_variants() -> None:
    text = "\u3000\t x \xa0\n"
    assert trim(text) == "x"
    assert trim_start(text) == "x \xa0\n"
    assert trim_end(text) == "\u3000\t x"


@pytest.mark.parametrize("text, expected", [
    ("", []),
    ("\n", [""]),
    ("a", ["a"]),
    ("a\n", ["a"]),
    ("a\n\n", ["a", ""]),
    ("a\r\nb\r\n", ["a", "b"]),
    ("a\rb", ["a\rb"]),                 # lone \r is not a break
    ("a\r", ["a\r"]),                   # a final lone \r is kept
    ("a\r\r\nb", ["a\r", "b"]),         # only one \r is dropped
    ("a\x0bb\x0cc\x1cd\u2028e", ["a\x0bb\x0cc\x1cd\u2028e"]),  # splitlines() would split
])
def test_lines_like_rust(text: str, expected: list[str]) -> None:
    assert lines(text) == expected


def test_lines_differs_from_splitlines() -> None:
    assert "a\u2028b".splitlines() == ["a", "b"]
    assert lines("a\u2028b") == ["a\u2028b"]


def test_byte_len_counts_utf8_bytes() -> None:
    assert byte_len("abc") == 3
    assert byte_len("é") == 2 and len("é") == 1
    assert byte_len("日本") == 6
    assert byte_len("🙂") == 4
