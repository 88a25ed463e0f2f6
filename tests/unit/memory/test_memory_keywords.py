"""Keyword extraction (spec §7.7), including the agent's own examples."""

from __future__ import annotations

import pytest

from rulelens.memory.search import STOP_WORDS, extract_keywords, fts_match


@pytest.mark.parametrize(("query", "expected"), [
    ("that thing we discussed about the API", ["discussed", "api"]),
    ("what is that?", []),
    ("Go and JS patterns", ["go", "js", "patterns"]),
    ("is it ok to do that", ["ok"]),
    ("port 8080 and 443 config", ["port", "config"]),
    ("rust rust rust programming", ["rust", "programming"]),
    ("what's the solution for the bug?", ["solution", "bug"]),
    ("the my_function variable", ["my_function", "variable"]),
    ("show me that database migration we talked about", ["database", "migration", "talked"]),
    ("I a x language", ["language"]),
    ("", []),
    ("??? !!! ...", []),
])
def test_agent_examples(query: str, expected: list[str]) -> None:
    assert extract_keywords(query) == expected


def test_fts_operators_are_stop_words_or_lowercased() -> None:
    assert extract_keywords("NEAR AND OR not") == ["near"]
    assert fts_match(extract_keywords("NEAR AND OR not")) == "near"


def test_accented_words_and_the_byte_rule() -> None:
    # "é" alone is one character but two bytes, so it survives the 2-byte minimum.
    assert extract_keywords("é café naïve Ünïcode") == ["é", "café", "naïve", "ünïcode"]
    assert extract_keywords("x é") == ["é"]


def test_combining_vowel_signs_stay_inside_words() -> None:
    # U+093E (DEVANAGARI VOWEL SIGN AA) is Alphabetic in Rust but not isalnum() in Python.
    assert extract_keywords("नमस्ते कार्य") == ["नमस", "ते", "कार", "य"]
    assert "कार" in extract_keywords("कार्य")
    assert extract_keywords("राम") == ["राम"]


def test_numeric_words_use_rust_numeric() -> None:
    # Python isnumeric() accepts 一 (a CJK ideograph); Rust is_numeric does not.
    assert extract_keywords("一二 ½½ 42") == ["一二"]


def test_stop_word_list_size_and_members() -> None:
    assert len(STOP_WORDS) == 125  # the agent's list, counted group by group
    assert {"and", "or", "not", "what", "please", "thing"} <= STOP_WORDS


def test_fts_match_joins_with_or() -> None:
    assert fts_match(["a1", "b_c"]) == "a1 OR b_c"
