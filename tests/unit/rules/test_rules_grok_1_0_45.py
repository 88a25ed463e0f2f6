"""grok@1.0.45 against grok@1.0.6, on real trees: addendum §A3.1-§A3.11, §A4, §A6, §A8.

Test names follow the upstream unit tests the addendum cites where there is one
(``resolve_treats_home_git_repo_as_no_repo``, ``extra_rule_dirs_load_as_home_rules_after_
builtin_roots``, ...). Where the profiles differ, both are resolved side by side.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from rulestree import World, git_init, resolve_as, trust_folder, write

from rulelens.agents.compat import ConfigError
from rulelens.agents.environment import rule_dirs
from rulelens.rules.render import render_rules

NEW, OLD = "grok@1.0.45", "grok@1.0.6"
UNTRUSTED_DETAIL = ("Grok loads project instructions only in a trusted folder; it will ask"
                    " when a session starts here, or run `grok --trust`")


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd),
                        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


def _config(world: World, text: str) -> None:
    write(world.grok_home / "config.toml", text)


# ------------------------------------------------------------------ §A6 trust
def test_undecided_folder_loads_home_files_and_withholds_project_files(world: World,
                                                                       repo: Path) -> None:
    write(world.grok_home / "rules" / "me.md", "personal")
    write(repo / "AGENTS.md", "root")
    write(repo / "src" / ".grok" / "rules" / "py.md", "typed")
    new = resolve_as(world, repo / "src", NEW)
    assert world.paths(new) == ["home/.grok/rules/me.md"]
    assert new.trust is not None and new.trust.state == "undecided"
    assert new.trust.key == str(repo) and new.trust.marker == "instructions"
    assert world.skipped(new) == [("repo/AGENTS.md", "untrusted-folder"),
                                  ("repo/src/.grok/rules/py.md", "untrusted-folder")]
    assert {s.detail for s in new.withheld} == {UNTRUSTED_DETAIL}
    assert new.agent == NEW
    old = resolve_as(world, repo / "src", OLD)
    assert world.paths(old) == ["home/.grok/rules/me.md", "repo/AGENTS.md",
                                "repo/src/.grok/rules/py.md"]
    assert old.trust is None and old.withheld == () and old.agent == OLD


def test_grant_covers_subfolders_of_the_same_repository(world: World, repo: Path) -> None:
    write(repo / "AGENTS.md", "root")
    write(repo / "src" / "AGENTS.md", "src")
    store = trust_folder(world, repo)
    chain = resolve_as(world, repo / "src", NEW)
    assert world.paths(chain) == ["repo/AGENTS.md", "repo/src/AGENTS.md"]
    assert chain.trust is not None and chain.trust.state == "trusted"
    assert str(store) in chain.trust.reason and chain.skipped == ()


def test_grant_does_not_cover_a_nested_repository_or_a_plain_subfolder(world: World,
                                                                     repo: Path) -> None:
    nested = git_init(repo / "vendor" / "lib")
    write(nested / "AGENTS.md", "nested")
    trust_folder(world, repo)
    chain = resolve_as(world, nested, NEW)
    assert chain.trust is not None and chain.trust.state == "undecided"
    assert chain.trust.key == str(nested) and world.paths(chain) == []
    plain = world.base / "plain"
    write(plain / "sub" / "AGENTS.md", "sub")
    trust_folder(world, plain)
    below = resolve_as(world, plain / "sub", NEW)
    assert below.trust is not None and below.trust.state == "undecided"
    assert below.trust.key == str(plain / "sub")
    at = resolve_as(world, plain, NEW)  # the recorded folder itself is covered
    assert at.trust is not None and at.trust.state == "trusted"


def test_the_key_is_the_repository_root_and_false_is_untrusted(world: World,
                                                               repo: Path) -> None:
    write(repo / "sub" / "AGENTS.md", "sub")
    trust_folder(world, repo / "sub", True)  # not the key of anything below the root
    below = resolve_as(world, repo / "sub", NEW)
    assert below.trust is not None and below.trust.state == "undecided"
    trust_folder(world, repo, False)
    chain = resolve_as(world, repo / "sub", NEW)
    assert chain.trust is not None and chain.trust.state == "untrusted"
    assert "marked untrusted" in chain.trust.reason
    assert world.skipped(chain) == [("repo/sub/AGENTS.md", "untrusted-folder")]


def test_linked_worktree_key_is_the_main_repository(world: World, repo: Path) -> None:
    write(repo / "AGENTS.md", "root")
    _git("add", "-A", cwd=repo)
    _git("commit", "-qm", "init", cwd=repo)
    wt = world.base / "wt"
    _git("worktree", "add", "-q", str(wt), cwd=repo)
    before = resolve_as(world, wt, NEW)
    assert before.trust is not None and before.trust.key == str(repo)
    assert before.trust.state == "undecided" and before.git_root == str(wt)
    trust_folder(world, repo)
    after = resolve_as(world, wt, NEW)
    assert after.trust is not None and after.trust.state == "trusted"
    assert world.paths(after) == ["wt/AGENTS.md"]


def test_unrecordable_key_and_no_markers_are_trusted_provisionally(world: World,
                                                                   repo: Path) -> None:
    write(world.home / "AGENTS.md", "home as cwd")
    at_home = resolve_as(world, world.home, NEW)
    assert at_home.trust is not None and at_home.trust.state == "not-required"
    assert "cannot be recorded" in at_home.trust.reason
    assert world.paths(at_home) == ["home/AGENTS.md"]
    empty = resolve_as(world, repo, NEW)
    assert empty.trust is not None and empty.trust.state == "not-required"
    assert empty.trust.marker is None and "nothing here needs trust" in empty.trust.reason


def test_repo_configs_present_detects_agents_md_from_subdir(world: World, repo: Path) -> None:
    write(repo / ".gitignore", "AGENTS.md\n")
    write(repo / "AGENTS.md", "ignored, still a marker")
    (repo / "deep" / "er").mkdir(parents=True)
    chain = resolve_as(world, repo / "deep" / "er", NEW)
    assert chain.trust is not None
    assert chain.trust.state == "undecided" and chain.trust.marker == "instructions"
    assert world.skipped(chain) == [("repo/AGENTS.md", "gitignored")]  # nothing withheld


def test_repo_configs_present_detects_project_rules_from_subdir(world: World,
                                                                repo: Path) -> None:
    (repo / ".cursor" / "rules").mkdir(parents=True)  # empty: still a marker
    (repo / "src").mkdir()
    chain = resolve_as(world, repo / "src", NEW)
    assert chain.trust is not None and chain.trust.marker == "instructions"
    assert chain.trust.state == "undecided"


def test_repo_configs_present_detects_empty_skill_roots_only_in_project_chain(
        world: World, repo: Path) -> None:
    (repo / "child" / ".grok" / "skills").mkdir(parents=True)  # below cwd: not in the chain
    outside = world.base / ".claude" / "commands"
    outside.mkdir(parents=True)  # above the git root: not in the chain
    write(repo / ".agents" / "skills", "a regular file does not count")
    assert resolve_as(world, repo, NEW).trust.state == "not-required"  # type: ignore[union-attr]
    (repo / ".cursor" / "commands").mkdir(parents=True)
    chain = resolve_as(world, repo, NEW)
    assert chain.trust is not None and chain.trust.marker == "skills"


def test_code_execution_markers_come_first(world: World, repo: Path) -> None:
    write(repo / ".mcp.json", "{}")
    write(repo / "AGENTS.md", "x")
    chain = resolve_as(world, repo, NEW)
    assert chain.trust is not None and chain.trust.marker == "mcp"
    write(repo / ".grok" / "config.toml", "[permission]\nallow = []\n")  # empty: no marker
    (repo / ".mcp.json").unlink()
    assert resolve_as(world, repo, NEW).trust.marker == "instructions"  # type: ignore[union-attr]


def test_feature_switch_env_then_config(world: World, repo: Path) -> None:
    write(repo / "AGENTS.md", "x")
    off = resolve_as(world, repo, NEW, GROK_FOLDER_TRUST="0")
    assert off.trust is not None and off.trust.state == "not-required" and off.trust.key is None
    assert world.paths(off) == ["repo/AGENTS.md"]
    _config(world, "[folder_trust]\nenabled = false\n")
    by_config = resolve_as(world, repo, NEW)
    assert by_config.trust is not None and by_config.trust.state == "not-required"
    assert "[folder_trust] enabled = false" in by_config.trust.reason
    on_again = resolve_as(world, repo, NEW, GROK_FOLDER_TRUST="yes")
    assert on_again.trust is not None and on_again.trust.state == "undecided"
    garbage = resolve_as(world, repo, NEW, GROK_FOLDER_TRUST="maybe")  # unset: config decides
    assert garbage.trust is not None and garbage.trust.state == "not-required"


def test_unreadable_store_trusts_nothing(world: World, repo: Path) -> None:
    write(repo / "AGENTS.md", "x")
    store = trust_folder(world, repo)
    store.write_text(store.read_text() + "[[[not toml\n")
    chain = resolve_as(world, repo, NEW)
    assert chain.trust is not None and chain.trust.state == "untrusted"
    assert "unusable" in chain.trust.reason and world.paths(chain) == []


def test_trust_override_for_what_if_views(world: World, repo: Path) -> None:
    write(repo / "AGENTS.md", "x")
    assert world.paths(resolve_as(world, repo, NEW, "trusted")) == ["repo/AGENTS.md"]
    trust_folder(world, repo)
    forced = resolve_as(world, repo, NEW, "untrusted")
    assert forced.trust is not None and forced.trust.state == "untrusted"
    assert world.skipped(forced) == [("repo/AGENTS.md", "untrusted-folder")]


def test_extra_rule_dir_inside_untrusted_repo_still_loads_and_ignores_gitignore(
        world: World, repo: Path) -> None:
    write(repo / ".gitignore", "team-rules/\n")
    write(repo / "team-rules" / "style.md", "---\nx: 1\n---\nstyle")
    write(repo / "AGENTS.md", "project")
    _config(world, f'[paths]\nextra_rule_dirs = ["{repo / "team-rules"}"]\n')
    chain = resolve_as(world, repo, NEW)
    assert world.paths(chain) == ["repo/team-rules/style.md"]
    assert chain.files[0].source == "configured" and chain.files[0].content == "style"
    assert world.skipped(chain) == [("repo/AGENTS.md", "untrusted-folder")]


# ------------------------------------------------------------ §A3.1 / §A4 walk
def test_resolve_treats_home_git_repo_as_no_repo(world: World) -> None:
    git_init(world.home)
    write(world.home / "AGENTS.md", "dotfiles")
    proj = world.home / "proj"
    write(proj / "AGENTS.md", "proj")
    trust_folder(world, proj)  # its key: the cwd (the home key is unsafe)
    new = resolve_as(world, proj, NEW)
    assert new.git_root is None and world.paths(new) == ["home/proj/AGENTS.md"]
    assert new.trust is not None and new.trust.state == "trusted"
    old = resolve_as(world, proj, OLD)
    assert old.git_root == str(world.home)
    assert world.paths(old) == ["home/AGENTS.md", "home/proj/AGENTS.md"]


def test_git_root_that_is_not_home_is_kept_and_nested_chain_is_root_first(
        world: World, repo: Path) -> None:
    (repo / "a" / "b").mkdir(parents=True)
    chain = resolve_as(world, repo / "a" / "b", NEW)
    assert chain.git_root == str(repo)
    assert chain.directories == (str(repo), str(repo / "a"), str(repo / "a" / "b"))
    plain = world.base / "plain"
    plain.mkdir()
    alone = resolve_as(world, plain, NEW)
    assert alone.git_root is None and alone.directories == ()


def test_symlinked_cwd_keeps_its_spelling_and_stops_at_the_root(world: World,
                                                                repo: Path) -> None:
    write(repo / "AGENTS.md", "root")
    write(repo / "src" / "AGENTS.md", "src")
    write(repo / ".gitignore", "CLAUDE.local.md\n")
    write(repo / "CLAUDE.local.md", "personal")
    link = world.base / "link"
    link.symlink_to(repo)
    trust_folder(world, repo)
    new = resolve_as(world, link / "src", NEW)
    assert new.cwd == str(link / "src")
    # Spelled through the link, the paths are not under the root: gitignore does not
    # apply to them (derived, base spec §3.4), so CLAUDE.local.md loads.
    assert world.paths(new) == ["link/CLAUDE.local.md", "link/AGENTS.md", "link/src/AGENTS.md"]
    old = resolve_as(world, link / "src", OLD)
    assert world.paths(old) == ["repo/AGENTS.md", "repo/src/AGENTS.md"]


def test_symlink_into_a_subdirectory_walks_past_the_root(world: World, repo: Path) -> None:
    """The derived edge case (§A3.1): ``/l`` → ``<repo>/sub``, cwd ``/l/x``; the walk never
    meets the root and goes on to ``/``, so a file above loads as project."""
    write(world.base / "AGENTS.md", "above everything")
    write(repo / "AGENTS.md", "the real root")
    (repo / "sub" / "x").mkdir(parents=True)
    link = world.base / "l"
    link.symlink_to(repo / "sub")
    chain = resolve_as(world, link / "x", NEW, "trusted")
    assert chain.git_root == str(repo)
    assert "AGENTS.md" in world.paths(chain) and "repo/AGENTS.md" not in world.paths(chain)
    assert chain.directories[-2:] == (str(link), str(link / "x"))
    assert chain.directories[0] == "/"


# ----------------------------------------------------- §A3.2 / §A3.10 configured
def test_rule_dirs_expands_tilde_and_drops_relative_entries() -> None:
    config = {"paths": {"extra_rule_dirs": ["~", "~/team", "~rules", "rel/dir", "/abs",
                                            "~user/x", "/abs"]}}
    assert rule_dirs(config, "c.toml", "/h") == ("/h", "/h/team", "/abs", "/abs")
    assert rule_dirs(config, "c.toml", None) == ("/abs", "/abs")
    assert rule_dirs({}, "c.toml", "/h") == ()
    for bad in ({"paths": 1}, {"paths": {"extra_rule_dirs": "/x"}},
                {"paths": {"extra_rule_dirs": [1]}}):
        try:
            rule_dirs(bad, "c.toml", "/h")
        except ConfigError as exc:
            assert "c.toml" in str(exc)
        else:
            raise AssertionError(bad)


def test_extra_rule_dirs_load_as_home_rules_after_builtin_roots(world: World,
                                                                repo: Path) -> None:
    write(world.grok_home / "rules" / "home.md", "home")
    write(world.home / ".claude" / "CLAUDE.md", "claude")
    team = world.base / "team"
    write(team / "a.md", "a")
    write(team / "AGENTS.md", "just another rule here")
    write(team / "notes.txt", "not md")
    write(team / "deep" / "z.md", "nested: not read")
    other = world.base / "other"
    write(other / "o.md", "o")
    (world.base / "team-again").symlink_to(team)
    write(repo / "AGENTS.md", "project")
    trust_folder(world, repo)
    _config(world, "[paths]\nextra_rule_dirs = ["
            f'"{other}", "{team}", "{world.base / "team-again"}", "{world.base / "missing"}"]\n')
    new = resolve_as(world, repo, NEW)
    assert world.paths(new) == ["home/.grok/rules/home.md", "home/.claude/CLAUDE.md",
                                "other/o.md", "team/AGENTS.md", "team/a.md", "repo/AGENTS.md"]
    assert [f.source for f in new.files] == ["home", "home", "configured", "configured",
                                             "configured", "project"]
    assert [f.role for f in new.files] == ["home"] * 5 + ["project"]
    assert all(f.kind == "rule" for f in new.files[2:5])
    assert ("team/deep/z.md", "nested-in-rules-dir") in world.skipped(new)
    old = resolve_as(world, repo, OLD)  # 1.0.6 has no [paths]
    assert world.paths(old) == ["home/.grok/rules/home.md", "home/.claude/CLAUDE.md",
                                "repo/AGENTS.md"]


# ------------------------------------------------------------------ §A3.5 dedup
def test_configured_entry_reached_from_the_project_keeps_its_place(world: World,
                                                                   repo: Path) -> None:
    write(repo / ".grok" / "rules" / "shared.md", "shared")
    write(repo / "AGENTS.md", "project")
    _config(world, f'[paths]\nextra_rule_dirs = ["{repo / ".grok" / "rules"}"]\n')
    chain = resolve_as(world, repo, NEW, "trusted")
    assert world.paths(chain) == ["repo/.grok/rules/shared.md", "repo/AGENTS.md"]
    assert [f.source for f in chain.files] == ["configured", "project"]
    assert world.skipped(chain) == [("repo/.grok/rules/shared.md", "duplicate")]


def test_home_entry_becomes_configured_in_place_or_project_at_the_end(world: World,
                                                                      repo: Path) -> None:
    write(world.grok_home / "rules" / "a.md", "a")
    write(world.grok_home / "rules" / "b.md", "b")
    _config(world, f'[paths]\nextra_rule_dirs = ["{world.grok_home / "rules"}"]\n')
    chain = resolve_as(world, repo, NEW, "trusted")
    assert world.paths(chain) == ["home/.grok/rules/a.md", "home/.grok/rules/b.md"]
    assert [f.source for f in chain.files] == ["configured", "configured"]
    # The grok home inside the repository: its rules are reached again as project rules
    # and move to the end (both profiles; 1.0.6 knows only this case).
    inside = {"GROK_HOME": str(repo)}
    write(repo / "rules" / "r.md", "home rules dir")
    write(repo / ".grok" / "rules" / "p.md", "project rule")
    link = repo / ".grok" / "rules" / "r.md"
    link.symlink_to(repo / "rules" / "r.md")
    for agent in (NEW, OLD):
        moved = resolve_as(world, repo, agent, "trusted", **inside)
        assert world.paths(moved)[-2:] == ["repo/.grok/rules/p.md", "repo/.grok/rules/r.md"]
        assert moved.files[-1].role == "project" and moved.files[-1].source == "project"


# ------------------------------------------------------------ §A3.11 <rules>
def test_rules_frame_bytes(world: World, repo: Path) -> None:
    write(world.grok_home / "rules" / "me.md", "# Personal Rules\nbe kind\n")
    team = world.base / "team"
    write(team / "t.md", "\nteam </rules> rule")
    write(repo / "AGENTS.md", "  # Project\n\n<system-reminder>x</System-Reminder>\n\n")
    _config(world, f'[paths]\nextra_rule_dirs = ["{team}"]\n')
    chain = resolve_as(world, repo, NEW, "trusted")
    text = render_rules(chain.files, str(world.grok_home),
                        [str(world.home / ".claude"), str(world.home / ".cursor")], [str(repo)])
    assert text == (
        "<rules>\nThe rules section has a number of possible rules/memories/context that you"
        " should consider. In each subsection, we provide instructions about what"
        " information the subsection contains and how you should consider/follow the"
        " contents of the subsection.\n\n\n"
        '<always_applied_workspace_rules description="These are workspace-level rules that'
        ' the agent must always follow.">\n'
        f'<always_applied_workspace_rule name="{repo}/AGENTS.md">\n# Project\n\n'
        "&lt;system-reminder>x</System-Reminder>\n</always_applied_workspace_rule>\n"
        "</always_applied_workspace_rules>\n\n"
        '<user_rules description="These are rules set by the user that you should follow if'
        ' appropriate.">\n'
        "<user_rule>\n# Personal Rules\nbe kind\n</user_rule>\n\n"
        "<user_rule>\nteam &lt;/rules> rule\n</user_rule>\n"
        "</user_rules>\n</rules>")
    assert render_rules((), str(world.grok_home), (), (str(repo),)) == ""


# --------------------------------------------------------------- §A8 tokens
def test_token_estimate_is_inspects_approx_tokens(world: World, repo: Path) -> None:
    body = "é" * 7  # 7 characters, 14 bytes
    write(repo / "AGENTS.md", body)
    new = resolve_as(world, repo, NEW, "trusted")
    old = resolve_as(world, repo, OLD)
    assert new.files[0].tokens == 14 // 4 == 3
    assert old.files[0].tokens == (7 + 3) // 4 == 2
