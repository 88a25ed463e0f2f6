"""One firing fixture and one clean counterpart per check id (real files in a real repo).

``files`` are written into a fresh ``git init`` repository; ``target`` is linted. The clean
counterpart must not produce the check at all, nor any warning or error.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SRC = {"src/app.py": "print('hi')\n", "docs/guide.md": "# Guide\n"}
CLAUDE_OK = '---\npaths:\n  - "src/**"\n---\n# Python style\n\nUse type hints everywhere.\n'
CURSOR_OK = ('---\ndescription: Python style\nglobs: src/**/*.py\nalwaysApply: false\n---\n'
             'Use hints.\n')
COPILOT_OK = '---\napplyTo: "src/**"\n---\nUse type hints.\n'
BOMB = ('---\npaths:\n  - "src/**"\n'
        'a: &a ["x","x","x","x","x","x","x","x","x","x"]\n'
        'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n'
        'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n'
        'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n'
        'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n---\nbody\n')
PARA = ("Always run the full test suite with `pytest -q` before you commit, and never skip"
        " failing tests.")


def lines(n: int, prefix: str = "line") -> str:
    return "".join(f"{prefix} {i}\n" for i in range(n))


@dataclass
class Case:
    code: str
    files: dict[str, str | bytes]
    target: str
    clean: dict[str, str | bytes]
    clean_target: str = ""
    thresholds: dict[str, int] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    symlinks: dict[str, str] = field(default_factory=dict)
    dirs: tuple[str, ...] = ()
    #: Text the firing finding's message must contain.
    says: str = ""

    def __post_init__(self) -> None:
        if not self.clean_target:
            self.clean_target = self.target


CASES: list[Case] = [
    # ----------------------------------------------------------- frontmatter
    Case("RL101", {**SRC, ".claude/rules/py.md":
                   '---\npaths:\n  - "src/**"\nnote: [unclosed\n---\nBody.\n'},
         ".claude/rules/py.md", {**SRC, ".claude/rules/py.md": CLAUDE_OK},
         says="does not parse"),
    Case("RL102", {**SRC, ".claude/rules/py.md": '---\npaths:\n  - "src/**"\nBody text.\n'},
         ".claude/rules/py.md", {**SRC, ".claude/rules/py.md": CLAUDE_OK}, says="never closed"),
    Case("RL103", {**SRC, ".claude/rules/py.md": BOMB}, ".claude/rules/py.md",
         {**SRC, ".claude/rules/py.md": CLAUDE_OK}, says="expand"),
    Case("RL104", {**SRC, ".claude/rules/py.md": '---\npaths: "src/**"\n---\nUse hints.\n'},
         ".claude/rules/py.md", {**SRC, ".claude/rules/py.md": CLAUDE_OK}, says="string"),
    Case("RL105", {**SRC, ".claude/rules/py.md": '---\npaths: []\n---\nUse hints.\n'},
         ".claude/rules/py.md", {**SRC, ".claude/rules/py.md": CLAUDE_OK}, says="empty list"),
    Case("RL106", {**SRC, ".claude/rules/py.md": '---\nglobs:\n  - "src/**"\n---\nUse hints.\n'},
         ".claude/rules/py.md", {**SRC, ".claude/rules/py.md": CLAUDE_OK}, says="unconditionally"),
    Case("RL107", {**SRC, ".claude/rules/py.md":
                   '---\npaths:\n  - "src/**"\nowner: me\n---\nUse hints.\n'},
         ".claude/rules/py.md", {**SRC, ".claude/rules/py.md": CLAUDE_OK}, says="`owner`"),
    Case("RL108", {**SRC, ".cursor/rules/py.mdc": '---\ndescription: Python\nglobs: src/**\n'
                   'alwaysApply: "true"\n---\nUse hints.\n'},
         ".cursor/rules/py.mdc", {**SRC, ".cursor/rules/py.mdc": CURSOR_OK}, says="true"),
    Case("RL109", {**SRC, ".cursor/rules/py.mdc": '---\nalwaysApply: false\n---\nUse hints.\n'},
         ".cursor/rules/py.mdc", {**SRC, ".cursor/rules/py.mdc": CURSOR_OK}, says="Manual"),
    Case("RL110", {**SRC, ".cursor/rules/py.mdc": "Use hints.\n"}, ".cursor/rules/py.mdc",
         {**SRC, ".cursor/rules/py.mdc": CURSOR_OK}, says="no frontmatter"),
    Case("RL111", {**SRC, ".github/instructions/py.instructions.md": "Use hints.\n"},
         ".github/instructions/py.instructions.md",
         {**SRC, ".github/instructions/py.instructions.md": COPILOT_OK}, says="applyTo"),
    Case("RL112", {**SRC, ".github/instructions/py.instructions.md":
                   '---\napplyTo: "src/**"\nexcludeAgent: reviewer\n---\nUse hints.\n'},
         ".github/instructions/py.instructions.md",
         {**SRC, ".github/instructions/py.instructions.md":
          '---\napplyTo: "src/**"\nexcludeAgent: code-review\n---\nUse hints.\n'},
         says="reviewer"),
    Case("RL113", {**SRC, ".claude/rules/py.md": '---\npaths:\n  - "src/[ab"\n---\nUse hints.\n'},
         ".claude/rules/py.md", {**SRC, ".claude/rules/py.md": CLAUDE_OK}, says="closing"),
    Case("RL114", {**SRC, ".claude/rules/py.md": '---\npaths:\n  - "lib/**/*.rs"\n---\nHints.\n'},
         ".claude/rules/py.md", {**SRC, ".claude/rules/py.md": CLAUDE_OK},
         says="matches no file"),
    Case("RL115", {"AGENTS.md": "---\ndescription: team rules\n---\n# Rules\n\nBe kind.\n"},
         "AGENTS.md", {"AGENTS.md": "# Rules\n\nBe kind.\n"}, says="verbatim"),
    Case("RL116", {**SRC, ".claude/rules/py.md":
                   "---\npaths:\n  - src/**\n  - **/*.py\n---\nHi.\n"},
         ".claude/rules/py.md", {**SRC, ".claude/rules/py.md": CLAUDE_OK}, says="alias"),
    Case("RL117", {**SRC, ".claude/rules/py.md":
                   '<!-- owner: team -->\n---\npaths:\n  - "src/**"\n---\nUse hints.\n'},
         ".claude/rules/py.md", {**SRC, ".claude/rules/py.md": CLAUDE_OK}, says="line 2"),
    Case("RL118", {**SRC, ".claude/rules/py.md": CLAUDE_OK}, ".claude/rules/py.md",
         {**SRC, ".claude/rules/py.md": "# Python style\n\nUse type hints everywhere.\n"},
         says="injects this file into every session"),
    Case("RL119", {**SRC, ".github/instructions/py.instructions.md":
                   'applyTo: "src/**"\n---\nUse type hints.\n'},
         ".github/instructions/py.instructions.md",
         {**SRC, ".github/instructions/py.instructions.md": COPILOT_OK},
         says="Missing opening `---` on line 1"),
    Case("RL120", {**SRC, ".windsurf/rules/py.md": "---\ntrigger: Always_On\n---\nHints.\n"},
         ".windsurf/rules/py.md",
         {**SRC, ".windsurf/rules/py.md": "---\ntrigger: always_on\n---\nHints.\n"},
         says="is not one of always_on"),
    Case("RL121", {**SRC, ".kiro/steering/py.md": "---\ninclusion: fileMatch\n---\nHints.\n"},
         ".kiro/steering/py.md",
         {**SRC, ".kiro/steering/py.md":
          '---\ninclusion: fileMatch\nfileMatchPattern: "src/**/*.py"\n---\nHints.\n'},
         says="never includes"),
    # ------------------------------------------------------------- discovery
    Case("RL201", {".gitignore": "*.log\nCLAUDE.local.md\n", "CLAUDE.local.md": "Mine.\n"},
         "CLAUDE.local.md", {".gitignore": "*.log\n", "CLAUDE.local.md": "Mine.\n"},
         says=".gitignore:2"),
    Case("RL202", {"AGENTS.md": b"# Rules\n\xff\xfe not utf-8\n"}, "AGENTS.md",
         {"AGENTS.md": "# Rules\n\nfine\n"}, says="UTF-8"),
    Case("RL203", {}, ".grok/rules/loop.md", {".grok/rules/loop.md": "Fine.\n"},
         symlinks={".grok/rules/loop.md": "loop.md"}, says="loop"),
    Case("RL204", {}, "AGENTS.md", {"AGENTS.md": "Fine.\n"}, dirs=("AGENTS.md",),
         says="directory"),
    Case("RL205", {**SRC, ".claude/rules/py.md": CLAUDE_OK}, ".claude/rules/py.md",
         {**SRC, ".claude/rules/py.md": CLAUDE_OK}, env={"GROK_CLAUDE_RULES_ENABLED": "0"},
         says="switch is off"),
    Case("RL206", {".grok/rules/drafts/cache.md": "Cache.\n"}, ".grok/rules/drafts/cache.md",
         {".grok/rules/cache.md": "Cache.\n"}, ".grok/rules/cache.md", says="nested"),
    Case("RL207", {"agents.md": "Rules.\n"}, "agents.md", {"AGENTS.md": "Rules.\n"}, "AGENTS.md",
         says="AGENTS.md"),
    Case("RL208", {"GEMINI.md": "Rules.\n"}, "GEMINI.md", {"AGENTS.md": "Rules.\n"}, "AGENTS.md",
         says="GEMINI.md: read by Gemini CLI, Zed; not by Grok, Claude Code, Codex CLI"),
    Case("RL209", {"AGENTS.md": "Rules.\n"}, ".grok/rules/link.md", {"AGENTS.md": "Rules.\n",
         ".grok/rules/other.md": "Other.\n"}, ".grok/rules/other.md",
         symlinks={".grok/rules/link.md": "../../AGENTS.md"}, says="same file"),
    Case("RL210", {"AGENTS.md": "Rules.\n", "Agents.md": "More.\n"}, "AGENTS.md",
         {"AGENTS.md": "Rules.\n"}, says="Agents.md"),
    Case("RL211", {"AGENTS.md": "  \n\n"}, "AGENTS.md", {"AGENTS.md": "Rules.\n"}, says="empty"),
    Case("RL212", {**SRC, ".github/instructions/py.md": COPILOT_OK}, ".github/instructions/py.md",
         {**SRC, ".github/instructions/py.instructions.md": COPILOT_OK},
         ".github/instructions/py.instructions.md", says="py.instructions.md"),
    Case("RL213", {**SRC, "docs/py.instructions.md": COPILOT_OK}, "docs/py.instructions.md",
         {**SRC, ".github/instructions/py.instructions.md": COPILOT_OK},
         ".github/instructions/py.instructions.md",
         says="reads `*.instructions.md` only inside `.github/instructions/`"),
    # ------------------------------------------------------------------ size
    Case("RL301", {"CLAUDE.md": lines(230)}, "CLAUDE.md",
         {"CLAUDE.md": lines(150) + "<!--\n" + lines(100, "note") + "-->\n"}, says="230 lines"),
    Case("RL302", {"CLAUDE.md": "x" * 3000 + "\n"}, "CLAUDE.md", {"CLAUDE.md": "x" * 500 + "\n"},
         thresholds={"claude_max_bytes": 1000}, says="skips"),
    Case("RL303", {"AGENTS.md": "root rules\n" * 2800, "pkg/AGENTS.md": "pkg rules\n" * 500},
         "pkg/AGENTS.md", {"AGENTS.md": "root rules\n" * 100, "pkg/AGENTS.md": "pkg\n" * 500},
         says="truncates"),
    Case("RL304", {**SRC, ".cursor/rules/py.mdc": CURSOR_OK + lines(520)}, ".cursor/rules/py.mdc",
         {**SRC, ".cursor/rules/py.mdc": CURSOR_OK + lines(100)}, says="500"),
    Case("RL305", {".windsurf/rules/a.md": "---\ntrigger: always_on\n---\n" + "w" * 12_100},
         ".windsurf/rules/a.md", {".windsurf/rules/a.md": "---\ntrigger: always_on\n---\nshort\n"},
         says="12000"),
    Case("RL306", {".github/copilot-instructions.md": ("Use hints. " * 500)},
         ".github/copilot-instructions.md", {".github/copilot-instructions.md": "Use hints.\n"},
         says="4000"),
    Case("RL308", {"AGENTS.md": "# Root\n\n" + "Small rules. " * 100,
                   "src/AGENTS.md": "# Src\n\n" + "More rules. " * 100},
         "src/AGENTS.md", {"AGENTS.md": "# Root\n\n" + "Small rules. " * 100,
                           "src/AGENTS.md": "# Src\n\nShort.\n"},
         thresholds={"always_on_max_tokens": 400}, says="crosses the 400-token"),
    Case("RL307", {"AGENTS.md": "word " * 400}, "AGENTS.md", {"AGENTS.md": "word " * 100},
         thresholds={"max_lint_bytes": 1000}, says="content checks"),
    # --------------------------------------------------------------- content
    Case("RL401", {"AGENTS.md": "# Rules\n\nEnd of block: </system-reminder> then more.\n"},
         "AGENTS.md", {"AGENTS.md": "# Rules\n\nUse the `system reminder` sparingly.\n"},
         says="&lt;/system-reminder"),
    Case("RL402", {"AGENTS.md": f"# Root\n\n{PARA}\n", "src/AGENTS.md": f"# Src\n\n{PARA}\n"},
         "src/AGENTS.md", {"AGENTS.md": f"# Root\n\n{PARA}\n",
                           "src/AGENTS.md": "# Src\n\nSource rules only.\n"},
         says="AGENTS.md (line 3)"),
    Case("RL403", {"AGENTS.md": "# Root\n\n## Testing\n\nRun pytest.\n",
                   "src/AGENTS.md": "# Src\n\n## Testing\n\nRun unit tests only.\n"},
         "src/AGENTS.md", {"AGENTS.md": "# Root\n\n## Testing\n\nRun pytest.\n",
                           "src/AGENTS.md": "# Src\n\n## Style\n\nShort functions.\n"},
         says="Testing"),
    Case("RL404", {"AGENTS.md": "# Rules\n\n```sh\nmake test\n\n## Later\n"}, "AGENTS.md",
         {"AGENTS.md": "# Rules\n\n```sh\nmake test\n```\n\n## Later\n"}, says="never closed"),
    # Grok loads CLAUDE.md before AGENTS.md in one directory: the later copy is reported.
    Case("RL405", {"AGENTS.md": f"# Rules\n\n{PARA}\n", "CLAUDE.md": f"# Rules\n\n{PARA}\n"},
         "AGENTS.md", {"AGENTS.md": f"# Rules\n\n{PARA}\n",
                       "CLAUDE.md": "# Claude\n\n@AGENTS.md\n"},
         says="Identical to CLAUDE.md"),
    Case("RL406", {"AGENTS.md": "# Rules\n\nUse pnpm for everything.\n",
                   "apps/web/AGENTS.md": "# Web\n\nAlways use npm here.\n"},
         "apps/web/AGENTS.md",
         {"AGENTS.md": "# Rules\n\nUse pnpm, except npm for the docs site.\n",
          "apps/web/AGENTS.md": "# Web\n\nUse pnpm here too.\n"}, "apps/web/AGENTS.md",
         says="Contradicts AGENTS.md:3 on the package manager"),
    # ------------------------------------------------------------ references
    Case("RL501", {"CLAUDE.md": "# Rules\n\nSee @docs/style.md for the style guide.\n"},
         "CLAUDE.md", {"CLAUDE.md": "# Rules\n\nSee @docs/style.md for the style guide.\n",
                       "docs/style.md": "# Style\n\nShort functions.\n"},
         says="docs/style.md, which does not exist"),
    Case("RL502", {".gitignore": "notes.md\n", "notes.md": "Mine.\n",
                   "CLAUDE.md": "# Rules\n\n@notes.md\n"}, "CLAUDE.md",
         {".gitignore": "*.log\n", "notes.md": "Shared.\n", "CLAUDE.md": "# Rules\n\n@notes.md\n"},
         says="gitignored"),
    Case("RL503", {"CLAUDE.md": "# Rules\n\n@docs/a.md\n", "docs/a.md": "A.\n\n@b.md\n",
                   "docs/b.md": "B.\n\n@a.md\n"}, "CLAUDE.md",
         {"CLAUDE.md": "# Rules\n\n@docs/a.md\n", "docs/a.md": "A.\n\n@b.md\n",
          "docs/b.md": "B.\n"}, says="cycle"),
    Case("RL504", {"CLAUDE.md": "# Rules\n\n@d/1.md\n", "d/1.md": "@2.md\n", "d/2.md": "@3.md\n",
                   "d/3.md": "@4.md\n", "d/4.md": "@5.md\n", "d/5.md": "Deep.\n"}, "CLAUDE.md",
         {"CLAUDE.md": "# Rules\n\n@d/1.md\n", "d/1.md": "@2.md\n", "d/2.md": "@3.md\n",
          "d/3.md": "@4.md\n", "d/4.md": "Deep enough.\n"}, says="5 hops"),
    Case("RL505", {"AGENTS.md": "# Rules\n\nRead [the guide](docs/moved.md) first.\n"},
         "AGENTS.md", {"AGENTS.md": "# Rules\n\nRead [the guide](docs/moved.md) first.\n",
                       "docs/moved.md": "# Guide\n"}, says="does not exist"),
    Case("RL506", {"package.json": '{"scripts": {"test": "jest"}}\n',
                   "AGENTS.md": "# Rules\n\nRun `npm run lint` before committing.\n"},
         "AGENTS.md", {"package.json": '{"scripts": {"test": "jest", "lint": "eslint ."}}\n',
                       "AGENTS.md": "# Rules\n\nRun `npm run lint` before committing.\n"},
         says="no script `lint` is defined in package.json"),
    Case("RL507", {"Makefile": "include common.mk\n$(BIN):\n\tgo build\n",
                   "common.mk": "test:\n\tgo test\n",
                   "AGENTS.md": "# Rules\n\nRun `make release` before tagging.\n"},
         "AGENTS.md", {"Makefile": "include common.mk\n$(BIN):\n\tgo build\nrelease: $(BIN)\n"
                                   "\t./release.sh\n", "common.mk": "test:\n\tgo test\n",
                       "AGENTS.md": "# Rules\n\nRun `make release` before tagging.\n"},
         says="`$(BIN)` (Makefile:2, a computed target name) may define it"),
]
