import type { ChainPayload } from "../src/protocol";

/** Shaped like `rulelens chain --json` for the demo's src/app/handlers/orders.py (paths moved to /demo). */
export const HOME = "/demo/home";
export const REPO = "/demo/repo";

export function demoChain(): ChainPayload {
  return {
    cwd: `${REPO}/src/app/handlers`,
    git_root: REPO,
    // deliberately not in load order: the model must sort by precedence
    files: [
      { path: `${REPO}/src/app/AGENTS.md`, name: "AGENTS.md", role: "project", kind: "named", precedence: 7, bytes: 149, tokens: 38 },
      { path: `${HOME}/.grok/rules/personal.md`, name: "personal.md", role: "home", kind: "rule", precedence: 1, bytes: 85, tokens: 22 },
      { path: `${HOME}/.claude/CLAUDE.md`, name: "CLAUDE.md", role: "home", kind: "named", precedence: 2, bytes: 58, tokens: 15 },
      { path: `${REPO}/AGENTS.md`, name: "AGENTS.md", role: "project", kind: "named", precedence: 3, bytes: 252, tokens: 63 },
      { path: `${REPO}/.grok/rules/security.md`, name: "security.md", role: "project", kind: "rule", precedence: 4, bytes: 174, tokens: 31 },
      { path: `${REPO}/.claude/rules/testing.md`, name: "testing.md", role: "project", kind: "rule", precedence: 5, bytes: 166, tokens: 34 },
      { path: `${REPO}/src/AGENTS.md`, name: "AGENTS.md", role: "project", kind: "named", precedence: 6, bytes: 133, tokens: 34 },
    ],
    skipped: [
      { path: `${REPO}/AGENTS.local.md`, reason: "unrecognized-name", detail: "a personal-override convention some tools use; Grok does not read it" },
      { path: `${REPO}/CLAUDE.local.md`, reason: "gitignored", detail: "ignored by .gitignore:2 (`CLAUDE.local.md`); Grok skips gitignored instruction files" },
    ],
    tracker: {
      agent_cwd: REPO,
      session_files: [`${HOME}/.grok/rules/personal.md`, `${REPO}/AGENTS.md`],
      mentioned_by_path: [`${REPO}/src/AGENTS.md`, `${REPO}/src/app/AGENTS.md`],
      note: "Grok's current code does not wire the tracker.",
    },
  };
}

export const CTX = { roots: [REPO], home: HOME };
