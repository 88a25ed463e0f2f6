"""Every registered check fires on its fixture and stays quiet on the clean counterpart."""

from __future__ import annotations

import os

import pytest
from cases import CASES, Case
from lintrepo import Repo, codes, problems

from rulelens.lint.engine import ALL_CODES
from rulelens.lint.registry import BY_CODE, CHECKS


def _build(repo: Repo, case: Case, files: dict[str, str | bytes], target: str,
           firing: bool) -> None:
    repo.extra_env.update(case.env if firing else {})
    repo.files(files)
    if firing:
        for rel in case.dirs:
            os.makedirs(repo.path(rel), exist_ok=True)
        for rel, dest in case.symlinks.items():
            os.makedirs(os.path.dirname(repo.path(rel)), exist_ok=True)
            os.symlink(dest, repo.path(rel))


@pytest.mark.parametrize("case", CASES, ids=[c.code for c in CASES])
def test_check_fires(repo: Repo, case: Case) -> None:
    _build(repo, case, case.files, case.target, True)
    found = [f for f in repo.lint(case.target, thresholds=case.thresholds) if f.code == case.code]
    assert found, f"{case.code} did not fire; got {codes(repo.lint(case.target))}"
    f = found[0]
    assert f.severity == BY_CODE[case.code].severity
    assert case.says in f.message, f.message
    assert f.path == repo.path(case.target)
    assert f.range.start <= f.range.end


@pytest.mark.parametrize("case", CASES, ids=[c.code for c in CASES])
def test_check_quiet_on_clean_counterpart(repo: Repo, case: Case) -> None:
    _build(repo, case, case.clean, case.clean_target, False)
    found = repo.lint(case.clean_target, thresholds=case.thresholds)
    assert case.code not in codes(found)
    assert problems(found) == [], [(f.code, f.message) for f in problems(found)]


def test_every_registered_check_has_a_fixture_and_a_module() -> None:
    registered = {c.code for c in CHECKS}
    assert {c.code for c in CASES} == registered
    assert set(ALL_CODES) == registered
    assert len(ALL_CODES) == len(set(ALL_CODES))


def test_fixable_flag_matches_the_findings(repo: Repo) -> None:
    """A check marked fixable offers a fix on its fixture; one that is not, offers none."""
    for case in CASES:
        sub = Repo(os.path.join(repo.root, case.code.lower()), repo.home)
        os.makedirs(sub.root)
        from lintrepo import git

        git(sub.root, "init", "-q")
        _build(sub, case, case.files, case.target, True)
        found = [f for f in sub.lint(case.target, thresholds=case.thresholds)
                 if f.code == case.code]
        assert found
        has_fix = any(f.fixes for f in found)
        assert has_fix == BY_CODE[case.code].fixable, case.code


def test_registry_entries_are_complete() -> None:
    for c in CHECKS:
        assert c.code.startswith("RL") and len(c.code) == 5
        assert c.title and c.rationale and c.sources, c.code
        assert c.severity in ("error", "warning", "info", "hint")
    assert len({c.name for c in CHECKS}) == len(CHECKS)
