"""Issue #23: false alarms seen on the second real-repository survey, rebuilt as small trees.

Each case is a real git repository on disk (tmp_path) linted by the real engine, in both
directions: the look-alike from the real repository stays silent, and a real stale
reference of the same shape is still reported. The repository and file each case comes
from are named (labels: /work/notes/issue-23-labels-2.md; corpus: bench/corpus.txt).
"""

from __future__ import annotations

import os

from lintrepo import Repo

from rulelens.lint.candidates import slot


def _found(repo: Repo, rel: str, code: str) -> list[str]:
    return [f.message for f in repo.lint(rel) if f.code == code]


# ------------------------------------------------------------------ task (Taskfile)
TASKFILE = ("version: '3'\n\ntasks:\n  lint:\n    cmds:\n      - task: lint:log\n"
            "  lint:log:\n    cmds:\n      - ./scripts/check.sh\n"
            "  lint:fix:\n    desc: Fix\n    cmds:\n      - golangci-lint run --fix\n")


def test_task_names_with_a_namespace_colon_are_defined(repo: Repo) -> None:
    """charmbracelet/crush@37f36e9 AGENTS.md: `task lint:fix` and `task lint:log` are
    `lint:fix:` and `lint:log:` of Taskfile.yaml (the key was cut at its first colon)."""
    repo.files({"Taskfile.yaml": TASKFILE,
                "AGENTS.md": "- **Lint**: `task lint:fix`\n- Enforced by `task lint:log`.\n"})
    assert _found(repo, "AGENTS.md", "RL506") == []


def test_a_namespaced_task_that_is_not_defined_is_reported(repo: Repo) -> None:
    repo.files({"Taskfile.yaml": TASKFILE, "AGENTS.md": "- **Lint**: `task lint:strict`\n"})
    found = _found(repo, "AGENTS.md", "RL506")
    assert len(found) == 1 and "no task `lint:strict`" in found[0]


# ------------------------------------------------------------- nested .gitignore
def test_a_path_a_nested_gitignore_ignores_is_silent(repo: Repo) -> None:
    """cloudflare/agents@a0e134b agent-think/AGENTS.md: "drop the proxy CA at
    `ca/warp-ca.crt` (gitignored)"; `ca/*.crt` is in agent-think/.gitignore, which git
    reads (the agents' matcher reads the root one only)."""
    repo.files({"agent-think/.gitignore": "ca/*.crt\n!ca/.keep\n", "agent-think/ca/.keep": "",
                "agent-think/AGENTS.md": "Drop the proxy CA at `ca/warp-ca.crt` first.\n"})
    assert _found(repo, "agent-think/AGENTS.md", "RL505") == []


def test_a_missing_path_the_nested_gitignore_does_not_ignore_is_reported(repo: Repo) -> None:
    repo.files({"agent-think/.gitignore": "ca/*.crt\n!ca/.keep\n", "agent-think/ca/.keep": "",
                "agent-think/AGENTS.md": "The CA config is `ca/proxy.conf`.\n"})
    found = _found(repo, "agent-think/AGENTS.md", "RL505")
    assert len(found) == 1 and "agent-think/ca/proxy.conf" in found[0]


# ----------------------------------------------------------------- slot in a path
def test_slot_segments() -> None:
    for ref in ("tests/ci/test_action_EventNameHere.py", "tasks/misc/pass/oxc-12345.ts",
                "src/your_module.py", "src/YourModule.ts", "out/XXX/a.md"):
        assert slot(ref), ref
    for ref in ("src/HereDoc.ts", "src/where.ts", "apps/my-app/x.ts", "docs/README.md",
                "a/foo_1234567.ts", "src/user_name.py", "src/Sphere.ts"):
        assert not slot(ref), ref


def test_a_placeholder_file_name_is_silent(repo: Repo) -> None:
    """browser-use/browser-use@85ddbfe CLAUDE.md: "tests specific to an event live in its
    `tests/ci/test_action_EventNameHere.py` file" (the issue names this placeholder)."""
    repo.files({"tests/ci/test_tools.py": "",
                "CLAUDE.md": "Event tests live in `tests/ci/test_action_EventNameHere.py`.\n"})
    assert _found(repo, "CLAUDE.md", "RL505") == []


def test_a_missing_file_beside_it_is_reported(repo: Repo) -> None:
    repo.files({"tests/ci/test_tools.py": "",
                "CLAUDE.md": "Event tests live in `tests/ci/test_action_click.py`.\n"})
    found = _found(repo, "CLAUDE.md", "RL505")
    assert len(found) == 1 and "tests/ci/test_action_click.py" in found[0]


def test_an_issue_number_in_a_fenced_fixture_name_is_silent(repo: Repo) -> None:
    """oxc-project/oxc@288f9a5 crates/oxc_parser/AGENTS.md: "name the fixture after the
    issue" over a fence listing `tasks/coverage/misc/pass/oxc-12345.ts`."""
    repo.files({"tasks/coverage/misc/pass/.keep": "",
                "AGENTS.md": "Name the fixture after the issue:\n\n```text\n"
                             "tasks/coverage/misc/pass/oxc-12345.ts\n```\n"})
    assert _found(repo, "AGENTS.md", "RL505") == []


def test_a_fenced_script_that_is_gone_is_reported(repo: Repo) -> None:
    repo.files({"tasks/coverage/.keep": "",
                "AGENTS.md": "Run the coverage task:\n\n```sh\ntasks/coverage/run.sh\n```\n"})
    found = _found(repo, "AGENTS.md", "RL505")
    assert len(found) == 1 and "tasks/coverage/run.sh" in found[0]


# --------------------------------------------------------- the form of a path shown
def test_a_path_shown_as_the_form_to_write_is_silent(repo: Repo) -> None:
    """cloudflare/agents@a0e134b docs/AGENTS.md: "Link within a package directory using
    relative paths (`./state.md`)" (docs/agents/state.md exists; docs/state.md does not)."""
    repo.files({"docs/agents/state.md": "# State\n",
                "docs/AGENTS.md": "- Link within a package directory using relative paths"
                                  " (`./state.md`)\n"})
    assert _found(repo, "docs/AGENTS.md", "RL505") == []


def test_a_path_named_as_a_file_of_the_folder_is_reported(repo: Repo) -> None:
    repo.files({"docs/agents/state.md": "# State\n",
                "docs/AGENTS.md": "- The state API is described in `./state.md`.\n"})
    found = _found(repo, "docs/AGENTS.md", "RL505")
    assert len(found) == 1 and "docs/state.md" in found[0]


# ---------------------------------------------------------- config locations listed
CONFIG_LIST = ("- **Config locations** (lowest to highest precedence):\n"
               "  - `~/.claude/settings.json`, `~/.continue/settings.json` (user-global)\n"
               "  - `.claude/settings.json`, `.continue/settings.json` (project)\n")


def test_project_config_locations_listed_with_their_home_twins_are_silent(repo: Repo) -> None:
    """continuedev/continue@d0a3c0b extensions/cli/AGENTS.md: the hook config locations
    the CLI reads, in the user's home and in any project it runs in."""
    repo.files({"extensions/cli/.claude/agents/x.md": "x\n", "extensions/cli/.continue/x": "",
                "extensions/cli/AGENTS.md": CONFIG_LIST})
    assert _found(repo, "extensions/cli/AGENTS.md", "RL505") == []


def test_a_project_config_file_named_alone_is_reported(repo: Repo) -> None:
    repo.files({"extensions/cli/.claude/agents/x.md": "x\n",
                "extensions/cli/AGENTS.md": "Hooks are set in `.claude/settings.json`.\n"})
    found = _found(repo, "extensions/cli/AGENTS.md", "RL505")
    assert len(found) == 1 and ".claude/settings.json" in found[0]


# ----------------------------------------------------------- RL213 generated copy
def test_a_dot_directory_source_of_a_gitignored_copy_is_silent(repo: Repo) -> None:
    """Effect-TS/effect@1144032: `.agents/AGENTS.md` is copied to the gitignored
    `/AGENTS.md` by the `prepare` script (scripts/setup-agents.mjs)."""
    repo.files({".gitignore": "node_modules/\n/AGENTS.md\n",
                ".agents/AGENTS.md": "# Effect\n\nRun `pnpm check`.\n"})
    assert _found(repo, ".agents/AGENTS.md", "RL213") == []


def test_a_dot_directory_copy_nothing_makes_is_reported(repo: Repo) -> None:
    repo.files({".gitignore": "node_modules/\n",
                ".agents/AGENTS.md": "# Effect\n\nRun `pnpm check`.\n"})
    found = _found(repo, ".agents/AGENTS.md", "RL213")
    assert len(found) == 1 and ".agents/AGENTS.md is not loaded" in found[0]


# ------------------------------------------------------- RL213 read through a link
def test_an_instructions_file_linked_from_the_loaded_file_is_silent(repo: Repo) -> None:
    """microsoft/typespec@a791115: `.github/copilot-instructions.md` links
    `./prompts/upgrade-tcgc.instructions.md`, a procedure read on demand."""
    repo.files({".github/copilot-instructions.md":
                "- [TCGC Upgrade](./prompts/upgrade-tcgc.instructions.md): the steps.\n",
                ".github/prompts/upgrade-tcgc.instructions.md": "# TCGC\n\nSteps.\n"})
    assert _found(repo, ".github/prompts/upgrade-tcgc.instructions.md", "RL213") == []


def test_an_instructions_file_nothing_links_is_reported(repo: Repo) -> None:
    repo.files({".github/copilot-instructions.md": "# Rules\n\nUse pnpm.\n",
                ".github/prompts/upgrade-tcgc.instructions.md": "# TCGC\n\nSteps.\n"})
    found = _found(repo, ".github/prompts/upgrade-tcgc.instructions.md", "RL213")
    assert len(found) == 1 and "only inside" in found[0]


# ------------------------------------------------- RL405 identical relative imports
def test_identical_files_that_import_their_own_folder_file_are_not_copies(repo: Repo) -> None:
    """oxc-project/oxc@288f9a5: every folder's CLAUDE.md is `@AGENTS.md`, importing that
    folder's own AGENTS.md: the same bytes, a different file loaded each."""
    repo.files({"CLAUDE.md": "@AGENTS.md\n", "AGENTS.md": "# Oxc\n\nRun `cargo test`.\n",
                "apps/oxfmt/CLAUDE.md": "@AGENTS.md\n",
                "apps/oxfmt/AGENTS.md": "# Oxfmt\n\nRun the formatter tests.\n"})
    assert _found(repo, "apps/oxfmt/CLAUDE.md", "RL405") == []


def test_identical_prose_in_a_nested_file_is_still_a_copy(repo: Repo) -> None:
    text = ("# Rules\n\nAlways run the whole test suite before you push a change, and"
            " write a test for every bug you fix.\n")
    repo.files({"CLAUDE.md": text, "apps/oxfmt/CLAUDE.md": text})
    found = _found(repo, "apps/oxfmt/CLAUDE.md", "RL405")
    assert len(found) == 1 and "Identical to CLAUDE.md" in found[0]


# ----------------------------------------------- paths written from a rule's scope
STANDALONE = "---\napplyTo: 'src/standalone/**/*.ts'\n---\n\n# Standalone\n\n"


def test_a_path_written_from_the_scope_of_an_applyto_rule_is_silent(repo: Repo) -> None:
    """microsoft/vscode-jupyter@3d24702 .github/instructions/standalone.instructions.md
    (applyTo `src/standalone/**/*.ts`): "Add to public API in `api/index.ts`", which is
    src/standalone/api/index.ts."""
    repo.files({"src/standalone/api/index.ts": "export {};\n",
                ".github/instructions/standalone.instructions.md":
                    STANDALONE + "4. Add to public API in `api/index.ts`\n"})
    assert _found(repo, ".github/instructions/standalone.instructions.md", "RL505") == []


def test_a_scoped_rule_path_missing_from_the_root_is_reported(repo: Repo) -> None:
    repo.files({"src/standalone/api/index.ts": "export {};\n",
                ".github/instructions/standalone.instructions.md":
                    STANDALONE + "4. Add to public API in `api/index.ts`\n"
                                 "5. Register it in `src/standalone/api/registry.ts`\n"})
    found = _found(repo, ".github/instructions/standalone.instructions.md", "RL505")
    assert len(found) == 1 and "src/standalone/api/registry.ts" in found[0]


def test_a_root_path_in_copilot_instructions_names_the_root_reading(repo: Repo) -> None:
    """microsoft/vscode-jupyter@3d24702 .github/copilot-instructions.md: "Read
    `.github/typescript-instructions.md`" (moved to .github/instructions/): the message
    names the root reading too, not only .github/.github/..."""
    repo.files({".github/instructions/typescript.instructions.md": "---\napplyTo: '**'\n---\n",
                ".github/copilot-instructions.md":
                    "Read `.github/typescript-instructions.md` for the TypeScript steps.\n"})
    found = _found(repo, ".github/copilot-instructions.md", "RL505")
    assert len(found) == 1
    assert "nor does .github/typescript-instructions.md (from the repository root)" in found[0]


def test_a_package_path_whose_folder_exists_only_in_the_scope_is_not_judged(repo: Repo) -> None:
    """microsoft/vscode-jupyter@3d24702 ipywidgets.instructions.md lists modules of the
    @jupyterlab/services package (`kernel/default.ts`); a `kernel/` folder inside the
    rule's scope does not make them files of this repository."""
    repo.files({"src/ipywidgets/kernel/kernel.ts": "export {};\n",
                ".github/instructions/ipywidgets.instructions.md":
                    "---\napplyTo: 'src/ipywidgets/**/*.ts'\n---\n\n"
                    "- `kernel/default.ts` - `KernelConnection` class\n"})
    assert _found(repo, ".github/instructions/ipywidgets.instructions.md", "RL505") == []


# --------------------------------------------------- a script the text downloads
DOTNET = ("- Install .NET 9.0 SDK: `wget https://dot.net/v1/dotnet-install.sh && chmod +x"
          " dotnet-install.sh && ./dotnet-install.sh --channel 9.0`\n"
          "- Install .NET 8.0: `./dotnet-install.sh --channel 8.0 --runtime dotnet`\n")


def test_a_script_the_same_text_downloads_is_silent(repo: Repo) -> None:
    """microsoft/autogen@027ecf0 .github/copilot-instructions.md: `wget …/dotnet-install.sh
    && … ./dotnet-install.sh`: fetched by the command line itself."""
    repo.files({"dotnet/dotnet-install.sh": "#!/bin/sh\n",
                ".github/copilot-instructions.md": DOTNET})
    assert _found(repo, ".github/copilot-instructions.md", "RL505") == []


def test_a_script_nothing_fetches_is_reported(repo: Repo) -> None:
    repo.files({"tools/lint.sh": "#!/bin/sh\n",
                ".github/copilot-instructions.md": "- Set up: `bash tools/install.sh --dev`\n"})
    found = _found(repo, ".github/copilot-instructions.md", "RL505")
    assert len(found) == 1 and "tools/install.sh" in found[0]


# ------------------------------------------------------ a vendored module's rules
def test_a_vendored_modules_agents_file_is_not_checked_against_this_repo(repo: Repo) -> None:
    """grafana/k6@8788307 commits vendor/go.opentelemetry.io/otel/AGENTS.md, whose
    `make precommit` is a target of otel's own Makefile, not of k6's."""
    repo.files({"Makefile": "build:\n\tgo build ./...\n",
                "vendor/go.opentelemetry.io/otel/AGENTS.md": "Run `make precommit` first.\n"})
    assert _found(repo, "vendor/go.opentelemetry.io/otel/AGENTS.md", "RL506") == []


def test_the_same_rule_outside_vendor_is_reported(repo: Repo) -> None:
    repo.files({"Makefile": "build:\n\tgo build ./...\n",
                "internal/otel/AGENTS.md": "Run `make precommit` first.\n"})
    found = _found(repo, "internal/otel/AGENTS.md", "RL506")
    assert len(found) == 1 and "no target `precommit`" in found[0]


# ------------------------------------------------------------ folders (`a/b/`)
def test_a_folder_that_is_gone_is_reported(repo: Repo) -> None:
    """langchain-ai/langchainjs@62fc484 AGENTS.md: "`libs/langchain-standard-tests/`",
    a folder that no longer exists (libs/ does)."""
    repo.files({"libs/langchain-core/package.json": "{}\n",
                "AGENTS.md": "Shared tests live in `libs/langchain-standard-tests/`.\n"})
    found = _found(repo, "AGENTS.md", "RL505")
    assert len(found) == 1 and "The folder `libs/langchain-standard-tests/`" in found[0]


def test_a_folder_that_exists_is_silent(repo: Repo) -> None:
    repo.files({"libs/langchain-standard-tests/package.json": "{}\n",
                "AGENTS.md": "Shared tests live in `libs/langchain-standard-tests/`.\n"})
    assert _found(repo, "AGENTS.md", "RL505") == []


def test_a_gitignored_folder_a_setup_step_clones_is_silent(repo: Repo) -> None:
    """oxc-project/oxc@288f9a5 AGENTS.md: `tasks/coverage/test262/`, cloned by
    `just submodules`; `tasks/coverage/test262/` is in .gitignore (a folder pattern)."""
    repo.files({".gitignore": "tasks/coverage/test262/\n", "tasks/coverage/src/lib.rs": "",
                "AGENTS.md": "Conformance suites: `tasks/coverage/test262/`.\n"})
    assert _found(repo, "AGENTS.md", "RL505") == []


def test_a_folder_written_from_the_package_above_is_silent(repo: Repo) -> None:
    """PrefectHQ/prefect@ce79dd3 src/prefect/client/AGENTS.md: `client/schemas/`, written
    from src/prefect (the Python package), where it exists."""
    repo.files({"src/prefect/client/schemas/__init__.py": "",
                "src/prefect/client/AGENTS.md": "Models live in `client/schemas/`.\n"})
    assert _found(repo, "src/prefect/client/AGENTS.md", "RL505") == []


def test_a_folder_of_another_repository_linked_there_is_silent(repo: Repo) -> None:
    """prisma/prisma AGENTS.md: "`drive-*` skills and [`docs/drive/`](https://github.com/
    prisma/ignite/...) live in [prisma/ignite](https://github.com/prisma/ignite)
    (`skills/.pilot/`)": both folders are in another repository."""
    repo.files({"docs/index.md": "# Docs\n", "skills/x/SKILL.md": "x\n",
                "AGENTS.md": "Skills and [`docs/drive/`](https://github.com/prisma/ignite/tree/"
                             "main/docs/drive) live in [prisma/ignite](https://github.com/"
                             "prisma/ignite) (`skills/.pilot/`).\n"})
    assert _found(repo, "AGENTS.md", "RL505") == []


def test_a_folder_written_from_the_folder_the_heading_names_is_silent(repo: Repo) -> None:
    """Arize-ai/phoenix@9478f95 .cursor/rules/frontend/RULE.md: "# Frontend Development
    (js/app/)" then "Components go in `src/components/`", which is js/app/src/components."""
    repo.files({"js/app/src/components/Button.tsx": "", "src/server/app.py": "",
                ".cursor/rules/frontend/RULE.md": "# Frontend Development (js/app/)\n\n"
                                                  "3. Components go in `src/components/`\n"})
    assert _found(repo, ".cursor/rules/frontend/RULE.md", "RL505") == []


def test_a_folder_missing_from_the_heading_folder_too_is_reported(repo: Repo) -> None:
    repo.files({"js/app/src/components/Button.tsx": "", "src/server/app.py": "",
                ".cursor/rules/frontend/RULE.md": "# Frontend Development (js/app/)\n\n"
                                                  "3. Hooks go in `src/hooks/`\n"})
    found = _found(repo, ".cursor/rules/frontend/RULE.md", "RL505")
    assert len(found) == 1 and "`src/hooks/`" in found[0]


# ------------------------------------------------ RL112 excludeAgent written as a list
INSTR = ".github/instructions/style.instructions.md"


def _instructions(exclude: str) -> str:
    return f"---\napplyTo: '**'\nexcludeAgent: {exclude}\n---\n\n# Style\n\nKeep it short.\n"


def test_exclude_agent_as_a_list_of_valid_values_is_silent(repo: Repo) -> None:
    """rolldown/rolldown .github/instructions/coding-style.instructions.md (b49, b50):
    `excludeAgent: ['coding-agent']`; VS Code's prompt validator takes a string or a list
    (it required a list for a while, microsoft/vscode#291924)."""
    for value in ("['coding-agent']", "[code-review, coding-agent]",
                  "\n  - code-review", "coding-agent", "cloud-agent", "[cloud-agent]"):
        repo.files({"src/a.rs": "", INSTR: _instructions(value)})
        assert _found(repo, INSTR, "RL112") == [], value


def test_exclude_agent_unknown_value_or_wrong_type_is_reported(repo: Repo) -> None:
    """An unknown value (alone or inside a list) and a number or a mapping still are."""
    cases = {"reviewer": '"reviewer"', "['coding-agent', 'reviewer']": '"reviewer"',
             "cloud-agents": '"cloud-agents"',
             "\n  - coding-agent\n  - 3": "a number", "3": "a number",
             "{agent: code-review}": "a mapping", "[]": "an empty list"}
    for value, says in cases.items():
        repo.files({"src/a.rs": "", INSTR: _instructions(value)})
        found = _found(repo, INSTR, "RL112")
        assert len(found) == 1 and says in found[0], (value, found)


def test_exclude_agent_points_at_the_bad_item_of_a_list(repo: Repo) -> None:
    repo.files({"src/a.rs": "", INSTR: _instructions("['coding-agent', 'reviewer']")})
    (f,) = [f for f in repo.lint(INSTR) if f.code == "RL112"]
    line = _instructions("['coding-agent', 'reviewer']").split("\n")[f.range.start.line]
    assert line[f.range.start.character:f.range.end.character].strip("'\"") == "reviewer"


# --------------------------------------------- RL111 description without applyTo
PR = ".github/instructions/pr.instructions.md"


def test_instructions_with_a_description_and_no_apply_to_are_silent(repo: Repo) -> None:
    """microsoft/vscode-python-debugger .github/instructions/pr.instructions.md (b69):
    `description: When creating pull requests`, no `applyTo`. In agent mode VS Code lists
    every instructions file with its description in the prompt's `<instructions>` index
    (computeAutomaticInstructions.ts) for the model to read when creating a PR."""
    repo.files({"src/a.py": "", PR: "---\ndescription: When creating pull requests\n---\n\n"
                                    "# PR Creation Skill\n\nUse the template.\n"})
    assert _found(repo, PR, "RL111") == []


def test_instructions_without_apply_to_or_a_description_are_reported(repo: Repo) -> None:
    """No `applyTo` and no usable description (none, empty, not a string): still RL111,
    and the message names both ways out."""
    for header in ("name: pr", "description: ''", "description:   ", "description: [a, b]"):
        repo.files({"src/a.py": "", PR: f"---\n{header}\n---\n\n# PR\n\nUse the template.\n"})
        found = _found(repo, PR, "RL111")
        assert len(found) == 1 and "`description`" in found[0], (header, found)


# ------------------------------------- RL213 nested folder opened as its own workspace
NESTED = "ext/vscode/.github/copilot-instructions.md"


def test_nested_copilot_file_of_a_folder_with_its_own_vscode_is_silent(repo: Repo) -> None:
    """Azure/azure-dev ext/vscode/.github/copilot-instructions.md (a23): ext/vscode has its
    own `.vscode/` (launch.json with `--extensionDevelopmentPath=${workspaceFolder}`); it
    is opened as its own workspace, where the file stands at the root and loads."""
    repo.files({"go.mod": "module x\n", "ext/vscode/package.json": '{"name": "azd"}\n',
                "ext/vscode/.vscode/launch.json": "{}\n", NESTED: "# Extension\n\nUse npm.\n"})
    assert _found(repo, NESTED, "RL213") == []


def test_nested_copilot_file_of_a_package_with_its_own_lockfile_is_silent(repo: Repo) -> None:
    """microsoft/typespec packages/http-client-java/.github/copilot-instructions.md (b63):
    the package keeps its own package-lock.json and is excluded from the pnpm workspace."""
    rel = "packages/http-client-java/.github/copilot-instructions.md"
    for lock in ("package-lock.json", "Cargo.lock", "uv.lock", "go.sum"):
        repo.files({"pnpm-workspace.yaml": "packages:\n  - packages/*\n  - '!packages/http-"
                                           "client-java/**'\n", "pnpm-lock.yaml": "x\n",
                    f"packages/http-client-java/{lock}": "x\n",
                    "packages/http-client-java/package.json": '{"name": "j"}\n',
                    rel: "# Java emitter\n\nSee the docs.\n"})
        assert _found(repo, rel, "RL213") == [], lock
        os.remove(repo.path(f"packages/http-client-java/{lock}"))


def test_nested_copilot_file_of_an_ordinary_package_is_reported(repo: Repo) -> None:
    """A package of the root's workspace (no `.vscode/`, no lockfile of its own; a lockfile
    or `.vscode/` only at the root, or deeper inside it, does not count) is still RL213."""
    rel = "packages/web/.github/copilot-instructions.md"
    repo.files({"package.json": '{"workspaces": ["packages/*"]}\n', "pnpm-lock.yaml": "x\n",
                ".vscode/settings.json": "{}\n", "packages/web/package.json": '{"name": "w"}\n',
                "packages/web/src/.vscode/settings.json": "{}\n",
                "packages/web/.github/package-lock.json": "{}\n",
                "packages/web/yarn.lock/x": "a folder, not a lockfile\n",
                rel: "# Web\n\nUse pnpm.\n"})
    found = _found(repo, rel, "RL213")
    assert len(found) == 1 and "only at the workspace root" in found[0]
    assert "unless `packages/web/` is opened as its own workspace" in found[0]
