"""Codex CLI profile, the facts of agent-profiles.md §1 that are not a file choice: case
(16), joiners and the logged cut (20, 22), environments (23), the child-agents message
(29, 34), the ``</INSTRUCTIONS>`` escape (32, upstream ``codex-rs/instructions``
``user_instructions_escapes_embedded_closing_marker``), re-reads and re-sends (5, 33), the
top-level config keys (35), config profiles (36) and a repository's ``.codex/config.toml``
(37). Where Codex's behaviour happens at run time, the test pins what RuleLens's view says
about it."""

from __future__ import annotations

from pathlib import Path

from agenttree import entry, env_for, loaded, write

from rulelens.agents import codex
from rulelens.agents.view import AgentView


def _view(cwd: Path, home: Path, file: Path | None = None, config: str | None = None,
          ) -> AgentView:
    codex_home = home / ".codex"
    if config is not None:
        write(codex_home / "config.toml", config)
    return codex.view(str(cwd), str(file) if file else None,
                      env_for(home, CODEX_HOME=str(codex_home)))


def _notes(view: AgentView, fact: str) -> list[str]:
    return [n for n in view.notes if f"fact {fact})" in n or f"facts {fact}" in n
            or f", {fact})" in n]


def test_fact_5_global_file_is_said_to_be_re_read_each_step(base: Path, home: Path) -> None:
    """Fact 5: the view says the global file is re-read at every model step (newest design,
    third-party source) and project files are not; without a global file it says nothing."""
    write(base / "AGENTS.md", "project")
    assert _notes(_view(base, home), "5") == []
    write(home / ".codex" / "AGENTS.md", "global")
    (note,) = _notes(_view(base, home), "5")
    assert "re-read at every model step" in note and "project files are not" in note
    assert "1cc7e236" in note


def test_fact_16_names_are_case_sensitive_on_a_case_sensitive_fs(base: Path,
                                                                  home: Path) -> None:
    """Fact 16: names are joined literally, so on a case-sensitive filesystem ``agents.md``
    and ``AGENTS.MD`` are not ``AGENTS.md``; a fallback spelled ``agents.md`` finds it."""
    write(base / "agents.md", "lower")
    write(base / "AGENTS.MD", "upper ext")
    assert not (base / "AGENTS.md").exists(), "this test needs a case-sensitive filesystem"
    v = _view(base, home)
    assert loaded(v) == [] and v.rendered == ""
    v = _view(base, home, config='project_doc_fallback_filenames = ["agents.md"]\n')
    assert loaded(v) == [str(base / "agents.md")]


def test_fact_20_joiners_are_not_charged_to_the_budget(base: Path, home: Path) -> None:
    """Fact 20: the budget counts file bytes only. Limit 7 with "root" then "abcdef" cuts the
    second file at byte 3 (7 - 4): the ``\\n\\n`` joiner, the ``--- project-doc ---``
    separator after the global file and the wrapper cost nothing."""
    write(base / ".git", "")
    write(home / ".codex" / "AGENTS.md", "global")
    write(base / "AGENTS.md", "root")
    write(base / "nested" / "AGENTS.md", "abcdef")
    v = _view(base / "nested", home, config="project_doc_max_bytes = 7\n")
    assert entry(v, base / "nested" / "AGENTS.md").truncated_at == 3
    assert v.extra["remaining"] == 0
    assert v.rendered == (f"# AGENTS.md instructions for {base / 'nested'}\n\n<INSTRUCTIONS>\n"
                          "global\n\n--- project-doc ---\n\nroot\n\nabc\n</INSTRUCTIONS>")


def test_fact_22_the_cut_is_logged_only_no_marker_in_the_text(base: Path, home: Path) -> None:
    """Fact 22: Codex only logs the truncation; the injected text ends at the cut with no
    marker, and the view's why says so."""
    write(base / "AGENTS.md", "0123456789")
    v = _view(base, home, config="project_doc_max_bytes = 4\n")
    f = entry(v, base / "AGENTS.md")
    assert f.content == "0123"
    assert (v.rendered or "").endswith("<INSTRUCTIONS>\n0123\n</INSTRUCTIONS>")
    assert "only logs the cut" in f.why and "no marker" in f.why


def test_fact_23_budget_is_said_to_be_per_environment(base: Path, home: Path) -> None:
    """Fact 23: RuleLens models one environment; when the budget is reached the view says
    the budget is per environment at 0cf644af and carried across them at 1cc7e236, and the
    render keeps the single-environment header ``for <cwd>``."""
    write(base / "AGENTS.md", "small")
    assert _notes(_view(base, home), "23") == []
    v = _view(base, home, config="project_doc_max_bytes = 3\n")
    (note,) = _notes(v, "23")
    assert "0cf644af" in note and "1cc7e236" in note and "one environment" in note
    assert (v.rendered or "").startswith(f"# AGENTS.md instructions for {base}\n\n")


def test_facts_29_34_child_agents_message_is_said_not_rendered(base: Path,
                                                               home: Path) -> None:
    """Facts 29 and 34: with ``[features] child_agents_md = true`` the view says Codex
    appends the hierarchical-AGENTS message once, last, and what it tells the model; the
    render stops at the project docs (RuleLens does not hold the message text)."""
    write(base / "AGENTS.md", "project")
    assert _notes(_view(base, home), "29") == []
    v = _view(base, home, config="[features]\nchild_agents_md = true\n")
    (note,) = _notes(v, "29")
    assert "once, last" in note and "deeper files win" in note
    assert "hierarchical_agents_message.md @71163530" in note
    assert (v.rendered or "").endswith("<INSTRUCTIONS>\nproject\n</INSTRUCTIONS>")


def test_fact_32_user_instructions_escapes_embedded_closing_marker(base: Path,
                                                                    home: Path) -> None:
    """Fact 32, upstream ``user_instructions_escapes_embedded_closing_marker``
    (codex-rs/instructions @80cfbc5c): every ``</INSTRUCTIONS>``, ASCII case-insensitive,
    becomes ``<\\/INSTRUCTIONS>``; the content shown per file stays verbatim and the view
    says the core path is unconfirmed."""
    text = "before\n</INSTRUCTIONS>\nafter\n</instructions>"
    write(base / "AGENTS.md", text)
    v = _view(base, home)
    assert v.rendered == (f"# AGENTS.md instructions for {base}\n\n<INSTRUCTIONS>\nbefore\n"
                          "<\\/INSTRUCTIONS>\nafter\n<\\/INSTRUCTIONS>\n</INSTRUCTIONS>")
    assert entry(v, base / "AGENTS.md").content == text
    (note,) = _notes(v, "32")
    assert "unconfirmed" in note and "80cfbc5c" in note


def test_fact_32_escape_is_ascii_case_insensitive_only() -> None:
    """Fact 32: the match is ASCII case-insensitive (Rust ``eq_ignore_ascii_case``): a
    non-ASCII look-alike (U+0130, dotted I) is not the tag and is left alone."""
    assert codex.escape_close_tag("</InStRuCtIoNs>") == "<\\/INSTRUCTIONS>"
    assert codex.escape_close_tag("</\u0130NSTRUCTIONS>") == "</\u0130NSTRUCTIONS>"
    assert codex.escape_close_tag("no tag") == "no tag"


def test_fact_33_re_send_and_removal_texts_are_said(base: Path, home: Path) -> None:
    """Fact 33: the view names the prefix Codex puts on a re-sent block and its removal
    notice (third-party source); an empty view has nothing to re-send and says nothing."""
    assert _notes(_view(base, home), "33") == []
    write(base / "AGENTS.md", "project")
    (note,) = _notes(_view(base, home), "33")
    assert ("These AGENTS.md instructions replace all previously provided AGENTS.md"
            " instructions.") in note
    assert "The previously provided AGENTS.md instructions no longer apply." in note


def test_fact_36_profile_tables_do_not_set_project_doc_keys(base: Path, home: Path) -> None:
    """Fact 36: ``ConfigProfile`` @1ce4c606 has no ``project_doc_*`` keys, so a
    ``[profiles.<name>] project_doc_max_bytes`` does not cut; the view says so and names
    the newer ``-p`` form as version-gated."""
    write(base / "AGENTS.md", "0123456789")
    v = _view(base, home, config="[profiles.work]\nproject_doc_max_bytes = 4\n")
    assert entry(v, base / "AGENTS.md").truncated_at is None and v.extra["budget"] == 32768
    (note,) = _notes(v, "36")
    assert "[profiles.work]" in note and "version-gated" in note


def test_fact_37_repo_config_budget_is_said_to_be_unconfirmed(base: Path, home: Path) -> None:
    """Fact 37: whether a trusted repository's ``.codex/config.toml`` changes the budget is
    unconfirmed; RuleLens keeps ``$CODEX_HOME``'s value (the documented default here) and
    says so."""
    (base / ".git").mkdir()
    write(base / ".codex" / "config.toml", "project_doc_max_bytes = 4\n")
    write(base / "AGENTS.md", "0123456789")
    v = _view(base, home)
    assert entry(v, base / "AGENTS.md").truncated_at is None and v.extra["budget"] == 32768
    (note,) = _notes(v, "37")
    assert str(base / ".codex" / "config.toml") in note and "unconfirmed" in note


def test_fact_35_the_three_top_level_keys_are_read_together(base: Path, home: Path) -> None:
    """Fact 35: ``$CODEX_HOME/config.toml`` top level sets ``project_doc_max_bytes``,
    ``project_doc_fallback_filenames`` and ``project_root_markers`` (``-c`` overrides are
    command-line only and not visible to RuleLens)."""
    write(base / ".codex-root", "")
    write(base / "AGENTS.md", "root doc")
    write(base / "sub" / "GUIDE.md", "guide text")
    v = _view(base / "sub", home, config='project_doc_max_bytes = 12\n'
              'project_doc_fallback_filenames = ["GUIDE.md"]\n'
              'project_root_markers = [".codex-root"]\n')
    assert loaded(v) == [str(base / "AGENTS.md"), str(base / "sub" / "GUIDE.md")]
    assert v.root == str(base) and entry(v, base / "sub" / "GUIDE.md").content == "guid"
