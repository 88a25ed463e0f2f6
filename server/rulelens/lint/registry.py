"""The one list of checks: id, title, default severity, rationale with its source, fix tier.

Docs (``docs/checks.md``) are generated from this table and a test fails when they drift;
another test proves every id here is emitted by some check module with a fixture, so the
catalogue cannot promise a check the engine never runs (agent-sh/agnix#98 shipped exactly
that bug). Limits cited here are "true as of" the research snapshot in
``shared/research/rule-formats-and-linters.md``; the numbers themselves live in
:mod:`rulelens.lint.config` so users can move them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rulelens.lint.model import Severity

Family = Literal["frontmatter", "discovery", "size", "content", "references"]


@dataclass(frozen=True)
class Check:
    code: str
    name: str
    family: Family
    severity: Severity
    title: str
    rationale: str
    sources: tuple[str, ...]
    fixable: bool = False
    #: A text that triggers the check and the same text fixed (``rulelens explain``).
    bad: str = ""
    good: str = ""


def _c(code: str, name: str, family: Family, severity: Severity, title: str, rationale: str,
       sources: tuple[str, ...], fixable: bool = False, bad: str = "", good: str = "") -> Check:
    return Check(code, name, family, severity, title, rationale, sources, fixable, bad, good)


CHECKS: tuple[Check, ...] = (
    # ------------------------------------------------------------------ frontmatter
    _c("RL101", "frontmatter-yaml-error", "frontmatter", "error",
       "Frontmatter is not valid YAML",
       "Claude Code, Copilot and Laravel Boost parse frontmatter as YAML; when it does not parse"
       " the keys are dropped silently (Boost treats the file as having no `paths`), so the"
       " scope the author wrote never applies. Cursor's reader is lenient, so `.mdc` files are"
       " only flagged when even a line-based `key: value` reading fails.",
       ("Laravel Boost RuleRepository (invalid YAML is treated as no paths)",
        "agnix CUR-003 (strict serde_yaml; false positives on unquoted globs)"), False),
    _c("RL102", "frontmatter-unclosed", "frontmatter", "error",
       "Frontmatter block is never closed",
       "A file that opens with `---` but has no closing fence is not recognised as frontmatter:"
       " Grok then keeps the whole text (the YAML goes into the prompt) and Claude, Cursor and"
       " Copilot see no scope keys at all.",
       ("Grok Build strip_frontmatter (spec §3.6)", "agnix CUR-003"), False),
    _c("RL103", "frontmatter-too-complex", "frontmatter", "error",
       "Frontmatter exceeds the parser limits (size, nesting depth or alias expansion)",
       "Frontmatter holds a few short keys. Huge blocks, deep nesting and alias bombs (billion"
       " laughs) are refused before they can exhaust memory or the stack; the file most likely"
       " is not frontmatter at all.",
       ("YAML 1.1 anchors and aliases", "CWE-776 (entity expansion)"), False),
    _c("RL104", "scope-not-a-list", "frontmatter", "error",
       "`paths` is a string; it must be a YAML list of globs",
       "Claude Code reads `.claude/rules` `paths` as a list of glob strings; a scalar or"
       " comma-separated string silently never matched (list form explicitly supported since"
       " 2.1.84). Laravel Boost also requires a list and otherwise omits the rule from"
       " `.ai/rules/index.md`. The fix turns the string into a list, one glob per item.",
       ("anthropics/claude-code#16038, #19377, #16853", "Claude Code CHANGELOG 2.1.84",
        "Laravel Boost RuleFrontmatter"), True),
    _c("RL105", "scope-value-type", "frontmatter", "error",
       "A scope key has the wrong type or is empty",
       "`paths` items must be non-empty strings (an empty list scopes to nothing); Copilot's"
       " `applyTo` is one string with comma-separated globs; Cursor's `globs` is a string or a"
       " list of strings. Other shapes are ignored by the agent, so the scope is lost.",
       ("skillsaw claude-rules-valid", "docs.github.com custom instructions (applyTo)",
        "cursor.com/docs/rules"), False),
    _c("RL106", "foreign-scope-key", "frontmatter", "warning",
       "Scope key from another tool's format",
       "Each format has its own scope key: `.claude/rules` and `.ai/rules` use `paths`,"
       " `.cursor/rules` uses `globs`, `.github/instructions` uses `applyTo`. A key from"
       " another format is ignored, so the rule loads unconditionally (Claude) or never"
       " automatically (Copilot). The fix renames the key.",
       ("agnix CC-MEM-012", "Claude memory docs: no `paths` means unconditional",
        "Laravel Boost RuleFrontmatter (`globs` is not read)"), True),
    _c("RL107", "unknown-frontmatter-key", "frontmatter", "warning",
       "Frontmatter key the format does not define",
       "Keys outside the format's documented set are ignored by the agent; a typo"
       " (`alwaysapply`, `applyto`) silently disables the behaviour it was meant to set.",
       ("agnix CUR-005, COP-004", "cursor.com/docs/rules",
        "code.visualstudio.com custom instructions (name, description)"), False),
    _c("RL108", "cursor-always-apply-type", "frontmatter", "error",
       "`alwaysApply` is not a boolean",
       "Cursor reads `alwaysApply` as a boolean; a quoted \"true\" or another value does not"
       " make the rule always apply.",
       ("agnix CUR-008", "cursor.com/docs/rules"), True),
    _c("RL109", "cursor-rule-type", "frontmatter", "info",
       "Cursor rule type note (manual-only, or globs ignored by alwaysApply)",
       "Cursor derives one of four rule types from the frontmatter: Always (`alwaysApply:"
       " true`), Auto Attached (`globs`), Agent Requested (`description` only) and Manual"
       " (none). A rule with no keys is only used when @-mentioned; `globs` next to"
       " `alwaysApply: true` has no effect.",
       ("cursor.com/docs/rules", "agnix CUR-007, CUR-009"), False),
    _c("RL110", "cursor-missing-frontmatter", "frontmatter", "warning",
       "Cursor `.mdc` rule without frontmatter",
       "Without `description`, `globs` or `alwaysApply` the rule is manual-only: Cursor never"
       " attaches it on its own.",
       ("agnix CUR-002", "AgentLint CURSOR_MDC_MISSING_FRONTMATTER"), False),
    _c("RL111", "copilot-missing-apply-to", "frontmatter", "warning",
       "Copilot `.instructions.md` without `applyTo` or `description`",
       "VS Code applies an instructions file automatically only when `applyTo` matches the"
       " file in the request. A file with a non-empty `description` and no `applyTo` is not"
       " reported: in agent mode VS Code lists every instructions file with its description"
       " in the prompt's `<instructions>` index for the model to read when the task fits."
       " Without either, VS Code never attaches it and lists it (agent mode) by path only,"
       " with nothing telling the model when to read it.",
       ("code.visualstudio.com custom instructions", "agnix COP-002",
        "microsoft/vscode@e06a3cee src/vs/workbench/contrib/chat/common/promptSyntax/"
        "computeAutomaticInstructions.ts (_getInstructionsWithPatternsList)"), False),
    _c("RL112", "copilot-exclude-agent", "frontmatter", "error",
       "`excludeAgent` is not `code-review`, `coding-agent` or `cloud-agent`",
       "GitHub documents two values, `code-review` and the coding agent, which its docs now"
       " call `cloud-agent` (as quoted by many repositories; the docs text we could read"
       " still says `coding-agent`, so both are accepted); any other value excludes"
       " nothing. One value or"
       " a list of them (`['coding-agent']`) is accepted, as VS Code's prompt validator"
       " accepts a string or a list; an unknown value, also inside a list, or another type"
       " (number, mapping) is reported.",
       ("docs.github.com custom instructions (excludeAgent)", "agnix COP-005",
        "microsoft/vscode src/vs/workbench/contrib/chat/common/promptSyntax/languageProviders/"
        "promptValidator.ts (validateExcludeAgent; microsoft/vscode#291924)"), False),
    _c("RL113", "invalid-glob", "frontmatter", "error",
       "Glob pattern is invalid",
       "A `[` without a closing `]`, unbalanced braces or an empty pattern makes the pattern"
       " match nothing (Claude: other patterns of the rule still work); brace expansion past"
       " 1,000 patterns is used literally.",
       ("Claude memory docs (invalid bracket expressions, brace budget)", "agnix CC-MEM-011,"
        " CUR-004"), False),
    _c("RL114", "glob-matches-nothing", "frontmatter", "warning",
       "No scope glob of the rule matches a file in the workspace",
       "A rule is judged by all its scope globs together: when none of them matches a file the"
       " rule never loads (one dead pattern next to live ones is not reported). Usually a typo,"
       " a moved directory or a pattern written relative to the wrong directory. Globs are"
       " resolved against the project root that owns the rules directory.",
       ("Claude memory docs (patterns that match nothing)", "Agent Rules Lens 'not applicable'"),
       False),
    _c("RL115", "named-file-frontmatter", "frontmatter", "warning",
       "Frontmatter in a named file leaks into the prompt",
       "Grok injects named files (AGENTS.md, CLAUDE.md, ...) verbatim; only files in rules"
       " directories have their frontmatter stripped. The YAML block reaches the model as text"
       " and its keys do nothing. Fixes: remove the block, or move the file into"
       " `.grok/rules/` where frontmatter is stripped.",
       ("Grok Build read_agents_config (spec §3.6: named files verbatim)",), True),
    _c("RL116", "unquoted-glob", "frontmatter", "error",
       "Unquoted glob starting with `*` or `{` breaks strict YAML",
       "In YAML a plain value starting with `*` is an alias and one starting with `{` a flow"
       " mapping, so `- **/*.ts` does not parse and the whole frontmatter is dropped by"
       " Claude, Copilot and Boost. Quote the glob.",
       ("YAML 1.2 §7.1 alias nodes", "Claude rules guidance: quote glob patterns"), True),
    _c("RL117", "content-before-frontmatter", "frontmatter", "warning",
       "Text before the opening `---`: the frontmatter is not recognised",
       "Frontmatter must start on the first line. With a comment or text above it, Claude,"
       " Cursor, Copilot and Boost treat the block as body text and its scope is lost, and"
       " Grok injects it verbatim. For Laravel Boost a byte-order mark before the `---` counts"
       " too (its parser needs `---` first; the others accept the BOM).",
       ("peteski22/agent-pragma#140", "Laravel Boost parser requires `---` first"), True),
    _c("RL118", "scope-ignored-by-grok", "frontmatter", "info",
       "Scoped rule that Grok injects into every session",
       "Grok reads `.claude/rules/*.md` and `.cursor/rules/*.md` for compatibility but ignores"
       " their scope keys: a rule that Claude Code (`paths`) or Cursor (`globs`) loads only for"
       " matching files is injected by Grok into every session started in that chain. One"
       " finding per file, with its estimated token cost; move it to a file Grok scopes, or"
       " accept the cost.",
       ("docs.x.ai project rules (compatibility reads)", "Claude memory docs (paths)",
        "issue #14 survey (six .claude/rules files, ~1.5k tokens)"), False),
    _c("RL119", "frontmatter-missing-opener", "frontmatter", "error",
       "Frontmatter block without its opening `---`",
       "`key: value` lines from line 1 closed by a `---` line, with no `---` above them: the"
       " block is read as body text, so its scope (`applyTo`, `paths`, `globs`) never"
       " applies. The cause is the missing first line, not missing frontmatter: the fix adds"
       " `---` on line 1 (\"add frontmatter\" is not reported).",
       ("issue #14 survey (two `.github/instructions` files)", "VS Code custom instructions"),
       True),
    _c("RL120", "mode-value", "frontmatter", "error",
       "Windsurf `trigger` or Kiro `inclusion` has a value the agent does not define",
       "Windsurf documents four triggers (`always_on`, `glob`, `model_decision`, `manual`) and"
       " Kiro four inclusion modes (`always`, `fileMatch`, `manual`, `auto`). Another value"
       " (a typo, another tool's word such as `always`) is not documented to do anything, so"
       " the file is not applied the way its author meant. The fix corrects the case where"
       " only the case is wrong.",
       ("docs.windsurf.com cascade memories (rule triggers)", "kiro.dev/docs/steering"), True),
    _c("RL121", "scope-never-fires", "frontmatter", "warning",
       "A glob-triggered rule that can never fire",
       "A Windsurf `trigger: glob` without `globs`, or a Kiro `inclusion: fileMatch` without"
       " `fileMatchPattern`, matches no file. Kiro `fileMatch` steering in the global"
       " `~/.kiro/steering` folder never triggers at all (observed in Kiro 0.12.263; the docs"
       " do not say so): only workspace steering is matched against files.",
       ("docs.windsurf.com cascade memories", "kiro.dev/docs/steering",
        "kirodotdev/Kiro#9176 (observed, 0.12.263)"), False),
    # -------------------------------------------------------------------- discovery
    _c("RL201", "gitignored", "discovery", "warning",
       "Instruction file is gitignored, so Grok skips it",
       "Grok filters candidates through the root `.gitignore` and the global excludes file;"
       " an ignored instruction file never loads. Gitignoring `CLAUDE.local.md` is the usual"
       " Claude Code practice, which makes Grok drop it. Cloud sessions never see ignored files"
       " either. The offered edit un-ignores the file; it is never applied silently.",
       ("Grok Build gitignore filter (spec §3.4)", "docs.x.ai project rules"), True),
    _c("RL202", "not-utf8", "discovery", "error",
       "Not valid UTF-8: the agent drops the file",
       "Grok reads instruction files as UTF-8 and silently drops any file that does not decode.",
       ("Grok Build read_agents_config (spec §3.6)",), False),
    _c("RL203", "unreadable", "discovery", "error",
       "File or directory cannot be read",
       "A permission error or symlink loop makes the agent drop the candidate silently.",
       ("Grok Build read_agents_config (spec §3.6)",), False),
    _c("RL204", "not-a-file", "discovery", "warning",
       "Instruction name used by a directory",
       "The agent probes named files with an existence check, so a directory called AGENTS.md"
       " is a candidate that then fails to read.",
       ("Grok Build per-root scan (spec §3.3)",), False),
    _c("RL205", "compat-disabled", "discovery", "info",
       "Switched off by a `[compat]` cell",
       "Grok reads Claude and Cursor files only while the matching `[compat.<vendor>]` switch"
       " (or `GROK_<VENDOR>_<SURFACE>_ENABLED`) is on.",
       ("Grok Build compat switches (spec §2.3)",), False),
    _c("RL206", "nested-in-rules-dir", "discovery", "warning",
       "Rule file nested below a rules directory never loads in Grok",
       "Grok lists only the direct children of `.grok/rules`, `.claude/rules` and"
       " `.cursor/rules`. Claude Code recurses, so nested files work there and silently not in"
       " Grok. The move into the rules directory is offered in the editor (unsafe); `--fix`"
       " never moves files.",
       ("Grok Build per-root scan (spec §3.3)", "Claude memory docs (recursive rules)"), True),
    _c("RL207", "misnamed-instruction-file", "discovery", "warning",
       "File name the agent does not recognise (wrong case or extension)",
       "Grok looks up exact names (`AGENTS.md`, not `agents.md`) and only `*.md` inside rules"
       " directories. On a case-sensitive file system a near-miss never loads. Only plausible"
       " instruction files are judged: a case variant of a loaded name at a repository root, a"
       " package root or next to other agent files, never a directory, and never inside a"
       " documentation site (mkdocs, Docusaurus, Sphinx), a web framework's route directories,"
       " dependencies or build output. The rename is offered in the editor (unsafe: it changes"
       " which agents read the file and breaks links to it); `--fix` never renames.",
       ("Grok Build per-root scan (spec §3.3)",), True),
    _c("RL208", "other-agent-file", "discovery", "hint",
       "File read by another agent, not by Grok",
       "GEMINI.md, `AGENTS.override.md`, `.cursorrules`, Cursor `.mdc` rules and Copilot's"
       " instructions are read by their own tools; Grok does not read them. The message names"
       " every agent that does and does not read the file, from the agent profiles with a"
       " session started at the repository root in a trusted folder (`GEMINI.md: read by"
       " Gemini CLI; not by Grok, Claude Code, …`; a scoped rule is read \"for matching"
       " files\"). A hint: the editor and `rulelens chain` show it, CI output (`rulelens lint`"
       " without `--hints`) does not.",
       ("Grok Build per-root scan (spec §3.3)", "agnix CUR-006",
        "agent-profiles.md (rulelens.agents profiles)"), False),
    _c("RL209", "loaded-twice", "discovery", "hint",
       "Same file reached twice (symlink or home/project overlap)",
       "The agent de-duplicates by canonical path: the file loads once, in the position of its"
       " first (or its project) spelling. Reported once, on the spelling that is skipped (the"
       " recommended `CLAUDE.md -> AGENTS.md` symlink gives exactly this), as a hint.",
       ("Grok Build de-duplication (spec §3.5)",), False),
    _c("RL210", "case-twin", "discovery", "warning",
       "Two names differing only by case both load",
       "On a case-sensitive file system `Agents.md` and `AGENTS.md` are two files and both"
       " load, in list order; on macOS/Windows they are one. The same repository then behaves"
       " differently per machine.",
       ("Grok Build de-duplication (spec §3.5)",), False),
    _c("RL211", "empty-file", "discovery", "warning",
       "Instruction file is empty (or only frontmatter/whitespace)",
       "An empty file costs a chain slot and tells the agent nothing; Codex skips whitespace-"
       "only files. Never reported on a directory (a directory format such as `.clinerules/`"
       " has its files linted instead).",
       ("agnix CUR-001, COP-001, WS-001", "Codex agents_md.rs (whitespace-only skipped)"), False),
    _c("RL212", "copilot-misnamed", "discovery", "warning",
       "File in `.github/instructions` not ending `.instructions.md`",
       "Copilot only reads `*.instructions.md` there. The rename is offered in the editor"
       " (unsafe); `--fix` never renames.",
       ("docs.github.com custom instructions",), True),
    _c("RL213", "never-loaded", "discovery", "warning",
       "Instruction file that no agent loads where it stands",
       "An agent's file in a place none of the modelled agents reads it from: an"
       " `AGENTS.md` in a dot-directory (`.agents/AGENTS.md`, read by nested-file readers"
       " only for files inside that folder), an `*.instructions.md` outside"
       " `.github/instructions/`, a `.github/copilot-instructions.md` below the workspace"
       " root. Every agent of the registry is asked (session at the repository root), and"
       " Grok's chain; the message names who would read the file and where. Not reported"
       " for a nested `.github/copilot-instructions.md` (or another file read only at the"
       " workspace root) whose folder has its own `.vscode/` or lockfile"
       " (`package-lock.json`, `pnpm-lock.yaml`, `yarn.lock`, `bun.lock(b)`, `uv.lock`,"
       " `poetry.lock`, `Cargo.lock`, `composer.lock`, `go.sum`): that folder is a project"
       " opened as its own workspace, where the file stands at the root and loads.",
       ("rulelens.agents registry (each agent's named files and rules directories)",
        "docs.github.com custom instructions (.github/instructions, repository root)",
        "issue #23 survey (azure-dev ext/vscode, typespec packages/http-client-java)"),
       False,
       bad="packages/web/.github/copilot-instructions.md",
       good=".github/copilot-instructions.md (or packages/web/AGENTS.md)"),
    # ------------------------------------------------------------------------- size
    _c("RL301", "claude-line-guidance", "size", "warning",
       "CLAUDE.md longer than Claude's line guidance (200 lines)",
       "Claude's memory docs ask for CLAUDE.md files under 200 lines (block HTML comments are"
       " stripped before counting, as Claude strips them before injection); longer files reduce"
       " adherence. Threshold: `claude_max_lines`.",
       ("Claude memory docs (2026-03-01 revision)", "AgentLint FILE_TOO_LONG"), False),
    _c("RL302", "claude-size-skip", "size", "error",
       "Claude memory file over 4 MiB is skipped",
       "Claude Code skips memory files larger than 4 MiB. Threshold: `claude_max_bytes`.",
       ("Claude memory docs (2026-07-23 revision)",), False),
    _c("RL303", "codex-chain-budget", "size", "warning",
       "AGENTS.md chain crosses Codex's byte budget",
       "Codex concatenates one AGENTS.md (or AGENTS.override.md) per directory from the project"
       " root down to the working directory within one shared budget,"
       " `project_doc_max_bytes` (32 KiB): the file that crosses it is truncated and deeper"
       " files are dropped. Reported on the file that crosses the budget (and on dropped"
       " files). Not reported for an AGENTS.md in an agent skill's folder (a `SKILL.md` in its"
       " own folder or one above it, up to the repository root): the agent reads that file"
       " whole when it uses the skill, and nobody starts Codex inside a skill folder."
       " The budget is Codex's own: `project_doc_max_bytes` in"
       " `$CODEX_HOME/config.toml` (default `~/.codex`) when it sets one, else the threshold"
       " `codex_max_bytes` (default 32 KiB, Codex's default).",
       ("openai/codex codex-rs/core/src/agents_md.rs", "openai/codex#36371",
        "developers.openai.com/codex/guides/agents-md"), False),
    _c("RL304", "cursor-line-guidance", "size", "warning",
       "Cursor rule longer than 500 lines",
       "Cursor's docs recommend keeping rules under 500 lines; lines are counted as an editor"
       " numbers them (a final newline does not start another line). Threshold:"
       " `cursor_max_lines`.",
       ("cursor.com/docs/rules (best practices)",), False),
    _c("RL305", "windsurf-char-limit", "size", "error",
       "Windsurf rule over 12,000 characters",
       "Windsurf truncates workspace rule files at 12,000 characters. Threshold:"
       " `windsurf_max_chars`.",
       ("docs.windsurf.com memories", "agnix WS-002"), False),
    _c("RL306", "copilot-review-window", "size", "info",
       "Copilot code review reads only the first 4,000 characters",
       "GitHub Copilot code review uses the first 4,000 characters of an instruction file;"
       " the rest is invisible to review (the coding agent reads all of it). Threshold:"
       " `copilot_review_chars`.",
       ("docs.github.com code review custom instructions", "agnix COP-006"), False),
    _c("RL308", "always-on-token-budget", "size", "info",
       "Grok chain crosses the always-on token budget (estimate)",
       "Every file of a Grok chain is injected into every conversation started in that"
       " directory. This reports the file at which the chain's estimated tokens (characters/4,"
       " the estimate used by agnix, AgentLint and Agent Rules Lens) cross"
       " `always_on_max_tokens`; agentdiet's default budget is 1,500 always-on tokens. An"
       " estimate, hence info. Not reported for a chain started inside an agent skill's"
       " folder (that folder, or one above it up to the repository root, holds a `SKILL.md`):"
       " its files are read whole when the skill is used, and no agent is started there.",
       ("agentdiet default budget (1,500 always-on tokens)", "agnix / AgentLint chars/4"
        " estimate"), False),
    _c("RL307", "content-checks-skipped", "size", "info",
       "File too large for content checks",
       "Above `max_lint_bytes` the linter reports size findings only, so a 50 MB file is"
       " linted in bounded time.",
       ("RuleLens design: bounded work per file",), False),
    # ---------------------------------------------------------------------- content
    _c("RL401", "reminder-tag-neutralised", "content", "warning",
       "`<system-reminder>`-style tag is rewritten by the agent",
       "Grok wraps instruction files in a `<system-reminder>` block and escapes the `<` of any"
       " tag like `<system-reminder>`, `</system_reminder>` in their text (`&lt;`), so the"
       " model sees different text from what the author wrote; other harnesses can be closed"
       " early by such tags.",
       ("Grok Build render/neutralise (spec §3.7)", "Yeachan-Heo/gajae-code#2352",
        "QwenLM/qwen-code#3980"), False),
    _c("RL402", "duplicate-paragraph", "content", "info",
       "Paragraph repeated from a file loaded earlier in the same chain",
       "Every file of a chain is injected; a paragraph that already appears in a file loaded"
       " earlier is paid for twice and drifts when only one copy is edited. At most three"
       " findings per pair of files (the third says how many more); HTML comments are not"
       " counted (Claude strips them).",
       ("agentfile-lint R5a/R5b", "agentlint-cli AGL302"), False),
    _c("RL403", "restated-heading", "content", "info",
       "Deeper file restates a heading of a shallower one (likely shadowing)",
       "Deeper files win on conflicts. A section heading that repeats one from a file closer to"
       " the root, with different text under it, means the deeper file overrides that"
       " section; worth a look, not an error. Generic headings (Overview, Setup, Notes, ...),"
       " file titles and sections whose text is the same or empty are not reported.",
       ("Grok Build render preamble: deeper files take precedence",), False),
    _c("RL404", "unclosed-code-fence", "content", "error",
       "Code fence is never closed",
       "An unclosed ``` fence turns the rest of the file into code: headings and rules after it"
       " read as an example, and Claude's import parser ignores every `@import` after it.",
       ("agnix AGM-001", "skillsaw content-unclosed-fence"), False),
    _c("RL405", "identical-file", "content", "warning",
       "Byte-identical to a file loaded earlier in the same chain",
       "Two separate files with the same bytes (often `CLAUDE.md` copied from `AGENTS.md`) are"
       " both loaded by Grok, so the whole text is paid for twice. One finding for the file"
       " (no paragraph or heading findings for the pair); a symlink instead of the copy loads"
       " once.",
       ("Grok Build de-duplication by canonical path (spec §3.5)",
        "issue #14 survey (36 KiB pair, ~18.6k tokens)"), False),
    _c("RL406", "contradiction", "content", "warning",
       "Two files one agent loads together contradict each other",
       "The package manager, the test runner, the formatter, the indentation, or \"always X\""
       " / \"never X\" on the same action and object, stated one way in this file and the"
       " other way in a file loaded with it (this folder's or an ancestor's named files and"
       " rules directories). Reported once, on the deeper file (a file reached under two"
       " names, such as `CLAUDE.md -> AGENTS.md`, is one file), naming both files and lines"
       " and, for every agent whose model loads both for a file in the deeper folder, which"
       " one it sees last (deeper last for Grok and Codex; OpenCode merges deepest first;"
       " Zed reads one file, so never both). Two scoped rules (`applyTo`, `globs`, `paths`)"
       " are compared for a workspace file both scopes match. Sibling folders, disjoint"
       " scopes and files no agent loads together are not compared; scoped wording (\"npm"
       " for the docs site, pnpm elsewhere\", \"when\", \"unless\", \"only\") claims nothing."
       " Bounded work: at most five findings per file, texts over 64 KiB are not read for"
       " claims, and where a folder's files and its ancestors' number over 150, Grok's chain"
       " alone names the order (every agent's view would read them all).",
       ("issue #23 (two .claude/rules files with MUST / MUST NOT that deadlock the agent)",
        "rulelens.agents views (load order per agent)", "skillsaw contradictions"), False,
       bad="AGENTS.md: Use pnpm for everything.\napps/web/AGENTS.md: Always use npm here.",
       good="AGENTS.md: Use pnpm, except npm for the docs site in `docs/`.\n"
            "apps/web/AGENTS.md: (no package-manager line; the root's applies)"),
    # ------------------------------------------------------------------- references
    _c("RL501", "import-missing", "references", "error",
       "`@import` target does not exist",
       "Claude Code and Gemini CLI expand `@path` imports (outside code spans and fences)"
       " relative to the importing file; a missing target loads nothing (Gemini CLI puts an"
       " error comment into the context instead). Evaluated from where agents read the file:"
       " through a symlink, an import that only works from the real file is reported as such."
       " Mentions (`@alice`), package scopes and home or absolute paths are not judged.",
       ("Claude memory docs (imports)", "Gemini CLI memport docs", "agnix CC-MEM imports"),
       False),
    _c("RL502", "import-gitignored", "references", "warning",
       "`@import` target is gitignored",
       "A gitignored target can never be committed: the import works on the author's machine"
       " and loads nothing for everybody else (a gitignored importing file such as"
       " `CLAUDE.local.md` is personal and exempt).",
       ("Claude memory docs (imports)", "git gitignore semantics"), False),
    _c("RL503", "import-cycle", "references", "warning",
       "`@import` leads into a cycle",
       "An import chain that reaches a file already being imported is cut there by Claude Code"
       " and Gemini CLI (cycle detection); whatever the author meant to load after the loop"
       " never loads.",
       ("Claude memory docs (imports)", "Gemini CLI memport (circular imports)"), False),
    _c("RL504", "import-too-deep", "references", "warning",
       "`@import` chain deeper than the agent's import depth limit",
       "Claude Code follows nested imports to four hops (the page said five until its"
       " 2026-05-27 revision); Gemini CLI expands a `GEMINI.md`'s imports five deep"
       " (`memoryImportProcessor` maxDepth): files further down never load. The limit is the"
       " one of the agent that reads the importing file (the profile rows' import depth).",
       ("Claude memory docs (2026-05-27 revision)", "Gemini CLI memport max depth"), False),
    _c("RL505", "broken-reference", "references", "warning",
       "Relative link or path to a file that does not exist",
       "A relative Markdown link (from the file), a backticked repository path that looks"
       " like a file (`src/app/main.py`), or a file handed to a command (`python"
       " scripts/seed.py`, `bash ./tools/x.sh`, `uv run tools/gen.py`, from where the command"
       " runs) that resolves to nothing sends the agent looking for a file that moved."
       " Backticked paths, and links in rule directories (`.cursor/rules`, `.claude/rules`,"
       " `.github/instructions`), count when they exist from the repository root, the"
       " workspace root the rule governs or the file's folder; Cursor's `[x](mdc:path)` links"
       " from the workspace root (the repository root). Conservative: URLs, anchors,"
       " globs, placeholders (`[text](link)`, `<name>`), negative examples (\"do not create"
       " `x`\"), files to create, files in another repository (\"in that repo\"), home and"
       " personal files (`~/.claude/settings.json`, `.claude/settings.local.json`, `.env`),"
       " links out of the repository, build outputs and gitignored paths are skipped."
       " Through a symlink (`CLAUDE.md -> AGENTS.md`) a finding is reported once, on the real"
       " file; only a link that works from the real file and not from the symlink's folder is"
       " the symlink's own finding. Messages name repository-relative paths only.",
       ("agnix XP references", "issue #14 survey of 30 repositories",
        "issue #23 survey (moved files in trigger.dev, typescript-sdk, vscode-copilot-chat)"),
       False,
       bad="`.cursor/rules/api.mdc`: Keep `src/api/routes.ts` thin (the file moved to"
           " `src/http/routes.ts`).",
       good="`.cursor/rules/api.mdc`: Keep `src/http/routes.ts` thin."),
    _c("RL506", "undefined-script", "references", "warning",
       "A command names a script, target, recipe or task that is not defined where it runs",
       "Commands in fences, code spans and (for `npm|pnpm|yarn|bun run X`) prose are checked"
       " where they would run: npm/pnpm/yarn/bun scripts against the package that"
       " `-w`/`--workspace`/`--filter`/`-F`/`yarn workspace`/`--cwd`/`cd dir &&` selects, or"
       " else the file's folder, the root, a package the surrounding heading or sentence"
       " names and the package a scoped rule applies to (a script another package defines is"
       " then not reported); bare `pnpm X`/`yarn X` only when X cannot be a binary (`a:b`);"
       " `npx`/`bunx`/`uv run`/`poetry run` run binaries and are never judged; `make` with"
       " `include`, pattern rules, `-C dir`, `-f` and sub-Makefiles; `just` recipes,"
       " `task` tasks, `composer run` scripts, `nox -s` sessions, `tox -e` environments,"
       " `turbo run` tasks and `nx run` projects. A construct that could define any name (a"
       " computed make target, `$(eval)`, an unreadable make include or justfile `import`,"
       " a flattened Taskfile include, generative tox names, nx plugins) leaves only unknown"
       " names alone (for make, an RL507 note names the construct and its line; justfile"
       " imports are followed, `mod` and Taskfile `includes:` are namespaces); placeholders"
       " (`X`, `<name>`, `watch:*`), English (\"make assertions\"), commands shown as what"
       " not to run and commands run in a container are skipped. A"
       " manifest that is too large or unreadable is named in one line instead.",
       ("agentlint-cli package-manager checks", "issue #14 survey of 30 repositories",
        "issue #23 survey (cline `bun run protos` from apps/vscode)"), False,
       bad="## VS Code extension (`apps/vscode`)\n\nRun `bun run protos` (no package"
           " defines `protos`).",
       good="## VS Code extension (`apps/vscode`)\n\nRun `bun run protos` (defined in"
            " apps/vscode/package.json)."),
    _c("RL507", "target-not-checked", "references", "info",
       "A make target could not be checked: a construct RuleLens does not evaluate may"
       " define it",
       "RuleLens reads a Makefile the way GNU make finds targets (explicit and pattern rules,"
       " `.PHONY`, `include`, `-C`, `-f`, sub-Makefiles, variables assigned plainly such as"
       " `PROGS = a b` for `$(PROGS):`) but does not run make: a target name computed from a"
       " variable it cannot know (`BIN ?= ...`, the environment), make code (`$(eval ...)`,"
       " `$(call ...)`,"
       " `$(foreach ...)` at the top level) or an include whose name is computed or that"
       " cannot be read may define any name. A target named in an instruction file that is"
       " found nowhere else is then not reported as missing (RL506); this note names the"
       " construct and its Makefile line instead, so the reader knows which name was left"
       " unchecked and why. Only that name is skipped: every other target of the same"
       " Makefile is still checked, a computed name whose shape cannot fit the goal"
       " (`$(TOOLS)/lint` for `make deploy`) leaves it checked, and a name the construct"
       " spells out (`$(eval gen: ...)` for `make gen`) counts as defined.",
       ("issue #23 (never give up on a whole Makefile because one construct is not"
        " understood)", "GNU make manual (eval, include, computed names)"), False,
       bad="Makefile: `$(BIN): ; go build` (a computed target name)\n"
           "AGENTS.md: Run `make release` before tagging.",
       good="Makefile: `$(BIN): ; go build` and `release: $(BIN) ; ./release.sh`\n"
            "AGENTS.md: Run `make release` before tagging."),
)

BY_CODE: dict[str, Check] = {c.code: c for c in CHECKS}


def get(code: str) -> Check:
    return BY_CODE[code]
