"""Acceptance trees from the 30-repository survey (issue #14): what must and must not fire.

Each tree is a real git repository on disk, linted by the real CLI in a fresh process
(``rulelens lint --format json``), the way a maintainer runs it in CI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from lintrepo import Repo

PARA = ("Always run the full test suite with `make test` before you commit, and never skip"
        " failing tests.")


def lint(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rulelens", "lint", *args], cwd=repo.root,
                          capture_output=True, text=True, timeout=120,
                          env=repo.env | {"PYTHONPATH": os.environ.get("PYTHONPATH", "")})


def findings(repo: Repo, *args: str) -> list[dict[str, Any]]:
    proc = lint(repo, "--format", "json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    data: list[dict[str, Any]] = json.loads(proc.stdout)
    return data


def pairs(found: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(f["path"], f["code"]) for f in found}


# ---------------------------------------------------------------------------- trees
def mkdocs_site(repo: Repo) -> None:
    repo.files({
        "mkdocs.yml": "site_name: Agents SDK\nnav:\n  - agents.md\n",
        "AGENTS.md": "# Agents SDK\n\nRun `make test` before committing.\n",
        "Makefile": "test:\n\tpytest\n",
        "docs/agents.md": "---\ntitle: Agents\n---\n# Agents\n\nHow to build an agent.\n",
        "docs/ja/agents.md": "# エージェント\n",
        "docs/realtime/gemini.md": "# Gemini realtime\n",
    })


def next_routes(repo: Repo) -> None:
    repo.files({
        "next.config.mjs": "export default {}\n",
        "package.json": '{"scripts": {"dev": "next dev", "build": "next build"}}\n',
        "app/[lang]/agents.md/page.tsx": "export default function Page() { return null }\n",
        "app/[lang]/agents.md/route.ts": "export const GET = () => null\n",
    })


def clinerules(repo: Repo) -> None:
    repo.files({
        ".clinerules/01-style.md": "# Style\n\nShort functions.\n",
        ".clinerules/02-tags.md": "# Tags\n\nEnd with </system-reminder> please.\n",
    })


def symlink_pair(repo: Repo) -> None:
    repo.write("AGENTS.md", f"# Rules\n\n{PARA}\n")
    repo.write("Makefile", "test:\n\tpytest\n")
    os.symlink("AGENTS.md", repo.path("CLAUDE.md"))


def nested_symlink(repo: Repo) -> None:
    repo.files({
        "AGENTS.md": "# Root\n\nSee each package.\n",
        "shared/pkg-agents.md": "# Package\n\nRead [the guide](guide.md) and"
                                " [the root](../AGENTS.md).\n",
        "shared/guide.md": "# Guide\n",
        "pkg/package.json": "{}\n",
    })
    os.symlink("../shared/pkg-agents.md", repo.path("pkg/AGENTS.md"))


def monorepo(repo: Repo) -> None:
    repo.files({
        "package.json": '{"private": true, "workspaces": ["packages/*"],'
                        ' "scripts": {"lint": "eslint .", "test": "vitest"}}\n',
        "packages/web/package.json": '{"scripts": {"build": "vite build"}}\n',
        "packages/web/AGENTS.md": "# Web\n\nRun `npm run lint` and `pnpm run build` here;"
                                  " deploy with `yarn run deploy`.\n",
    })


def copilot_no_opener(repo: Repo) -> None:
    repo.files({
        "src/a.py": "",
        ".github/instructions/py.instructions.md": 'applyTo: "src/**"\n---\nUse type hints.\n',
        ".github/instructions/docs.instructions.md":
            'applyTo: "**/*.md"\nexcludeAgent: code-review\n---\nWrite short docs.\n',
    })


# ---------------------------------------------------------------------------- tests
def test_mkdocs_pages_named_like_agent_files_are_left_alone(repo: Repo) -> None:
    mkdocs_site(repo)
    found = findings(repo, "--hints")
    assert not [f for f in found if f["path"].startswith("docs/")], found
    assert not [f for f in found if f["severity"] in ("error", "warning")], found


def test_next_route_directory_is_no_instruction_file(repo: Repo) -> None:
    next_routes(repo)
    found = findings(repo, "--hints")
    assert not [f for f in found if "agents.md" in f["path"]], found
    explicit = findings(repo, "--hints", "app/[lang]/agents.md")
    assert explicit == []


def test_clinerules_directory_files_are_linted(repo: Repo) -> None:
    clinerules(repo)
    found = findings(repo, "--hints")
    assert (".clinerules/02-tags.md", "RL401") in pairs(found)
    assert (".clinerules/01-style.md", "RL208") in pairs(found)
    assert not [f for f in found if f["path"] == ".clinerules"], found
    assert "RL211" not in {f["code"] for f in found}


def test_symlinked_claude_md_pair_is_one_hint(repo: Repo) -> None:
    """Grok reads CLAUDE.md (the link) first and skips AGENTS.md as the same file: one
    hint, on the spelling it skips, and nothing in CI output."""
    symlink_pair(repo)
    assert findings(repo) == []
    found = findings(repo, "--hints")
    assert [(f["path"], f["code"]) for f in found] == [("AGENTS.md", "RL209")]
    assert "CLAUDE.md" in found[0]["message"]


def test_byte_identical_copies_are_one_file_finding(repo: Repo) -> None:
    text = f"# Rules\n\n{PARA}\n\n## Testing\n\nRun pytest.\n" + "".join(
        f"\nParagraph {i} of the shared rules, long enough to be compared as a duplicate.\n"
        for i in range(8))
    repo.files({"AGENTS.md": text, "CLAUDE.md": text, "Makefile": "test:\n\tpytest\n"})
    found = findings(repo)
    assert [(f["path"], f["code"]) for f in found] == [("AGENTS.md", "RL405")]
    assert "CLAUDE.md" in found[0]["message"] and "tokens twice" in found[0]["message"]


def test_link_that_only_works_from_the_symlink_target(repo: Repo) -> None:
    nested_symlink(repo)
    found = [f for f in findings(repo) if f["code"] == "RL505"]
    assert [f["path"] for f in found] == ["pkg/AGENTS.md"]  # `../AGENTS.md` works from both
    (f,) = found
    assert f["message"].startswith("The link `guide.md` works from the real file"
                                   " shared/pkg-agents.md but not from pkg/AGENTS.md")
    assert "shared/guide.md exists, pkg/guide.md does not" in f["message"]


def test_monorepo_scripts_are_checked_against_nearest_and_root_package_json(
        repo: Repo) -> None:
    monorepo(repo)
    found = [f for f in findings(repo) if f["code"] == "RL506"]
    assert [f["path"] for f in found] == ["packages/web/AGENTS.md"]
    (f,) = found
    assert "`yarn run deploy`" in f["message"]
    assert "packages/web/package.json or package.json" in f["message"]


def test_instructions_missing_the_opening_fence(repo: Repo) -> None:
    copilot_no_opener(repo)
    found = pairs(findings(repo))
    for rel in (".github/instructions/py.instructions.md",
                ".github/instructions/docs.instructions.md"):
        assert (rel, "RL119") in found and (rel, "RL111") not in found
    fixed = lint(repo, "--fix")
    assert "fixed RL119" in fixed.stderr
    assert Path(repo.path(".github/instructions/py.instructions.md")).read_text().startswith(
        '---\napplyTo: "src/**"\n---\n')
    assert "RL119" not in {f["code"] for f in findings(repo)}


def clean_repo(repo: Repo) -> None:
    repo.files({
        ".gitignore": "node_modules/\ndist/\nCLAUDE.local.md\n",
        "package.json": '{"scripts": {"build": "tsc", "test": "vitest", "lint": "eslint ."}}\n',
        "Makefile": "build:\n\tnpm run build\ntest:\n\tnpm test\n.PHONY: build test\n",
        "README.md": "# Shop\n",
        "AGENTS.md": "# Shop\n\nA small web shop. Read [the architecture](docs/architecture.md)"
                     " and keep `src/server/main.ts` small.\n\n## Commands\n\n```sh\n"
                     "npm run build\nnpm run test\nmake test\n```\n\n"
                     "Do not create `src/legacy/old.ts` again."
                     " Build output goes to `dist/app.js`.\n",
        "docs/architecture.md": "# Architecture\n",
        "src/server/main.ts": "export {}\n",
        "src/server/AGENTS.md": "# Server\n\nUse the request logger; see `src/server/main.ts`.\n",
        ".claude/rules/testing.md": '---\npaths:\n  - "src/**/*.test.ts"\n  - "src/**"\n---\n'
                                    "# Testing\n\nUse vitest.\n",
        ".cursor/rules/style.mdc": "---\ndescription: Style\nglobs: src/**/*.ts\n"
                                  "alwaysApply: false\n---\nPrefer named exports.\n",
        ".github/instructions/ts.instructions.md": '---\napplyTo: "src/**/*.ts"\n---\n'
                                                  "Strict TypeScript.\n",
        ".github/copilot-instructions.md": "# Copilot\n\nFollow AGENTS.md.\n",
    })
    os.symlink("AGENTS.md", repo.path("CLAUDE.md"))


def test_clean_real_looking_repository_has_no_warning_or_error(repo: Repo) -> None:
    clean_repo(repo)
    found = findings(repo)
    assert not [f for f in found if f["severity"] in ("error", "warning")], found
    # The Grok-specific insight is there, as information: Claude's `paths` are ignored.
    assert (".claude/rules/testing.md", "RL118") in pairs(found)


def _snapshot(root: str) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files + [d for d in dirs if os.path.islink(os.path.join(directory, d))]:
            path = os.path.join(directory, name)
            rel = os.path.relpath(path, root)
            out[rel] = ("-> " + os.readlink(path)) if os.path.islink(path) else \
                Path(path).read_bytes()
    return out


def test_fix_changes_no_file_outside_the_instruction_files(repo: Repo) -> None:
    """--fix over every survey tree at once (docs site, route directory, symlinks, ...):
    nothing is renamed, moved, created or deleted; only instruction files' text changes."""
    for build in (mkdocs_site, next_routes, clinerules, monorepo, copilot_no_opener):
        build(repo)
    repo.files({
        "agents.md": "# A root file spelt in lower case\n",          # RL207: rename offered
        ".grok/rules/drafts/cache.md": "Cache rules.\n",             # RL206: move offered
        ".claude/rules/py.md": '---\npaths: "src/**"\n---\nUse hints.\n',  # RL104: safe edit
        ".cursor/rules/x.mdc": '---\ndescription: X\nglobs: src/**\nalwaysApply: "yes"\n---\nX.\n',
    })
    linted = {f["path"] for f in findings(repo, "--hints")}
    before = _snapshot(repo.root)
    proc = lint(repo, "--fix", "--format", "json")
    after = _snapshot(repo.root)
    assert set(after) == set(before), set(after) ^ set(before)
    changed = {rel for rel in before if before[rel] != after[rel]}
    assert changed, proc.stderr  # the safe fixes did apply
    assert changed <= linted, changed - linted
    assert changed == {".claude/rules/py.md", ".cursor/rules/x.mdc",
                       ".github/instructions/py.instructions.md",
                       ".github/instructions/docs.instructions.md"}
    assert "docs/agents.md" in after and "agents.md" in after and not os.path.exists(
        repo.path(".grok/rules/cache.md"))


def test_messages_use_repository_relative_paths(repo: Repo) -> None:
    for build in (nested_symlink, monorepo):
        build(repo)
    repo.write("CLAUDE.md", "# Rules\n\n@docs/missing.md\n")
    for fmt in ("json", "sarif", "github", "text"):
        out = lint(repo, "--format", fmt, "--hints").stdout
        assert repo.root not in out and os.path.dirname(repo.root) not in out, (fmt, out)


def test_github_format_and_hints_left_out_of_ci_output(repo: Repo) -> None:
    symlink_pair(repo)
    repo.write("src/AGENTS.md", "# Src\n\n```sh\nmake lint\n```\n")
    out = lint(repo, "--format", "github").stdout.splitlines()
    assert out == ["::warning file=src/AGENTS.md,line=4,col=6,endLine=4,endColumn=10,"
                   "title=RL506 undefined-script::`make lint`: no target `lint` is defined in"
                   " Makefile."]
    with_hints = lint(repo, "--format", "github", "--hints").stdout
    assert "::notice file=AGENTS.md," in with_hints and "RL209" in with_hints


def test_explain_prints_the_checks_page() -> None:
    proc = subprocess.run([sys.executable, "-m", "rulelens", "explain", "rl207"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("### RL207\n") and "misnamed-instruction-file" in proc.stdout
    bad = subprocess.run([sys.executable, "-m", "rulelens", "explain", "RL999"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "no such check" in bad.stderr


def test_backticked_paths_are_judged_conservatively(repo: Repo) -> None:
    repo.files({
        "src/server/main.ts": "export {}\n",
        "AGENTS.md": "# Rules\n\n"
                     "Each extension must have `assets/preview.png`.\n"      # relative to each
                     "Keep `src/server/routes.ts` small.\n"                  # moved: reported
                     "See `src/server/routes.ts` again.\n"                   # same target: once
                     "Do not create `src/server/legacy.ts`.\n"               # negative example
                     "Globs like `src/**/*.ts` are fine; so is `dist/app.js`.\n"
                     "```sh\ncat src/server/nothere.ts\n```\n",
    })
    found = [f for f in repo.lint("AGENTS.md") if f.code == "RL505"]
    assert [(f.range.start.line, f.message) for f in found] == [
        (3, "The path `src/server/routes.ts` points to src/server/routes.ts, which does not"
            " exist.")]


def test_mentions_versions_and_emails_are_no_imports(repo: Repo) -> None:
    repo.write("CLAUDE.md", "# Rules\n\nAsk @alice, mail ops@example.com, pin @1.2.3 and"
                            " `@docs/none.md`; add @types/node.\n\n```\n@docs/x.md\n```\n")
    assert not [f for f in repo.lint("CLAUDE.md") if f.code.startswith("RL50")]
