"""The docs a user gets (README.md, docs/**) link only to what the user has: the web, or
files inside this repository. ``../shared/...`` (the project's research notes) is not
shipped, so a link or a path there leads nowhere (issue 20)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
        *sorted(ROOT.glob("*/README.md"))]
#: Markdown links ``[text](target "title")`` and HTML ``src``/``href`` attributes.
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|\b(?:src|href)=\"([^\"]+)\"")
#: Places outside the repository that a doc might name in plain text.
OUTSIDE = re.compile(r"\.\./shared/|shared/research/|shared/design/")


def _targets(text: str) -> list[str]:
    return [m.group(1) or m.group(2) for m in LINK.finditer(text)]


def test_relative_links_stay_inside_the_repository() -> None:
    outside = []
    for doc in DOCS:
        for target in _targets(doc.read_text(encoding="utf-8")):
            if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target) or target.startswith("#"):
                continue                      # https:, mailto:, an anchor in the page
            resolved = (doc.parent / target.split("#", 1)[0]).resolve()
            if target.startswith("/") or not resolved.is_relative_to(ROOT):
                outside.append(f"{doc.relative_to(ROOT)}: {target}")
    assert not outside, outside


def test_no_doc_names_the_unshipped_research_notes() -> None:
    found = [f"{doc.relative_to(ROOT)}: {m.group(0)}" for doc in DOCS
             for m in OUTSIDE.finditer(doc.read_text(encoding="utf-8"))]
    assert not found, found


def test_the_checker_sees_an_outside_link() -> None:
    assert _targets("see [notes](../shared/research/x.md) and <img src=\"/etc/x.png\">") == [
        "../shared/research/x.md", "/etc/x.png"]
