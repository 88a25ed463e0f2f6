"""The profile and format rows themselves: ids, the `grok` alias, wording, gates."""

from __future__ import annotations

import pytest

from rulelens.agents.formats import BY_KIND, FORMATS, RULE_DIRS, row
from rulelens.agents.profiles import (
    GROK_1_0_6,
    GROK_1_0_45,
    PROFILES,
    UnknownAgent,
    grok_profile,
    profile,
)


def test_grok_means_the_newest_grok_row() -> None:
    assert profile() is profile("grok") is GROK_1_0_45
    assert profile("grok@1.0.6") is GROK_1_0_6
    assert [p.id for p in PROFILES if p.agent == "grok"] == ["grok@1.0.6", "grok@1.0.45"]
    assert len({p.id for p in PROFILES}) == len(PROFILES)
    with pytest.raises(UnknownAgent, match="unknown agent 'grok@2'"):
        profile("grok@2")
    with pytest.raises(UnknownAgent, match="not a Grok profile"):
        grok_profile("claude")
    assert grok_profile(None) is GROK_1_0_45


def test_the_two_grok_rows_differ_only_where_grok_changed() -> None:
    same = ("named_files", "rules_dirs", "home_roots", "gitignore", "frontmatter", "display",
            "wording", "foreign_files")
    for name in same:
        assert getattr(GROK_1_0_6, name) == getattr(GROK_1_0_45, name), name
    assert (GROK_1_0_6.boundary, GROK_1_0_45.boundary) == ("git-root", "repo-dir-chain")
    assert (GROK_1_0_6.trust, GROK_1_0_45.trust is not None) == (None, True)
    assert (GROK_1_0_6.dedup, GROK_1_0_45.dedup) == ("two-valued", "three-valued")
    assert (GROK_1_0_6.tokens, GROK_1_0_45.tokens) == ("chars-ceil-4", "bytes-floor-4")
    assert GROK_1_0_45.renderers == ("system-reminder", "rules")
    assert not GROK_1_0_6.extra_rule_dirs and GROK_1_0_45.extra_rule_dirs


def test_names_in_probe_order_with_gates() -> None:
    six = ("Agents.md", "Claude.md", "CLAUDE.md", "CLAUDE.local.md", "AGENT.md", "AGENTS.md")
    assert GROK_1_0_45.base_names == six
    assert GROK_1_0_45.names() == (*six, ".claude/CLAUDE.md", ".claude/CLAUDE.local.md")
    assert GROK_1_0_45.names({("claude", "agents"): False}) == six


def test_wording_names_the_profile() -> None:
    text = GROK_1_0_45.say("nested-in-rules-dir", rules_dir="/r/.grok/rules", rel="a/b.md")
    assert text == ("Grok reads only files directly inside /r/.grok/rules; this one is nested"
                    " (a/b.md). Move it up to load it")
    assert GROK_1_0_45.say("untrusted-folder", command="grok --trust").endswith(
        "or run `grok --trust`")
    assert GROK_1_0_6.foreign(".cursorrules") == "legacy Cursor rules file; Grok does not read it"
    assert GROK_1_0_6.foreign("README.md") is None


def test_format_rows() -> None:
    assert RULE_DIRS[:3] == ((".grok", "rules", "grok-rule"), (".claude", "rules", "claude-rule"),
                             (".cursor", "rules", "cursor-rule"))
    assert {f.kind for f in FORMATS if f.read_by_grok} == {"grok-rule", "claude-rule",
                                                          "cursor-rule"}
    claude = row("claude-rule")
    assert claude is BY_KIND["claude-rule"] and claude is not None
    assert (claude.scope_key, claude.allowed_keys, claude.strict_yaml) == (
        "paths", frozenset({"paths"}), True)
    assert row("grok-rule").allowed_keys is None  # type: ignore[union-attr]
    assert row("nope") is None
