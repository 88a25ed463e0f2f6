"""Hostile and odd input: findings, never a crash or a hang (YAML parsing is bounded)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from lintrepo import Repo, codes

from rulelens.agents.yamlbound import compose
from rulelens.lint import lint_document
from rulelens.lint.config import DEFAULT


def _fm(body: str) -> str:
    return f"---\n{body}\n---\nBody.\n"


@pytest.mark.parametrize("yaml_text, expect", [
    ("a: " + "[" * 20_000 + "]" * 20_000, "nested deeper"),
    ("a:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 120)), "nested deeper"),
    ("- " * 5000 + "x", "nested deeper"),
    ("a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
     "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
     "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n", "expand"),
    ("k: " + "v" * 70_000, "larger than"),
])
def test_yaml_bombs_are_refused_quickly(yaml_text: str, expect: str) -> None:
    start = time.monotonic()
    doc = compose(yaml_text, max_bytes=64 * 1024, max_depth=50, max_nodes=10_000)
    assert doc.problem is not None and expect in doc.problem.message
    assert doc.problem.kind == "limit"
    assert time.monotonic() - start < 5
    found = lint_document("/r/.claude/rules/x.md", _fm(yaml_text), None, DEFAULT)
    assert "RL103" in codes(found)


def test_depth_guard_holds_even_with_a_large_size_budget() -> None:
    """Without the textual pre-scan libyaml would recurse 100,000 levels deep in C."""
    for text in ("[" * 100_000, "{a: " * 100_000, "- " * 100_000 + "x"):
        doc = compose(text, max_bytes=10**7, max_depth=50, max_nodes=10_000)
        assert doc.problem is not None and "nested deeper" in doc.problem.message


def test_yaml_error_points_at_the_yaml_line_and_column() -> None:
    text = '---\npaths:\n  - "src/**"\nbad: [1, 2\nother: 3\n---\nBody\n'
    (f,) = [f for f in lint_document("/r/.claude/rules/x.md", text, None, DEFAULT)
            if f.code == "RL101"]
    # libyaml reports the flow sequence error where it notices it: line 5 (0-based 4), col 5.
    assert (f.range.start.line, f.range.start.character) == (4, 5)
    tabs = "---\npaths:\n\t- src/**\n---\nBody\n"
    (g,) = [f for f in lint_document("/r/.claude/rules/x.md", tabs, None, DEFAULT)
            if f.code == "RL101"]
    assert (g.range.start.line, g.range.start.character) == (2, 0)
    assert "cannot start any token" in g.message


def test_bom_and_crlf_frontmatter_parse(repo: Repo) -> None:
    repo.write("src/a.py", "")
    repo.write(".claude/rules/py.md", '\ufeff---\r\npaths:\r\n  - "src/**"\r\n---\r\nHints.\r\n')
    found = repo.lint(".claude/rules/py.md")
    assert [f for f in found if f.severity in ("error", "warning")] == []
    repo.write(".claude/rules/bad.md", '\ufeff---\r\npaths: "src/**"\r\n---\r\nHints.\r\n')
    (f,) = [f for f in repo.lint(".claude/rules/bad.md") if f.code == "RL104"]
    # The range never includes the \r of a CRLF line.
    assert f.range.end.character == len('paths: "src/**"')


def test_binary_file(repo: Repo) -> None:
    repo.write("AGENTS.md", bytes(range(256)) * 64)
    found = repo.lint("AGENTS.md")
    assert "RL202" in codes(found)


def test_nul_bytes_in_valid_utf8_frontmatter(repo: Repo) -> None:
    repo.write(".claude/rules/x.md", "---\npaths:\n  - \"a\x00b\"\n---\nBody\n")
    assert "RL101" in codes(repo.lint(".claude/rules/x.md"))


def test_fifty_megabyte_rule_file_via_cli(repo: Repo) -> None:
    """The real CLI on a 50 MB CLAUDE.md: bounded time, size findings, exit 1 (error)."""
    line = "Use the repository's formatter before committing any change to the code.\n"
    big = repo.path("CLAUDE.md")
    with open(big, "w") as fh:
        fh.write("---\n" + "k: v\n" * 10 + "---\n")
        fh.write(line * (50 * 1024 * 1024 // len(line)))
    assert os.path.getsize(big) > 50 * 1024 * 1024 - 100
    proc = subprocess.run([sys.executable, "-m", "rulelens", "lint", "--format", "json", big],
                          capture_output=True, text=True, timeout=120, env=repo.env | {
                              "PYTHONPATH": os.environ.get("PYTHONPATH", "")})
    assert proc.returncode == 1, proc.stderr
    import json

    found = {f["code"] for f in json.loads(proc.stdout)}
    assert {"RL302", "RL307"} <= found
    # Its frontmatter "is injected verbatim" (RL115) exactly when no check says the agent
    # drops the file (RL203: too large to read): checks on one file never contradict.
    assert ("RL115" in found) != ("RL203" in found), found


def test_huge_single_line_and_many_tags_are_capped(repo: Repo) -> None:
    repo.write("AGENTS.md", "<system-reminder>" * 10_000)
    found = repo.lint("AGENTS.md")
    assert len([f for f in found if f.code == "RL401"]) == 20


def test_unclosed_frontmatter_in_large_file_is_bounded() -> None:
    text = "---\n" + "key: value\n" * 500_000
    start = time.monotonic()
    found = lint_document("/r/.claude/rules/x.md", text, None, DEFAULT)
    assert "RL102" in codes(found) or "RL103" in codes(found)
    assert time.monotonic() - start < 30


def test_a_huge_invalid_glob_is_named_short_in_the_message(repo: Repo) -> None:
    """RL113 names a 5,000-character glob by its start and length, not whole (CI logs)."""
    glob = "{" * 40 + "a" * 4_960
    repo.files({".claude/rules/huge.md": f'---\npaths:\n  - "{glob}"\n---\nUse hints.\n'})
    found = [f for f in repo.lint(".claude/rules/huge.md") if f.code == "RL113"]
    assert found, "the huge glob was not reported"
    assert all(len(f.message) < 300 for f in found), [len(f.message) for f in found]
    assert "5,000 characters" in found[0].message
