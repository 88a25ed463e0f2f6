"""What an agent loads, as data: one :class:`AgentProfile` row per agent *and version*.

A profile says which files an agent reads (named files in probe order, rules directories
and the ``[compat]`` cell gating each, home roots), how far up it looks (the project
boundary), what filters apply (gitignore, folder trust), how it treats frontmatter, how it
frames the text it injects (renderer ids), and how RuleLens words every reason a file does
not load. The discovery code in ``rulelens.rules`` reads these rows instead of spelling
Grok's tables itself; adding a version or an agent is one more row (plus, when the agent
really behaves differently, the strategy that behaviour needs).

Rows are immutable and shared; :func:`profile` resolves an id (``grok``, ``grok@1.0.45``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

#: A ``[compat]`` cell, ``(vendor, surface)``: ``("claude", "rules")``.
Cell = tuple[str, str]

#: Where a file came from (Grok >= 1.0.45 ``InstructionSource``; older Grok knows two).
Source = Literal["home", "configured", "project"]

#: How far up from the working directory project files are looked for.
#: ``git-root``: libgit2 ``discover`` from the canonical cwd up to its worktree root, no
#: ``$HOME`` guard (Grok 1.0.6; RuleLens canonicalises the cwd first, spec §3.1).
#: ``repo-dir-chain``: ``RepoDirChain::resolve`` (Grok >= 1.0.45, addendum §A3.1/§A4): the
#: cwd as spelled, each level compared canonically with the root, a root equal to
#: ``$HOME`` dropped. ``marker``: nearest directory holding one of ``boundary_markers``.
#: ``filesystem-root``: every ancestor (Claude Code). ``cwd``: the working directory only.
#: ``root-parent``: up to the parent of the nearest ``.git`` root (without one, the parent of
#: ``$HOME``), Qwen Code's walk.
Boundary = Literal["git-root", "repo-dir-chain", "marker", "filesystem-root", "cwd",
                   "root-parent"]

#: How frontmatter reaches the model. ``strip-rules``: named files verbatim, files found in
#: a rules directory stripped (Grok). ``verbatim``: never stripped. ``scope``: stripped and
#: its scope key decides when the file applies (Claude ``paths``, Cursor ``globs``, ...).
Frontmatter = Literal["strip-rules", "verbatim", "scope"]

#: How a file's token figure is estimated. ``chars-ceil-4``: characters / 4 rounded up
#: (RuleLens before profiles, kept for grok@1.0.6). ``bytes-floor-4``: UTF-8 bytes of the
#: injected text / 4 rounded down, what ``grok inspect`` prints as ``approxTokens``.
TokenEstimate = Literal["chars-ceil-4", "bytes-floor-4"]

#: De-duplication of a file reached twice (spec §3.5 / addendum §A3.5).
#: ``two-valued``: home/project, a project hit moves the entry to the end.
#: ``three-valued``: home/configured/project; configured entries keep their place.
Dedup = Literal["two-valued", "three-valued"]

#: How sure a fact is: ``code`` (read in the agent's source or its unit tests), ``docs``
#: (its documentation only), ``observed`` (a session record or an issue report).
Evidence = Literal["code", "docs", "observed"]


@dataclass(frozen=True)
class NamedFile:
    """A file probed by exact name in every root that scans named files.

    ``name`` is relative to the root and may have a directory part
    (``.claude/CLAUDE.md``). ``gate`` is the compat cell that must be on, or ``None``.
    """

    name: str
    gate: Cell | None = None


@dataclass(frozen=True)
class RulesDir:
    """A directory whose ``*.md`` entries load as rule files (frontmatter stripped).

    ``path`` is relative to a project root (``.grok/rules``). ``recursive``: the agent
    also reads subdirectories (Grok does not; Claude Code does).
    """

    path: str
    gate: Cell | None = None
    recursive: bool = False


@dataclass(frozen=True)
class HomeRoot:
    """A root outside the project scanned on every start.

    ``base`` is ``agent-home`` (``$GROK_HOME``, ``$CODEX_HOME``, ...) or ``home``
    (``$HOME``); ``path`` is relative to it (``""`` for the base itself). The root scans
    the profile's named files when ``named`` (and ``named_gate`` is on), and its
    ``rules_dir`` (relative to the root) when set (and ``rules_gate`` is on).
    """

    base: Literal["agent-home", "home"]
    path: str = ""
    named: bool = True
    named_gate: Cell | None = None
    rules_dir: str | None = "rules"
    rules_gate: Cell | None = None
    #: Names probed in this root instead of the profile's named files, where the agent
    #: reads other names at home (Copilot: ``~/.copilot/copilot-instructions.md``).
    names: tuple[str, ...] | None = None


@dataclass(frozen=True)
class TrustRule:
    """Whether, and how, a per-user folder decision withholds project files.

    ``kind`` names the strategy the resolver runs (``grok-folder-trust``: addendum §A6).
    ``withholds`` are the sources an undecided or untrusted folder does not load.
    ``command`` is what the user runs to grant it; ``store`` where the agent keeps it
    (relative to the agent home).
    """

    kind: Literal["grok-folder-trust", "codex-trusted-projects", "gemini-trusted-folders",
                  "qwen-trusted-folders"]
    withholds: frozenset[Source] = frozenset({"project"})
    command: str = ""
    store: str = ""


@dataclass(frozen=True)
class OnRead:
    """Files an agent adds when it reads a file during a session (not at start-up).

    For agents such as Claude Code (nested ``CLAUDE.md``, ``paths`` rules) and Gemini CLI
    (JIT context). ``names`` are probed in each directory from the read file's directory
    up to ``up_to``; ``scoped_rules``: rules whose scope key matches the read file load.
    Grok has none (its ``AgentsMdTracker`` is dormant, spec §5).
    """

    names: tuple[str, ...] = ()
    up_to: Literal["cwd", "project-root", "workspace"] = "cwd"
    scoped_rules: bool = False


@dataclass(frozen=True)
class Imports:
    """``@path`` style imports inside instruction files (Claude Code, Gemini CLI)."""

    syntax: str
    max_depth: int
    skips_code: bool = True


@dataclass(frozen=True)
class Budget:
    """A size limit the agent applies to what it injects (Codex ``project_doc_max_bytes``)."""

    max_bytes: int
    scope: Literal["per-file", "project-total"]
    overflow: Literal["truncate", "skip", "drop-deeper"]


@dataclass(frozen=True)
class SourceRef:
    """Where a profile's facts come from: a research note section and upstream code."""

    note: str
    upstream: str


#: The user-facing wording of every skip reason, as ``str.format`` templates; ``{display}``
#: is the profile's display name. Keys: the skip reason (``gitignored``), with a suffix
#: where one reason has several sentences (``unrecognized-name.case``).
Wording = Mapping[str, str]

_GROK_WORDING: dict[str, str] = {
    "gitignored": "ignored by {source}:{line} (`{pattern}`); {display} skips gitignored"
                  " instruction files",
    "not-utf8": "not valid UTF-8 (byte {byte}); the agent drops it silently. Re-save it as"
                " UTF-8",
    "unreadable": "cannot be read ({why})",
    "unreadable.dir": "cannot list this directory ({why}); files in it are still found by"
                      " exact name, as the agent finds them, but misnamed files here cannot"
                      " be reported",
    "unreadable.rules-dir": "cannot list this rules directory ({why})",
    "not-a-file": "it is a directory, not a file; the agent cannot read it",
    "compat-disabled": "the [compat.{vendor}] {surface} switch is off ({origin})",
    "nested-in-rules-dir": "{display} reads only files directly inside {rules_dir}; this one"
                           " is nested ({rel}). Move it up to load it",
    "unrecognized-name.case": "{display} looks for exact names ({names}); on a case-sensitive"
                              " file system `{name}` is not one of them. Rename it to"
                              " `{suggest}`",
    "unrecognized-name.other": "{who}. Put instructions for {display} in {hint}",
    "unrecognized-name.dot-md": "a file named exactly `.md` has no extension; {display}"
                                " skips it",
    "unrecognized-name.mdc": "Cursor's `.mdc` format; {display} reads only `*.md` files in"
                             " rules directories",
    "unrecognized-name.ext": "{display} reads only `*.md` files in rules directories",
    "duplicate.project": "same file as {path}; it loads once, in the project position",
    "duplicate.loaded": "same file as {path}, which already loads",
    "duplicate.configured": "same file as {path}; it loads once, in the configured position",
    "untrusted-folder": "{display} loads project instructions only in a trusted folder; it"
                        " will ask when a session starts here, or run `{command}`",
}

#: Files other agents read that this one does not, with who reads them (``{display}``).
_GROK_FOREIGN: dict[str, str] = {
    "AGENTS.local.md": "a personal-override convention some tools use; {display} does not"
                       " read it",
    "AGENT.local.md": "a personal-override convention some tools use; {display} does not"
                      " read it",
    "GEMINI.md": "Gemini CLI reads it; {display} does not",
    ".cursorrules": "legacy Cursor rules file; {display} does not read it",
    ".windsurfrules": "Windsurf reads it; {display} does not",
    ".clinerules": "Cline reads it; {display} does not",
    ".github/copilot-instructions.md": "GitHub Copilot reads it; {display} does not",
}


@dataclass(frozen=True)
class AgentProfile:
    """Everything RuleLens knows about how one agent version loads instruction files."""

    #: ``<agent>@<version>``: ``grok@1.0.45``.
    id: str
    #: The name messages use: "Grok". Never a literal in discovery code.
    display: str
    #: Longer name for listings: "Grok Build 1.0.45".
    title: str
    named_files: tuple[NamedFile, ...]
    rules_dirs: tuple[RulesDir, ...]
    home_roots: tuple[HomeRoot, ...]
    boundary: Boundary
    gitignore: bool
    frontmatter: Frontmatter
    #: Renderer ids; the first is the default (``system-reminder``, ``rules``).
    renderers: tuple[str, ...]
    wording: Wording
    sources: tuple[SourceRef, ...]
    tokens: TokenEstimate = "chars-ceil-4"
    dedup: Dedup = "two-valued"
    #: ``None``: no folder decision withholds anything.
    trust: TrustRule | None = None
    #: Reads ``[paths] extra_rule_dirs`` from the agent's config (source ``configured``).
    extra_rule_dirs: bool = False
    #: Markers for ``boundary == "marker"`` (``.git``).
    boundary_markers: tuple[str, ...] = ()
    #: Environment variable naming the agent home, and its default below ``$HOME``.
    home_env: str = "GROK_HOME"
    home_default: str = ".grok"
    #: Executable whose ``--version`` says which version is installed, if any.
    executable: str | None = None
    on_read: OnRead | None = None
    imports: Imports | None = None
    budget: Budget | None = None
    #: Near-miss files other agents read, with who reads them (templates, ``{display}``).
    foreign_files: Mapping[str, str] = field(default_factory=dict)
    #: How sure this row's facts are; a closed-source agent is never ``code``.
    evidence: Evidence = "docs"
    #: The main source, compactly: ``owner/repo@commit:path`` or ``URL (seen YYYY-MM-DD)``.
    source: str = ""

    @property
    def agent(self) -> str:
        """The agent family: ``grok`` for ``grok@1.0.45``."""
        return self.id.split("@", 1)[0]

    @property
    def version(self) -> str:
        return self.id.split("@", 1)[1] if "@" in self.id else ""

    def say(self, key: str, **fields: object) -> str:
        """The sentence for ``key`` (see :data:`Wording`), filled in."""
        return self.wording[key].format(display=self.display, **fields)

    def foreign(self, name: str) -> str | None:
        """Who reads ``name`` instead of this agent, as a sentence; ``None`` if unknown."""
        template = self.foreign_files.get(name)
        return None if template is None else template.format(display=self.display)

    def names(self, enabled: Mapping[Cell, bool] | None = None) -> tuple[str, ...]:
        """Named files in probe order, leaving out those whose gate is off."""
        return tuple(n.name for n in self.named_files
                     if n.gate is None or enabled is None or enabled.get(n.gate, True))

    @property
    def base_names(self) -> tuple[str, ...]:
        """Named files no compat cell can switch off."""
        return tuple(n.name for n in self.named_files if n.gate is None)

    @property
    def renders(self) -> str:
        """The default renderer id."""
        return self.renderers[0]


def version_key(version: str) -> tuple[int, ...]:
    """``"1.0.45"`` -> ``(1, 0, 45)``; non-numeric parts count as 0."""
    return tuple(int(p) if p.isdigit() else 0 for p in version.split("."))


_GROK_NAMED = (
    NamedFile("Agents.md"), NamedFile("Claude.md"), NamedFile("CLAUDE.md"),
    NamedFile("CLAUDE.local.md"), NamedFile("AGENT.md"), NamedFile("AGENTS.md"),
    NamedFile(".claude/CLAUDE.md", ("claude", "agents")),
    NamedFile(".claude/CLAUDE.local.md", ("claude", "agents")),
)
_GROK_RULES_DIRS = (
    RulesDir(".grok/rules"),
    RulesDir(".claude/rules", ("claude", "rules")),
    RulesDir(".cursor/rules", ("cursor", "rules")),
)
_GROK_HOMES = (
    HomeRoot("agent-home"),
    HomeRoot("home", ".claude", named_gate=("claude", "agents"), rules_gate=("claude", "rules")),
    HomeRoot("home", ".cursor", named_gate=("cursor", "agents"), rules_gate=("cursor", "rules")),
)

GROK_1_0_6 = AgentProfile(
    id="grok@1.0.6",
    evidence="code", source="xai-org/grok-build@19d42e3:xai-grok-agent/src/prompt/agents_md.rs",
    display="Grok",
    title="Grok Build 1.0.6",
    named_files=_GROK_NAMED,
    rules_dirs=_GROK_RULES_DIRS,
    home_roots=_GROK_HOMES,
    boundary="git-root",
    gitignore=True,
    frontmatter="strip-rules",
    renderers=("system-reminder",),
    wording=_GROK_WORDING,
    foreign_files=_GROK_FOREIGN,
    executable="grok",
    sources=(
        SourceRef("grok-build-behaviour.md §2-§3",
                  "xai-org/grok-build @19d42e3 xai-grok-agent/src/prompt/agents_md.rs"),
    ),
)

GROK_1_0_45 = AgentProfile(
    id="grok@1.0.45",
    evidence="code", source="zuozh11/grok-plus@21d45e4:xai-grok-agent/src/prompt/agents_md.rs",
    display="Grok",
    title="Grok Build 1.0.45",
    named_files=_GROK_NAMED,
    rules_dirs=_GROK_RULES_DIRS,
    home_roots=_GROK_HOMES,
    boundary="repo-dir-chain",
    gitignore=True,
    frontmatter="strip-rules",
    renderers=("system-reminder", "rules"),
    wording=_GROK_WORDING,
    foreign_files=_GROK_FOREIGN,
    executable="grok",
    tokens="bytes-floor-4",
    dedup="three-valued",
    trust=TrustRule("grok-folder-trust", command="grok --trust",
                    store="trusted_folders.toml"),
    extra_rule_dirs=True,
    sources=(
        SourceRef("grok-build-1.0.45.md §A3, §A4",
                  "zuozh11/grok-plus @21d45e4 xai-grok-agent/src/prompt/agents_md.rs;"
                  " @24b1106 xai-grok-permission-rules/src/repo.rs"),
        SourceRef("grok-build-1.0.45.md §A6",
                  "zuozh11/grok-plus @24b1106 xai-grok-config-types/src/trust.rs,"
                  " xai-grok-workspace/src/folder_trust.rs"),
        SourceRef("grok-build-1.0.45.md §A3.11",
                  "zuozh11/grok-plus @21d45e4 xai-grok-agent/src/prompt/user_message.rs"),
        SourceRef("grok-build-1.0.45.md §A8",
                  "zuozh11/grok-plus @24b1106 xai-grok-shell/src/inspect/mod.rs"),
    ),
)

# ------------------------------------------------ the other agents (issue 13)
# Their discovery is one pure module each (rulelens.agents.claude, .codex, ...; the
# ``registry``); these rows are the data those modules and docs/agents.md share. Wording for
# docs-based profiles names the docs, so a reader knows how sure the fact is.
_NO_WORDING: dict[str, str] = {}

CLAUDE = AgentProfile(
    id="claude@2.1",
    evidence="docs", source="https://code.claude.com/docs/en/memory (seen 2026-08)",
    display="Claude Code", title="Claude Code 2.1 (per docs, 2026-08)",
    named_files=(NamedFile("CLAUDE.md"), NamedFile(".claude/CLAUDE.md"),
                 NamedFile("CLAUDE.local.md")),
    rules_dirs=(RulesDir(".claude/rules", recursive=True),),
    home_roots=(HomeRoot("home", ".claude"),),
    boundary="filesystem-root", gitignore=False, frontmatter="scope",
    renderers=("claude-md",), wording=_NO_WORDING, home_env="CLAUDE_CONFIG_DIR",
    home_default=".claude", executable="claude",
    on_read=OnRead(("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"), "cwd", True),
    imports=Imports("@path", 4), budget=Budget(4 * 1024 * 1024, "per-file", "skip"),
    sources=(SourceRef("agent-profiles.md §3 (docs + observed; closed source)",
                       "code.claude.com/docs/en/memory; anthropics/claude-code CHANGELOG"
                       " @5cfc0a19, mods/agents-md @42a37c29"),),
)
CODEX = AgentProfile(
    id="codex@0cf644a",
    evidence="code", source="openai/codex@0cf644af:codex-rs/core/src/agents_md.rs",
    display="Codex CLI", title="Codex CLI (codex-rs @0cf644af)",
    named_files=(NamedFile("AGENTS.override.md"), NamedFile("AGENTS.md")),
    rules_dirs=(), home_roots=(HomeRoot("agent-home", rules_dir=None),),
    boundary="marker", boundary_markers=(".git",), gitignore=False, frontmatter="verbatim",
    renderers=("codex-instructions",), wording=_NO_WORDING, home_env="CODEX_HOME",
    home_default=".codex", executable="codex",
    trust=TrustRule("codex-trusted-projects", command='trust_level = "trusted" in config.toml',
                    store="config.toml"),
    budget=Budget(32 * 1024, "project-total", "truncate"),
    sources=(SourceRef("agent-profiles.md §1",
                       "openai/codex codex-rs/core/src/agents_md.rs @0cf644af,"
                       " agents_md_tests.rs @04393ff9"),),
)
CURSOR = AgentProfile(
    id="cursor@2026-08",
    evidence="docs", source="https://cursor.com/docs/rules (seen 2026-08)",
    display="Cursor", title="Cursor (per docs, 2026-08)",
    named_files=(NamedFile("AGENTS.md"), NamedFile(".cursorrules")),
    rules_dirs=(RulesDir(".cursor/rules", recursive=True),), home_roots=(),
    boundary="cwd", gitignore=False, frontmatter="scope", renderers=(),
    wording=_NO_WORDING, home_default=".cursor", executable="cursor",
    on_read=OnRead(("AGENTS.md",), "workspace", True),
    sources=(SourceRef("agent-profiles.md §4 (docs; closed source)",
                       "cursor.com/docs/rules"),),
)
COPILOT = AgentProfile(
    id="copilot@2026-08",
    evidence="docs",
    source="github/docs@27958cad:data/reusables/copilot/custom-instructions-path.md",
    display="GitHub Copilot",
    title="GitHub Copilot: VS Code agent, coding agent, CLI (per docs, 2026-08)",
    named_files=(NamedFile(".github/copilot-instructions.md"), NamedFile("AGENTS.md"),
                 NamedFile("CLAUDE.md")),
    rules_dirs=(RulesDir(".github/instructions", recursive=True),),
    home_roots=(HomeRoot("home", ".copilot", names=("copilot-instructions.md",),
                         rules_dir="instructions"),),
    boundary="git-root", gitignore=False, frontmatter="scope", renderers=(),
    wording=_NO_WORDING, home_default=".copilot",
    on_read=OnRead((), "project-root", True),
    budget=Budget(4000, "per-file", "truncate"),
    sources=(SourceRef("agent-profiles.md §5 (docs)",
                       "github/docs custom-instructions @0afe69c8, @27958cad;"
                       " code.visualstudio.com custom-instructions reference"),),
)
GEMINI = AgentProfile(
    id="gemini@0.56.0",
    evidence="code",
    source="google-gemini/gemini-cli@5411f113:packages/core/src/utils/memoryDiscovery.ts",
    display="Gemini CLI", title="Gemini CLI 0.56.0 (@5411f113)",
    named_files=(NamedFile("GEMINI.md"),), rules_dirs=(),
    home_roots=(HomeRoot("agent-home", rules_dir=None),),
    boundary="marker", boundary_markers=(".git",), gitignore=False, frontmatter="verbatim",
    renderers=("gemini-context",), wording=_NO_WORDING, home_env="GEMINI_CLI_HOME",
    home_default=".gemini", executable="gemini",
    trust=TrustRule("gemini-trusted-folders", command="trust the folder when Gemini CLI asks",
                    store="trustedFolders.json"),
    on_read=OnRead(("GEMINI.md",), "project-root", False), imports=Imports("@path", 5),
    sources=(SourceRef("agent-profiles.md §2",
                       "google-gemini/gemini-cli @5411f113 packages/core/src/utils/"
                       "memoryDiscovery.ts, memoryImportProcessor.ts (+ tests)"),),
)
BOOST = AgentProfile(
    id="boost@2.5.5",
    evidence="code", source="laravel/boost@8d8cb703:src/Rules/RuleRepository.php",
    display="Laravel Boost", title="Laravel Boost project rules (@8d8cb703)",
    named_files=(NamedFile(".ai/rules/index.md"),),
    rules_dirs=(RulesDir(".ai/rules"), RulesDir(".ai/rules/boost")), home_roots=(),
    boundary="cwd", gitignore=False, frontmatter="scope", renderers=(),
    wording=_NO_WORDING, home_default=".ai",
    sources=(SourceRef("agent-profiles.md §6",
                       "laravel/boost @8d8cb703 src/Rules/RuleRepository.php,"
                       " RuleFrontmatter.php (+ tests)"),),
)
WINDSURF = AgentProfile(
    id="windsurf@2026-12",
    evidence="docs", source="https://docs.windsurf.com/windsurf/cascade/memories (seen 2026-12)",
    display="Windsurf", title="Windsurf / Devin Desktop Cascade (per docs as stored, 2026-12)",
    named_files=(NamedFile("AGENTS.md"), NamedFile(".windsurfrules")),
    rules_dirs=(RulesDir(".windsurf/rules"), RulesDir(".devin/rules")),
    home_roots=(HomeRoot("home", ".codeium/windsurf/memories", named=False, rules_dir=None),),
    boundary="git-root", gitignore=False, frontmatter="scope", renderers=(),
    wording=_NO_WORDING, home_default=".codeium/windsurf",
    on_read=OnRead(("AGENTS.md",), "cwd", True),
    sources=(SourceRef("agent-profiles-more.md §4 (docs; closed source)",
                       "docs.windsurf.com/windsurf/cascade/memories, /agents-md"),),
)
KIRO = AgentProfile(
    id="kiro@2026-12",
    evidence="docs", source="https://kiro.dev/docs/steering/ (seen 2026-12)",
    display="Kiro", title="Kiro IDE and CLI steering (per docs as stored, 2026-12; the global"
                          " fileMatch gap observed in Kiro 0.12.263)",
    named_files=(NamedFile("AGENTS.md"),),
    rules_dirs=(RulesDir(".kiro/steering"),),
    home_roots=(HomeRoot("home", ".kiro", named=False, rules_dir="steering"),),
    boundary="cwd", gitignore=False, frontmatter="scope", renderers=(),
    wording=_NO_WORDING, home_default=".kiro", executable="kiro",
    on_read=OnRead((), "workspace", True), imports=Imports("#[[file:path]]", 1, False),
    sources=(SourceRef("agent-profiles-more.md §5 (docs; closed source)",
                       "kiro.dev/docs/steering; kirodotdev/Kiro#9176 (observed, 0.12.263)"),),
)
ZED = AgentProfile(
    id="zed@0023f768",
    evidence="code", source="zed-industries/zed@0023f768:crates/agent/src/agent.rs",
    display="Zed", title="Zed Agent Panel (zed-industries/zed @0023f768; name order per"
                         " docs @00111873)",
    named_files=(NamedFile(".rules"), NamedFile(".cursorrules"), NamedFile(".windsurfrules"),
                 NamedFile(".clinerules"), NamedFile(".github/copilot-instructions.md"),
                 NamedFile("AGENT.md"), NamedFile("AGENTS.md"), NamedFile("CLAUDE.md"),
                 NamedFile("GEMINI.md")),
    rules_dirs=(), home_roots=(HomeRoot("home", ".config/zed", named=False, rules_dir=None),),
    boundary="cwd", gitignore=False, frontmatter="verbatim", renderers=(),
    wording=_NO_WORDING, home_default=".config/zed", executable="zed",
    sources=(SourceRef("agent-profiles-more.md §6, corrected from the code",
                       "zed-industries/zed @0023f768 crates/agent/src/agent.rs"
                       " (load_worktree_rules_file, test_maintaining_project_context);"
                       " docs/src/ai/rules.md @00111873"),),
)
JUNIE = AgentProfile(
    id="junie@2026-12",
    evidence="docs",
    source="https://www.jetbrains.com/help/junie/customize-guidelines.html (seen 2026-12)",
    display="Junie", title="JetBrains Junie (per docs as stored, 2026-12)",
    named_files=(NamedFile(".junie/guidelines.md"), NamedFile("AGENTS.md")),
    rules_dirs=(), home_roots=(),
    boundary="cwd", gitignore=False, frontmatter="verbatim", renderers=(),
    wording=_NO_WORDING, home_default=".junie",
    sources=(SourceRef("agent-profiles-more.md §7 (docs; closed source)",
                       "jetbrains.com/help/junie/customize-guidelines.html,"
                       " /project-settings.html"),),
)
CLINE = AgentProfile(
    id="cline@864419d8",
    evidence="code",
    source="cline/cline@864419d8:apps/vscode/src/core/context/instructions/user-instructions",
    display="Cline", title="Cline VS Code extension (rule loader @864419d8, before the"
                           " 2026-08 SDK migration)",
    named_files=(NamedFile(".clinerules"), NamedFile(".cursorrules"),
                 NamedFile(".windsurfrules"), NamedFile("AGENTS.md")),
    rules_dirs=(RulesDir(".clinerules", recursive=True),
                RulesDir(".cursor/rules", recursive=True)),
    home_roots=(HomeRoot("home", "Documents/Cline", named=False, rules_dir="Rules"),),
    boundary="cwd", gitignore=False, frontmatter="scope", renderers=("cline-instructions",),
    wording=_NO_WORDING, home_env="CLINE_DIR", home_default=".cline",
    on_read=OnRead((), "cwd", True),
    sources=(SourceRef("agent-profiles-more.md §1",
                       "cline/cline @864419d8 apps/vscode/src/core/context/instructions/"
                       "user-instructions/{cline-rules,external-rules,rule-helpers,"
                       "rule-conditionals,frontmatter}.ts (+ __tests__)"),),
)
OPENCODE = AgentProfile(
    id="opencode@00b964bd",
    evidence="code",
    source="anomalyco/opencode@00b964bd:packages/opencode/src/session/instruction.ts",
    display="OpenCode", title="OpenCode (instruction.ts @00b964bd, tests @1565a419)",
    named_files=(NamedFile("AGENTS.md"), NamedFile("CLAUDE.md"), NamedFile("CONTEXT.md")),
    rules_dirs=(),
    home_roots=(HomeRoot("home", ".config/opencode", rules_dir=None),
                HomeRoot("home", ".claude", rules_dir=None)),
    boundary="git-root", gitignore=False, frontmatter="verbatim",
    renderers=("opencode-instructions",), wording=_NO_WORDING,
    home_env="OPENCODE_CONFIG_DIR", home_default=".config/opencode", executable="opencode",
    on_read=OnRead(("AGENTS.md", "CLAUDE.md", "CONTEXT.md"), "cwd", False),
    sources=(SourceRef("agent-profiles-more.md §2",
                       "anomalyco/opencode @00b964bd packages/opencode/src/session/"
                       "instruction.ts; test/session/instruction.test.ts @1565a419"),),
)
QWEN = AgentProfile(
    id="qwen@0f8ce082",
    evidence="code",
    source="QwenLM/qwen-code@0f8ce082:packages/core/src/utils/memoryDiscovery.ts",
    display="Qwen Code", title="Qwen Code (memoryDiscovery @0f8ce082, rulesDiscovery"
                               " @1aba1b9f)",
    named_files=(NamedFile("QWEN.md"), NamedFile("AGENTS.md"),
                 NamedFile(".qwen/QWEN.local.md")),
    rules_dirs=(RulesDir(".qwen/rules", recursive=True),),
    home_roots=(HomeRoot("agent-home", rules_dir="rules"),),
    boundary="root-parent", boundary_markers=(".git",), gitignore=False, frontmatter="scope",
    renderers=("qwen-context",), wording=_NO_WORDING, home_env="QWEN_HOME",
    home_default=".qwen", executable="qwen",
    trust=TrustRule("qwen-trusted-folders", command="trust the folder when Qwen Code asks",
                    store="trustedFolders.json"),
    on_read=OnRead((), "project-root", True), imports=Imports("@path", 5),
    sources=(SourceRef("agent-profiles-more.md §3",
                       "QwenLM/qwen-code @0f8ce082 packages/core/src/utils/memoryDiscovery.ts"
                       " (+ test); @1aba1b9f rulesDiscovery.ts; @1bce6c66 memory/const.ts;"
                       " cli/src/config/trustedFolders.ts"),),
)
CONTINUE = AgentProfile(
    id="continue@2026-08",
    evidence="docs",
    source="https://docs.continue.dev/customize/deep-dives/rules (seen 2026-08)",
    display="Continue", title="Continue (per docs, 2026-08)",
    named_files=(), rules_dirs=(RulesDir(".continue/rules", recursive=True),),
    home_roots=(HomeRoot("home", ".continue", named=False, rules_dir="rules"),),
    boundary="cwd", gitignore=False, frontmatter="scope", renderers=(),
    wording=_NO_WORDING, home_env="CONTINUE_GLOBAL_DIR", home_default=".continue",
    on_read=OnRead((), "workspace", True),
    sources=(SourceRef("agent-profiles-more.md §9 (docs)",
                       "docs.continue.dev/customize/deep-dives/rules"),),
)
AIDER = AgentProfile(
    id="aider@2026-08",
    evidence="docs", source="https://aider.chat/docs/config/aider_conf.html (seen 2026-08)",
    display="Aider", title="Aider (per docs, 2026-08)",
    named_files=(), rules_dirs=(), home_roots=(),
    boundary="git-root", gitignore=False, frontmatter="verbatim", renderers=(),
    wording=_NO_WORDING, home_env="HOME", home_default="", executable="aider",
    sources=(SourceRef("agent-profiles-more.md §8 (docs)",
                       "aider.chat/docs/config/aider_conf.html, /docs/usage/conventions.html"),),
)
#: The non-Grok rows, in the side-by-side column order.
OTHER_AGENTS: tuple[AgentProfile, ...] = (CLAUDE, CODEX, CURSOR, COPILOT, GEMINI, BOOST,
                                           CLINE, OPENCODE, QWEN, WINDSURF, KIRO, ZED, JUNIE,
                                           AIDER, CONTINUE)

#: Every known profile. Append rows here (and to docs/agents.md); nothing else lists them.
PROFILES: tuple[AgentProfile, ...] = (GROK_1_0_6, GROK_1_0_45, *OTHER_AGENTS)

#: What ``--agent`` means when not given.
DEFAULT_AGENT = "grok"


class UnknownAgent(ValueError):
    """An ``--agent`` id no profile answers to."""


#: Every row by its id and, for a bare family id, its newest row: :func:`profile` answers
#: 80 times per file in a 16-agent lens and hover: a scan of the rows instead cost them
#: +17 % (in-process A/B, 200 cold files of bench/lsp.py's tree).
_ROW: dict[str, AgentProfile] = {
    **{row.agent: max((r for r in PROFILES if r.agent == row.agent),
                      key=lambda r: version_key(r.version)) for row in PROFILES},
    **{row.id: row for row in PROFILES},
}


def profile(agent_id: str | None = None) -> AgentProfile:
    """The profile for ``grok@1.0.45``, or for a bare ``grok`` the newest Grok row."""
    found = _ROW.get(agent_id or DEFAULT_AGENT)
    if found is not None:
        return found
    known = ", ".join(sorted({p.agent for p in PROFILES} | {p.id for p in PROFILES}))
    raise UnknownAgent(f"unknown agent {agent_id!r} (known: {known})")


def grok_profile(agent_id: str | None = None) -> AgentProfile:
    """:func:`profile`, for the surfaces that resolve Grok chains (``inspect``, ``lint``, the
    chain views): another agent's id is an :class:`UnknownAgent` naming the Grok ids."""
    found = profile(agent_id)
    if found.agent != "grok":
        grok = ", ".join(["grok", *(p.id for p in PROFILES if p.agent == "grok")])
        raise UnknownAgent(f"{agent_id!r} is not a Grok profile here (use one of: {grok})")
    return found


def newest(agent: str) -> AgentProfile:
    """The newest profile of one agent family."""
    return profile(agent)
