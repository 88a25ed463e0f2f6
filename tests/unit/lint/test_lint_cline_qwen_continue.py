"""Lint for Cline rules (``.clinerules/**``), Qwen Code rules (``.qwen/rules``) and Continue
rules (``.continue/rules``), from their format rows (agents/formats.py): unknown keys, wrong
types, globs matching nothing — each message in the owning agent's semantics."""

from __future__ import annotations

from lintrepo import Repo, codes, problems

from rulelens.lint.formats import classify, is_instruction_file


def test_formats_are_placed_by_location() -> None:
    """Cline reads every file below .clinerules/ (any depth, .md and .txt here), not its
    workflows/hooks/skills folders; Qwen and Continue rules live in their rules folders."""
    deep = classify("/w/.clinerules/team/a.txt")
    assert deep.kind == "cline-rule" and deep.owner == "/w" and deep.rules_dir == "/w/.clinerules"
    assert classify("/w/.clinerules/workflows/release.md").kind == "other"
    assert not is_instruction_file("/w/.clinerules/hooks/pre.md")
    assert is_instruction_file("/w/.clinerules/team/a.txt")
    assert classify("/w/.qwen/rules/sub/py.md").kind == "qwen-rule"
    assert classify("/w/.continue/rules/ts.md").kind == "continue-rule"
    assert classify("/w/.clinerules").kind == "legacy"


def test_clean_rules_have_no_problems(repo: Repo) -> None:
    repo.files({"src/app.ts": "", "src/m.py": "",
                ".clinerules/ts.md": '---\npaths:\n  - "src/**/*.ts"\n---\nTS\n',
                ".qwen/rules/py.md": '---\npaths: "src/*.py"\ndescription: Python\n---\nPy\n',
                ".continue/rules/ts.md":
                '---\nname: TS\nglobs: "src/**/*.ts"\nalwaysApply: false\n---\nTS\n'})
    for rel in (".clinerules/ts.md", ".qwen/rules/py.md", ".continue/rules/ts.md"):
        found = repo.lint(rel)
        assert problems(found) == [], (rel, [(f.code, f.message) for f in found])


def test_cline_paths_string_empty_and_bad_item(repo: Repo) -> None:
    """CL-F8 in lint: a string is ignored (fail-open, RL104 with a list fix), ``[]`` never
    loads, a non-string item voids the whole condition (RL105)."""
    repo.files({"src/a.ts": "",
                ".clinerules/s.md": '---\npaths: "src/**"\n---\nS\n',
                ".clinerules/e.md": "---\npaths: []\n---\nE\n",
                ".clinerules/b.md": '---\npaths:\n  - "src/**"\n  - 3\n---\nB\n'})
    (s,) = [f for f in repo.lint(".clinerules/s.md") if f.code == "RL104"]
    assert "loads the rule with every task" in s.message and s.safe_fix is not None
    (e,) = [f for f in repo.lint(".clinerules/e.md") if f.code == "RL105"]
    assert "never loads" in e.message
    (b,) = [f for f in repo.lint(".clinerules/b.md") if f.code == "RL105"]
    assert "ignore the whole" in b.message


def test_cline_unknown_key_foreign_key_dead_glob_bad_yaml(repo: Repo) -> None:
    """CL-F7: only ``paths`` means something (RL107 unknown, RL106 Cursor's ``globs``);
    RL114 for a glob matching nothing; invalid YAML (CL-F9) says the file goes in raw."""
    repo.files({"src/a.ts": "",
                ".clinerules/k.md": '---\nglobs: "src/**"\nalwaysApply: true\n---\nK\n',
                ".clinerules/d.md": '---\npaths: ["lib/**/*.rs"]\n---\nD\n',
                ".clinerules/y.md": "---\npaths: [oops\n---\nY\n"})
    assert {"RL106", "RL107"} <= set(codes(repo.lint(".clinerules/k.md")))
    assert "RL114" in codes(repo.lint(".clinerules/d.md"))
    (y,) = [f for f in repo.lint(".clinerules/y.md") if f.code == "RL101"]
    assert "injects the whole file" in y.message


def test_qwen_paths_types_and_dead_glob(repo: Repo) -> None:
    """QW-F8 in lint: ``paths: []`` means a baseline rule; a mapping is the wrong type; a
    glob matching nothing (RL114); ``globs`` is another tool's key (RL106)."""
    repo.files({"src/m.py": "",
                ".qwen/rules/e.md": "---\npaths: []\n---\nE\n",
                ".qwen/rules/m.md": "---\npaths: {a: 1}\n---\nM\n",
                ".qwen/rules/d.md": '---\npaths: "docs/**/*.rst"\n---\nD\n',
                ".qwen/rules/g.md": '---\nglobs: "src/**"\n---\nG\n'})
    (e,) = [f for f in repo.lint(".qwen/rules/e.md") if f.code == "RL105"]
    assert "session start" in e.message
    assert "RL105" in codes(repo.lint(".qwen/rules/m.md"))
    assert "RL114" in codes(repo.lint(".qwen/rules/d.md"))
    assert "RL106" in codes(repo.lint(".qwen/rules/g.md"))


def test_continue_always_apply_type_regex_type_dead_globs(repo: Repo) -> None:
    """CT-F2 in lint: ``alwaysApply: "true"`` is not a boolean (RL108, safe fix); ``regex``
    a mapping (RL105); globs matching nothing (RL114); an unknown key (RL107)."""
    repo.files({"src/a.ts": "",
                ".continue/rules/a.md": '---\nalwaysApply: "true"\n---\nA\n',
                ".continue/rules/r.md": "---\nregex: {x: 1}\n---\nR\n",
                ".continue/rules/d.md": '---\nglobs: ["lib/**/*.rs"]\n---\nD\n',
                ".continue/rules/u.md": "---\napplyTo: x\nwhen: always\n---\nU\n"})
    (a,) = [f for f in repo.lint(".continue/rules/a.md") if f.code == "RL108"]
    assert a.safe_fix is not None and "Continue" in a.message
    assert "RL105" in codes(repo.lint(".continue/rules/r.md"))
    assert "RL114" in codes(repo.lint(".continue/rules/d.md"))
    assert {"RL106", "RL107"} <= set(codes(repo.lint(".continue/rules/u.md")))
