"""Discovery order (spec §3.2-3.5): homes, the git chain, named files, rules dirs, dedupe."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from rulestree import World, git_init, write

ALL_NAMED = ("Agents.md", "Claude.md", "CLAUDE.md", "CLAUDE.local.md", "AGENT.md", "AGENTS.md",
             ".claude/CLAUDE.md", ".claude/CLAUDE.local.md")


def _case_sensitive(directory: Path) -> bool:
    probe = write(directory / "CaseProbe.tmp")
    try:
        return not (directory / "caseprobe.tmp").exists()
    finally:
        probe.unlink()


def test_named_files_in_list_order_then_rules_dirs(world: World, repo: Path) -> None:
    assert _case_sensitive(repo), "these tests need a case-sensitive file system"
    # Written in reverse so that creation order cannot explain the result.
    for name in (".cursor/rules/c.md", ".claude/rules/b.md", ".grok/rules/a.md",
                 *reversed(ALL_NAMED)):
        write(repo / name, f"{name}\n")
    chain = world.resolve(repo)
    assert world.paths(chain) == [f"repo/{n}" for n in ALL_NAMED] + [
        "repo/.grok/rules/a.md", "repo/.claude/rules/b.md", "repo/.cursor/rules/c.md"]
    assert [f.precedence for f in chain.files] == list(range(1, 12))
    assert [f.kind for f in chain.files] == ["named"] * 8 + ["rule"] * 3
    assert {f.role for f in chain.files} == {"project"}
    # Case-sensitive FS: Agents.md and AGENTS.md are two files and both load.
    assert chain.files[0].name == "Agents.md" and chain.files[5].name == "AGENTS.md"
    assert chain.files[0].content == "Agents.md\n"
    assert chain.skipped == ()


def test_rules_dir_direct_md_children_bytewise(world: World, repo: Path) -> None:
    rules = repo / ".grok" / "rules"
    for name in ("b.md", "a.md", "B.md", "Z.MD", "~.md", "é.md", ".hidden.md", "x.Md",
                 "notes.txt", "README"):
        write(rules / name, name)
    write(rules / ".md", "no extension")
    write(rules / "deeper" / "nested.md", "never read")
    chain = world.resolve(repo)
    assert [f.name for f in chain.files] == [".hidden.md", "B.md", "Z.MD", "a.md", "b.md",
                                             "x.Md", "~.md", "é.md"]
    assert ("repo/.grok/rules/.md", "unrecognized-name") in world.skipped(chain)
    assert ("repo/.grok/rules/deeper/nested.md", "nested-in-rules-dir") in world.skipped(chain)


def test_rules_dir_symlinks_are_followed(world: World, repo: Path) -> None:
    shared = write(world.base / "shared" / "style.md", "---\nx: 1\n---\nUse tabs.\n")
    rules = repo / ".claude" / "rules"
    rules.mkdir(parents=True)
    (rules / "style.md").symlink_to(shared)
    (rules / "dangling.md").symlink_to(world.base / "missing.md")
    chain = world.resolve(repo)
    assert world.paths(chain) == ["repo/.claude/rules/style.md"]
    only = chain.files[0]
    assert only.canonical == str(shared) and only.content == "Use tabs.\n"
    # A dangling link is listed by the agent, fails to read, and is dropped.
    assert ("repo/.claude/rules/dangling.md", "unreadable") in world.skipped(chain)


def test_rules_dir_that_is_a_symlink(world: World, repo: Path) -> None:
    write(world.base / "team-rules" / "one.md", "one")
    (repo / ".grok").mkdir()
    (repo / ".grok" / "rules").symlink_to(world.base / "team-rules")
    assert world.paths(world.resolve(repo)) == ["repo/.grok/rules/one.md"]


def test_root_to_cwd_order(world: World, repo: Path) -> None:
    for d in ("", "a/", "a/b/", "a/b/c/", "other/"):
        write(repo / f"{d}AGENTS.md", d or "root")
    write(repo / "a" / ".grok" / "rules" / "r.md", "rule in a")
    chain = world.resolve(repo / "a" / "b" / "c")
    assert world.paths(chain) == ["repo/AGENTS.md", "repo/a/AGENTS.md",
                                  "repo/a/.grok/rules/r.md", "repo/a/b/AGENTS.md",
                                  "repo/a/b/c/AGENTS.md"]
    assert chain.deepest() is not None and chain.deepest() == chain.files[-1]
    assert chain.files[-1].precedence == 5
    assert chain.git_root == str(repo)
    assert chain.directories == tuple(str(repo / d) for d in ("", "a", "a/b", "a/b/c"))


def test_home_roots_order_and_roles(world: World, repo: Path) -> None:
    home = world.home
    for rel in (".grok/AGENTS.md", ".grok/rules/g.md", ".grok/.claude/CLAUDE.md",
                ".claude/CLAUDE.md", ".claude/rules/c.md", ".cursor/AGENTS.md",
                ".cursor/rules/k.md"):
        write(home / rel, rel)
    write(repo / "AGENTS.md", "project")
    chain = world.resolve(repo)
    assert world.paths(chain) == [
        "home/.grok/AGENTS.md", "home/.grok/.claude/CLAUDE.md", "home/.grok/rules/g.md",
        "home/.claude/CLAUDE.md", "home/.claude/rules/c.md",
        "home/.cursor/AGENTS.md", "home/.cursor/rules/k.md",
        "repo/AGENTS.md"]
    assert [f.role for f in chain.files] == ["home"] * 7 + ["project"]
    assert [f.kind for f in chain.files] == ["named", "named", "rule", "named", "rule",
                                             "named", "rule", "named"]


def test_grok_home_from_env_scans_named_and_rules(world: World, repo: Path) -> None:
    custom = world.base / "custom-grok"
    write(custom / "CLAUDE.md", "custom named")
    write(custom / "rules" / "r.md", "custom rule")
    write(world.home / ".grok" / "AGENTS.md", "not used: GROK_HOME wins")
    chain = world.resolve(repo, GROK_HOME=str(custom))
    assert world.paths(chain) == ["custom-grok/CLAUDE.md", "custom-grok/rules/r.md"]
    assert {f.role for f in chain.files} == {"home"}


def test_home_vendor_roots_follow_their_cells(world: World, repo: Path) -> None:
    for rel in (".claude/CLAUDE.md", ".claude/rules/c.md", ".cursor/AGENTS.md",
                ".cursor/rules/k.md"):
        write(world.home / rel, rel)
    chain = world.resolve(repo, GROK_CLAUDE_AGENTS_ENABLED="0", GROK_CURSOR_RULES_ENABLED="no")
    assert world.paths(chain) == ["home/.claude/rules/c.md", "home/.cursor/AGENTS.md"]
    skipped = {s.path: s for s in chain.skipped}
    agents = skipped[str(world.home / ".claude" / "CLAUDE.md")]
    assert agents.reason == "compat-disabled"
    assert "[compat.claude] agents" in agents.detail
    assert "GROK_CLAUDE_AGENTS_ENABLED=0 in the environment" in agents.detail
    rules = skipped[str(world.home / ".cursor" / "rules" / "k.md")]
    assert rules.reason == "compat-disabled" and "[compat.cursor] rules" in rules.detail


def test_home_vendor_root_dropped_when_both_cells_off(world: World, repo: Path) -> None:
    write(world.home / ".cursor" / "AGENTS.md")
    write(world.home / ".cursor" / "rules" / "k.md")
    write(world.home / ".grok" / "config.toml", "[compat.cursor]\nagents = false\nrules = false\n")
    chain = world.resolve(repo)
    assert chain.files == ()
    assert sorted(world.skipped(chain)) == [("home/.cursor/AGENTS.md", "compat-disabled"),
                                            ("home/.cursor/rules/k.md", "compat-disabled")]
    assert all("config.toml" in s.detail for s in chain.skipped)


def test_project_compat_cells_off_by_toml(world: World, repo: Path) -> None:
    write(world.home / ".grok" / "config.toml",
          "[compat.claude]\nrules = false\nagents = false\n")
    for rel in (".claude/CLAUDE.md", ".claude/rules/c.md", ".cursor/rules/k.md",
                ".grok/rules/g.md", "CLAUDE.md"):
        write(repo / rel, rel)
    chain = world.resolve(repo)
    assert world.paths(chain) == ["repo/CLAUDE.md", "repo/.grok/rules/g.md",
                                  "repo/.cursor/rules/k.md"]
    skipped = {os.path.relpath(s.path, world.base): s for s in chain.skipped}
    assert set(skipped) == {"repo/.claude/CLAUDE.md", "repo/.claude/rules/c.md"}
    assert "[compat.claude] agents = false in" in skipped["repo/.claude/CLAUDE.md"].detail
    assert "[compat.claude] rules = false in" in skipped["repo/.claude/rules/c.md"].detail


def test_env_reenables_a_cell_the_toml_switched_off(world: World, repo: Path) -> None:
    write(world.home / ".grok" / "config.toml", "[compat.claude]\nrules = false\n")
    write(repo / ".claude" / "rules" / "c.md", "c")
    assert world.paths(world.resolve(repo)) == []
    assert world.paths(world.resolve(repo, GROK_CLAUDE_RULES_ENABLED="enabled")) == [
        "repo/.claude/rules/c.md"]


def test_home_to_project_move_via_symlink(world: World, repo: Path) -> None:
    write(repo / "AGENTS.md", "shared")
    write(repo / "a" / "AGENTS.md", "a")
    write(world.home / ".grok" / "rules" / "h.md", "home rule")
    (world.home / ".grok" / "AGENTS.md").symlink_to(repo / "AGENTS.md")
    chain = world.resolve(repo / "a")
    # The home occurrence fixes nothing: the file moves to the end of the list *as it
    # stands when the project occurrence arrives*, spelled the project way.
    assert world.paths(chain) == ["home/.grok/rules/h.md", "repo/AGENTS.md", "repo/a/AGENTS.md"]
    assert [f.role for f in chain.files] == ["home", "project", "project"]
    assert world.skipped(chain) == [("home/.grok/AGENTS.md", "duplicate")]
    assert "project position" in chain.skipped[0].detail


def test_grok_home_inside_the_repo(world: World, repo: Path) -> None:
    write(repo / ".grok" / "rules" / "style.md", "style")
    write(repo / ".grok" / "AGENTS.md", "in repo/.grok")
    write(repo / "AGENTS.md", "root")
    chain = world.resolve(repo, GROK_HOME=str(repo / ".grok"))
    # repo/.grok/AGENTS.md is only a home file (projects scan AGENTS.md at the root, not in
    # .grok); the rules file is reached both ways and ends up a project file, at the end.
    assert world.paths(chain) == ["repo/.grok/AGENTS.md", "repo/AGENTS.md",
                                  "repo/.grok/rules/style.md"]
    assert [f.role for f in chain.files] == ["home", "project", "project"]
    assert world.skipped(chain) == [("repo/.grok/rules/style.md", "duplicate")]


def test_project_duplicates_keep_the_first_spelling(world: World, repo: Path) -> None:
    write(repo / "AGENTS.md", "---\nname: x\n---\nbody\n")
    rules = repo / ".grok" / "rules"
    rules.mkdir(parents=True)
    (rules / "main.md").symlink_to(repo / "AGENTS.md")
    chain = world.resolve(repo)
    # Reached as a named file first and as a rule file second: one entry, named-file
    # spelling, but is_rule is OR-ed so the frontmatter is stripped.
    assert world.paths(chain) == ["repo/AGENTS.md"]
    assert chain.files[0].kind == "rule" and chain.files[0].content == "body\n"
    assert world.skipped(chain) == [("repo/.grok/rules/main.md", "duplicate")]


def test_workspace_user_dir_inserted_after_root(world: World, repo: Path) -> None:
    write(repo / "AGENTS.md", "root")
    write(repo / "x" / "alice" / "AGENTS.md", "alice")
    write(repo / "a" / "b" / "AGENTS.md", "b")
    chain = world.resolve(repo / "a" / "b", XAI_ROOT=str(repo), XAI_USER="alice")
    assert world.paths(chain) == ["repo/AGENTS.md", "repo/x/alice/AGENTS.md",
                                  "repo/a/b/AGENTS.md"]
    # At the root itself the chain is [root]: min(1, 1) puts it after the root.
    chain = world.resolve(repo, XAI_ROOT=str(repo), XAI_USER="alice")
    assert world.paths(chain) == ["repo/AGENTS.md", "repo/x/alice/AGENTS.md"]


def test_workspace_user_path_form_and_outside_repo(world: World, repo: Path) -> None:
    ws = world.base / "ws"
    write(ws / "team" / "bob" / "CLAUDE.md", "bob")
    write(repo / "AGENTS.md", "root")
    chain = world.resolve(repo, XAI_ROOT=str(ws), XAI_USER="team/bob")
    assert world.paths(chain) == ["repo/AGENTS.md", "ws/team/bob/CLAUDE.md"]
    assert chain.files[1].role == "project"


def test_workspace_user_not_added_when_absent_or_no_repo_or_in_chain(
        world: World, repo: Path) -> None:
    write(repo / "x" / "alice" / "AGENTS.md", "alice")
    assert world.paths(world.resolve(repo, XAI_ROOT=str(repo), XAI_USER="carol")) == []
    assert world.paths(world.resolve(repo, XAI_ROOT=str(repo), XAI_USER="")) == []
    assert world.paths(world.resolve(repo, XAI_USER="alice")) == []
    # cwd inside it: already a chain directory, so it is not inserted a second time.
    chain = world.resolve(repo / "x" / "alice", XAI_ROOT=str(repo), XAI_USER="alice")
    assert world.paths(chain) == ["repo/x/alice/AGENTS.md"] and chain.skipped == ()
    plain = world.base / "plain"
    write(plain / "x" / "alice" / "AGENTS.md", "alice")
    assert world.paths(world.resolve(plain, XAI_ROOT=str(plain), XAI_USER="alice")) == []


def test_no_repository_means_only_cwd(world: World) -> None:
    plain = world.base / "plain"
    write(plain / "AGENTS.md", "parent: not loaded")
    write(plain / "sub" / "AGENTS.md", "cwd")
    write(plain / "sub" / ".cursor" / "rules" / "r.md", "rule")
    chain = world.resolve(plain / "sub")
    assert chain.git_root is None and chain.directories == ()
    assert world.paths(chain) == ["plain/sub/AGENTS.md", "plain/sub/.cursor/rules/r.md"]


def test_nested_repository_stops_the_walk(world: World, repo: Path) -> None:
    write(repo / "AGENTS.md", "outer")
    inner = git_init(repo / "vendor" / "lib")
    write(inner / "AGENTS.md", "inner")
    write(inner / "src" / "AGENTS.md", "inner src")
    chain = world.resolve(inner / "src")
    assert chain.git_root == str(inner)
    assert world.paths(chain) == ["repo/vendor/lib/AGENTS.md", "repo/vendor/lib/src/AGENTS.md"]


def test_gitfile_repository_stops_the_walk(world: World, repo: Path) -> None:
    """A submodule or linked worktree has a ``.git`` *file*; its directory is the root."""
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    write(repo / "AGENTS.md", "main")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    tree = world.base / "repo" / "wt"
    subprocess.run([*git, "worktree", "add", "-q", str(tree)], check=True)
    assert (tree / ".git").is_file()
    chain = world.resolve(tree)
    assert chain.git_root == str(tree)
    assert world.paths(chain) == ["repo/wt/AGENTS.md"]


def test_bare_repository_has_no_root(world: World) -> None:
    bare = world.base / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    write(bare / "AGENTS.md", "in bare")
    chain = world.resolve(bare)
    assert chain.git_root is None and world.paths(chain) == ["bare.git/AGENTS.md"]


def test_cwd_through_a_symlink_is_canonicalised(world: World, repo: Path) -> None:
    write(repo / "AGENTS.md", "root")
    write(repo / "a" / "AGENTS.md", "a")
    link = world.base / "shortcut"
    link.symlink_to(repo / "a")
    chain = world.resolve(link)
    assert chain.cwd == str(repo / "a")
    assert world.paths(chain) == ["repo/AGENTS.md", "repo/a/AGENTS.md"]


def test_home_as_dotfiles_repository(world: World) -> None:
    git_init(world.home)
    write(world.home / "AGENTS.md", "dotfiles")
    write(world.home / ".claude" / "CLAUDE.md", "claude home")
    write(world.home / "proj" / "AGENTS.md", "proj")
    chain = world.resolve(world.home / "proj")
    # No $HOME guard: ~ is a project directory, and ~/.claude/CLAUDE.md (a home file of the
    # ~/.claude root) is also ~'s project file `.claude/CLAUDE.md`, so it moves to project.
    assert world.paths(chain) == ["home/AGENTS.md", "home/.claude/CLAUDE.md",
                                  "home/proj/AGENTS.md"]
    assert [f.role for f in chain.files] == ["project"] * 3


def test_directory_tokens_bytes_and_root(world: World, repo: Path) -> None:
    write(repo / "AGENTS.md", "héllo wörld\n")
    f = world.resolve(repo).files[0]
    assert f.bytes == len("héllo wörld\n".encode()) == 14
    assert f.tokens == 3  # ceil(12 characters / 4)
    assert f.root == str(repo) and f.canonical == str(repo / "AGENTS.md")


def test_resolver_caches_and_invalidates(world: World, repo: Path) -> None:
    from rulelens.rules import AgentEnvironment, Resolver

    resolver = Resolver(AgentEnvironment.from_env(world.env))
    assert resolver.resolve(str(repo)).files == ()
    write(repo / "AGENTS.md", "new")
    assert resolver.resolve(str(repo)).files == ()  # cached per directory
    resolver.invalidate([str(repo / "AGENTS.md")])
    assert [f.name for f in resolver.resolve(str(repo)).files] == ["AGENTS.md"]


@pytest.mark.parametrize("bad", ["AGENTS.md", "CLAUDE.md"])
def test_directory_named_like_a_named_file(world: World, repo: Path, bad: str) -> None:
    (repo / bad).mkdir()
    write(repo / "AGENT.md", "ok")
    chain = world.resolve(repo)
    assert world.paths(chain) == ["repo/AGENT.md"]
    assert world.skipped(chain) == [(f"repo/{bad}", "not-a-file")]


def test_real_submodule_stops_the_walk(world: World, repo: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always"]
    lib = git_init(world.base / "lib-origin")
    write(lib / "AGENTS.md", "library rules")
    subprocess.run([*git, "-C", str(lib), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(lib), "commit", "-qm", "lib"], check=True)
    write(repo / "AGENTS.md", "superproject rules")
    subprocess.run([*git, "-C", str(repo), "submodule", "add", "-q", str(lib), "third_party/lib"],
                   check=True, capture_output=True)
    sub = repo / "third_party" / "lib"
    assert (sub / ".git").is_file()
    chain = world.resolve(sub)
    assert chain.git_root == str(sub)
    assert world.paths(chain) == ["repo/third_party/lib/AGENTS.md"]
