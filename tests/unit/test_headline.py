"""The one headline every view shares (issue 20): counts per agent, trust, the one-line
lens cut, and which skips fold into "other agents' files"."""

from __future__ import annotations

from rulelens.agents.view import AgentView, NotLoaded, ViewFile
from rulelens.lsp.agentviews import (
    foreign_paths,
    headline,
    headline_parts,
    lens_title,
    trust_lines,
)

REPO = "/w/repo"


def _file(path: str, when: str = "start") -> ViewFile:
    return ViewFile(path, when, "test", "named", "project", 10, "x")  # type: ignore[arg-type]


def _view(agent: str, display: str, files: list[ViewFile],
          skipped: list[NotLoaded] = ()) -> AgentView:  # type: ignore[assignment]
    return AgentView(agent, display, REPO, f"{REPO}/src/x.py", REPO, tuple(files),
                     tuple(skipped))


def test_counts_start_and_on_read_not_may_and_adds_withheld() -> None:
    grok = _view("grok@1.0.45", "Grok", [_file(f"{REPO}/a.md")],
                 [NotLoaded(f"{REPO}/AGENTS.md", "untrusted-folder", "not trusted")])
    codex = _view("codex", "Codex CLI", [_file(f"{REPO}/AGENTS.md"),
                                         _file(f"{REPO}/src/AGENTS.md", "on-read"),
                                         _file(f"{REPO}/x/AGENTS.md", "may")])
    grok_part, codex_part = headline_parts([grok, codex])
    assert grok_part.startswith("Grok 1 (+1 after trust) · ") and grok_part.endswith(" tok")
    assert codex_part.startswith("Codex 2 · ") and codex_part.endswith(" tok")
    assert headline([grok, codex]) == f"{grok_part} · {codex_part}"
    assert trust_lines([grok, codex]) == [
        "Grok: folder not trusted yet, 1 project file withheld; run `grok --trust` here"]


def test_lens_names_a_start_directory_only_when_it_is_not_the_workspace() -> None:
    v = _view("codex", "Codex CLI", [_file(f"{REPO}/AGENTS.md")])
    assert lens_title([v], REPO) == headline([v]) and lens_title([v], REPO).startswith("Codex 1")
    moved = AgentView("codex", "Codex CLI", f"{REPO}/src", None, REPO, (), ())
    assert lens_title([moved], REPO) == f"from src/: {headline([moved])}"


def test_lens_is_cut_to_one_line_with_a_count_of_the_rest() -> None:
    ids = ["claude", "codex", "cursor", "copilot", "gemini", "boost", "cline", "opencode",
           "qwen", "windsurf", "kiro", "zed", "junie", "aider", "continue"]
    views = [_view(a, a, [_file(f"{REPO}/AGENTS.md")]) for a in ids]
    title = lens_title(views, REPO)
    assert len(title) <= 90
    shown, _, more = title.partition(" · +")
    kept = shown.count(" tok")                  # one "N tok" per agent shown
    assert 0 < kept < len(ids) and more == f"{len(ids) - kept} more"
    assert headline(views).startswith(shown)


def test_other_agents_files_fold_shared_names_and_near_misses_stay() -> None:
    grok = _view("grok@1.0.45", "Grok", [], [
        NotLoaded(f"{REPO}/GEMINI.md", "unrecognized-name", "not Grok's name"),
        NotLoaded(f"{REPO}/.clinerules", "unrecognized-name", "not Grok's name"),
        NotLoaded(f"{REPO}/AGENTS.local.md", "unrecognized-name", "a near miss"),
        NotLoaded(f"{REPO}/CLAUDE.local.md", "gitignored", "ignored")])
    claude = _view("claude", "Claude Code", [], [
        NotLoaded(f"{REPO}/AGENTS.md", "not-read", "Claude does not read AGENTS.md")])
    gemini = _view("gemini", "Gemini CLI", [_file(f"{REPO}/GEMINI.md")])
    cline = _view("cline", "Cline", [_file(f"{REPO}/.clinerules/01.md")])
    codex = _view("codex", "Codex CLI", [_file(f"{REPO}/AGENTS.md")])
    found = foreign_paths([grok, claude, gemini, cline, codex])
    assert found["grok@1.0.45"] == {f"{REPO}/GEMINI.md", f"{REPO}/.clinerules"}
    assert found["claude"] == set()   # AGENTS.md is a shared name: why Claude skips it stays
