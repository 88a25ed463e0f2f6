"""Gemini CLI profile: one test per numbered fact of agent-profiles.md §2, including the
cases of Gemini CLI's own ``memoryDiscovery.test.ts`` and ``memoryImportProcessor.test.ts``
(named in each docstring), on real trees."""

from __future__ import annotations

from pathlib import Path

from agenttree import entry, env_for, git_init, loaded, skipped, write, write_json

from rulelens.agents import gemini
from rulelens.agents.view import AgentView


def _trust(home: Path, folder: Path, level: str = "TRUST_FOLDER") -> None:
    write_json(home / ".gemini" / "trustedFolders.json", {str(folder): level})


def _view(cwd: Path, home: Path, file: Path | None = None, **extra: str) -> AgentView:
    return gemini.view(str(cwd), str(file) if file else None, env_for(home, **extra))


def test_fact_1_configured_names_come_before_the_default(base: Path, home: Path) -> None:
    """Fact 1, upstream memoryTool.test "appends to currentGeminiMdFilename when a valid new
    name is provided": ``AGENTS.md`` is added before ``GEMINI.md``, not instead of it."""
    assert gemini.file_names("AGENTS.md") == ("AGENTS.md", "GEMINI.md")
    assert gemini.file_names([" a.md ", "", "a.md", "./b.md"]) == ("a.md", "b.md", "GEMINI.md")
    write_json(home / ".gemini" / "settings.json", {"context": {"fileName": "AGENTS.md"}})
    (base / ".git").mkdir()
    write(base / "AGENTS.md", "a")
    write(base / "GEMINI.md", "g")
    _trust(home, base)
    assert loaded(_view(base, home)) == [str(base / "AGENTS.md"), str(base / "GEMINI.md")]


def test_fact_2_no_setting_means_gemini_md_only(base: Path, home: Path) -> None:
    """Fact 2."""
    assert gemini.file_names(None) == ("GEMINI.md",)
    write(base / "AGENTS.md", "a")
    _trust(home, base)
    assert loaded(_view(base, home)) == []


def test_fact_3_global_memory_file(base: Path, home: Path) -> None:
    """Fact 3, upstream "should find global memory file if it exists"."""
    write(home / ".gemini" / "GEMINI.md", "global")
    v = _view(base, home)
    f = entry(v, home / ".gemini" / "GEMINI.md")
    assert f.when == "start" and f.role == "home"


def test_fact_5_traverse_upward_from_trusted_root_to_git_root(base: Path, home: Path) -> None:
    """Fact 5, upstream "should traverse upward from trusted root to git root"."""
    (base / "repo" / ".git").mkdir(parents=True)
    write(base / "GEMINI.md", "above the repository")
    write(base / "repo" / "GEMINI.md", "root")
    write(base / "repo" / "src" / "GEMINI.md", "src")
    _trust(home, base / "repo")
    v = _view(base / "repo" / "src", home)
    assert loaded(v) == [str(base / "repo" / "GEMINI.md"), str(base / "repo" / "src" / "GEMINI.md")]


def test_fact_5_no_git_means_the_workspace_dir_is_the_ceiling(base: Path, home: Path) -> None:
    """Fact 5, upstream "should fall back to trusted root as ceiling when no .git exists"."""
    write(base / "GEMINI.md", "parent")
    write(base / "ws" / "GEMINI.md", "ws")
    _trust(home, base / "ws")
    assert loaded(_view(base / "ws", home)) == [str(base / "ws" / "GEMINI.md")]


def test_fact_5_git_file_is_a_marker(base: Path, home: Path) -> None:
    """Fact 5, upstream "should recognize .git as a file (submodules/worktrees)"."""
    write(base / ".git", "gitdir: elsewhere\n")
    write(base / "GEMINI.md", "root")
    (base / "sub").mkdir()
    _trust(home, base)
    assert loaded(_view(base / "sub", home)) == [str(base / "GEMINI.md")]


def test_fact_6_paths_are_sorted_as_strings_not_by_depth(base: Path, home: Path) -> None:
    """Fact 6: ``/r/App/GEMINI.md`` sorts before ``/r/GEMINI.md`` ('A' < 'G')."""
    (base / "r" / ".git").mkdir(parents=True)
    write(base / "r" / "GEMINI.md", "root")
    write(base / "r" / "App" / "GEMINI.md", "app")
    _trust(home, base / "r")
    assert loaded(_view(base / "r" / "App", home)) == [
        str(base / "r" / "App" / "GEMINI.md"), str(base / "r" / "GEMINI.md")]


def test_fact_6_same_directory_files_sort_by_name(base: Path, home: Path) -> None:
    """Fact 6, upstream "should keep multiple memory files from the same directory adjacent
    and in order": in one directory AGENTS.md sorts before GEMINI.md whatever the config."""
    write_json(home / ".gemini" / "settings.json",
               {"context": {"fileName": ["GEMINI.md", "AGENTS.md"]}})
    write(base / "GEMINI.md", "g")
    write(base / "AGENTS.md", "a")
    _trust(home, base)
    assert loaded(_view(base, home)) == [str(base / "AGENTS.md"), str(base / "GEMINI.md")]


def test_fact_6_duplicates_by_identity_load_once(base: Path, home: Path) -> None:
    """Fact 6, upstream "should deduplicate paths when same root is trusted multiple times":
    a hard link of the same file loads once."""
    write_json(home / ".gemini" / "settings.json", {"context": {"fileName": "AGENTS.md"}})
    write(base / "GEMINI.md", "same")
    (base / "AGENTS.md").hardlink_to(base / "GEMINI.md")
    _trust(home, base)
    assert loaded(_view(base, home)) == [str(base / "AGENTS.md")]


def test_fact_9a_folder_trust_is_on_by_default(base: Path, home: Path) -> None:
    """Fact 9/9a: with no trustedFolders.json rule the folder is untrusted: no project
    GEMINI.md (shown with the reason), the global file still loads."""
    write(home / ".gemini" / "GEMINI.md", "global")
    write(base / "GEMINI.md", "project")
    v = _view(base, home)
    assert loaded(v) == [str(home / ".gemini" / "GEMINI.md")]
    s = skipped(v, base / "GEMINI.md")
    assert s.reason == "untrusted-folder" and "trustedFolders.json" in s.detail


def test_fact_9a_trust_rules_longest_match_wins(base: Path, home: Path) -> None:
    """Fact 9a: TRUST_FOLDER, TRUST_PARENT, DO_NOT_TRUST; the longest matching rule wins."""
    write(base / "p" / "c" / "GEMINI.md", "c")
    write_json(home / ".gemini" / "trustedFolders.json",
               {str(base / "p"): "TRUST_FOLDER", str(base / "p" / "c"): "DO_NOT_TRUST"})
    assert loaded(_view(base / "p" / "c", home)) == []
    write_json(home / ".gemini" / "trustedFolders.json",
               {str(base / "p" / "c" / ".gemini"): "TRUST_PARENT"})
    assert loaded(_view(base / "p" / "c", home)) == [str(base / "p" / "c" / "GEMINI.md")]


def test_fact_9_env_and_setting_override_trust(base: Path, home: Path) -> None:
    """Fact 9: ``GEMINI_CLI_TRUST_WORKSPACE=true`` trusts; folder trust switched off in
    the user settings trusts every folder."""
    write(base / "GEMINI.md", "project")
    assert loaded(_view(base, home, GEMINI_CLI_TRUST_WORKSPACE="true")) == [
        str(base / "GEMINI.md")]
    write_json(home / ".gemini" / "settings.json",
               {"security": {"folderTrust": {"enabled": False}}})
    assert loaded(_view(base, home)) == [str(base / "GEMINI.md")]


def test_fact_12_jit_loads_parent_dirs_of_a_read_file(base: Path, home: Path) -> None:
    """Fact 12, upstream "should load JIT memory when target is inside a trusted root",
    "should resolve file target to its parent directory for traversal" and "should skip
    already loaded paths"."""
    (base / ".git").mkdir()
    write(base / "GEMINI.md", "root")
    write(base / "a" / "GEMINI.md", "a")
    write(base / "a" / "b" / "GEMINI.md", "b")
    target = write(base / "a" / "b" / "x.ts", "")
    _trust(home, base)
    v = _view(base, home, file=target)
    assert loaded(v, "start") == [str(base / "GEMINI.md")]
    assert loaded(v, "on-read") == [str(base / "a" / "GEMINI.md"),
                                    str(base / "a" / "b" / "GEMINI.md")]


def test_fact_12_jit_for_a_file_that_does_not_exist_yet(base: Path, home: Path) -> None:
    """Fact 12, upstream "should handle non-existent file target by using parent directory"."""
    (base / ".git").mkdir()
    write(base / "a" / "GEMINI.md", "a")
    _trust(home, base)
    v = _view(base, home, file=base / "a" / "new.ts")
    assert loaded(v, "on-read") == [str(base / "a" / "GEMINI.md")]


def test_fact_12_jit_skipped_outside_the_workspace(base: Path, home: Path) -> None:
    """Fact 12/13, upstream "should skip JIT memory when target is outside trusted roots":
    with cwd ``repo/src``, reading ``repo/lib/x.ts`` loads nothing."""
    (base / ".git").mkdir()
    write(base / "lib" / "GEMINI.md", "lib")
    (base / "src").mkdir()
    _trust(home, base)
    v = _view(base / "src", home, file=base / "lib" / "x.ts")
    assert loaded(v) == []
    assert skipped(v, base / "lib" / "GEMINI.md").reason == "outside-workspace"


def test_fact_12_custom_and_empty_boundary_markers(base: Path, home: Path) -> None:
    """Fact 5/12, upstream "should stop at a custom boundary marker instead of .git" and
    "should disable parent traversal when boundary markers array is empty"."""
    (base / ".git").mkdir()
    write(base / "GEMINI.md", "above marker")
    write(base / "m" / ".mark", "")
    write(base / "m" / "GEMINI.md", "marker dir")
    (base / "m" / "w").mkdir()
    _trust(home, base)
    write_json(home / ".gemini" / "settings.json",
               {"context": {"memoryBoundaryMarkers": [".mark"]}})
    assert loaded(_view(base / "m" / "w", home)) == [str(base / "m" / "GEMINI.md")]
    write_json(home / ".gemini" / "settings.json", {"context": {"memoryBoundaryMarkers": []}})
    assert loaded(_view(base / "m" / "w", home)) == []


def test_fact_15_16_imports_outside_code_expand(base: Path, home: Path) -> None:
    """Facts 15-16, upstream "should ignore imports inside code blocks", "should ignore
    imports inside inline code", "should import non-md files just like md files" and
    "should not process imports in repeated inline code blocks"."""
    write(base / "GEMINI.md", "Main @./a.md\n```\n@./fenced.md\n```\n`@./inline.md` and"
          " `@./inline.md`\nsee @config.json and x@./mail.md\n")
    write(base / "a.md", "A content")
    write(base / "config.json", '{"k": 1}')
    _trust(home, base)
    v = _view(base, home)
    text = entry(v, base / "GEMINI.md").content
    assert "<!-- Imported from: ./a.md -->\nA content\n<!-- End of import from: ./a.md -->" in text
    assert "@./fenced.md" in text and "`@./inline.md` and `@./inline.md`" in text
    assert '<!-- Imported from: config.json -->\n{"k": 1}' in text
    assert "x@./mail.md" in text
    assert [e.spec for e in v.imports] == ["./a.md", "config.json"]
    imp = entry(v, base / "a.md")
    assert imp.imported_by == str(base / "GEMINI.md") and imp.when == "start"


def test_fact_17_imports_outside_the_project_root_are_refused(base: Path, home: Path) -> None:
    """Fact 17, upstream "should reject imports outside project root" and "should allow
    imports from parent and subdirectories within project root"."""
    (base / "repo" / ".git").mkdir(parents=True)
    write(base / "secret.md", "outside")
    write(base / "repo" / "shared.md", "shared")
    write(base / "repo" / "sub" / "GEMINI.md", "@../shared.md @../../secret.md")
    _trust(home, base / "repo")
    v = _view(base / "repo" / "sub", home)
    text = entry(v, base / "repo" / "sub" / "GEMINI.md").content
    assert "shared" in text
    assert "<!-- Import failed: ../../secret.md - Path traversal attempt -->" in text
    assert skipped(v, base / "secret.md").reason == "import-outside"


def test_fact_18_depth_limit_five(base: Path, home: Path) -> None:
    """Fact 18, upstream "should respect max depth limit": the file at depth 5 is inlined
    with its own imports left as text."""
    write(base / "GEMINI.md", "@./d1.md")
    for i in range(1, 7):
        write(base / f"d{i}.md", f"level {i} @./d{i + 1}.md")
    _trust(home, base)
    v = _view(base, home)
    text = entry(v, base / "GEMINI.md").content
    assert "level 5 @./d6.md" in text and "level 6" not in text
    assert [e.status for e in v.imports][-1] == "depth"


def test_fact_19_cycles_stop_after_one_repeat(base: Path, home: Path) -> None:
    """Fact 19, upstream "should handle circular imports": the top-level file is not on the
    chain, so A -> B -> A inlines A once more, then stops."""
    write(base / "GEMINI.md", "Content @./circular.md more content")
    write(base / "circular.md", "Circular @./GEMINI.md content")
    _trust(home, base)
    v = _view(base, home)
    text = entry(v, base / "GEMINI.md").content
    assert text.count("Content ") == 2
    assert "<!-- File already processed: ./circular.md -->" in text
    assert "cycle" in [e.status for e in v.imports]


def test_fact_20_missing_import(base: Path, home: Path) -> None:
    """Fact 20, upstream "should handle file not found errors"."""
    write(base / "GEMINI.md", "Content @./nonexistent.md more content")
    _trust(home, base)
    v = _view(base, home)
    assert "<!-- Import failed: ./nonexistent.md - ENOENT: no such file or directory" in entry(
        v, base / "GEMINI.md").content
    assert skipped(v, base / "nonexistent.md").reason == "import-missing"


def test_fact_22_context_markers_and_empty_files(base: Path, home: Path) -> None:
    """Fact 22 (``concatenateInstructions``): trimmed content between markers; empty files
    dropped; fact 14: JIT text is framed as newly discovered context."""
    (base / ".git").mkdir()
    write(base / "GEMINI.md", "\n  root rules  \n")
    write(base / "e" / "GEMINI.md", "   \n")
    write(base / "s" / "GEMINI.md", "sub")
    _trust(home, base)
    v = _view(base, home, file=base / "s" / "x.py")
    assert v.rendered is not None
    assert (f"--- Context from: {base}/GEMINI.md ---\nroot rules\n--- End of Context from:"
            f" {base}/GEMINI.md ---") in v.rendered
    assert "--- Newly Discovered Project Context ---" in v.rendered
    assert skipped(_view(base / "e", home), base / "e" / "GEMINI.md").reason == "empty"


def test_fact_21_flat_import_format(base: Path, home: Path) -> None:
    """Fact 21, upstream "should produce flat output in Claude-style with unique files in
    order": each file once, as ``--- File:`` blocks (the top-level one labelled with its
    directory, as the agent does when no current file is set); a repeated import once."""
    write_json(home / ".gemini" / "settings.json", {"context": {"importFormat": "flat"}})
    write(base / "GEMINI.md", "Main @./a.md @./b.md")
    write(base / "a.md", "A @./b.md")
    write(base / "b.md", "B")
    _trust(home, base)
    text = entry(_view(base, home), base / "GEMINI.md").content
    blocks = [line for line in text.splitlines() if line.startswith("--- File: ")]
    assert blocks == [f"--- File: {base} ---", f"--- File: {base}/b.md ---",
                      f"--- File: {base}/a.md ---"]
    assert f"--- File: {base}/b.md ---\nB\n--- End of File: {base}/b.md ---" in text


def test_fact_4_7_extension_and_private_memory_tiers_are_named_not_read(
        base: Path, home: Path) -> None:
    """Facts 4 and 7: extension context files and the private user project memory load at
    start; RuleLens does not read those tiers and says so, labelled with the source."""
    (base / ".git").mkdir()
    _trust(home, base)
    v = _view(base, home)
    note = next(n for n in v.notes if "extensions" in n)
    assert "context files of active extensions" in note
    assert "MEMORY.md, else legacy names" in note
    assert note.endswith("(exact from Gemini CLI source @5411f113).")


def test_fact_8_nothing_below_the_start_dir_at_start_and_no_ignore_files(
        base: Path, home: Path) -> None:
    """Fact 8: no downward BFS at start-up (a nested GEMINI.md below the start directory is
    not loaded at start); ``.gitignore``/``.geminiignore`` are not consulted (a gitignored
    GEMINI.md IS loaded); ``context.discoveryMaxDirs`` does not limit the walk."""
    repo = git_init(base / "repo")
    write(repo / ".gitignore", "GEMINI.md\n")
    write(repo / ".geminiignore", "GEMINI.md\nsrc/\n")
    write(repo / "GEMINI.md", "root, gitignored")
    write(repo / "src" / "GEMINI.md", "src")
    write(repo / "src" / "deep" / "GEMINI.md", "deep")
    write(repo / "lib" / "GEMINI.md", "nested, below the start dir")
    write_json(home / ".gemini" / "settings.json", {"context": {"discoveryMaxDirs": 1}})
    _trust(home, repo)
    v = _view(repo / "src" / "deep", home)
    assert loaded(v, "start") == [str(repo / "GEMINI.md"), str(repo / "src" / "GEMINI.md"),
                                  str(repo / "src" / "deep" / "GEMINI.md")]
    at_root = _view(repo, home)
    assert loaded(at_root) == [str(repo / "GEMINI.md")]
    assert at_root.find(str(repo / "lib" / "GEMINI.md")) is None


def test_fact_10_load_memory_from_include_directories_does_not_change_start_up(
        base: Path, home: Path) -> None:
    """Fact 10: ``context.loadMemoryFromIncludeDirectories`` only gates the refresh after
    ``/directory add``; start-up loads the same files whatever its value."""
    (base / ".git").mkdir()
    write(base / "GEMINI.md", "root")
    write(base / "sub" / "GEMINI.md", "sub")
    _trust(home, base)
    seen = []
    for value in (True, False):
        write_json(home / ".gemini" / "settings.json",
                   {"context": {"loadMemoryFromIncludeDirectories": value}})
        seen.append(loaded(_view(base / "sub", home)))
    assert seen[0] == seen[1] == [str(base / "GEMINI.md"), str(base / "sub" / "GEMINI.md")]


def test_fact_11_on_read_why_names_the_triggering_tools(base: Path, home: Path) -> None:
    """Fact 11: JIT is triggered by read_file, list_directory, write_file, replace and
    read_many_files; the on-read reason names them."""
    (base / ".git").mkdir()
    write(base / "pkg" / "GEMINI.md", "pkg")
    _trust(home, base)
    f = entry(_view(base, home, base / "pkg" / "x.ts"), base / "pkg" / "GEMINI.md")
    assert f.when == "on-read"
    assert ("read_file, list_directory, write_file, replace or read_many_files touches a path"
            " below it (once per session)") in f.why


def test_fact_23_global_goes_in_global_context_project_in_project_context(
        base: Path, home: Path) -> None:
    """Fact 23: the global tier is rendered inside ``<global_context>`` (the system
    instruction), the project tier inside ``<project_context>`` (the first user message);
    neither block appears in the other's wrapper."""
    (base / ".git").mkdir()
    write(home / ".gemini" / "GEMINI.md", "GLOBAL")
    write(base / "GEMINI.md", "PROJECT")
    _trust(home, base)
    r = _view(base, home).rendered or ""
    glob_part = r[r.index("<global_context>"):r.index("</global_context>")]
    proj_part = r[r.index("<project_context>"):r.index("</project_context>")]
    assert f"--- Context from: {home}/.gemini/GEMINI.md ---\nGLOBAL" in glob_part
    assert "PROJECT" not in glob_part
    assert f"--- Context from: {base}/GEMINI.md ---\nPROJECT" in proj_part
    assert "GLOBAL" not in proj_part
    assert r.index("</global_context>") < r.index("<project_context>")


def test_fact_24_no_size_limit_a_large_file_loads_whole(base: Path, home: Path) -> None:
    """Fact 24: no size limit on context files: a 5 MiB GEMINI.md (above the 4 MiB Claude
    Code skips) is loaded whole, to its last byte."""
    (base / ".git").mkdir()
    body = ("rule line\n" * (5 * 1024 * 1024 // 10)) + "LAST"
    write(base / "GEMINI.md", body)
    _trust(home, base)
    f = entry(_view(base, home), base / "GEMINI.md")
    assert f.bytes == len(body) > 5 * 1024 * 1024 - 16
    assert f.content == body.strip() and f.content.endswith("LAST")
    assert f.truncated_at is None
