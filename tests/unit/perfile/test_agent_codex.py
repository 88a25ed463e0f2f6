"""Codex CLI profile: one test per numbered fact of agent-profiles.md §1, including the
cases of Codex's own ``codex-rs/core/src/agents_md_tests.rs`` (named in each docstring)."""

from __future__ import annotations

import os
from pathlib import Path

from agenttree import entry, env_for, loaded, skipped, write

from rulelens.agents import codex


def _view(cwd: Path, home: Path, file: Path | None = None, config: str | None = None,
          **extra: str) -> codex.AgentView:
    codex_home = home / ".codex"
    if config is not None:
        write(codex_home / "config.toml", config)
    return codex.view(str(cwd), str(file) if file else None,
                      env_for(home, CODEX_HOME=str(codex_home), **extra))


def _text(view: codex.AgentView) -> str:
    """The joined project text, as Codex's ``LoadedAgentsMd::text`` has it."""
    return "\n\n".join(f.content for f in view.files if f.when == "start" and f.kind == "project")


def test_no_doc_file_returns_none(base: Path, home: Path) -> None:
    """Upstream ``no_doc_file_returns_none``: nothing to load, nothing rendered."""
    v = _view(base, home)
    assert v.files == () and v.rendered == ""


def test_doc_smaller_than_limit_is_returned(base: Path, home: Path) -> None:
    """Upstream ``doc_smaller_than_limit_is_returned`` (fact 24: verbatim)."""
    write(base / "AGENTS.md", "hello world")
    assert _text(_view(base, home)) == "hello world"


def test_fact_25_invalid_utf8_is_loaded_lossily(base: Path, home: Path) -> None:
    """Fact 25, upstream ``project_doc_invalid_utf8_warns_and_uses_lossy_text``."""
    write(base / "AGENTS.md", b"project\xff doc")
    assert _text(_view(base, home)) == "project\ufffd doc"


def test_fact_18_doc_larger_than_limit_is_truncated(base: Path, home: Path) -> None:
    """Fact 18, upstream ``doc_larger_than_limit_is_truncated`` (limit 1024, 2 KiB file)."""
    write(base / "AGENTS.md", "A" * 2048)
    f = entry(_view(base, home, config="project_doc_max_bytes = 1024\n"), base / "AGENTS.md")
    assert f.content == "A" * 1024 and f.truncated_at == 1024 and f.bytes == 2048
    assert "cut at byte 1,024 of 2,048" in f.why


def test_fact_18_total_byte_limit_truncates_later_project_docs(base: Path, home: Path) -> None:
    """Fact 18, upstream ``total_byte_limit_truncates_later_project_docs``: limit 7,
    "root" + "abcdef" gives "root\\n\\nabc"."""
    write(base / ".git", "")
    write(base / "AGENTS.md", "root")
    write(base / "nested" / "AGENTS.md", "abcdef")
    v = _view(base / "nested", home, config="project_doc_max_bytes = 7\n")
    assert _text(v) == "root\n\nabc"
    assert entry(v, base / "nested" / "AGENTS.md").truncated_at == 3


def test_fact_18_the_cut_is_at_the_byte_not_the_character(base: Path, home: Path) -> None:
    """Fact 18: a multi-byte character split by the cut becomes U+FFFD."""
    write(base / "AGENTS.md", "ab\u00e9cd")  # é is two bytes: the cut at 3 splits it
    f = entry(_view(base, home, config="project_doc_max_bytes = 3\n"), base / "AGENTS.md")
    assert f.content == "ab\ufffd" and f.truncated_at == 3


def test_fact_18_files_after_the_budget_is_spent_are_dropped(base: Path, home: Path) -> None:
    """Fact 18: the loop stops at 0 remaining; every deeper file is not loaded."""
    write(base / ".git", "")
    write(base / "AGENTS.md", "12345")
    write(base / "a" / "AGENTS.md", "more")
    v = _view(base / "a", home, config="project_doc_max_bytes = 5\n")
    assert skipped(v, base / "a" / "AGENTS.md").reason == "over-budget"


def test_fact_17_default_budget_is_32_kib(base: Path, home: Path) -> None:
    """Fact 17: ``project_doc_max_bytes`` defaults to 32768."""
    write(base / "AGENTS.md", "x" * 40000)
    v = _view(base, home)
    assert entry(v, base / "AGENTS.md").truncated_at == 32768 and v.extra["budget"] == 32768


def test_fact_6_finds_doc_in_repo_root_with_git_file(base: Path, home: Path) -> None:
    """Fact 6, upstream ``finds_doc_in_repo_root``: a ``.git`` *file* marks the root."""
    write(base / ".git", "gitdir: /path/to/actual/git/dir\n")
    write(base / "AGENTS.md", "root level doc")
    nested = base / "workspace" / "crate_a"
    nested.mkdir(parents=True)
    assert _text(_view(nested, home)) == "root level doc"


def test_fact_21_zero_byte_limit_disables_docs(base: Path, home: Path) -> None:
    """Fact 21, upstream ``zero_byte_limit_disables_docs``."""
    write(base / "AGENTS.md", "something")
    v = _view(base, home, config="project_doc_max_bytes = 0\n")
    assert loaded(v) == [] and skipped(v, base / "AGENTS.md").reason == "budget-disabled"


def test_fact_30_merges_existing_instructions_with_agents_md(base: Path, home: Path) -> None:
    """Fact 30, upstream ``merges_existing_instructions_with_agents_md`` and
    ``instruction_sources_include_global_before_agents_md_docs``: global first, then the
    separator, then the project doc."""
    write(home / ".codex" / "AGENTS.md", "global doc")
    write(base / "AGENTS.md", "project doc")
    v = _view(base, home)
    assert loaded(v) == [str(home / ".codex" / "AGENTS.md"), str(base / "AGENTS.md")]
    assert "global doc\n\n--- project-doc ---\n\nproject doc" in (v.rendered or "")


def test_fact_31_legacy_layout_frame(base: Path, home: Path) -> None:
    """Fact 31, upstream
    ``primary_only_project_doc_preserves_legacy_layout_with_multiple_bound_environments``."""
    write(home / ".codex" / "AGENTS.md", "global instructions")
    write(base / "AGENTS.md", "primary doc")
    assert _view(base, home).rendered == (
        f"# AGENTS.md instructions for {base}\n\n<INSTRUCTIONS>\nglobal instructions"
        "\n\n--- project-doc ---\n\nprimary doc\n</INSTRUCTIONS>")


def test_fact_11_concatenates_root_and_cwd_docs(base: Path, home: Path) -> None:
    """Fact 11, upstream ``concatenates_root_and_cwd_docs``."""
    write(base / ".git", "gitdir: /path/to/actual/git/dir\n")
    write(base / "AGENTS.md", "root doc")
    write(base / "workspace" / "crate_a" / "AGENTS.md", "crate doc")
    v = _view(base / "workspace" / "crate_a", home)
    assert _text(v) == "root doc\n\ncrate doc"


def test_fact_7_project_root_markers_are_honored(base: Path, home: Path) -> None:
    """Fact 7, upstream ``project_root_markers_are_honored_for_agents_discovery``: with
    marker ``.codex-root`` the inner ``dir1/.git`` is not a root."""
    write(base / ".codex-root", "")
    write(base / "AGENTS.md", "parent doc")
    (base / "dir1" / ".git").mkdir(parents=True)
    write(base / "dir1" / "AGENTS.md", "child doc")
    v = _view(base / "dir1", home, config='project_root_markers = [".codex-root"]\n')
    assert _text(v) == "parent doc\n\nchild doc"


def test_fact_8_no_marker_means_cwd_only(base: Path, home: Path) -> None:
    """Fact 8: no marker above cwd, or an empty marker list: only cwd is searched."""
    write(base / "AGENTS.md", "parent")
    write(base / "sub" / "AGENTS.md", "child")
    assert _text(_view(base / "sub", home)) == "child"
    (base / ".git").mkdir()
    assert _text(_view(base / "sub", home, config="project_root_markers = []\n")) == "child"


def test_fact_9_invalid_markers_fall_back_to_default(base: Path, home: Path) -> None:
    """Fact 9: an invalid ``project_root_markers`` warns and uses ``[".git"]``."""
    (base / ".git").mkdir()
    write(base / "AGENTS.md", "root")
    write(base / "sub" / "AGENTS.md", "sub")
    v = _view(base / "sub", home, config="project_root_markers = 3\n")
    assert _text(v) == "root\n\nsub"
    assert any("invalid project_root_markers" in n for n in v.notes)


def test_fact_10_symlinked_cwd_keeps_its_spelling(base: Path, home: Path) -> None:
    """Fact 10, upstream ``agents_md_paths_preserve_symlinked_cwd``."""
    write(base / "target" / "AGENTS.md", "project doc")
    os.symlink(base / "target", base / "linked")
    v = _view(base / "linked", home)
    assert loaded(v) == [str(base / "linked" / "AGENTS.md")] and _text(v) == "project doc"


def test_fact_12_override_preferred(base: Path, home: Path) -> None:
    """Fact 12, upstream ``agents_local_md_preferred``: one file per directory."""
    write(base / "AGENTS.md", "versioned")
    write(base / "AGENTS.override.md", "local")
    v = _view(base, home)
    assert _text(v) == "local"
    assert skipped(v, base / "AGENTS.md").reason == "shadowed"


def test_fact_12_fallback_used_when_agents_missing(base: Path, home: Path) -> None:
    """Fact 12, upstream ``uses_configured_fallback_when_agents_missing``."""
    write(base / "EXAMPLE.md", "example instructions")
    v = _view(base, home, config='project_doc_fallback_filenames = ["EXAMPLE.md"]\n')
    assert _text(v) == "example instructions"


def test_fact_12_agents_md_preferred_over_fallbacks(base: Path, home: Path) -> None:
    """Fact 12, upstream ``agents_md_preferred_over_fallbacks``."""
    write(base / "AGENTS.md", "primary")
    write(base / "EXAMPLE.md", "secondary")
    v = _view(base, home,
              config='project_doc_fallback_filenames = ["EXAMPLE.md", ".example.md"]\n')
    assert _text(v) == "primary" and skipped(v, base / "EXAMPLE.md").reason == "shadowed"


def test_fact_13_agents_md_directory_is_ignored(base: Path, home: Path) -> None:
    """Fact 13, upstream ``agents_md_directory_is_ignored``."""
    (base / "AGENTS.md").mkdir()
    assert loaded(_view(base, home)) == []


def test_fact_13_agents_md_special_file_is_ignored(base: Path, home: Path) -> None:
    """Fact 13, upstream ``agents_md_special_file_is_ignored`` (a FIFO: must not block)."""
    os.mkfifo(base / "AGENTS.md")
    assert loaded(_view(base, home)) == []


def test_fact_13_override_directory_falls_back_to_agents_md(base: Path, home: Path) -> None:
    """Fact 13, upstream ``override_directory_falls_back_to_agents_md_file``."""
    (base / "AGENTS.override.md").mkdir()
    write(base / "AGENTS.md", "primary")
    v = _view(base, home)
    assert _text(v) == "primary" and loaded(v) == [str(base / "AGENTS.md")]


def test_fact_14_whitespace_override_wins_its_directory(base: Path, home: Path) -> None:
    """Fact 14: a whitespace-only override is chosen, dropped as empty, and its sibling
    AGENTS.md is not loaded."""
    write(base / "AGENTS.override.md", " \n\t")
    write(base / "AGENTS.md", "never read")
    v = _view(base, home)
    assert loaded(v) == []
    assert skipped(v, base / "AGENTS.override.md").reason == "empty"
    assert skipped(v, base / "AGENTS.md").reason == "shadowed"


def test_fact_19_whitespace_files_cost_no_budget(base: Path, home: Path) -> None:
    """Fact 19, upstream ``empty_loaded_instructions_are_empty``: a whitespace-only file is
    skipped and the next file gets the whole budget."""
    write(base / ".git", "")
    write(base / "AGENTS.md", "   \n\n")
    write(base / "a" / "AGENTS.md", "abcd")
    v = _view(base / "a", home, config="project_doc_max_bytes = 4\n")
    assert _text(v) == "abcd" and entry(v, base / "a" / "AGENTS.md").truncated_at is None


def test_facts_1_2_global_override_trimmed_and_empty_falls_through(base: Path,
                                                                   home: Path) -> None:
    """Facts 1-2: the global override wins when non-empty; an empty one falls through to
    AGENTS.md; the global text is trimmed."""
    write(home / ".codex" / "AGENTS.override.md", "  \n")
    write(home / ".codex" / "AGENTS.md", "\n  global  \n")
    v = _view(base, home)
    f = entry(v, home / ".codex" / "AGENTS.md")
    assert f.content == "global" and f.kind == "global"
    write(home / ".codex" / "AGENTS.override.md", "override")
    v = _view(base, home)
    assert entry(v, home / ".codex" / "AGENTS.override.md").content == "override"
    assert skipped(v, home / ".codex" / "AGENTS.md").reason == "shadowed"


def test_fact_3_fallbacks_do_not_apply_to_the_global_dir(base: Path, home: Path) -> None:
    """Fact 3."""
    write(home / ".codex" / "EXAMPLE.md", "global fallback")
    v = _view(base, home, config='project_doc_fallback_filenames = ["EXAMPLE.md"]\n')
    assert loaded(v) == []


def test_fact_4_global_file_is_not_charged(base: Path, home: Path) -> None:
    """Fact 4: a global file larger than the budget is injected whole and costs nothing."""
    write(home / ".codex" / "AGENTS.md", "g" * 100)
    write(base / "AGENTS.md", "abcd")
    v = _view(base, home, config="project_doc_max_bytes = 4\n")
    assert entry(v, home / ".codex" / "AGENTS.md").content == "g" * 100
    assert entry(v, base / "AGENTS.md").content == "abcd"


def test_fact_15_fallback_names_with_slashes_are_dropped(base: Path, home: Path) -> None:
    """Fact 15: ``.``/``..``/names with ``/`` are dropped with a warning; names are trimmed
    and de-duplicated."""
    write(base / "docs" / "X.md", "nested")
    write(base / "EX.md", "ex")
    v = _view(base, home, config='project_doc_fallback_filenames = ["docs/X.md", " EX.md ",'
              ' "EX.md", ".."]\n')
    assert _text(v) == "ex"
    assert sum("ignored" in n for n in v.notes) == 2


def test_fact_27_untrusted_project_loads_no_project_docs(base: Path, home: Path) -> None:
    """Fact 27 (newer builds): ``trust_level = "untrusted"`` withholds project files; the
    global file still loads."""
    (base / ".git").mkdir()
    write(base / "AGENTS.md", "project")
    write(home / ".codex" / "AGENTS.md", "global")
    v = _view(base, home, config=f'[projects."{base}"]\ntrust_level = "untrusted"\n')
    assert loaded(v) == [str(home / ".codex" / "AGENTS.md")]
    assert skipped(v, base / "AGENTS.md").reason == "untrusted-folder"


def test_fact_28_deeper_files_are_only_advised(base: Path, home: Path) -> None:
    """Fact 28: AGENTS.md below cwd on the way to the edited file is *may*, not loaded;
    its directory's override wins there too."""
    (base / ".git").mkdir()
    write(base / "AGENTS.md", "root")
    write(base / "src" / "AGENTS.md", "src")
    write(base / "src" / "AGENTS.override.md", "src override")
    f = write(base / "src" / "app" / "x.py", "")
    v = _view(base, home, file=f)
    may = entry(v, base / "src" / "AGENTS.override.md")
    assert may.when == "may" and "base prompt" in may.why
    assert skipped(v, base / "src" / "AGENTS.md").reason == "shadowed"
    assert loaded(v, "start") == [str(base / "AGENTS.md")]


def test_fact_26_a_read_error_aborts_project_docs() -> None:
    """Fact 26, upstream ``read_agents_md_propagates_read_errors``: a permission error on a
    project doc loads no project doc at all (the global file still loads). Run as an
    unprivileged user through the CLI: root reads a 0000 file anyway."""
    import json
    import subprocess
    import sys

    from helpers.unprivileged import NOBODY, world_readable_tmp

    with world_readable_tmp("rulelens-codex-") as base:
        home, repo = base / "home", base / "repo"
        write(home / ".codex" / "AGENTS.md", "global")
        (repo / ".git").mkdir(parents=True)
        write(repo / "AGENTS.md", "root doc")
        locked = write(repo / "sub" / "AGENTS.md", "secret")
        locked.chmod(0)
        cmd = [str(Path(sys.executable).with_name("rulelens")), "chain", "--json",
               "--agent", "codex", str(repo / "sub")]
        if os.geteuid() == 0:
            cmd = NOBODY + cmd
        out = subprocess.run(cmd, env=env_for(home), capture_output=True, text=True,
                             check=True, timeout=60)
        view = json.loads(out.stdout)
        assert [f["path"] for f in view["files"]] == [str(home / ".codex" / "AGENTS.md")]
        reasons = {s["path"]: s["reason"] for s in view["skipped"]}
        assert reasons[str(locked)] == "unreadable"
        assert reasons[str(repo / "AGENTS.md")] == "aborted"
