"""Lint for Windsurf rules and Kiro steering, from their format rows (agents/formats.py):
unknown keys, wrong types, globs matching nothing, and a rule that can never fire."""

from __future__ import annotations

import os

import pytest
from lintrepo import Repo, codes, problems


def test_kiro_clean_steering_files(repo: Repo) -> None:
    repo.files({"src/api/users.ts": "", ".kiro/steering/api.md":
                '---\ninclusion: fileMatch\nfileMatchPattern: ["src/api/**/*.ts"]\n---\nAPI\n',
                ".kiro/steering/db.md":
                "---\ninclusion: auto\nname: db\ndescription: Database work\n---\nDB\n",
                ".kiro/steering/tech.md": "# Tech\n\nNo front matter: always included.\n"})
    for rel in (".kiro/steering/api.md", ".kiro/steering/db.md", ".kiro/steering/tech.md"):
        found = repo.lint(rel)
        assert problems(found) == [], (rel, [(f.code, f.message) for f in found])


def test_kiro_unknown_key_wrong_type_and_dead_pattern(repo: Repo) -> None:
    """KI-F2 keys: ``globs`` is another tool's key (RL106), ``when`` unknown (RL107); a
    mapping pattern is the wrong type (RL105); a pattern matching no file (RL114)."""
    repo.files({"src/a.py": "", ".kiro/steering/a.md":
                '---\ninclusion: fileMatch\nglobs: "src/**"\nwhen: always\n---\nA\n',
                ".kiro/steering/b.md": "---\ninclusion: fileMatch\nfileMatchPattern: {a: 1}\n---\n",
                ".kiro/steering/c.md":
                '---\ninclusion: fileMatch\nfileMatchPattern: "lib/**/*.rs"\n---\nC\n'})
    a = codes(repo.lint(".kiro/steering/a.md"))
    assert {"RL106", "RL107", "RL121"} <= set(a)
    assert "RL105" in codes(repo.lint(".kiro/steering/b.md"))
    (dead,) = [f for f in repo.lint(".kiro/steering/c.md") if f.code == "RL114"]
    assert "matches no file" in dead.message


def test_kiro_inclusion_typo_has_a_safe_fix(repo: Repo) -> None:
    repo.write(".kiro/steering/a.md", "---\ninclusion: filematch\nfileMatchPattern: '*'\n---\n")
    (f,) = [f for f in repo.lint(".kiro/steering/a.md") if f.code == "RL120"]
    assert f.safe_fix is not None and "fileMatch" in f.safe_fix.title


def test_kiro_global_filematch_can_never_fire(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """KI-F3 (observed, kirodotdev/Kiro#9176): fileMatch in ``~/.kiro/steering`` never
    triggers; the same file in a workspace is fine."""
    monkeypatch.setenv("HOME", repo.home)
    text = '---\ninclusion: fileMatch\nfileMatchPattern: "**/*.py"\n---\nPy\n'
    path = os.path.join(repo.home, ".kiro", "steering", "py.md")
    repo.write(path, text)
    (f,) = [f for f in repo.lint(path) if f.code == "RL121"]
    assert "global steering folder" in f.message and "Kiro#9176" in f.message
    repo.files({"src/a.py": "", ".kiro/steering/py.md": text})
    assert "RL121" not in codes(repo.lint(".kiro/steering/py.md"))


def test_windsurf_glob_trigger_without_globs_and_dead_globs(repo: Repo) -> None:
    repo.files({"src/a.py": "", ".windsurf/rules/a.md": "---\ntrigger: glob\n---\nA\n",
                ".windsurf/rules/b.md": '---\ntrigger: glob\nglobs: "lib/*.rs"\n---\nB\n',
                ".windsurf/rules/c.md": '---\ntrigger: glob\nglobs: "src/*.py"\n---\nC\n'})
    assert "RL121" in codes(repo.lint(".windsurf/rules/a.md"))
    assert "RL114" in codes(repo.lint(".windsurf/rules/b.md"))
    assert problems(repo.lint(".windsurf/rules/c.md")) == []


def test_windsurf_trigger_type(repo: Repo) -> None:
    repo.write(".windsurf/rules/a.md", "---\ntrigger: [glob]\n---\nA\n")
    assert "RL105" in codes(repo.lint(".windsurf/rules/a.md"))
