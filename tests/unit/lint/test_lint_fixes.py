"""Each quick fix, applied to real files, leaves a file that re-lints clean."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cases import CASES, Case
from lintrepo import Repo, codes, problems

from rulelens.lint.fixes import FixError, apply_fix, apply_text_edits
from rulelens.lint.model import FileRename, Fix, Range, TextEdit
from rulelens.lint.registry import BY_CODE

FIXABLE = [c for c in CASES if BY_CODE[c.code].fixable]


def _fixes(repo: Repo, case: Case) -> list[Fix]:
    repo.extra_env.update(case.env)
    repo.files(case.files)
    for rel, dest in case.symlinks.items():
        os.symlink(dest, repo.path(rel))
    found = [f for f in repo.lint(case.target, thresholds=case.thresholds) if f.code == case.code]
    assert found
    return [fix for f in found for fix in f.fixes]


def _target_after(repo: Repo, case: Case, fix: Fix) -> str:
    target = repo.path(case.target)
    for edit in fix.edits:
        if isinstance(edit, FileRename) and edit.old == target:
            target = edit.new
    return os.path.relpath(target, repo.root)


@pytest.mark.parametrize("case", FIXABLE, ids=[c.code for c in FIXABLE])
def test_every_fix_of_the_fixture_relints_clean(tmp_path: str, case: Case) -> None:
    from lintrepo import make_repo

    probe = make_repo(os.path.join(str(tmp_path), "probe"))
    n = len(_fixes(probe, case))
    assert n >= 1
    for i in range(n):
        repo = make_repo(os.path.join(str(tmp_path), f"fix{i}"))
        fix = _fixes(repo, case)[i]
        before = {rel: Path(repo.path(rel)).read_bytes() for rel in case.files
                  if os.path.isfile(repo.path(rel))}
        changed = apply_fix(fix)
        assert changed
        target = _target_after(repo, case, fix)
        after = repo.lint(target, thresholds=case.thresholds)
        assert case.code not in codes(after), (fix.title, [(f.code, f.message) for f in after])
        assert problems(after) == [], (fix.title, [(f.code, f.message) for f in problems(after)])
        # Nothing else in the repository was touched except what the fix names.
        named = {os.path.relpath(e.path if isinstance(e, TextEdit) else e.old, repo.root)
                 for e in fix.edits}
        for rel, content in before.items():
            if rel not in named:
                assert Path(repo.path(rel)).read_bytes() == content, rel


def test_paths_string_fix_produces_a_yaml_list(repo: Repo) -> None:
    repo.files({"src/a.py": "", "lib/b.py": "",
                ".claude/rules/py.md": '---\npaths: "src/**, lib/**"\n---\nHints.\n'})
    (f,) = [f for f in repo.lint(".claude/rules/py.md") if f.code == "RL104"]
    assert f.safe_fix is not None
    apply_fix(f.safe_fix)
    text = Path(repo.path(".claude/rules/py.md")).read_text()
    assert text == '---\npaths:\n  - "src/**"\n  - "lib/**"\n---\nHints.\n'


def test_unquoted_paths_scalar_becomes_a_quoted_list(repo: Repo) -> None:
    repo.files({"src/a.py": "", ".claude/rules/py.md": "---\npaths: **/*.py\n---\nHints.\n"})
    (f,) = [f for f in repo.lint(".claude/rules/py.md") if f.code == "RL116"]
    assert f.safe_fix is not None
    apply_fix(f.safe_fix)
    assert Path(repo.path(".claude/rules/py.md")).read_text() == \
        '---\npaths:\n  - "**/*.py"\n---\nHints.\n'
    assert problems(repo.lint(".claude/rules/py.md")) == []


def test_gitignore_fix_is_unsafe_and_only_inserts_a_negation(repo: Repo) -> None:
    repo.files({".gitignore": "*.log\nCLAUDE.local.md\nbuild/\n", "CLAUDE.local.md": "Mine.\n"})
    (f,) = [f for f in repo.lint("CLAUDE.local.md") if f.code == "RL201"]
    assert f.safe_fix is None
    (fix,) = f.fixes
    assert fix.safety == "unsafe"
    (edit,) = fix.edits
    assert isinstance(edit, TextEdit) and edit.path == repo.path(".gitignore")
    assert f.related[0].path == repo.path(".gitignore") and f.related[0].range.start.line == 1
    apply_fix(fix)
    assert Path(repo.path(".gitignore")).read_text() == \
        "*.log\nCLAUDE.local.md\n!/CLAUDE.local.md\nbuild/\n"


def test_no_gitignore_fix_below_an_ignored_directory(repo: Repo) -> None:
    repo.files({".gitignore": "private/\n", "private/CLAUDE.local.md": "Mine.\n"})
    found = [f for f in repo.lint("private/CLAUDE.local.md") if f.code == "RL201"]
    assert found and found[0].fixes == ()


def test_crlf_and_bom_survive_a_fix(repo: Repo) -> None:
    repo.write("src/a.py", "")
    repo.write(".claude/rules/py.md", '\ufeff---\r\npaths: "src/**"\r\n---\r\nHints.\r\n')
    (f,) = [f for f in repo.lint(".claude/rules/py.md") if f.code == "RL104"]
    assert f.safe_fix is not None
    apply_fix(f.safe_fix)
    raw = Path(repo.path(".claude/rules/py.md")).read_bytes()
    assert raw.startswith("\ufeff---\r\n".encode())
    assert raw.endswith(b"---\r\nHints.\r\n")
    assert problems(repo.lint(".claude/rules/py.md")) == []


def test_rename_never_overwrites(repo: Repo) -> None:
    a = repo.write("a.md", "A")
    b = repo.write("b.md", "B")
    with pytest.raises(FixError):
        apply_fix(Fix("x", "safe", (FileRename(a, b),)))
    assert Path(b).read_text() == "B" and Path(a).read_text() == "A"


def test_no_rename_fix_offered_when_target_exists(repo: Repo) -> None:
    repo.files({".grok/rules/drafts/cache.md": "Draft.\n", ".grok/rules/cache.md": "Live.\n"})
    (f,) = [f for f in repo.lint(".grok/rules/drafts/cache.md") if f.code == "RL206"]
    assert f.fixes == ()


def test_overlapping_edits_are_refused() -> None:
    e1 = TextEdit("p", Range.of(0, 0, 0, 5), "x")
    e2 = TextEdit("p", Range.of(0, 3, 0, 7), "y")
    with pytest.raises(FixError):
        apply_text_edits("0123456789", [e1, e2])
    assert apply_text_edits("ab\ncd", [TextEdit("p", Range.of(1, 0, 1, 1), "X"),
                                       TextEdit("p", Range.of(0, 1, 0, 2), "Y")]) == "aY\nXd"
