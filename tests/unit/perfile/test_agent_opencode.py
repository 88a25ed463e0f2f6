"""OpenCode profile (exact from source @00b964bd / tests @1565a419): one test per fact
OC-F1..OC-F10 of agent-profiles-more.md §2, each on a real git tree with a fake HOME."""

from __future__ import annotations

from pathlib import Path

from agenttree import entry, env_for, git_init, loaded, skipped, write, write_json

from rulelens.agents import opencode
from rulelens.agents.view import AgentView


def _view(cwd: Path, home: Path, file: Path | None = None, **env: str) -> AgentView:
    return opencode.view(str(cwd), str(file) if file else None, env_for(home, **env))


def test_oc_f1_one_global_file_first_existing(base: Path, home: Path) -> None:
    """OC-F1: ~/.config/opencode/AGENTS.md, else ~/.claude/CLAUDE.md — one file only."""
    repo = git_init(base / "repo")
    claude = write(home / ".claude" / "CLAUDE.md", "claude global")
    assert loaded(_view(repo, home)) == [str(claude)]
    agents = write(home / ".config" / "opencode" / "AGENTS.md", "opencode global")
    v = _view(repo, home)
    assert loaded(v) == [str(agents)] and skipped(v, claude).reason == "global-shadowed"


def test_oc_f2_first_name_wins_every_ancestor_copy_loads(base: Path, home: Path) -> None:
    """OC-F2: the first name with a match wins; every copy of it from the start directory
    up to the worktree loads; the other names are not stacked."""
    repo = git_init(base / "repo")
    top = write(repo / "AGENTS.md", "top")
    cwd = repo / "packages" / "web"
    mid = write(repo / "packages" / "AGENTS.md", "mid")
    claude = write(cwd / "CLAUDE.md", "claude here")
    v = _view(cwd, home)
    assert loaded(v) == [str(mid), str(top)]
    assert skipped(v, claude).reason == "name-shadowed"
    assert loaded(_view(base / "elsewhere", home)) == []


def test_oc_f3_walk_stops_at_the_git_root(base: Path, home: Path) -> None:
    """OC-F3: the walk never goes above the git root."""
    write(base / "AGENTS.md", "above the repo")
    repo = git_init(base / "repo")
    inner = write(repo / "AGENTS.md", "inner")
    assert loaded(_view(repo / "src", home)) == [str(inner)]
    (repo / "AGENTS.md").unlink()
    assert loaded(_view(repo / "src", home)) == []


def test_oc_f4_order_global_project_deepest_first_then_instructions(base: Path,
                                                                     home: Path) -> None:
    """OC-F4: global, then project files deepest first, then instructions entries (the doc
    example: ~/.config/opencode/AGENTS.md, packages/web/AGENTS.md, packages/AGENTS.md,
    AGENTS.md)."""
    repo = git_init(base / "repo")
    g = write(home / ".config" / "opencode" / "AGENTS.md", "g")
    root = write(repo / "AGENTS.md", "root")
    pk = write(repo / "packages" / "AGENTS.md", "pk")
    web = write(repo / "packages" / "web" / "AGENTS.md", "web")
    extra = write(repo / "docs" / "extra.md", "extra")
    write_json(repo / "opencode.json", {"instructions": ["docs/extra.md"]})
    v = _view(repo / "packages" / "web", home)
    assert loaded(v) == [str(g), str(web), str(pk), str(root), str(extra)]


def test_oc_f5_disable_claude_code_drops_claude_md(base: Path, home: Path) -> None:
    """OC-F5: OPENCODE_DISABLE_CLAUDE_CODE=1 (as _PROMPT) drops project and global
    CLAUDE.md; CONTEXT.md is then the next name."""
    repo = git_init(base / "repo")
    g = write(home / ".claude" / "CLAUDE.md", "g")
    p = write(repo / "CLAUDE.md", "p")
    ctx = write(repo / "CONTEXT.md", "ctx")
    v = _view(repo, home, OPENCODE_DISABLE_CLAUDE_CODE="1")
    assert loaded(v) == [str(ctx)]
    assert skipped(v, g).reason == skipped(v, p).reason == "claude-disabled"


def test_oc_f6_disable_project_config_keeps_the_global_file(base: Path, home: Path) -> None:
    """OC-F6: OPENCODE_DISABLE_PROJECT_CONFIG=1 skips project discovery (and project
    opencode.json); the global file still loads."""
    repo = git_init(base / "repo")
    g = write(home / ".config" / "opencode" / "AGENTS.md", "g")
    p = write(repo / "AGENTS.md", "p")
    write(repo / "x.md", "x")
    write_json(repo / "opencode.json", {"instructions": ["x.md"]})
    v = _view(repo, home, OPENCODE_DISABLE_PROJECT_CONFIG="1")
    assert loaded(v) == [str(g)]
    assert skipped(v, p).reason == "project-config-disabled"


def test_oc_f7_instructions_entries(base: Path, home: Path) -> None:
    """OC-F7: relative entries globbed from the start directory up to the worktree,
    absolute ones in their directory, ``~/`` expanded, URLs not fetched; global and
    project opencode.json arrays concatenated without repeats."""
    repo = git_init(base / "repo")
    cwd = repo / "app"
    local = write(cwd / "rules" / "a.md", "a")
    up = write(repo / "rules" / "b.md", "b")
    write(base / "shared" / "s1.md", "s1")  # exists, yet never listed: outside
    tilde = write(home / "notes" / "n.md", "n")
    write_json(home / ".config" / "opencode" / "opencode.json",
               {"instructions": ["~/notes/n.md", "https://example.invalid/r.md"]})
    write(repo / "opencode.jsonc", '{\n  // comment\n  "instructions": ["rules/*.md", "'
          + str(base / "shared" / "s*.md") + '", "~/notes/n.md"]\n}\n')
    v = _view(cwd, home)
    # The project's absolute entry points outside the workspace: listed, never globbed or
    # read (issue 19); the global config's `~/` entry is the user's own.
    assert loaded(v) == [str(tilde), str(local), str(up)]
    assert any(str(base / "shared" / "s*.md") in n and "outside, needs approval" in n
               for n in v.notes)
    assert any("https://example.invalid/r.md" in n for n in v.notes)
    assert "named by instructions" in entry(v, local).why


def test_oc_f8_on_read_below_the_start_dir_only(base: Path, home: Path) -> None:
    """OC-F8: on read, the first existing name per directory from the file's directory up
    to (not including) the start directory; files outside it get nothing — tested as a
    string prefix, so a sibling sharing the prefix still walks."""
    repo = git_init(base / "repo")
    cwd = repo / "app"
    root_file = write(cwd / "AGENTS.md", "start")
    near = write(cwd / "lib" / "CLAUDE.md", "near")
    write(cwd / "lib" / "CONTEXT.md", "not second")
    target = write(cwd / "lib" / "deep" / "x.ts")
    v = _view(cwd, home, target)
    assert loaded(v, "start") == [str(root_file)]
    assert loaded(v, "on-read") == [str(near)]
    outside = write(repo / "other" / "AGENTS.md", "other")
    assert _view(cwd, home, write(repo / "other" / "y.ts")).find(str(outside)) is None
    sibling = write(repo / "app2" / "AGENTS.md", "prefix quirk")
    assert entry(_view(cwd, home, write(repo / "app2" / "z.ts")), sibling).when == "on-read"


def test_oc_f9_framing_and_empty_files(base: Path, home: Path) -> None:
    """OC-F9: ``Instructions from: <absolute path>\\n<content>``; empty files dropped."""
    repo = git_init(base / "repo")
    empty = write(repo / "AGENTS.md", "")
    v = _view(repo, home)
    assert skipped(v, empty).reason == "empty" and v.rendered == ""
    write(repo / "AGENTS.md", "Be brief.")
    assert _view(repo, home).rendered == f"Instructions from: {repo / 'AGENTS.md'}\nBe brief."


def test_oc_f10_no_frontmatter_no_imports(base: Path, home: Path) -> None:
    """OC-F10: frontmatter is injected verbatim, ``@path`` is not followed, no size cap."""
    repo = git_init(base / "repo")
    write(repo / "other.md", "other")
    text = "---\nglobs: '*.ts'\n---\nSee @other.md\n" + "x" * 200_000
    f = write(repo / "AGENTS.md", text)
    v = _view(repo, home)
    assert entry(v, f).content == text and loaded(v) == [str(f)] and v.imports == ()


def test_oc_f7_globs_are_bounded_and_skip_dot_folders(base: Path, home: Path) -> None:
    """OC-F7: ``**`` spans folders, dot folders only by an explicit dot; RuleLens lists at
    most ``GLOB_DIRS`` folders per entry, so a ``**`` walked up to the root stays quick."""
    import time

    repo = git_init(base / "repo")
    deep = write(repo / "docs" / "a" / "b" / "deep.md", "deep")
    write(repo / "docs" / ".hidden" / "h.md", "hidden")
    write_json(repo / "opencode.json", {"instructions": ["docs/**/*.md"]})
    assert loaded(_view(repo, home)) == [str(deep)]
    for i in range(opencode.GLOB_DIRS + 50):
        (repo / "many" / f"d{i:04}").mkdir(parents=True)
    late = write(repo / "zz" / "late.md", "late")
    write_json(repo / "opencode.json", {"instructions": ["**/*.md"]})
    started = time.monotonic()
    v = _view(repo, home)
    assert time.monotonic() - started < 10
    assert str(deep) in loaded(v) and str(late) not in loaded(v)
    assert any("stopped after listing" in n for n in v.notes)
