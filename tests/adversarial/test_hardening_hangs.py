"""Hangs (issue 19, defect 3): FIFO and device imports, catastrophic scope globs and a
Gemini import diamond, through the CLI and the real server over stdio.

Every child runs under a timeout and an address-space limit; each answer must come within
:data:`ANSWER_S`. The globs: ``**/a*a*…*b`` (30 stars) against a 60-character name,
``{a,a}`` x 28, 5,000 ``*`` and 5,000 nested braces, as Claude ``paths:``, Copilot
``applyTo:`` and Cursor ``globs:``. The diamond: six files under 2 KB, each importing the
next sixteen times, under ``GEMINI.md`` and ``CLAUDE.md``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from adversarial import rawlsp
from adversarial.hostile import Tree, make, make_tree, run_limited

ANSWER_S = 5.0
TIMEOUT_S = 60
ADDRESS_LIMIT = 1 << 30
PEAK_LIMIT_KIB = 200 * 1024
LONG_NAME = "a" * 60
GLOBS = {
    "stars": "**/" + "a*" * 30 + "b",
    "braces": "{a,a}" * 28,
    "many-stars": "*" * 5000,
    "nested-braces": "{" * 5000 + "a" + "}" * 5000,
}
#: What a FIFO or device import is called in the views (safeio's words).
DEVICE_KINDS = ("fifo", "fifo-link", "dev-zero", "proc-self-mem")

def timed(tree: Tree, *args: str) -> tuple[subprocess.CompletedProcess[bytes], float, int]:
    """``rulelens ARGS`` under the limits: (result, seconds, peak RSS in KiB from VmHWM)."""
    done, peak, seconds = run_limited(tree, args, tree.base, ADDRESS_LIMIT, TIMEOUT_S)
    return done, seconds, peak


def _server_command() -> list[str]:
    return [sys.executable, "-c",
            "import resource, runpy, sys\n"
            f"resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_LIMIT}, {ADDRESS_LIMIT}))\n"
            "sys.argv = ['rulelens', 'serve', '--stdio']\n"
            "runpy.run_module('rulelens', run_name='__main__', alter_sys=True)\n"]


def _tree(base: Path) -> Tree:
    tree = make_tree(base)
    tree.env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
    return tree


# ------------------------------------------------------------------ FIFO and devices
def fifo_tree(base: Path) -> Tree:
    """Every agent's instruction file imports a FIFO, a link to one, ``/dev/zero`` and
    ``/proc/self/mem`` (all inside the repository)."""
    tree = _tree(base)
    body = "# Rules\n\n" + "".join(f"@docs/{k}.md\n" for k in DEVICE_KINDS)
    for kind in DEVICE_KINDS:
        make(tree.repo / "docs" / f"{kind}.md", kind)
    for name in ("CLAUDE.md", "GEMINI.md", "AGENTS.md"):
        (tree.repo / name).write_text(body)
    (tree.repo / "app.py").write_text("X = 1\n")
    return tree


@pytest.mark.parametrize("args", [
    ("lint", "{repo}"),
    ("lint", "--format", "json", "{repo}"),
    ("chain", "{repo}/app.py", "--agent", "all", "--cwd", "{repo}", "--json"),
    ("chain", "{repo}/app.py", "--agent", "claude", "--cwd", "{repo}", "--json"),
    ("chain", "{repo}/app.py", "--agent", "gemini", "--cwd", "{repo}", "--json"),
], ids=["lint", "lint-json", "chain-all", "chain-claude", "chain-gemini"])
def test_fifo_and_device_imports_answer_at_once(tmp_path: Path, args: tuple[str, ...]) -> None:
    tree = fifo_tree(tmp_path)
    done, seconds, _peak = timed(tree, *(a.format(repo=tree.repo) for a in args))
    assert done.returncode in (0, 1), done.stderr.decode()
    assert seconds < ANSWER_S, seconds


def test_fifo_imports_are_named_not_read(tmp_path: Path) -> None:
    tree = fifo_tree(tmp_path)
    done, _s, _p = timed(tree, "chain", str(tree.repo / "app.py"), "--agent", "claude,gemini",
                         "--cwd", str(tree.repo), "--json")
    views = {v["agent"]: v for v in json.loads(done.stdout)["agents"]}
    claude = {s["path"]: s for s in views["claude"]["skipped"]}
    fifo = str(tree.repo / "docs" / "fifo.md")
    assert claude[fifo]["reason"] == "import-missing"
    assert "not a regular file" in claude[fifo]["detail"]
    gemini = next(f["content"] for f in views["gemini"]["files"] if f["path"].endswith("GEMINI.md"))
    assert "<!-- Import failed: docs/fifo.md - it is a FIFO, not a regular file -->" in gemini
    # Links to /dev/zero and /proc/self/mem lead outside the workspace: never opened.
    for kind in ("dev-zero", "proc-self-mem"):
        assert f"not opened: docs/{kind}.md - outside the workspace, needs approval" in gemini


# ------------------------------------------------------------------ scope globs
def glob_tree(base: Path) -> Tree:
    """Claude, Copilot and Cursor rules scoped by each hostile glob, and a file named with
    sixty ``a``."""
    tree = _tree(base)
    claude = tree.repo / ".claude" / "rules"
    copilot = tree.repo / ".github" / "instructions"
    cursor = tree.repo / ".cursor" / "rules"
    for d in (claude, copilot, cursor):
        d.mkdir(parents=True)
    for name, glob in GLOBS.items():
        value = json.dumps(glob)
        (claude / f"{name}.md").write_text(f"---\npaths:\n  - {value}\n---\nRule {name}.\n")
        (copilot / f"{name}.instructions.md").write_text(
            f"---\napplyTo: {value}\n---\nRule {name}.\n")
        (cursor / f"{name}.mdc").write_text(f"---\nglobs: {value}\n---\nRule {name}.\n")
    (tree.repo / "CLAUDE.md").write_text("# Rules\n")
    (tree.repo / LONG_NAME).write_text("x\n")
    (tree.repo / (LONG_NAME[:-1] + "b")).write_text("x\n")
    return tree


@pytest.mark.parametrize("agent", ["claude", "copilot", "cursor", "all"])
def test_hostile_globs_chain_answers_at_once(tmp_path: Path, agent: str) -> None:
    tree = glob_tree(tmp_path)
    for name in (LONG_NAME, LONG_NAME[:-1] + "b"):
        done, seconds, _p = timed(tree, "chain", str(tree.repo / name), "--agent", agent,
                                  "--cwd", str(tree.repo), "--json")
        assert done.returncode == 0, done.stderr.decode()
        assert seconds < ANSWER_S, (name, seconds)


def test_hostile_globs_are_matched_or_reported(tmp_path: Path) -> None:
    tree = glob_tree(tmp_path)
    done, _s, _p = timed(tree, "chain", str(tree.repo / (LONG_NAME[:-1] + "b")), "--agent",
                         "claude", "--cwd", str(tree.repo), "--json")
    view = json.loads(done.stdout)
    loaded = {Path(f["path"]).name for f in view["files"]}
    # `**/a*a*…*b` matches aaa…ab (linear, not skipped); the bounded ones are reported.
    assert "stars.md" in loaded
    notes = "\n".join(view["notes"])
    assert "many-stars.md: paths: a glob of 5,000 characters (over 4,096) is not matched" \
        in notes
    # 5,000 nested braces: refused by the frontmatter bound or the glob bound, either way
    # one named line.
    assert re.search(r"nested-braces\.md: (paths: a glob of 10,001 characters|frontmatter"
                     r" refused: nested deeper)", notes), notes
    lint, seconds, _p = timed(tree, "lint", "--format", "json", str(tree.repo))
    assert seconds < ANSWER_S
    messages = [f["message"] for f in json.loads(lint.stdout)]
    assert any("brace expansion gives more than 1000 patterns" in m for m in messages)
    assert any("5,000 characters, over the 4,096 RuleLens matches" in m for m in messages)


def test_hostile_globs_lint_answers_at_once(tmp_path: Path) -> None:
    tree = glob_tree(tmp_path)
    done, seconds, _p = timed(tree, "lint", str(tree.repo))
    assert done.returncode in (0, 1), done.stderr.decode()
    assert seconds < ANSWER_S, seconds


# ------------------------------------------------------------------ the import diamond
def diamond_tree(base: Path) -> Tree:
    """``d0.md`` … ``d5.md`` (each under 2 KB) each import the next sixteen times;
    ``GEMINI.md`` and ``CLAUDE.md`` import ``d0.md`` sixteen times."""
    tree = _tree(base)
    pad = "Some rule text. " * 90
    for i in range(6):
        imports = "".join(f"@./d{i + 1}.md\n" for _ in range(16)) if i < 5 else ""
        text = f"# level {i}\n\n{pad}\n\n{imports}"
        assert len(text.encode()) < 2048
        (tree.repo / f"d{i}.md").write_text(text)
    top = "# Top\n\n" + "".join("@./d0.md\n" for _ in range(16))
    (tree.repo / "GEMINI.md").write_text(top)
    (tree.repo / "CLAUDE.md").write_text(top)
    (tree.repo / "app.py").write_text("X = 1\n")
    return tree


def test_gemini_diamond_stops_and_says_so(tmp_path: Path) -> None:
    tree = diamond_tree(tmp_path)
    done, seconds, peak = timed(tree, "chain", str(tree.repo / "app.py"), "--agent", "gemini",
                                "--cwd", str(tree.repo), "--json")
    assert done.returncode == 0, done.stderr.decode()
    assert seconds < ANSWER_S, seconds
    assert 0 < peak < PEAK_LIMIT_KIB, peak
    view = json.loads(done.stdout)
    assert any(n.startswith("import expansion stopped: more than 1,000 imports")
               for n in view["notes"]), view["notes"]
    assert len(view["imports"]) <= 1000


@pytest.mark.parametrize("args", [
    ("lint", "{repo}"),
    ("chain", "{repo}/app.py", "--agent", "all", "--cwd", "{repo}", "--json"),
    ("render", "{repo}/app.py", "--agent", "gemini", "--cwd", "{repo}"),
], ids=["lint", "chain-all", "render-gemini"])
def test_diamond_answers_at_once_with_bounded_memory(tmp_path: Path,
                                                      args: tuple[str, ...]) -> None:
    tree = diamond_tree(tmp_path)
    done, seconds, peak = timed(tree, *(a.format(repo=tree.repo) for a in args))
    assert done.returncode in (0, 1), done.stderr.decode()
    assert seconds < ANSWER_S, seconds
    assert 0 < peak < PEAK_LIMIT_KIB, peak


# ------------------------------------------------------------------ the real server
def _ask(server: rawlsp.RawServer, method: str, params: Any) -> tuple[Any, float]:
    start = time.monotonic()
    answer = server.call(method, params, timeout=TIMEOUT_S)
    seconds = time.monotonic() - start
    assert "error" not in answer, answer
    return answer["result"], seconds


@pytest.mark.parametrize("build", ["globs", "diamond", "fifo"])
def test_server_answers_hostile_trees_at_once(tmp_path: Path, build: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    tree = {"globs": glob_tree, "diamond": diamond_tree, "fifo": fifo_tree}[build](tmp_path)
    target = tree.repo / (LONG_NAME if build == "globs" else "app.py")
    monkeypatch.setattr(rawlsp, "SERVER", _server_command())
    stderr = tmp_path / "stderr.log"
    with stderr.open("wb") as err, rawlsp.raw_server(tree.env, stderr=err) as server:
        server.initialize(tree.repo, {"agents": "all"})
        uri = server.open(target)
        at = {"textDocument": {"uri": uri}}
        lens, s1 = _ask(server, "textDocument/codeLens", at)
        hover, s2 = _ask(server, "textDocument/hover",
                         {**at, "position": {"line": 0, "character": 0}})
        views, s3 = _ask(server, "rulelens/agentsForFile", {"uri": uri})
        for seconds in (s1, s2, s3):
            assert seconds < ANSWER_S, (s1, s2, s3)
        assert lens and hover and views
        if build == "diamond":
            gemini = next(v for v in views["agents"] if v["agent"] == "gemini")
            assert any(re.match(r"import expansion stopped: ", n) for n in gemini["notes"])
        assert server.shutdown_and_exit() == 0
    assert "Traceback" not in stderr.read_text(), stderr.read_text()
