"""``rulelens.present``: the one path shortening and size format every surface uses."""

from __future__ import annotations

import pytest

from rulelens.present import byte_size, display_path


@pytest.fixture(autouse=True)
def home(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("HOME", "/h/me")
    return "/h/me"


def test_relative_to_the_base_and_the_base_itself_is_dot() -> None:
    assert display_path("/r/src/AGENTS.md", "/r") == "src/AGENTS.md"
    assert display_path("/r", "/r") == "."
    assert display_path("/", "/") == "."
    assert display_path("/etc/x", "/") == "etc/x"


def test_a_sibling_with_the_base_as_a_string_prefix_is_not_inside() -> None:
    assert display_path("/rx/AGENTS.md", "/r") == "/rx/AGENTS.md"
    assert display_path("/h/mex/AGENTS.md", None) == "/h/mex/AGENTS.md"


def test_home_shortened_outside_the_base_and_home_itself_stays_absolute() -> None:
    assert display_path("/h/me/.grok/AGENTS.md", "/r") == "~/.grok/AGENTS.md"
    assert display_path("/h/me/.grok/AGENTS.md") == "~/.grok/AGENTS.md"
    assert display_path("/h/me", None) == "/h/me"
    assert display_path("/h/me/r/a.md", "/h/me/r") == "a.md"   # the base wins over the home


def test_home_at_the_root_shortens_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/")
    assert display_path("/etc/AGENTS.md") == "/etc/AGENTS.md"


@pytest.mark.parametrize(("n", "text"), [
    (0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"),
    (1024 * 1024 - 1, "1024.0 KiB"), (1024 * 1024, "1.0 MiB"), (5 * 1024 * 1024, "5.0 MiB"),
])
def test_byte_size(n: int, text: str) -> None:
    assert byte_size(n) == text
