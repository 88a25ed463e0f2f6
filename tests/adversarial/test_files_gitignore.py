"""Pathological ``.gitignore`` files: catastrophic patterns against long names, 100,000
lines, a FIFO, 5 MB. Matching stays linear (the CLI answers under a timeout) with the
agent's exact verdicts, and what RuleLens cannot apply in full is reported
(``ignore-unchecked``), never a hang."""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from adversarial import hostile
from adversarial.hostile import Tree, make_tree
from rulelens.agents.linearre import LinearPattern
from rulelens.rules.gitignore import _PLAIN, MAX_PATTERNS, GitIgnore, _compile, _translate

#: Generous for a linear matcher; the backtracking one needed hours for these inputs.
FAST_S = 30


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return make_tree(tmp_path)


def test_catastrophic_patterns_against_long_names(tree: Tree) -> None:
    long_a = "a" * 200 + ".md"
    (tree.rules(long_a)).write_text("never loads\n")
    (tree.rules("c" + "a" * 150 + ".md")).write_text("loads\n")
    lines = [hostile.catastrophic_pattern(30) for _ in range(50)]   # never match: no `b`
    lines.append("a*" * 25 + ".md")                                   # matches long_a only
    lines += [hostile.catastrophic_pattern(stars) for stars in range(3, 40)]
    (tree.repo / ".gitignore").write_text("\n".join(lines) + "\n")
    done = tree.run("chain", "--json", str(tree.repo), timeout=FAST_S)
    assert done.returncode == 0, done.stderr.decode()
    chain = tree.chain()
    assert [os.path.basename(f["path"]) for f in chain["files"]] == ["c" + "a" * 150 + ".md"]
    reason, detail = tree.reasons(chain)[f"repo/.grok/rules/{long_a}"]
    assert reason == "gitignored" and ".gitignore:51" in detail


def test_a_hundred_thousand_lines_are_bounded_and_reported(tree: Tree) -> None:
    (tree.rules("kept.md")).write_text("kept\n")
    (tree.rules("early.md")).write_text("ignored by line 3\n")
    lines = ["*.tmp", "build/", "early.md"]
    lines += [f"{hostile.catastrophic_pattern(3 + i % 20)}{i}" if i % 2 else f"file{i}.txt"
              for i in range(100_000)]
    lines.append("kept.md")                        # past the bound: RuleLens cannot apply it
    (tree.repo / ".gitignore").write_text("\n".join(lines) + "\n")
    done = tree.run("chain", "--json", str(tree.repo), timeout=FAST_S)
    assert done.returncode == 0, done.stderr.decode()
    chain = tree.chain()
    reasons = tree.reasons(chain)
    assert reasons["repo/.grok/rules/early.md"][0] == "gitignored"
    unchecked = [s["detail"] for s in chain["skipped"] if s["reason"] == "ignore-unchecked"
                 and s["path"] == str(tree.repo / ".gitignore")]
    assert len(unchecked) == 2, unchecked
    assert f"more than {MAX_PATTERNS} patterns" in unchecked[0]
    assert "more than 1000 complex patterns" in unchecked[1]


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "dev-urandom"])
def test_gitignore_that_is_not_a_file(tree: Tree, kind: str) -> None:
    (tree.repo / "AGENTS.md").write_text("rules\n")
    hostile.make(tree.repo / ".gitignore", kind)
    chain = tree.chain()
    assert [os.path.basename(f["path"]) for f in chain["files"]] == ["AGENTS.md"]
    reason, detail = tree.reasons(chain)["repo/.gitignore"]
    assert reason == "ignore-unchecked" and hostile.KINDS[kind] in detail


def test_huge_gitignore_is_read_up_to_the_bound(tree: Tree) -> None:
    (tree.rules("x.md")).write_text("x\n")
    (tree.repo / ".gitignore").write_text("x.md\n" + "#" * (5 * 1024 * 1024) + "\n")
    chain = tree.chain()
    reasons = tree.reasons(chain)
    assert reasons["repo/.grok/rules/x.md"][0] == "gitignored"
    assert reasons["repo/.gitignore"][0] == "ignore-unchecked"
    assert "larger than" in reasons["repo/.gitignore"][1]


# ------------------------------------------- the same verdicts as before, always
def _reference(lines: list[str], rel: str) -> int | None:
    """The 1-based line deciding ``rel`` with pathspec's regexes run by :mod:`re` (the
    matcher RuleLens had before), or ``None``; negations decide "not ignored" (-line)."""
    rules: list[tuple[int, bool, re.Pattern[str], bool]] = []
    for number, line in enumerate(lines, start=1):
        if line.startswith("#"):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pat = GitIgnoreSpecPattern(line)
        except Exception:
            continue
        if pat.include is None or pat.regex is None:
            continue
        rules.append((number, bool(pat.include), pat.regex, "ps_d" in pat.regex.pattern))
    probe, is_dir = rel, False
    while probe:
        text = probe + "/" if is_dir else probe
        for number, include, regex, exact in reversed(rules):
            hit = regex.fullmatch(text) if exact else regex.match(text)
            if hit is not None:
                return number if include else -number
        probe, is_dir = probe.rpartition("/")[0], True
    return None


_PIECE = st.sampled_from(["a", "b", "*", "**", "?", "[ab]", "[!a]", ".md", "/", "!", "\\*",
                          "#", " ", "\\ ", "x"])
#: A path component as the file system lists it (never ``.`` or ``..``).
_NAME = st.text(alphabet="ab.x*", min_size=1, max_size=12).filter(lambda n: n not in (".", ".."))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(patterns=st.lists(st.lists(_PIECE, min_size=1, max_size=12).map("".join),
                         min_size=1, max_size=8),
       paths=st.lists(st.lists(_NAME, min_size=1, max_size=4).map("/".join),
                      min_size=1, max_size=6))
def test_verdicts_equal_the_backtracking_matcher(tmp_path_factory: pytest.TempPathFactory,
                                                 patterns: list[str], paths: list[str]) -> None:
    """Literal lookups, ``re`` and the linear matcher together decide every path exactly
    as pathspec's regexes under ``re`` do (patterns with many ``*`` included)."""
    root = tmp_path_factory.mktemp("ig")
    (root / ".gitignore").write_text("\n".join(patterns) + "\n")
    ignore = GitIgnore.build(str(root), str(root / "nohome"), {})
    for rel in paths:
        expected = _reference(patterns, rel)
        got = ignore.match(os.path.join(str(root), rel))
        if expected is None or expected < 0:
            assert got is None, (patterns, rel, got)
        else:
            assert got is not None and got.line == expected, (patterns, rel, got, expected)


@settings(max_examples=500, deadline=None)
@given(pattern=st.lists(_PIECE, min_size=1, max_size=16).map("".join),
       text=st.text(alphabet="ab/.mdx \n", max_size=16))
def test_linear_matcher_equals_re(pattern: str, text: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            regex, include = GitIgnoreSpecPattern.pattern_to_regex(pattern)
        except Exception:
            return
        if include is None or regex is None:
            return
        compiled = re.compile(regex)
        linear = LinearPattern(regex)
    assert linear.match(text) == (compiled.match(text) is not None)
    assert linear.fullmatch(text) == (compiled.fullmatch(text) is not None)


_SEGMENT = st.text(alphabet="azAZ09._-", min_size=1, max_size=6)


@settings(max_examples=1000, deadline=None)
@given(negated=st.booleans(), lead=st.booleans(), trail=st.booleans(),
       segments=st.lists(_SEGMENT, min_size=1, max_size=4))
def test_plain_lines_translate_as_pathspec_does(negated: bool, lead: bool, trail: bool,
                                                segments: list[str]) -> None:
    """The fast path for plain names and paths gives pathspec's exact translation."""
    line = ("!" if negated else "") + ("/" if lead else "") + "/".join(segments) + (
        "/" if trail else "")
    assert _PLAIN.match(line) is not None
    _compile.cache_clear()
    assert _compile(line) == _translate(line)
