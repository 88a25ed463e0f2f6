"""Cline's own unit tests for rule loading, ported to RuleLens' Cline model.

Each test names its origin: ``cline/cline@864419d8:apps/vscode/src/core/context/instructions/
user-instructions/__tests__/<file>`` and the ``it(...)`` title. The helpers tested in the
original (``parseYamlFrontmatter``, ``evaluateRuleConditionals``,
``getRuleFilesTotalContentWithMetadata``) are ``cline.parse_frontmatter``,
``cline.evaluate_paths`` and the view over a real ``.clinerules`` tree; the rules folder
tests use a workspace whose edited file is the candidate path.
"""

from __future__ import annotations

import os
from pathlib import Path

from rulelens.agents import cline
from rulelens.agents.view import AgentView, NotLoaded, ViewFile

ORIGIN = "cline/cline@864419d8:apps/vscode/src/core/context/instructions/user-instructions"


def _env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "PATH": "/nonexistent"}


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    root = Path(os.path.realpath(tmp_path))
    ws, home = root / "ws", root / "home"
    (ws / ".clinerules").mkdir(parents=True)
    home.mkdir()
    return ws, home


def _view(ws: Path, home: Path, rel: str) -> AgentView:
    target = ws / rel
    return cline.view(str(ws), str(target), _env(home))


# ------------------------------------------------------------ frontmatter.test.ts
def test_returns_original_content_when_no_frontmatter() -> None:
    """frontmatter.test.ts: "returns original content when no frontmatter"."""
    data, body, had, err = cline.parse_frontmatter("Just text")
    assert (data, body, had, err) == ({}, "Just text", False, None)


def test_parses_valid_yaml_frontmatter() -> None:
    """frontmatter.test.ts: "parses valid YAML frontmatter"."""
    data, body, had, err = cline.parse_frontmatter('---\npaths:\n  - "src/**"\n---\n\nHello')
    assert had and err is None
    assert data == {"paths": ["src/**"]} and body.strip() == "Hello"


def test_fails_open_on_malformed_yaml() -> None:
    """frontmatter.test.ts: "fails open on malformed YAML"."""
    text = "---\npaths: [invalid\n---\nBody"
    data, body, had, err = cline.parse_frontmatter(text)
    assert had and data == {} and body == text and isinstance(err, str)


def test_rejects_yaml_custom_tags() -> None:
    """frontmatter.test.ts: "rejects YAML custom tags (security: prevents unsafe
    deserialization)" and "rejects !!python/object YAML tag"."""
    for text in ("---\nfoo: !!js/function 'function(){ return 1 }'\n---\nBody",
                 "---\nfoo: !!python/object:os.system 'echo pwned'\n---\nBody"):
        data, body, had, err = cline.parse_frontmatter(text)
        assert had and data == {} and body == text and isinstance(err, str)


def test_parses_json_compatible_yaml_values() -> None:
    """frontmatter.test.ts: "parses JSON-compatible YAML values correctly"."""
    data, body, had, err = cline.parse_frontmatter(
        '---\ncount: 42\nenabled: true\ntags:\n  - "a"\n  - "b"\n---\nContent')
    assert err is None and had
    assert data == {"count": 42, "enabled": True, "tags": ["a", "b"]}
    assert body.strip() == "Content"


# ------------------------------------------------------- rule-conditionals.test.ts
def test_treats_missing_paths_as_universal() -> None:
    """rule-conditionals.test.ts: "treats missing paths as universal"."""
    assert cline.evaluate_paths({}, [])[0] is True


def test_treats_empty_paths_list_as_match_nothing() -> None:
    """rule-conditionals.test.ts: "treats empty paths list in frontmatter as match-nothing
    (fail-closed)"."""
    assert cline.evaluate_paths({"paths": []}, ["src/index.ts"])[0] is False


def test_does_not_activate_path_scoped_rules_with_empty_context() -> None:
    """rule-conditionals.test.ts: "does not activate path-scoped rules with empty
    context"."""
    assert cline.evaluate_paths({"paths": ["src/**"]}, [])[0] is False


def test_matches_when_any_candidate_path_matches_any_glob() -> None:
    """rule-conditionals.test.ts: "matches when any candidate path matches any glob"."""
    passed, hit = cline.evaluate_paths({"paths": ["src/**", "apps/**"]}, ["src/index.ts"])
    assert passed and hit == ["src/**"]


def test_ignores_invalid_paths_type() -> None:
    """rule-conditionals.test.ts: "ignores invalid paths type (fail-open)"."""
    assert cline.evaluate_paths({"paths": "src/**"}, [])[0] is True


# ------------------------------------------------------------ rule-loading.test.ts
def test_filters_rules_by_evaluation_context_paths(tmp_path: Path) -> None:
    """rule-loading.test.ts: "filters rules by evaluationContext.paths" — on a real
    ``.clinerules`` folder: the scoped rule loads (on read) for ``src/index.ts``, not for
    ``docs/readme.md``; the universal one loads at start for both; the fence is stripped."""
    ws, home = _tree(tmp_path)
    (ws / ".clinerules" / "universal.md").write_text("Always on")
    (ws / ".clinerules" / "scoped.md").write_text('---\npaths:\n  - "src/**"\n---\n\nOnly for src')
    v1 = _view(ws, home, "src/index.ts")
    scoped = v1.find(str(ws / ".clinerules" / "scoped.md"))
    assert isinstance(scoped, ViewFile) and scoped.when == "on-read"
    assert "paths:" not in scoped.content and scoped.content == "Only for src"
    universal = v1.find(str(ws / ".clinerules" / "universal.md"))
    assert isinstance(universal, ViewFile) and universal.when == "start"
    assert v1.rendered is not None and ".clinerules/scoped.md\nOnly for src" in v1.rendered
    v2 = _view(ws, home, "docs/readme.md")
    assert isinstance(v2.find(str(ws / ".clinerules" / "scoped.md")), NotLoaded)
    assert isinstance(v2.find(str(ws / ".clinerules" / "universal.md")), ViewFile)


def test_invalid_yaml_frontmatter_fails_open_with_raw_fence(tmp_path: Path) -> None:
    """rule-loading.test.ts: "treats invalid YAML frontmatter as fail-open and preserves the
    raw frontmatter for the LLM"."""
    ws, home = _tree(tmp_path)
    (ws / ".clinerules" / "invalid.md").write_text(
        "---\npaths: *\n---\n\nInvalid YAML, but should still be included")
    f = _view(ws, home, "src/index.ts").find(str(ws / ".clinerules" / "invalid.md"))
    assert isinstance(f, ViewFile) and f.when == "start"
    assert "---" in f.content and "paths:" in f.content and "fail-open" in f.why


def test_paths_empty_list_is_match_nothing(tmp_path: Path) -> None:
    """rule-loading.test.ts: "treats paths: [] as match-nothing (fail-closed)"."""
    ws, home = _tree(tmp_path)
    (ws / ".clinerules" / "scoped-empty.md").write_text(
        "---\npaths: []\n---\n\nShould never activate")
    s = _view(ws, home, "src/index.ts").find(str(ws / ".clinerules" / "scoped-empty.md"))
    assert isinstance(s, NotLoaded) and s.reason == "paths-empty"


def test_activated_rules_keep_input_order(tmp_path: Path) -> None:
    """rule-loading.test.ts: "keeps activatedConditionalRules order stable (matches input
    file order)" — a, b, c all activated, in that order."""
    ws, home = _tree(tmp_path)
    for name in "abc":
        (ws / ".clinerules" / f"{name}.md").write_text(f'---\npaths:\n  - "src/**"\n---\n\n{name}')
    v = _view(ws, home, "src/index.ts")
    assert [Path(f.path).name for f in v.of("on-read")] == ["a.md", "b.md", "c.md"]


def test_origin_is_named() -> None:
    """The module cites the pinned loader it ports."""
    assert "864419d8" in cline.SOURCE and "864419d8" in cline.PROFILE.id
    assert cline.PROFILE.source.startswith(ORIGIN.split(":")[0])
