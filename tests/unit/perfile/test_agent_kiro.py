"""Kiro profile (per Kiro docs): one test per fact of agent-profiles-more.md §5."""

from __future__ import annotations

from pathlib import Path

from agenttree import entry, env_for, loaded, skipped, write

from rulelens.agents import kiro
from rulelens.agents.view import AgentView, check_consistent
from rulelens.multichain import view_json
from rulelens.rules.perfile import with_source


def _view(base: Path, home: Path, file: Path | None = None) -> AgentView:
    v = kiro.view(str(base), str(file) if file else None, env_for(home))
    check_consistent(v)
    return v


def test_ki_f1_workspace_and_global_steering_and_agents_md(base: Path, home: Path) -> None:
    """KI-F1: ``.kiro/steering/*.md`` and ``~/.kiro/steering/*.md`` (foundation files are
    ordinary steering files) and the root AGENTS.md load; nested folders do not."""
    ws = base / ".kiro" / "steering"
    for name in ("product.md", "tech.md", "structure.md"):
        write(ws / name, name)
    write(ws / "drafts" / "old.md", "nested")
    g = write(home / ".kiro" / "steering" / "personal.md", "mine")
    write(base / "AGENTS.md", "agents")
    v = _view(base, home)
    assert loaded(v, "start") == [str(g), str(ws / "product.md"), str(ws / "structure.md"),
                                  str(ws / "tech.md"), str(base / "AGENTS.md")]
    assert entry(v, g).role == "home"
    assert v.find(str(ws / "drafts" / "old.md")) is None
    assert any("workspace wins" in n for n in v.notes)


def test_ki_f2_inclusion_modes(base: Path, home: Path) -> None:
    """KI-F2: always (default when absent), fileMatch by fileMatchPattern, manual by #name,
    auto by description."""
    ws = base / ".kiro" / "steering"
    write(ws / "plain.md", "no front matter")
    write(ws / "always.md", "---\ninclusion: always\n---\nA")
    write(ws / "api.md",
          "---\ninclusion: fileMatch\nfileMatchPattern: \"src/api/**/*.ts\"\n---\nAPI")
    write(ws / "ui.md", "---\ninclusion: fileMatch\nfileMatchPattern: [\"**/*.tsx\"]\n---\nUI")
    write(ws / "manual.md", "---\ninclusion: manual\n---\nM")
    write(ws / "auto.md", "---\ninclusion: auto\nname: db\ndescription: Database work\n---\nD")
    target = write(base / "src" / "api" / "users.ts", "")
    v = _view(base, home, target)
    assert entry(v, ws / "plain.md").when == "start"
    assert "no inclusion (always)" in entry(v, ws / "plain.md").why
    assert entry(v, ws / "always.md").when == "start"
    api = entry(v, ws / "api.md")
    assert api.when == "on-read" and api.content == "API" and "src/api/users.ts" in api.why
    assert skipped(v, ws / "ui.md").reason == "pattern-no-match"
    man = skipped(v, ws / "manual.md")
    assert man.reason == "manual" and "#manual" in man.detail
    assert entry(v, ws / "auto.md").when == "may"


def test_ki_f2_filematch_without_pattern_and_unknown_inclusion(base: Path, home: Path) -> None:
    """KI-F2: fileMatch needs fileMatchPattern; an inclusion outside the four is not
    documented and not counted as loaded."""
    ws = base / ".kiro" / "steering"
    write(ws / "nopat.md", "---\ninclusion: fileMatch\n---\nx")
    write(ws / "odd.md", "---\ninclusion: sometimes\n---\nx")
    v = _view(base, home, write(base / "a.py"))
    assert skipped(v, ws / "nopat.md").reason == "no-pattern"
    assert skipped(v, ws / "odd.md").reason == "unknown-inclusion"


def test_ki_f2_file_references(base: Path, home: Path) -> None:
    """KI-F2: ``#[[file:<path>]]`` pulls in a workspace file wherever the steering file is
    included; a missing target is named."""
    ws = base / ".kiro" / "steering"
    write(ws / "api.md", "Follow the spec: #[[file:docs/openapi.yaml]]\nAnd #[[file:gone.md]]")
    spec = write(base / "docs" / "openapi.yaml", "openapi: 3.1.0\n")
    v = _view(base, home)
    ref = entry(v, spec)
    assert ref.when == "start" and ref.imported_by == str(ws / "api.md") and ref.kind == "import"
    assert skipped(v, base / "gone.md").reason == "reference-missing"
    assert [(e.spec, e.status, e.line) for e in v.imports] == [
        ("docs/openapi.yaml", "inlined", 1), ("gone.md", "missing", 2)]


def test_ki_f3_global_filematch_never_triggers(base: Path, home: Path) -> None:
    """KI-F3 (observed, kirodotdev/Kiro#9176, Kiro 0.12.263): fileMatch steering in
    ``~/.kiro/steering`` never triggers, even for a matching file; the same file in the
    workspace does."""
    text = "---\ninclusion: fileMatch\nfileMatchPattern: \"**/*.php\"\n---\nPHP"
    g = write(home / ".kiro" / "steering" / "php.md", text)
    w = write(base / ".kiro" / "steering" / "php.md", text)
    v = _view(base, home, write(base / "app" / "Http" / "Controller.php"))
    s = skipped(v, g)
    assert s.reason == "global-filematch" and "Kiro#9176" in s.detail and "observed" in s.detail
    assert entry(v, w).when == "on-read"


def test_ki_f3_line_is_graded_observed_the_rest_docs(base: Path, home: Path) -> None:
    """KI-F3 is an issue report, so its line says ``observed`` with the report as source;
    every other Kiro line is ``docs`` with the steering page (from the profile row)."""
    g = write(home / ".kiro/steering/php.md",
              "---\ninclusion: fileMatch\nfileMatchPattern: \"**/*.php\"\n---\nPHP")
    w = write(base / ".kiro/steering/all.md", "always")
    out = view_json(with_source(_view(base, home, write(base / "a.php"))))
    lines = {e["path"]: e for e in [*out["files"], *out["skipped"]]}
    assert lines[str(g)]["evidence"] == "observed"
    assert "Kiro/issues/9176" in lines[str(g)]["evidence_source"]
    assert lines[str(w)]["evidence"] == "docs"
    assert "kiro.dev/docs/steering" in lines[str(w)]["evidence_source"]
