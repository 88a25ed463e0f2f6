"""``rulelens chain|render FILE --agent …`` on the demo workspace, as a real process.

The demo (examples/demo/build.py) carries files for every agent; these tests pin that
``--agent all`` shows files the agents treat differently, that no view lists a file in two
groups, and the JSON contract (today's shape plus ``when``/``why``/``imported_by``/
``truncated_at``; ``{"agents": [...]}`` for several).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rulelens.agents.registry import BY_ID, ORDER, SHORT
from rulelens.rules.perfile import MARKS

ROOT = Path(__file__).resolve().parents[3]
RULELENS = str(Path(sys.executable).with_name("rulelens"))


def _build(dest: Path) -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("demo_build", ROOT / "examples/demo/build.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    built: dict[str, str] = mod.build(str(dest))
    return built


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return _build(Path(os.path.realpath(tmp_path_factory.mktemp("demo"))))


def run(demo: dict[str, str], *args: str, ok: int = 0) -> subprocess.CompletedProcess[str]:
    env = {"HOME": demo["home"], "GROK_HOME": demo["grok_home"], "LANG": "C.UTF-8",
           "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    done = subprocess.run([RULELENS, *args], env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == ok, done.stderr
    return done


def as_json(demo: dict[str, str], *args: str) -> Any:
    return json.loads(run(demo, "chain", "--json", *args).stdout)


def rel(demo: dict[str, str], path: str) -> str:
    return os.path.relpath(path, demo["repo"])


def by_agent(demo: dict[str, str]) -> dict[str, dict[str, Any]]:
    out = as_json(demo, demo["deep_file"], "--agent", "all", "--cwd", demo["repo"])
    assert set(out) == {"agents"}
    return {a["agent"].split("@")[0]: a for a in out["agents"]}


def when(view: dict[str, Any]) -> dict[str, str]:
    """path -> when, for loaded files; "no" for not loaded."""
    out = {f["path"]: f["when"] for f in view["files"]}
    out.update({s["path"]: "no" for s in view["skipped"]})
    return out


def test_all_agents_treat_demo_files_differently(demo: dict[str, str]) -> None:
    """Acceptance: ``--agent all`` on the demo shows, per agent, a file it treats
    differently from the others."""
    views = by_agent(demo)
    assert list(views) == list(ORDER)
    cells = {a: {rel(demo, p): w for p, w in when(v).items()} for a, v in views.items()}
    # Grok loads .claude/rules/testing.md at start; Claude only when the file is read.
    assert cells["grok"][".claude/rules/testing.md"] == "start"
    assert cells["claude"][".claude/rules/testing.md"] == "on-read"
    # Codex: the override wins src/ and is only advised to the model.
    assert cells["codex"]["src/AGENTS.override.md"] == "may"
    assert cells["codex"]["src/AGENTS.md"] == "no"
    # Cursor attaches the .mdc by its globs; Grok does not read .mdc files.
    assert cells["cursor"][".cursor/rules/style.mdc"] == "on-read"
    assert cells["grok"][".cursor/rules/style.mdc"] == "no"
    # Copilot: applyTo matches the handlers, not the frontend file.
    assert cells["copilot"][".github/instructions/handlers.instructions.md"] == "on-read"
    assert cells["copilot"][".github/instructions/frontend.instructions.md"] == "no"
    # Gemini: GEMINI.md and what it imports.
    assert cells["gemini"]["GEMINI.md"] == "start"
    assert cells["gemini"]["docs/style.md"] == "start"
    # Boost: the index and the matching rule, advisory only; a rule without paths is not.
    assert cells["boost"][".ai/rules/orders.md"] == "may"
    assert cells["boost"][".ai/rules/global.md"] == "no"
    # Cline: every nested AGENTS.md at start (a root one exists); the paths rule on read.
    assert cells["cline"]["src/app/AGENTS.md"] == "start"
    assert cells["cline"][".clinerules/handlers.md"] == "on-read"
    assert cells["cline"][".clinerules/01-general.md"] == "start"
    # OpenCode: the global ~/.claude/CLAUDE.md, opencode.json's instructions entry at
    # start, nested AGENTS.md only when the file is read.
    home_claude = rel(demo, os.path.join(demo["home"], ".claude", "CLAUDE.md"))
    assert cells["opencode"][home_claude] == "start"
    assert cells["opencode"]["docs/style.md"] == "start"
    assert cells["opencode"]["src/app/AGENTS.md"] == "on-read"
    # Qwen Code: QWEN.md, which no other agent reads; its tests rule does not match.
    assert cells["qwen"]["QWEN.md"] == "start" and cells["cline"]["QWEN.md"] == "no"
    assert cells["qwen"][".qwen/rules/tests.md"] == "no"
    # Aider: only what `read:` names; AGENTS.md is a plain file to it.
    assert cells["aider"]["docs/style.md"] == "start" and cells["aider"]["AGENTS.md"] == "no"
    # Continue: alwaysApply false + matching globs on read; frontend globs do not match.
    assert cells["continue"][".continue/rules/handlers.md"] == "on-read"
    assert cells["continue"][".continue/rules/frontend.md"] == "no"
    # Windsurf: the glob-triggered rule on read, the frontend glob not; a nested AGENTS.md
    # is a glob rule for its folder.
    assert cells["windsurf"][".windsurf/rules/handlers.md"] == "on-read"
    assert cells["windsurf"][".windsurf/rules/frontend.md"] == "no"
    assert cells["windsurf"]["src/app/AGENTS.md"] == "on-read"
    # Kiro: fileMatch steering and the file it references, on read; manual steering is not.
    assert cells["kiro"][".kiro/steering/orders.md"] == "on-read"
    assert cells["kiro"]["docs/style.md"] == "on-read"
    assert cells["kiro"][".kiro/steering/release.md"] == "no"
    # Zed: one rules file per worktree; .github/copilot-instructions.md comes before
    # AGENTS.md, and the .clinerules folder is passed over.
    assert cells["zed"][".github/copilot-instructions.md"] == "start"
    assert cells["zed"]["AGENTS.md"] == "no" and cells["zed"][".clinerules"] == "no"
    # Junie: its guidelines file, which no other agent reads; AGENTS.md is not used.
    assert cells["junie"][".junie/guidelines.md"] == "start"
    assert cells["junie"]["AGENTS.md"] == "no"
    assert all(".junie/guidelines.md" not in cells[a] for a in cells if a != "junie")
    # Grok started at the root: the nested AGENTS.md is honestly not loaded.
    grok_skip = {rel(demo, s["path"]): s for s in views["grok"]["skipped"]}
    assert grok_skip["src/app/AGENTS.md"]["reason"] == "below-start-dir"
    assert "tracker is not wired" in grok_skip["src/app/AGENTS.md"]["detail"]


def test_no_file_in_two_groups(demo: dict[str, str]) -> None:
    """Every view lists a path once: loaded (with one ``when``) or not loaded."""
    for agent, view in by_agent(demo).items():
        paths = [f["path"] for f in view["files"]] + [s["path"] for s in view["skipped"]]
        assert len(paths) == len(set(paths)), agent


def test_one_agent_keeps_the_chain_shape_and_adds_fields(demo: dict[str, str]) -> None:
    """One agent: today's keys plus ``when``/``why``/``imported_by``/``truncated_at``;
    ``content`` is the injected text and ``bytes`` the size on disk."""
    out = as_json(demo, demo["deep_file"], "--agent", "gemini", "--cwd", demo["repo"])
    assert {"cwd", "git_root", "files", "skipped"} <= set(out)
    assert out["cwd"] == demo["repo"] and out["agent"] == "gemini"
    files = {rel(demo, f["path"]): f for f in out["files"]}
    for f in out["files"]:
        assert {"path", "name", "role", "kind", "precedence", "bytes", "tokens", "content",
                "when", "why", "imported_by", "truncated_at"} <= set(f)
    style = files["docs/style.md"]
    assert style["imported_by"] == os.path.join(demo["repo"], "GEMINI.md")
    assert "<!-- Imported from: ./docs/style.md -->" in files["GEMINI.md"]["content"]
    assert files["GEMINI.md"]["bytes"] == os.path.getsize(os.path.join(demo["repo"], "GEMINI.md"))
    grok = as_json(demo, demo["deep_file"], "--agent", "grok", "--cwd", demo["repo"])
    assert all(f["when"] == "start" and f["why"] for f in grok["files"])


def test_codex_budget_cut_is_at_the_byte(demo: dict[str, str], tmp_path: Path) -> None:
    """``truncated_at`` and the cut ``content`` for a file the budget cuts."""
    home = Path(demo["home"])
    (home / ".codex").mkdir(exist_ok=True)
    (home / ".codex" / "config.toml").write_text("project_doc_max_bytes = 100\n")
    try:
        out = as_json(demo, demo["deep_file"], "--agent", "codex", "--cwd", demo["repo"])
    finally:
        (home / ".codex" / "config.toml").unlink()
    agents = next(f for f in out["files"] if f["name"] == "AGENTS.md")
    assert agents["truncated_at"] == 100 and len(agents["content"].encode()) == 100
    assert agents["bytes"] > 100


def test_table_names_the_start_directory(demo: dict[str, str]) -> None:
    text = run(demo, "chain", demo["deep_file"], "--agent", "all", "--cwd", demo["repo"]).stdout
    assert text.startswith(f"start directory: {demo['repo']}\n")
    header = next(line for line in text.splitlines() if line.startswith("file "))
    # Each column says how sure it is: ᶜ from the agent's code, ᵈ from its docs.
    assert header.split() == ["file", *(SHORT[a] + MARKS[BY_ID[a].evidence] for a in ORDER)]
    assert "ᵈ = from its documentation" in text
    assert "src/AGENTS.override.md" in text and "Codex 1 +2 may" in text


def test_default_start_dir_is_the_files_directory(demo: dict[str, str]) -> None:
    out = as_json(demo, demo["deep_file"], "--agent", "claude")
    assert out["cwd"] == os.path.dirname(demo["deep_file"])


def test_render_known_and_unknown(demo: dict[str, str]) -> None:
    """Codex separators, Gemini markers, Claude framing; Cursor is said to be unknown."""
    codex = run(demo, "render", demo["deep_file"], "--agent", "codex", "--cwd", demo["repo"])
    assert codex.stdout.startswith(f"# AGENTS.md instructions for {demo['repo']}\n\n"
                                   "<INSTRUCTIONS>\n")
    gemini = run(demo, "render", demo["deep_file"], "--agent", "gemini", "--cwd", demo["repo"])
    assert f"--- Context from: {demo['repo']}/GEMINI.md ---" in gemini.stdout
    claude = run(demo, "render", demo["deep_file"], "--agent", "claude", "--cwd", demo["repo"])
    assert "# claudeMd" in claude.stdout
    cursor = run(demo, "render", demo["deep_file"], "--agent", "cursor", ok=1)
    assert cursor.stdout == "" and "not known" in cursor.stderr


def test_unknown_agent_is_a_usage_error(demo: dict[str, str]) -> None:
    done = run(demo, "chain", demo["deep_file"], "--agent", "roo", ok=2)
    assert "unknown agent 'roo'" in done.stderr  # Roo Code shut down: not an agent here
