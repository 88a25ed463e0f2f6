"""Issue #23 item 1-2: every command form checked where it runs, in both directions.

Each case is a real git repository on disk (tmp_path) linted by the real engine. ``bad``
must give exactly one RL506 (or RL505 for a path handed to a command) naming ``says``;
``good`` is the same text with the name defined (or the form that must stay silent) and
must give none. The look-alikes at the end must never fire. Many cases are the false
alarms of the 50-repository survey in issue #23, rebuilt as small trees: cline's
``bun run protos`` under a heading naming ``apps/vscode``, pydantic-ai's "make assertions",
vscode-copilot-chat's ``npm run watch:*``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lintrepo import Repo

from rulelens.lint.registry import BY_CODE

ROOT_PKG = '{"private": true, "workspaces": ["apps/*", "packages/*"],' \
           ' "scripts": {"lint": "eslint ."}}\n'
WEB_PKG = '{"name": "@acme/web", "scripts": {"dev": "next dev"}}\n'
WEB_PKG_OK = '{"name": "@acme/web", "scripts": {"dev": "next dev", "protos": "buf"}}\n'


@dataclass
class C:
    id: str
    files: dict[str, str]
    doc: str  # the instruction text (AGENTS.md unless ``target``)
    good_doc: str | None = None
    good_files: dict[str, str] = field(default_factory=dict)
    says: str = ""
    code: str = "RL506"
    target: str = "AGENTS.md"


def _pkg(scripts: dict[str, str], name: str | None = None, deps: str = "") -> str:
    items = ", ".join(f'"{k}": "{v}"' for k, v in scripts.items())
    named = f'"name": "{name}", ' if name else ""
    return "{" + named + f'"scripts": {{{items}}}' + deps + "}\n"


CASES = [
    # ---------------------------------------------------------------- npm family
    C("npm-run", {"package.json": _pkg({"test": "jest"})}, "Run `npm run lint`.\n",
      good_files={"package.json": _pkg({"test": "jest", "lint": "eslint"})},
      says="no script `lint` is defined in package.json"),
    C("npm-workspace-flag", {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG,
                             "packages/ui/package.json": _pkg({"protos": "x"}, "@acme/ui")},
      "```sh\nnpm run protos -w @acme/web\n```\n",
      good_files={"apps/web/package.json": WEB_PKG_OK},
      says="no script `protos` is defined in apps/web/package.json (`@acme/ui` defines it)"),
    C("npm-workspace-eq", {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG},
      "`npm run protos --workspace=apps/web`\n",
      good_files={"apps/web/package.json": WEB_PKG_OK},
      says="apps/web/package.json"),
    C("pnpm-filter", {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG},
      "`pnpm --filter @acme/web run protos`\n",
      good_files={"apps/web/package.json": WEB_PKG_OK}, says="apps/web/package.json"),
    C("pnpm-F-bare", {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG},
      "`pnpm -F @acme/web test:unit`\n",
      good_files={"apps/web/package.json": _pkg({"test:unit": "vitest"}, "@acme/web")},
      says="no script `test:unit`"),
    C("yarn-workspace", {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG},
      "`yarn workspace @acme/web run protos`\n",
      good_files={"apps/web/package.json": WEB_PKG_OK}, says="apps/web/package.json"),
    C("cd-and", {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG,
                 "packages/ui/package.json": _pkg({"protos": "x"}, "@acme/ui")},
      "```sh\ncd apps/web && bun run protos\n```\n",
      good_files={"apps/web/package.json": WEB_PKG_OK}, says="apps/web/package.json"),
    C("bun-run-anywhere", {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG},
      "Build with `bun run protos`.\n",
      good_files={"apps/web/package.json": WEB_PKG_OK},
      says="no script `protos` is defined in package.json nor in the repository's 1 other"),
    C("heading-names-package",
      {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG,
       "apps/vscode/package.json": _pkg({"compile": "tsc"}, "claude-dev")},
      "## VS Code extension (`apps/vscode`)\n\nRun `bun run compile`, then `bun run nothere`.\n",
      good_doc="## VS Code extension (`apps/vscode`)\n\nRun `bun run compile`.\n",
      says="apps/vscode/package.json"),
    C("prose-npm-run", {"package.json": _pkg({"test": "jest"})},
      "Before committing, run npm run lint from the root.\n",
      good_doc="Before committing, run npm run test from the root.\n",
      says="no script `lint`"),
    C("scoped-rule", {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG,
                      "apps/web/src/a.ts": ""},
      '---\napplyTo: "apps/web/**"\n---\nRun `bun run dev` and `bun run missing`.\n',
      good_doc='---\napplyTo: "apps/web/**"\n---\nRun `bun run dev`.\n',
      says="no script `missing` is defined in package.json or apps/web/package.json.",
      target=".github/instructions/web.instructions.md"),
    C("turbo-run", {"package.json": ROOT_PKG, "turbo.json": '{"tasks": {"build": {}}}\n'},
      "`turbo run deploy`\n", good_doc="`pnpm turbo run build lint`\n",
      says="no task `deploy`"),
    C("nx-run", {"package.json": ROOT_PKG, "nx.json": "{}\n",
                 "apps/web/project.json": '{"name": "web", "targets": {"build": {}}}\n'},
      "`nx run mobile:build`\n", good_doc="`nx run web:build`\n",
      says="no project `mobile`"),
    # ---------------------------------------------------------------------- make
    C("make-target", {"Makefile": "test:\n\tpytest\n"}, "```sh\nmake lint\n```\n",
      good_files={"Makefile": "test:\n\tpytest\nlint:\n\truff .\n"},
      says="no target `lint` is defined in Makefile"),
    C("make-include", {"Makefile": "include mk/tools.mk\ntest:\n\tpytest\n",
                       "mk/tools.mk": "fmt:\n\tblack .\n"},
      "`make fmt` then `make docs`\n", good_doc="`make fmt` then `make test`\n",
      says="no target `docs`"),
    C("make-pattern", {"Makefile": "test-%:\n\tpytest -k $*\n"},
      "`make test-unit` and `make bench`\n", good_doc="`make test-unit`\n",
      says="no target `bench`"),
    C("make-C", {"Makefile": "all:\n\ttrue\n", "docs/Makefile": "html:\n\tsphinx\n"},
      "`make -C docs pdf`\n", good_doc="`make -C docs html`\n",
      says="no target `pdf` is defined in docs/Makefile"),
    C("make-directory-eq", {"Makefile": "all:\n\ttrue\npdf:\n\ttrue\n",
                            "docs/Makefile": "html:\n\tsphinx\n"},
      "`make --directory=docs pdf`\n", good_doc="`make --directory=docs --jobs=2 html`\n",
      says="no target `pdf` is defined in docs/Makefile"),
    C("make-f-joined", {"Makefile": "all:\n\ttrue\n", "build.mk": "pkg:\n\ttar\n"},
      "`make -fbuild.mk all`\n", good_doc="`make --file=build.mk pkg`\n",
      says="no target `all` is defined in build.mk"),
    C("make-sub-makefile", {"Makefile": "all:\n\ttrue\n", "docs/Makefile": "html:\n\tsphinx\n"},
      "`make html` and `make nothere`\n", good_doc="`make html`\n",
      says="no target `nothere`"),
    # ---------------------------------------------------------------- other runners
    C("just", {"justfile": "gen-grammar *args='':\n  cargo run\n"},
      "`just gen-rules`\n", good_doc="`just gen-grammar css`\n", says="no recipe `gen-rules`"),
    C("just-import", {"justfile": "import 'just/build.just'\nimport? 'local.just'\nmod docs\n"
                                  "fmt:\n  cargo fmt\n", "just/build.just": "dist:\n  cargo b\n"},
      "`just release`\n", good_doc="`just dist`, `just fmt`, `just docs serve` and"
      " `just docs::serve`\n", says="no recipe `release` is defined in justfile"),
    C("task-includes", {"Taskfile.yml": "version: '3'\nincludes:\n  docs: ./docs\n"
                                        "  api:\n    taskfile: ./api\ntasks:\n  build:\n"
                                        "    cmds: [go build]\n"},
      "`task lint`\n", good_doc="`task build`, `task docs:serve` and `task api`\n",
      says="no task `lint` is defined in Taskfile.yml"),
    C("task", {"Taskfile.yml": "version: '3'\ntasks:\n  build:\n    cmds: [go build]\n"},
      "`task lint`\n", good_doc="`task build`\n", says="no task `lint`"),
    C("composer", {"composer.json": '{"scripts": {"test": "pest"}}\n'},
      "`composer run analyse`\n", good_doc="`composer run test` and `composer install`\n",
      says="no script `analyse`"),
    C("nox", {"noxfile.py": "import nox\n\n@nox.session(python=['3.12'])\ndef tests(s):\n"
                            "    pass\n"},
      "`nox -s lint`\n", good_doc="`nox -s tests-3.12`\n", says="no session `lint`"),
    C("tox", {"tox.ini": "[tox]\nenv_list = py312, lint\n\n[testenv:lint]\ncommands = ruff\n"},
      "`tox -e docs`\n", good_doc="`tox -e lint` and `tox -e py311`\n",
      says="no environment `docs`"),
    C("turbo-through-pnpm", {"package.json": ROOT_PKG,
                             "turbo.json": '{"tasks": {"build": {}}}\n'},
      "```sh\npnpm turbo run deploy\n```\n", good_doc="```sh\npnpm turbo run build\n```\n",
      says="no task `deploy`"),
    # ------------------------------------------- more places a package is named
    C("sentence-names-package",
      {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG,
       "apps/vscode/package.json": _pkg({"compile": "tsc"}, "claude-dev")},
      "In `apps/vscode`, run `bun run compile` and `bun run nothere`.\n",
      good_doc="In `apps/vscode`, run `bun run compile`.\n", says="apps/vscode/package.json"),
    C("previous-line-names-package",
      {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG,
       "apps/vscode/package.json": _pkg({"compile": "tsc"}, "claude-dev")},
      "For the extension (package `claude-dev`):\n\n```sh\nbun run nothere\n```\n",
      good_doc="For the extension (package `claude-dev`):\n\n```sh\nbun run compile\n```\n",
      says="apps/vscode/package.json"),
    C("scoped-rule-globs", {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG,
                            "apps/web/src/a.ts": ""},
      "---\ndescription: web\nglobs: apps/web/**/*.ts\n---\nRun `bun run missing`.\n",
      good_doc="---\ndescription: web\nglobs: apps/web/**/*.ts\n---\nRun `bun run dev`.\n",
      says="apps/web/package.json", target=".cursor/rules/web.mdc"),
    C("scoped-rule-paths", {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG,
                            "apps/web/src/a.ts": ""},
      '---\npaths:\n  - "apps/web/**"\n---\nRun `bun run missing`.\n',
      good_doc='---\npaths:\n  - "apps/web/**"\n---\nRun `bun run dev`.\n',
      says="apps/web/package.json", target=".claude/rules/web.md"),
    C("pnpm-dir", {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG},
      "`pnpm -C apps/web run protos`\n", good_files={"apps/web/package.json": WEB_PKG_OK},
      says="no script `protos` is defined in apps/web/package.json"),
    C("yarn-cwd", {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG},
      "`yarn --cwd apps/web protos:gen`\n",
      good_files={"apps/web/package.json": _pkg({"protos:gen": "buf"}, "@acme/web")},
      says="apps/web/package.json"),
    # ------------------------------------------- bare names, npm shorthands
    C("pnpm-bare-script", {"package.json": _pkg({"test": "jest"})}, "`pnpm test:unit`\n",
      good_files={"package.json": _pkg({"test:unit": "vitest"})},
      says="no script `test:unit` is defined in package.json"),
    C("yarn-bare-script", {"package.json": _pkg({"test": "jest"})},
      "```sh\nyarn build:web\n```\n", good_files={"package.json": _pkg({"build:web": "vite"})},
      says="no script `build:web`"),
    C("bun-bare-script", {"package.json": _pkg({"test": "jest"})}, "`bun db:migrate`\n",
      good_files={"package.json": _pkg({"db:migrate": "prisma migrate"})},
      says="no script `db:migrate`"),
    C("yarn-run-script", {"package.json": _pkg({"test": "jest"})}, "`yarn run typecheck`\n",
      good_files={"package.json": _pkg({"typecheck": "tsc"})}, says="no script `typecheck`"),
    C("npm-test", {"package.json": _pkg({"lint": "eslint"})}, "Then `npm test`.\n",
      good_files={"package.json": _pkg({"test": "jest"})}, says="no script `test`"),
    # Effect-TS/effect's .agents/AGENTS.md: `pnpm --filter effect test --run`, and
    # packages/effect defines no `test` script (pnpm's `test` is `run test`).
    C("pnpm-filter-test", {"package.json": ROOT_PKG.replace("lint", "test"),
                           "packages/effect/package.json": _pkg({"build": "tsc"}, "effect")},
      "# Tests\n\n- From the root, run `pnpm --filter effect test --run`.\n",
      good_files={"packages/effect/package.json": _pkg({"test": "vitest"}, "effect")},
      says="`pnpm --filter effect test`: no script `test` is defined in"
           " packages/effect/package.json (`package.json` defines it)"),
    C("make-f", {"Makefile": "all:\n\ttrue\n", "build.mk": "pkg:\n\ttar\n"},
      "`make -f build.mk dist`\n", good_doc="`make -f build.mk pkg`\n",
      says="no target `dist` is defined in build.mk"),
    C("cd-line-then-command", {"package.json": ROOT_PKG, "apps/web/package.json": WEB_PKG,
                               "packages/ui/package.json": _pkg({"protos": "x"}, "@acme/ui")},
      "```sh\ncd apps/web\nbun run protos\n```\n",
      good_files={"apps/web/package.json": WEB_PKG_OK}, says="apps/web/package.json"),
    C("cd-line-then-make", {"Makefile": "all:\n\ttrue\n", "docs/Makefile": "html:\n\tx\n"},
      "```sh\ncd docs\n$ make pdf\n```\n", good_doc="```sh\ncd docs\n$ make html\n```\n",
      says="no target `pdf` is defined in docs/Makefile"),
    C("make-in-fence-after-cd", {"Makefile": "all:\n\ttrue\n", "docs/Makefile": "html:\n\tx\n"},
      "```sh\ncd docs && make pdf\n```\n", good_doc="```sh\ncd docs && make html\n```\n",
      says="no target `pdf` is defined in docs/Makefile"),
    C("just-in-fence", {"justfile": "fmt:\n  cargo fmt\n"}, "```sh\njust lint\n```\n",
      good_doc="```sh\njust fmt\n```\n", says="no recipe `lint` is defined in justfile"),
    C("composer-bare-script", {"composer.json": '{"scripts": {"test:unit": "pest"}}\n'},
      "`composer test:types`\n", good_doc="`composer test:unit`\n",
      says="no script `test:types`"),
    # --------------------------------------------------------- paths to commands
    C("python-path", {"scripts/seed_db.py": ""}, "```sh\npython scripts/seed.py\n```\n",
      good_doc="```sh\npython scripts/seed_db.py\n```\n", says="`scripts/seed.py` (run with"
      " `python`)", code="RL505"),
    C("uv-run-path", {"tools/gen.py": ""}, "`uv run tools/generate.py`\n",
      good_doc="`uv run tools/gen.py` and `uv run pytest`\n", says="tools/generate.py",
      code="RL505"),
    C("bash-path-from-cd", {"apps/api/bin/start.sh": ""},
      "```sh\ncd apps/api && bash ./bin/run.sh\n```\n",
      good_doc="```sh\ncd apps/api && bash ./bin/start.sh\n```\n",
      says="where the command runs (apps/api/bin/run.sh)", code="RL505"),
    C("node-path", {"bin/cli.js": ""}, "```sh\nnode bin/y.js --help\n```\n",
      good_doc="```sh\nnode bin/cli.js --help\n```\n", says="`bin/y.js` (run with `node`)",
      code="RL505"),
    C("node-no-extension", {"bin/task-master.js": "", "tools/gen/index.ts": ""},
      "```sh\nnode bin/taskmaster list\n```\n",
      good_doc="```sh\nnode bin/task-master list\ntsx tools/gen\n```\n",
      says="`bin/taskmaster` (run with `node`)", code="RL505"),
    C("npx-handed-path", {"scripts/gen.ts": ""}, "`npx tsx scripts/generate.ts`\n",
      good_doc="`npx tsx scripts/gen.ts`\n", says="scripts/generate.ts", code="RL505"),
    C("poetry-run-path", {"scripts/seed_db.py": ""}, "`poetry run python scripts/seed.py`\n",
      good_doc="`poetry run python scripts/seed_db.py` and `poetry run my-cli`\n",
      says="scripts/seed.py", code="RL505"),
    C("script-as-command", {"tools/check.sh": ""}, "```sh\n./tools/lint.sh\n```\n",
      good_doc="```sh\n./tools/check.sh\n```\n", says="tools/lint.sh", code="RL505"),
    # ---------------------------------------------------------- paths in prose
    C("link-from-the-file", {"src/a.ts": "", "docs/guide.md": ""},
      "See [a](src/a.ts).\n", good_doc="See [a](../src/a.ts) and [g](guide.md).\n",
      says="points to docs/src/a.ts, which does not exist", code="RL505",
      target="docs/AGENTS.md"),
    C("rule-dir-workspace-root", {"packages/web/src/a.ts": "", "packages/web/package.json": "{}"},
      "Keep `src/b.ts` small.\n", good_doc="Keep `src/a.ts` small.\n", says="src/b.ts",
      code="RL505", target="packages/web/.claude/rules/web.md"),
    C("rule-dir-own-folder", {".claude/rules/style.md": "Style.\n"},
      "Read [style](styles.md).\n", good_doc="Read [style](style.md).\n",
      says="`styles.md`", code="RL505", target=".claude/rules/api.md"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_missing_name_is_reported(repo: Repo, case: C) -> None:
    repo.files(case.files)
    repo.write(case.target, case.doc)
    found = [f for f in repo.lint(case.target) if f.code == case.code]
    assert len(found) == 1, [f.message for f in found]
    assert case.says in found[0].message, found[0].message
    assert repo.root not in found[0].message
    # The range covers the missing name itself, as the message quotes it.
    r = found[0].range
    line = case.doc.split("\n")[r.start.line]
    assert r.start.line == r.end.line and 0 <= r.start.character < r.end.character <= len(line)
    assert f"`{line[r.start.character:r.end.character]}`" in found[0].message, (
        line[r.start.character:r.end.character], found[0].message)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_defined_name_is_silent(repo: Repo, case: C) -> None:
    repo.files({**case.files, **case.good_files})
    repo.write(case.target, case.good_doc if case.good_doc is not None else case.doc)
    found = [f for f in repo.lint(case.target) if f.code in ("RL505", "RL506")]
    assert found == [], [f.message for f in found]


SILENT = {
    "npx-binary": "`npx prisma generate` and `bunx tsc --noEmit` and `pnpm dlx shadcn add x`",
    "bare-binary": "`pnpm eslint .` and `yarn changeset` and `bun x.ts`",
    "yarn-run-dependency": "`yarn run some-tool`",
    "placeholder": "Scripts: `bun run X`, `npm run <name>`, `pnpm run build:<target>`,"
                   " `make TARGET`, `npm run watch:*`",
    "english-make": "Use the `vcr` fixture to make assertions about requests; make sure it"
                    " passes.",
    "negative": "Do not run `npm run legacy-build`.\n\nWrong:\n\n```sh\nmake old-target\n```",
    "if-present": "`npm run lint --if-present`",
    "unknown-filter": "`pnpm --filter @other/pkg run build`",
    "list-indented-fence": "- Step:\n\n    ```sh\n    npm run test\n    ```",
    "remote": "`docker compose exec app npm run migrate`",
    "uv-binary": "`uv run pytest -x` and `poetry run black .` and `uv run ruff check`",
    "make-eval": "`make generated-target`",
    "cd-unknown": "```sh\ncd $WORKDIR && npm run anything\n```",
    "cd-line-unknown": "```sh\ncd $WORKDIR\nnpm run anything\n```",
    "just-unreadable-import": "`just from-import`",
    "task-flatten": "`task from-flattened`",
}


@pytest.mark.parametrize("name", sorted(SILENT))
def test_look_alikes_stay_silent(repo: Repo, name: str) -> None:
    repo.files({
        "package.json": _pkg({"test": "jest"}, deps=', "devDependencies": {"some-tool": "1"}'),
        "Makefile": "$(foreach t,a b,$(eval $(t)-target: ; @true))\n"
                    "$(eval generated-target: ; @true)\nall:\n\ttrue\n",
        "justfile": "import 'gone.just'\nfmt:\n  cargo fmt\n",
        "Taskfile.yml": "version: '3'\nincludes:\n  lib:\n    taskfile: ./lib\n"
                        "    flatten: true\ntasks:\n  build:\n    cmds: [go build]\n",
    })
    repo.write("AGENTS.md", "# Rules\n\n" + SILENT[name] + "\n")
    found = [f for f in repo.lint("AGENTS.md") if f.code in ("RL505", "RL506", "RL507")]
    assert found == [], [f.message for f in found]


def test_makefile_with_an_unknown_construct_still_checks_its_other_targets(
        repo: Repo) -> None:
    """A computed target name leaves only names it could define unchecked, and says so in
    an information note (RL507) naming the construct and its line; `include`d files and
    pattern rules are read, not given up on."""
    repo.files({"Makefile": "include common.mk\n$(BIN):\n\tgo build\n%.o: %.c\n\tcc\n",
                "common.mk": "test:\n\tgo test\n"})
    repo.write("AGENTS.md", "`make test` `make main.o` `make whatever`\n")
    found = [f for f in repo.lint("AGENTS.md") if f.code in ("RL506", "RL507")]
    assert [(f.code, f.severity, f.range.start.character) for f in found] == \
        [("RL507", "info", 32)]
    assert found[0].message == (
        "`make whatever`: not checked: no target `whatever` is among those RuleLens read in"
        " Makefile, but `$(BIN)` (Makefile:2, a computed target name) may define it. Every"
        " other target is checked.")
    repo.write("Makefile", "include common.mk\n%.o: %.c\n\tcc\n")
    found = [f for f in repo.lint("AGENTS.md") if f.code in ("RL506", "RL507")]
    assert [f.message for f in found] == [
        "`make whatever`: no target `whatever` is defined in Makefile."]


@pytest.mark.parametrize(("makefile", "says"), [
    ("$(eval $(call rules,a b))\nall:\n\ttrue\n",
     "`$(eval $(call rules,a b))` (Makefile:1, make code RuleLens does not run)"),
    ("include $(CONFIG).mk\nall:\n\ttrue\n",
     "`include $(CONFIG).mk` (Makefile:1, a computed file name)"),
    ("-include generated.mk\nall:\n\ttrue\n",
     "`include generated.mk` (Makefile:1, not readable)"),
    ("$(PROGS) tools/$(X):\n\tcc\nall:\n\ttrue\n",
     "`$(PROGS)` (Makefile:1, a computed target name) may define it"),
    ("PROGS ?= a b\n$(PROGS):\n\tcc\nall:\n\ttrue\n",
     "`$(PROGS)` (Makefile:2, a computed target name) may define it"),
    ("include $(CONFIG).mk\n$(eval $(call rules,a b))\nall:\n\ttrue\n",
     "`include $(CONFIG).mk` (Makefile:1, a computed file name) (and 1 more) may"),
])
def test_makefile_note_names_the_construct(repo: Repo, makefile: str, says: str) -> None:
    """Each construct RuleLens does not evaluate is named with its line; a defined target of
    the same Makefile stays silent, and a target the construct spells out counts as
    defined (no note)."""
    repo.files({"Makefile": makefile})
    repo.write("AGENTS.md", "Run `make all`, then `make deploy`.\n")
    found = [f for f in repo.lint("AGENTS.md") if f.code in ("RL506", "RL507")]
    assert [f.code for f in found] == ["RL507"], [f.message for f in found]
    assert says in found[0].message and "`make deploy`" in found[0].message
    repo.write("Makefile", makefile + "deploy:\n\t./deploy.sh\n")
    assert not [f for f in repo.lint("AGENTS.md") if f.code in ("RL506", "RL507")]
    repo.write("Makefile", makefile.replace("all:", "$(eval deploy: ; @true)\nall:"))
    assert not [f for f in repo.lint("AGENTS.md") if f.code in ("RL506", "RL507")]


def test_a_computed_target_is_a_note_only_for_names_it_can_make(repo: Repo) -> None:
    """`$(TOOLS)/golangci-lint:` (temporal, helm, opentelemetry-go install tools so) makes
    only names below a folder and `build-$(ARCH):` only `build-...`: a missing `deploy`
    is a plain RL506, a missing `build-arm` a note naming the construct."""
    repo.files({"Makefile": "TOOLS = .tools\n$(TOOLS)/golangci-lint:\n\tgo install\n"
                            "${BINDIR}/$(BINNAME): main.go\n\tgo build\n"
                            "build-$(ARCH):\n\tgo build\nlint: $(TOOLS)/golangci-lint\n"})
    repo.write("AGENTS.md", "Run `make lint`, `make deploy` and `make build-arm`.\n")
    found = [(f.code, f.message) for f in repo.lint("AGENTS.md")
             if f.code in ("RL506", "RL507")]
    assert found == [
        ("RL506", "`make deploy`: no target `deploy` is defined in Makefile."),
        ("RL507", "`make build-arm`: not checked: no target `build-arm` is among those"
                  " RuleLens read in Makefile, but `build-$(ARCH)` (Makefile:6, a computed"
                  " target name) may define it. Every other target is checked.")]


@pytest.mark.parametrize(("makefile", "defined"), [
    # Go projects install tools this way (temporal, helm, opentelemetry-go).
    ("LOCALBIN ?= $(shell pwd)/bin\nGOLANGCI_LINT := $(LOCALBIN)/golangci-lint\n"
     "$(GOLANGCI_LINT):\n\tgo install\nlint: $(GOLANGCI_LINT)\n\t$(GOLANGCI_LINT) run\n",
     "lint"),
    ("PROGS = server client\n$(PROGS):\n\tgo build ./cmd/$@\n", "server"),
    ("ifeq ($(OS),Windows_NT)\nEXE = app.exe\nelse\nEXE = app\nendif\n$(EXE): main.c\n\tcc\n",
     "app"),
])
def test_computed_targets_of_known_variables(repo: Repo, makefile: str, defined: str) -> None:
    """A target computed from variables assigned in the Makefile (any branch) is expanded:
    the names it makes are defined, and a name it cannot make is a plain RL506."""
    repo.files({"Makefile": makefile})
    repo.write("AGENTS.md", f"Run `make {defined}`; then `make deploy`.\n")
    found = [(f.code, f.message) for f in repo.lint("AGENTS.md")
             if f.code in ("RL506", "RL507")]
    assert found == [("RL506", "`make deploy`: no target `deploy` is defined in Makefile.")]


_MAKE_PIECES = ["$(", "${", "$", ")", "}", "(", ":", "::", "=", ":=", "?=", "+=", " ", "\t",
                "\n", "%", "a", "b", "X", "Y", "define ", "endef", "include ", "-include ",
                "$(eval ", "ifeq ", "/", ".PHONY", "\\\n", "#"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_MAKE_PIECES), max_size=40), st.sampled_from(["a", "b", "ab",
                                                                          "a/b", "X"]))
def test_any_makefile_text_parses_without_raising(tmp_path_factory: pytest.TempPathFactory,
                                                 pieces: list[str], goal: str) -> None:
    """Whatever a Makefile holds (self-referencing variables, unbalanced references),
    reading it and asking about a goal neither raises nor loops."""
    from rulelens.lint.commands.make import targets
    from rulelens.lint.commands.project import Project

    root = tmp_path_factory.mktemp("mk")
    (root / "Makefile").write_text("".join(pieces) + "\nX = $(X)/a\nY := $(X) $(Y)\n")
    found = targets(str(root / "Makefile"), Project(str(root)))
    assert found is not None
    for answer in (found.defines(goal), found.computes(goal), found.may_define(goal)):
        assert isinstance(answer, bool)
    assert isinstance(found.unknown_for(goal), list)


def test_a_hostile_makefile_is_answered_quickly(repo: Repo) -> None:
    """Variables that branch into each other (64 values each, four deep) and a computed
    name of many references: expansion and matching stay bounded (the name may then be
    anything: a note, not a guess)."""
    values = "".join(f"{v} = $({w}){i}\n" for v, w in (("A", "B"), ("B", "C"), ("C", "D"))
                     for i in range(64))
    repo.files({"Makefile": values + "D = x\n" + "$(A)" * 12 + "-end:\n\ttrue\n"})
    repo.write("AGENTS.md", "Run `make " + "a" * 60 + "`.\n")
    started = time.monotonic()
    found = [f.code for f in repo.lint("AGENTS.md") if f.code in ("RL506", "RL507")]
    assert time.monotonic() - started < 5 and found == ["RL507"]


def test_a_makefile_parsed_once_is_a_dependency_of_every_document(repo: Repo) -> None:
    """The second document of a session reuses the parsed Makefile and still records it
    and its include as what its findings depend on (the result cache's key)."""
    from rulelens.lint import LintConfig, lint_document
    from rulelens.lint.caches import LintCaches
    from rulelens.lint.engine import chain_dir
    from rulelens.rules import AgentEnvironment, Resolver

    repo.files({"Makefile": "include mk/a.mk\nall:\n\ttrue\n", "mk/a.mk": "t:\n\ttrue\n",
                "AGENTS.md": "Run `make t`.\n", "docs/AGENTS.md": "Run `make gone`.\n"})
    caches = LintCaches(environ=dict(os.environ))
    for rel in ("AGENTS.md", "docs/AGENTS.md"):
        caches.deps.clear()
        path = repo.path(rel)
        chain = Resolver(AgentEnvironment.from_env(repo.env)).resolve(chain_dir(path))
        with open(path, encoding="utf-8") as fh:
            found = lint_document(path, fh.read(), chain, LintConfig(), caches)
        assert {repo.path("Makefile"), repo.path("mk/a.mk")} <= caches.deps, rel
    assert [f.code for f in found if f.code == "RL506"] == ["RL506"]


def test_a_missing_dotenv_include_defines_no_target(repo: Repo) -> None:
    """`-include .env` (gitignored, absent from a checkout) holds variables: a target
    missing next to it is still a plain RL506."""
    repo.files({"Makefile": "-include .env\nexport\nall:\n\ttrue\n", ".gitignore": ".env\n"})
    repo.write("AGENTS.md", "Run `make all`, then `make deploy`.\n")
    found = [f for f in repo.lint("AGENTS.md") if f.code in ("RL506", "RL507")]
    assert [(f.code, f.message) for f in found] == [
        ("RL506", "`make deploy`: no target `deploy` is defined in Makefile.")]


def test_symlinked_instruction_file_reports_once(repo: Repo) -> None:
    """CLAUDE.md -> AGENTS.md: the missing path and script are AGENTS.md's findings only."""
    repo.files({"package.json": _pkg({"test": "jest"}), "src/a.ts": "",
                "AGENTS.md": "See `src/gone.ts` and [b](src/b.ts); run `npm run nope`.\n"})
    os.symlink("AGENTS.md", repo.path("CLAUDE.md"))
    real = {f.code for f in repo.lint("AGENTS.md")}
    assert {"RL505", "RL506"} <= real
    assert not [f for f in repo.lint("CLAUDE.md") if f.code in ("RL505", "RL506")]


def test_symlink_from_another_folder_resolves_from_where_it_is_read(repo: Repo) -> None:
    """packages/web/AGENTS.md -> ../../docs/AGENTS.md: an agent reads the links from
    packages/web/; a link that works only from docs/ is the symlink's finding, named with
    repository-relative paths, and silent once it works from there too."""
    repo.files({"docs/AGENTS.md": "Read [the guide](guide.md).\n", "docs/guide.md": "# G\n",
                "packages/web/src/a.ts": ""})
    os.symlink("../../docs/AGENTS.md", repo.path("packages/web/AGENTS.md"))
    assert not [f for f in repo.lint("docs/AGENTS.md") if f.code == "RL505"]
    found = [f.message for f in repo.lint("packages/web/AGENTS.md") if f.code == "RL505"]
    assert len(found) == 1 and found[0].startswith("The link `guide.md` works from the real"
                                                    " file docs/AGENTS.md"), found
    assert "packages/web/guide.md does not" in found[0] and repo.root not in found[0]
    repo.write("packages/web/guide.md", "# G\n")
    assert not [f for f in repo.lint("packages/web/AGENTS.md") if f.code == "RL505"]


def test_rule_link_out_of_the_root_names_no_machine_path(repo: Repo) -> None:
    """From `.cursor/rules`, `../gone.md` is `.cursor/gone.md`; its reading from the root
    would leave the repository, so the message names only the repository path."""
    repo.write(".cursor/rules/a.mdc", "---\nalwaysApply: true\n---\nSee [g](../gone.md).\n")
    found = [f.message for f in repo.lint(".cursor/rules/a.mdc") if f.code == "RL505"]
    assert found == ["The link `../gone.md` points to .cursor/gone.md, which does not exist."]


def test_one_finding_per_missing_file(repo: Repo) -> None:
    """A moved file named by a link, a code span and a command in one document is one
    finding, on its first mention; another moved file is another finding."""
    repo.files({"scripts/other.py": ""})
    repo.write("AGENTS.md", "Seed with [seed](scripts/seed.py).\n\n`scripts/seed.py` fills"
               " the db:\n\n```sh\npython scripts/seed.py\npython scripts/gone.py\n```\n")
    found = [f for f in repo.lint("AGENTS.md") if f.code == "RL505"]
    assert [f.range.start.line for f in found] == [0, 6], [f.message for f in found]


PATH_SILENT = {
    "list-indented-fence": "1. Build the path:\n\n    ```ts\n    const p = `${root}/src/gone.ts`;\n"
                           "    const q = `src/feature/missing.ts`;\n    ```",
    "other-repo": "The front pages (see `agent_docs/docs-conventions.md` in that repo).",
    "create": "Create `src/feature/new_module.py` for the handler.",
    "personal": "Put your keys in `.claude/settings.local.json` or `config/.env.local`.",
    "home": "Global rules live in `~/.claude/settings.json` (user-level: `src/x/y.md`).",
    "outside": "See [the sibling](../../elsewhere/README.md).",
    "link-placeholder": "See [text](link) and [x](<path>).",
    "glob": "Tests live in `src/feature/*.test.py` and `src/**/new.py`; see [all](src/*.py).",
    "url": "See [docs](https://example.com/src/feature/b.py), [m](mailto:a@example.com),"
           " [top](#rules) and <https://example.com/x.md>.",
    "gitignored-output": "The client is `generated/api/client.ts`; the bundle is"
                         " [app](dist/app.js) and `build/lib/x.js`.",
    "example": "- **Example**: if step 1 edits `src/feature/api.py`, step 2 may run alone.\n"
               "- Example: [db.md](src/feature/db.md) for rule references.\n"
               "- Example Snippet (in `src/feature/someAction.py`):",
    "hedged": "Add the key to `config/app.example.json` (if it exists).",
    "import-specifier": "Import the helpers from `../feature/helpers.py`.",
}


@pytest.mark.parametrize("name", sorted(PATH_SILENT))
def test_path_look_alikes_stay_silent(repo: Repo, name: str) -> None:
    repo.files({"src/feature/a.py": "", "agent_docs/other.md": "", "config/x": "",
                "src/x/z.md": "", ".gitignore": "generated/\n", "generated/api/index.ts": ""})
    repo.write("AGENTS.md", "# Rules\n\n" + PATH_SILENT[name] + "\n")
    found = [f for f in repo.lint("AGENTS.md") if f.code == "RL505"]
    assert found == [], [f.message for f in found]


@pytest.mark.parametrize("rules", [".cursor/rules/api.mdc", ".claude/rules/api.md",
                                   ".github/instructions/api.instructions.md"])
def test_rule_directory_paths_resolve_from_the_root(repo: Repo, rules: str) -> None:
    """Authors of rule-directory files write paths from the repository root; a link or
    backticked path that exists from there is silent, a moved one is reported."""
    repo.files({"src/api/routes.ts": ""})
    repo.write(rules, "Keep `src/api/routes.ts` thin; see [routes](src/api/routes.ts).\n")
    assert not [f for f in repo.lint(rules) if f.code == "RL505"]
    repo.write(rules, "Keep `src/api/handlers.ts` thin.\n")
    found = [f for f in repo.lint(rules) if f.code == "RL505"]
    assert len(found) == 1 and "src/api/handlers.ts" in found[0].message


@pytest.mark.parametrize("rules", [".cursor/rules/api.mdc", "packages/web/.cursor/rules/a.mdc",
                                   "AGENTS.md"])
def test_cursor_mdc_links_resolve_from_the_root(repo: Repo, rules: str) -> None:
    """Cursor's `[x](mdc:path)` names a file from the workspace root (the rule editor writes
    `mdc:.cursor/rules/x.mdc` from inside `.cursor/rules`; observed in the links of
    eyaltoledano/claude-task-master@45bb442:.cursor/rules/cursor_rules.mdc). An existing
    target is silent from any folder; a moved one is one RL505 naming the root path."""
    repo.files({"src/api/routes.ts": "", ".cursor/rules/db.mdc": "---\nalwaysApply: true\n"
                "---\nDB.\n", "packages/web/package.json": "{}\n"})
    repo.write(rules, "---\nalwaysApply: true\n---\nKeep [routes](mdc:src/api/routes.ts)"
               " thin; see [db](mdc:.cursor/rules/db.mdc).\n")
    assert not [f for f in repo.lint(rules) if f.code == "RL505"]
    repo.write(rules, "---\nalwaysApply: true\n---\nKeep [h](mdc:src/api/handlers.ts) thin;"
               " see [h](mdc:src/api/handlers.ts#L3).\n")
    found = [f for f in repo.lint(rules) if f.code == "RL505"]
    assert [f.message for f in found] == [
        "The link `mdc:src/api/handlers.ts` points to src/api/handlers.ts, which does not"
        " exist (Cursor reads `mdc:` links from the workspace root)."]
    assert found[0].range.start.character == len("Keep [h](")


def test_cursor_mdc_link_look_alikes_stay_silent(repo: Repo) -> None:
    """Placeholders and examples of the syntax (the shapes a widely copied rule-writing
    rule uses), URLs mangled into `mdc:`, links in code and a link written from the file's
    own folder are no moved file."""
    repo.files({"src/a.ts": ""})
    repo.write(".cursor/rules/how.mdc", "---\nalwaysApply: true\n---\n"
               "- Refer to files as `[name](mdc:path/to/file)` ([name](mdc:name)).\n"
               "- Example: [db.mdc](mdc:.cursor/rules/db.mdc) for another rule.\n"
               "- Like [x](mdc:path/to/file.ts) or [site](mdc:docs/https:/example.com).\n"
               "- From here: [a](mdc:../../src/a.ts).\n\n```md\n[b](mdc:src/b.ts)\n```\n")
    found = [f for f in repo.lint(".cursor/rules/how.mdc") if f.code == "RL505"]
    assert found == [], [f.message for f in found]


# ------------------------------------------------------------ RL213 never loaded
NEVER = {
    ".agents/AGENTS.md": "applies at most to files inside `.agents/`",
    "docs/web.instructions.md": "only inside `.github/instructions/`",
    "packages/web/.github/copilot-instructions.md": "only at the workspace root",
}
LOADED = ["AGENTS.md", "packages/web/AGENTS.md", ".github/instructions/web.instructions.md",
          ".github/copilot-instructions.md", ".claude/CLAUDE.md"]


@pytest.mark.parametrize("rel", sorted(NEVER))
def test_file_no_agent_loads_where_it_stands(repo: Repo, rel: str) -> None:
    """One RL213 per file, naming who would read it and where (asked of the registry)."""
    repo.files({"packages/web/src/a.ts": "", rel: '---\napplyTo: "**"\n---\nRules.\n'})
    found = [f for f in repo.lint(rel) if f.code == "RL213"]
    assert len(found) == 1, [f.message for f in found]
    assert NEVER[rel] in found[0].message and found[0].message.startswith(rel)


@pytest.mark.parametrize("rel", LOADED)
def test_files_agents_load_are_not_never_loaded(repo: Repo, rel: str) -> None:
    repo.files({"packages/web/src/a.ts": "", rel: '---\napplyTo: "**"\n---\nRules.\n'})
    assert not [f for f in repo.lint(rel) if f.code == "RL213"]


# Rules files that attach only through frontmatter, per the agent's docs (the registry's
# formats): without it the file is never applied on its own. One finding per file.
NEEDS_FRONTMATTER = {
    ".cursor/rules/api.mdc": ("RL110", "Cursor never attaches it on its own",
                              "---\ndescription: API handlers\n---\n"),
    ".github/instructions/api.instructions.md": ("RL111", "VS Code does not apply this file"
                                                 " automatically", '---\napplyTo: "src/**"\n---\n'),
}
#: Rules files whose agent applies them without frontmatter (Claude Code and Cline load
#: an unscoped rule always, Kiro's `inclusion` defaults to `always`, Continue includes an
#: unscoped rule in every request, Qwen Code at session start). Windsurf's docs name no
#: default `trigger`, so RuleLens claims nothing either way for a Windsurf rule without one.
ATTACHES_WITHOUT = [".claude/rules/api.md", ".clinerules/api.md", ".kiro/steering/api.md",
                    ".continue/rules/api.md", ".qwen/rules/api.md", ".windsurf/rules/api.md"]


@pytest.mark.parametrize("rel", sorted(NEEDS_FRONTMATTER))
def test_rule_without_the_frontmatter_its_agent_needs_never_attaches(repo: Repo,
                                                                     rel: str) -> None:
    code, says, header = NEEDS_FRONTMATTER[rel]
    repo.files({"src/a.ts": ""})
    repo.write(rel, "# API\n\nKeep handlers thin.\n")
    found = [f for f in repo.lint(rel) if f.code in ("RL110", "RL111", "RL213")]
    assert [f.code for f in found] == [code] and says in found[0].message, found
    repo.write(rel, header + "# API\n\nKeep handlers thin.\n")
    assert not [f for f in repo.lint(rel) if f.code in ("RL110", "RL111", "RL213")]


@pytest.mark.parametrize("rel", ATTACHES_WITHOUT)
def test_rules_that_load_without_frontmatter_are_not_reported(repo: Repo, rel: str) -> None:
    repo.files({"src/a.ts": ""})
    repo.write(rel, "# API\n\nKeep handlers thin.\n")
    found = [f for f in repo.lint(rel) if f.code in ("RL110", "RL111", "RL213")]
    assert found == [], [f.message for f in found]


def test_a_dot_directory_file_imported_by_a_loaded_file_is_loaded(repo: Repo) -> None:
    """Task Master writes `.taskmaster/CLAUDE.md` and imports it from the root CLAUDE.md
    (`@./.taskmaster/CLAUDE.md`, seen in eyaltoledano/claude-task-master): Claude Code
    loads it as part of the root file, so it is no RL213; without the import it is one."""
    repo.write(".taskmaster/CLAUDE.md", "# Task Master\n\nUse `task-master next`.\n")
    repo.write("CLAUDE.md", "# Rules\n\nSee the workflow.\n")
    assert [f.code for f in repo.lint(".taskmaster/CLAUDE.md") if f.code == "RL213"] == \
        ["RL213"]
    repo.write("docs/agents.md", "More:\n\n@../.taskmaster/CLAUDE.md\n")
    repo.write("CLAUDE.md", "# Rules\n\n@docs/agents.md\n")
    assert not [f for f in repo.lint(".taskmaster/CLAUDE.md") if f.code == "RL213"]
    repo.write("CLAUDE.md", "# Rules\n\n@./.taskmaster/CLAUDE.md\n")
    assert not [f for f in repo.lint(".taskmaster/CLAUDE.md") if f.code == "RL213"]


def test_a_catalog_of_instruction_files_is_not_reported(repo: Repo) -> None:
    """github/awesome-copilot keeps dozens of `*.instructions.md` to copy from."""
    for i in range(6):
        repo.write(f"instructions/lang{i}.instructions.md", '---\napplyTo: "**"\n---\nX.\n')
    assert not [f for f in repo.lint("instructions/lang0.instructions.md")
                if f.code == "RL213"]


def test_dot_directory_file_loaded_through_a_root_symlink_is_loaded(repo: Repo) -> None:
    """langfuse/langfuse keeps `AGENTS.md -> .agents/AGENTS.md` (and `CLAUDE.md -> AGENTS.md`):
    the file loads under the root's name, so it is no RL213."""
    repo.write(".agents/AGENTS.md", "# Agent guidelines\n\nKeep changes scoped.\n")
    os.symlink(".agents/AGENTS.md", repo.path("AGENTS.md"))
    os.symlink("AGENTS.md", repo.path("CLAUDE.md"))
    assert not [f for f in repo.lint(".agents/AGENTS.md") if f.code == "RL213"]


def test_pages_of_a_docs_folder_are_no_misspelt_instruction_files(repo: Repo) -> None:
    """pydantic-ai keeps docs/AGENTS.md next to docs/agent.md (a page of its site, built
    without mkdocs.yml in the tree): the page is no misspelt AGENT.md (RL207)."""
    repo.files({"docs/AGENTS.md": "# Docs rules\n", "docs/index.md": "# Home\n",
                "docs/agent.md": "# Agents\n\nHow to build one.\n",
                "docs/realtime/gemini.md": "# Gemini realtime\n"})
    for rel in ("docs/agent.md", "docs/realtime/gemini.md"):
        assert not [f for f in repo.lint(rel) if f.code == "RL207"], rel
    repo.write("pkg/agent.md", "# Rules\n")
    repo.write("pkg/package.json", "{}\n")
    assert [f for f in repo.lint("pkg/agent.md") if f.code == "RL207"]


@pytest.mark.parametrize("code", ["RL213", "RL406", "RL505", "RL506", "RL507"])
def test_explain_shows_a_bad_and_a_good_example(code: str) -> None:
    """`rulelens explain` documents each check issue #23 added or changed with both."""
    proc = subprocess.run([sys.executable, "-m", "rulelens", "explain", code],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    check = BY_CODE[code]
    assert check.bad and check.good and check.bad != check.good
    out = proc.stdout
    assert f"### {code}" in out and "\nBad:\n" in out and "\nGood:\n" in out
    assert out.index("Bad:") < out.index("Good:")
    assert check.bad.split("\n")[0] in out and check.good.split("\n")[0] in out
