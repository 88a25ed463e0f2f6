"""``rulelens.agents.approval``: a path is approved only inside the roots, and deciding
that never touches anything outside them (issue 19, defect 1)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from rulelens.agents import approval as approval_mod
from rulelens.agents.approval import Approval, ImportBudget, start_problem
from rulelens.agents.globmatch import glob_problem, matches


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "docs" / "sub").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("a")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.md").write_text("secret")
    return root


@pytest.fixture
def touched(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every path ``resolve`` lstat-s or readlink-s (the real calls still run)."""
    seen: list[str] = []
    real_lstat, real_readlink = os.lstat, os.readlink

    def lstat(path: str, *a: object, **k: object) -> os.stat_result:
        seen.append(str(path))
        return real_lstat(path)

    def readlink(path: str, *a: object, **k: object) -> str:
        seen.append(str(path))
        return real_readlink(path)

    monkeypatch.setattr(approval_mod.os, "lstat", lstat)
    monkeypatch.setattr(approval_mod.os, "readlink", readlink)
    return seen


def _inside(paths: list[str], root: Path) -> bool:
    """Every probed path lies in the root's real directory."""
    probed = list(paths)  # realpath below probes too (the spy is still on)
    real = os.path.realpath(root)
    return all(p == real or p.startswith(real + "/") for p in probed)


def test_inside_paths_resolve_to_their_real_path(ws: Path, touched: list[str]) -> None:
    (ws / "docs" / "alias.md").symlink_to("a.md")
    real_docs = os.path.realpath(ws / "docs")
    ap = Approval.of([str(ws)])
    touched.clear()  # canonicalising the root itself is not a probe
    found = [ap.resolve(str(ws / "docs" / n)) for n in ("a.md", "missing.md", "alias.md")]
    assert _inside(touched, ws)
    assert found == [f"{real_docs}/a.md", f"{real_docs}/missing.md", f"{real_docs}/a.md"]


@pytest.mark.parametrize("spelled", [
    "/etc/shadow", "{base}/outside/secret.md", "{ws}/../outside/secret.md",
    "{ws}/docs/../../outside/secret.md", "{ws}x/a.md", "relative/a.md", "{ws}/a\x00.md",
])
def test_outside_spellings_are_refused_without_any_access(
        ws: Path, touched: list[str], spelled: str) -> None:
    ap = Approval.of([str(ws)])
    touched.clear()  # canonicalising the root itself is not a probe
    assert ap.resolve(spelled.format(ws=ws, base=ws.parent)) is None
    assert touched == []


@pytest.mark.parametrize("link", [
    "../../outside/secret.md",        # relative escape
    "{base}/outside/secret.md",       # absolute
    "sub/../../../outside/secret.md",  # `..` after a component
    "../../outside/nothing-here.md",  # a target that does not exist
])
def test_links_leaving_the_roots_are_refused_at_the_link(
        ws: Path, touched: list[str], link: str) -> None:
    (ws / "docs" / "out.md").symlink_to(link.format(base=ws.parent))
    ap = Approval.of([str(ws)])
    touched.clear()  # canonicalising the root itself is not a probe
    assert ap.resolve(str(ws / "docs" / "out.md")) is None
    assert _inside(touched, ws), touched


def test_a_link_to_a_link_dir_then_dotdot_follows_the_kernel(ws: Path) -> None:
    """``l -> sub/../../secret`` with ``sub`` a link out of the roots: a lexical ``..``
    would stay inside, the kernel does not; the walk is physical, so it is refused."""
    (ws / "docs" / "sub").rmdir()
    (ws / "docs" / "sub").symlink_to(ws.parent / "outside")
    (ws / "docs" / "l.md").symlink_to("sub/../secret.md")
    assert Approval.of([str(ws)]).resolve(str(ws / "docs" / "l.md")) is None


def test_symlink_loops_end(ws: Path) -> None:
    (ws / "x").symlink_to("y")
    (ws / "y").symlink_to("x")
    assert Approval.of([str(ws)]).resolve(str(ws / "x")) is None


def test_a_root_spelled_through_a_link_is_its_real_directory(ws: Path, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(ws)
    ap = Approval.of([str(alias)])
    assert ap.resolve(str(alias / "docs" / "a.md")) == os.path.realpath(ws / "docs" / "a.md")
    assert ap.resolve(str(alias / ".." / "outside" / "secret.md")) is None


def test_start_problem_names_the_setting_and_never_probes(ws: Path, touched: list[str]) -> None:
    ap = Approval.of([str(ws)])
    touched.clear()  # canonicalising the root itself is not a probe
    start, problem = start_problem("rulelens.agentCwd", "/", ap, str(ws))
    assert start is None and problem is not None
    assert problem.startswith("rulelens.agentCwd: '/' is outside the workspace folders")
    assert start_problem("rulelens.agentCwd", "../..", ap, str(ws))[0] is None
    assert "NUL" in str(start_problem("rulelens.agentCwd", "a\x00b", ap, str(ws))[1])
    assert "NUL" in str(start_problem("cwd", 7, ap, None)[1])
    assert "not an absolute path" in str(start_problem("cwd", "docs", ap, None)[1])
    assert touched == []
    assert start_problem("rulelens.agentCwd", "docs", ap, str(ws)) == (str(ws / "docs"), None)


def test_import_budget_stops_once_and_says_why() -> None:
    budget = ImportBudget(max_imports=3, max_bytes=10)
    assert all(budget.take_import() for _ in range(3))
    assert not budget.take_import()
    assert budget.stopped is not None and budget.stopped.startswith(
        "import expansion stopped: more than 3 imports")
    fresh = ImportBudget(max_imports=3, max_bytes=10)
    assert fresh.take_bytes(10) and not fresh.take_bytes(1)
    assert "more than 10 bytes" in str(fresh.stopped)


@pytest.mark.parametrize(("glob", "name"), [
    ("**/" + "a*" * 30 + "b", "x/" + "a" * 60),
    ("{a,a}" * 28, "a" * 27 + "b"),
    ("*" * 4000 + "b", "a" * 60),
])
def test_scope_globs_are_linear(glob: str, name: str) -> None:
    start = time.monotonic()
    assert not matches(glob, name)
    assert time.monotonic() - start < 1.0


def test_scope_globs_keep_their_meaning() -> None:
    assert matches("**/" + "a*" * 30 + "b", "x/" + "a" * 59 + "b")
    assert matches("{a,b}" * 28, "ab" * 14)
    assert matches("src/**/*.{ts,tsx}", "src/a/b/c.tsx")
    assert not matches("*.py", "src/x.py")
    assert glob_problem("{" * 40 + "a" + "}" * 40) is not None
    assert not matches("{" * 40 + "a" + "}" * 40, "a")
    assert glob_problem("*" * 5000) is not None
