"""``agents.readers``: which agents read a file, as lint messages word it."""

from __future__ import annotations

from pathlib import Path

from agenttree import env_for, git_init, write, write_json

from rulelens.agents.readers import sentence, who_reads


def test_gemini_md_is_read_by_gemini_and_by_zed_when_it_is_the_only_rules_file(
        base: Path, home: Path) -> None:
    """Gemini CLI reads GEMINI.md; Zed too, as the last of its nine names (ZD-F1) when no
    earlier one exists; the six original agents do not."""
    repo = git_init(base / "repo")
    write(repo / "GEMINI.md", "g")
    write_json(home / ".gemini" / "trustedFolders.json", {str(repo): "TRUST_FOLDER"})
    six = ["claude", "codex", "cursor", "copilot", "gemini", "boost"]
    reads, skips = who_reads(str(repo / "GEMINI.md"), str(repo), env_for(home), agents=six)
    assert reads == ["Gemini CLI"]
    assert skips == ["Claude Code", "Codex CLI", "Cursor", "GitHub Copilot", "Laravel Boost"]
    assert sentence("GEMINI.md", reads, skips, grok_reads=False) == (
        "GEMINI.md: read by Gemini CLI; not by Grok, Claude Code, Codex CLI, Cursor,"
        " GitHub Copilot or Laravel Boost")
    reads, _ = who_reads(str(repo / "GEMINI.md"), str(repo), env_for(home))
    assert reads == ["Gemini CLI", "Zed"]
    write(repo / "AGENTS.md", "a")
    reads, _ = who_reads(str(repo / "GEMINI.md"), str(repo), env_for(home),
                         agents=["gemini", "zed"])
    assert reads == ["Gemini CLI"]  # Zed now takes AGENTS.md, its earlier name


def test_agents_md_and_a_file_nobody_reads(base: Path, home: Path) -> None:
    repo = git_init(base / "repo")
    write(repo / "AGENTS.md", "a")
    write(repo / "AGENTS.local.md", "l")
    reads, _ = who_reads(str(repo / "AGENTS.md"), str(repo), env_for(home),
                         agents=["claude", "codex", "cursor", "copilot"])
    assert reads == ["Codex CLI", "Cursor", "GitHub Copilot"]
    reads, skips = who_reads(str(repo / "AGENTS.local.md"), str(repo), env_for(home),
                             agents=["claude", "codex"])
    assert sentence("AGENTS.local.md", reads, skips, grok_reads=False) == (
        "AGENTS.local.md: read by none of Grok, Claude Code or Codex CLI")
