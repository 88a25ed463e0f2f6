"""docs/agents.md is generated from the profile table: the page and the table agree."""

from __future__ import annotations

from pathlib import Path

from rulelens.agents import agentdocs
from rulelens.agents.profiles import PROFILES

PAGE = Path(__file__).resolve().parents[3] / "docs" / "agents.md"


def test_page_equals_the_generated_text() -> None:
    assert PAGE.read_text(encoding="utf-8") == agentdocs.render(), (
        "docs/agents.md is stale: python -m rulelens.agents.agentdocs > docs/agents.md")


def test_every_profile_has_a_section_with_its_sources() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for p in PROFILES:
        head = f"## {p.display} (`{p.id}`)"
        assert head in text
        body = text.split(head, 1)[1].split("\n## ", 1)[0]
        for s in p.sources:
            assert s.upstream in body
