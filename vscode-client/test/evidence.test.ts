import { describe, expect, it } from "vitest";
import { buildAgentsTree } from "../src/agentsModel";
import type { AgentInfo, AgentsPayload } from "../src/protocol";
import { CTX, REPO } from "./fixtures";

const CLAUDE_DOCS = "https://code.claude.com/docs/en/memory (seen 2026-08)";
const BUG = "some Claude Code builds never load a rule with several `paths:` entries (one path worked); observed: anthropics/claude-code#33581, closed";

/** Claude's view as rulelens/agentsForFile sends it: every line with its evidence. */
function payload(): AgentsPayload {
  return {
    cwd: REPO,
    file: `${REPO}/src/app.py`,
    enabled: ["claude"],
    agents: [{
      agent: "claude",
      display: "Claude Code",
      cwd: REPO,
      git_root: REPO,
      files: [{
        path: `${REPO}/.claude/rules/many.md`, name: "many.md", role: "project", kind: "rule",
        precedence: 1, bytes: 40, tokens: 10, when: "on-read", why: "paths: src/** matches src/app.py",
        evidence: "docs", evidence_source: CLAUDE_DOCS, notes: [BUG],
      }],
      skipped: [{
        path: `${REPO}/AGENTS.md`, reason: "not-read", detail: "Claude Code reads CLAUDE.md",
        evidence: "docs", evidence_source: CLAUDE_DOCS,
      }],
    }],
    rows: [],
  };
}

const KNOWN: AgentInfo[] = [
  { id: "claude", short: "Claude", display: "Claude Code", evidence: "docs", source: CLAUDE_DOCS, present: true, enabled: true },
  { id: "cline", short: "Cline", display: "Cline", evidence: "code", source: "cline/cline@864419d8:apps/vscode", present: true, enabled: false },
  { id: "zed", short: "Zed", display: "Zed", evidence: "code", source: "zed-industries/zed@0023f768", present: false, enabled: false },
];

describe("evidence on every Active Rules row (issue 21)", () => {
  it("marks each row with how sure it is and names the source and known bugs in the tooltip", () => {
    const [group] = buildAgentsTree(payload(), CTX);
    const [file, skipped] = group.children!;
    expect(file.description).toMatch(/ ᵈ †$/);
    expect(file.tooltip).toContain(`ᵈ from its documentation: ${CLAUDE_DOCS}`);
    expect(file.tooltip).toContain(`† ${BUG}`);
    expect(skipped.description).toBe("./ · not loaded: not-read ᵈ");
    expect(skipped.tooltip).toContain(CLAUDE_DOCS);
  });

  it("names the agents the server knows that have files here but are not shown", () => {
    const nodes = buildAgentsTree(payload(), CTX, KNOWN);
    const hint = nodes[nodes.length - 1];
    expect(hint).toMatchObject({ kind: "hint", label: "Also used here, not shown: Cline" });
    expect(hint.tooltip).toContain("cline/cline@864419d8");
    expect(buildAgentsTree(payload(), CTX).some((n) => n.kind === "hint")).toBe(false);
  });
});
