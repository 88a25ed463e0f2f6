"""GitHub Copilot profile (per GitHub/VS Code docs): facts of agent-profiles.md §5."""

from __future__ import annotations

from pathlib import Path

from agenttree import entry, env_for, git_init, loaded, skipped, write

from rulelens.agents import copilot


def _view(cwd: Path, home: Path, file: Path | None = None) -> copilot.AgentView:
    return copilot.view(str(cwd), str(file) if file else None, env_for(home))


def test_facts_1_2_4_repo_wide_and_apply_to(base: Path, home: Path) -> None:
    """Facts 1, 2, 4: the repo-wide file loads at start; a path-specific file whose
    ``applyTo`` matches is used as well; ``src/*.py`` does not match ``src/foo/bar.py``."""
    repo = git_init(base / "repo")
    write(repo / ".github/copilot-instructions.md", "wide")
    inst = repo / ".github/instructions"
    write(inst / "py.instructions.md", "---\napplyTo: \"src/*.py\"\n---\npy")
    write(inst / "deep/all.instructions.md", "---\napplyTo: \"docs/**,src/**\"\n---\nall")
    write(inst / "notes.md", "---\napplyTo: \"**\"\n---\nwrong name")
    target = write(repo / "src/foo/bar.py", "")
    v = _view(repo / "src", home, target)
    assert loaded(v, "start") == [str(repo / ".github/copilot-instructions.md")]
    assert loaded(v, "on-read") == [str(inst / "deep/all.instructions.md")]
    assert skipped(v, inst / "py.instructions.md").reason == "applyto-no-match"
    assert v.find(str(inst / "notes.md")) is None


def test_fact_3_exclude_agent_is_named(base: Path, home: Path) -> None:
    """Fact 3: ``excludeAgent`` says which Copilot surface skips the file."""
    repo = git_init(base / "repo")
    write(repo / ".github/instructions/a.instructions.md",
          "---\napplyTo: \"**\"\nexcludeAgent: \"code-review\"\n---\nA")
    v = _view(repo, home, write(repo / "x.py", ""))
    why = entry(v, repo / ".github/instructions/a.instructions.md").why
    assert "excludeAgent: code-review" in why


def test_fact_6_no_apply_to_is_not_applied_description_may(base: Path, home: Path) -> None:
    """Fact 6: no ``applyTo`` is not auto-applied; with a description VS Code may attach it;
    ``.claude/rules`` count with ``paths`` (default ``**``)."""
    repo = git_init(base / "repo")
    write(repo / ".github/instructions/plain.instructions.md", "plain")
    write(repo / ".github/instructions/desc.instructions.md",
          "---\ndescription: Writing SQL migrations\n---\nsql")
    write(repo / ".claude/rules/any.md", "every file")
    v = _view(repo, home, write(repo / "x.py", ""))
    assert skipped(v, repo / ".github/instructions/plain.instructions.md").reason == "no-applyto"
    assert entry(v, repo / ".github/instructions/desc.instructions.md").when == "may"
    assert entry(v, repo / ".claude/rules/any.md").when == "on-read"


def test_facts_5_6_agents_md_root_and_nested(base: Path, home: Path) -> None:
    """Facts 5-6: root AGENTS.md and CLAUDE.md load; a nested AGENTS.md needs VS Code's
    experimental setting (the CLI reads it) and is shown as not loaded with that reason."""
    repo = git_init(base / "repo")
    write(repo / "AGENTS.md", "root")
    write(repo / "CLAUDE.md", "claude")
    write(repo / "GEMINI.md", "gemini")
    write(repo / "pkg/AGENTS.md", "nested")
    v = _view(repo, home, write(repo / "pkg/x.py", ""))
    assert loaded(v, "start") == [str(repo / "AGENTS.md"), str(repo / "CLAUDE.md")]
    assert skipped(v, repo / "pkg/AGENTS.md").reason == "nested-agents-md"
    assert skipped(v, repo / "GEMINI.md").reason == "cli-only"


def test_fact_7_code_review_reads_4000_characters(base: Path, home: Path) -> None:
    """Fact 7: the detail text warns when code review would cut the file."""
    repo = git_init(base / "repo")
    write(repo / ".github/copilot-instructions.md", "x" * 4001)
    assert "4,000 characters" in entry(_view(repo, home),
                                       repo / ".github/copilot-instructions.md").why
