import { describe, expect, it } from "vitest";
import { agentsStatusText, agentsStatusTooltip, agentsViewMessage, buildAgentsTree } from "../src/agentsModel";
import { buildChainTree, statusText, statusTooltip, withheldCount } from "../src/chainModel";
import type { AgentsPayload, ChainPayload } from "../src/protocol";
import { CTX, demoChain, HOME, REPO } from "./fixtures";

const NOTE = "Folder not trusted yet: 2 project files withheld; run `grok --trust` here to load them";

/** The demo chain as grok@1.0.45 shows it in an undecided folder, plus one configured file. */
function untrusted(): ChainPayload {
  const base = demoChain();
  return {
    ...base,
    agent: "grok@1.0.45",
    files: [
      { ...base.files.find((f) => f.precedence === 1)!, source: "home" },
      { path: `${HOME}/team-rules/style.md`, name: "style.md", role: "home", source: "configured", kind: "rule", precedence: 2, bytes: 10, tokens: 2 },
    ],
    skipped: [
      { path: `${REPO}/AGENTS.md`, reason: "untrusted-folder", detail: "Grok loads project instructions only in a trusted folder" },
      { path: `${REPO}/src/AGENTS.md`, reason: "untrusted-folder", detail: "Grok loads project instructions only in a trusted folder" },
      { path: `${REPO}/CLAUDE.local.md`, reason: "gitignored", detail: "ignored by .gitignore:2" },
    ],
    trust: { state: "undecided", key: REPO, reason: "no trust decision yet" },
    trustNote: NOTE,
  };
}

describe("folder trust in the Active Rules view and the status bar", () => {
  it("puts one trust line with the command first, only when files are withheld", () => {
    const nodes = buildChainTree(untrusted(), CTX);
    expect(nodes[0]).toMatchObject({ id: "trust", kind: "trust", label: NOTE, icon: "shield" });
    expect(nodes[0].tooltip).toBe("undecided: no trust decision yet");
    expect(buildChainTree(demoChain(), CTX).some((n) => n.kind === "trust")).toBe(false);
  });

  it("shows the configured source of a file", () => {
    const files = buildChainTree(untrusted(), CTX).filter((n) => n.kind === "file");
    expect(files[1].description).toBe("★ wins · configured rule · 10 B · ~2 tok");
    expect(files[1].tooltip).toContain("configured rule file");
  });

  it("counts withheld files in the status bar: Rules: 2 (+2 after trust)", () => {
    expect(withheldCount(untrusted())).toBe(2);
    expect(statusText(untrusted())).toBe("Rules: 2 (+2 after trust)");
    expect(statusText(demoChain())).toBe("Rules: 7");
    expect(statusTooltip(untrusted(), CTX)).toContain(NOTE);
  });
});

describe("folder trust in the per-agent Active Rules groups", () => {
  it("puts the trust line first in Grok's group only, with the command", () => {
    const chain = untrusted();
    const grok = { agent: "grok@1.0.45", display: "Grok", cwd: REPO, git_root: REPO, files: [], skipped: chain.skipped, notes: ["no trust decision yet; run `grok --trust`"], trust_command: "grok --trust" };
    const claude = { ...grok, agent: "claude@2.1", display: "Claude Code", notes: [], trust_command: null,
      skipped: chain.skipped.filter((s) => s.reason !== "untrusted-folder") };
    const payload: AgentsPayload = { cwd: REPO, file: `${REPO}/x.py`, enabled: ["grok", "claude"], agents: [grok, claude], rows: [] };
    const [g, c] = buildAgentsTree(payload, CTX);
    expect(g.children?.[0]).toMatchObject({ kind: "trust", label: "Folder not trusted yet: 2 project files withheld; run `grok --trust` here", icon: "shield" });
    expect(g.children?.[0].tooltip).toBe("no trust decision yet; run `grok --trust`");
    expect(c.children?.some((n) => n.kind === "trust")).toBe(false);
  });
});

describe("one answer per screen: status bar, message and groups from the per-agent payload", () => {
  const file = (p: string, when: "start" | "on-read" | "may") => ({ path: p, name: p.split("/").pop()!, role: "project", source: "project", kind: "named", precedence: 1, bytes: 10, tokens: 3, when, why: "test" });
  const payload = (): AgentsPayload => ({
    cwd: REPO, file: `${REPO}/src/x.ts`, enabled: ["claude", "cursor"],
    headline: "Claude 1 · Cursor 2", lens: "Claude 1 · Cursor 2", rows: [],
    agents: [
      { agent: "claude", display: "Claude Code", cwd: REPO, git_root: REPO, files: [file(`${REPO}/CLAUDE.md`, "start")],
        skipped: [{ path: `${REPO}/.cursor/rules/style.mdc`, reason: "not-read", detail: "Claude Code does not read .mdc" },
                  { path: `${REPO}/AGENTS.md`, reason: "not-read", detail: "Claude Code does not read AGENTS.md" }],
        foreign: [`${REPO}/.cursor/rules/style.mdc`] },
      { agent: "cursor", display: "Cursor", cwd: REPO, git_root: REPO,
        files: [file(`${REPO}/AGENTS.md`, "start"), file(`${REPO}/.cursor/rules/style.mdc`, "on-read")], skipped: [] },
    ],
  });

  it("shows the server's headline in the status bar and every agent in its tooltip", () => {
    expect(agentsStatusText(payload())).toBe("Claude 1 · Cursor 2");
    const tip = agentsStatusTooltip(payload(), CTX);
    expect(tip).toContain("Agent sessions started in ./");
    expect(tip).toContain("Claude Code: 1 file(s)");
    expect(tip).toContain("Cursor: 2 file(s)");
  });

  it("collapses other agents' files into one folded line; shared names stay", () => {
    const [claude] = buildAgentsTree(payload(), CTX);
    const labels = claude.children!.map((n) => n.label);
    expect(labels).toEqual(["1. CLAUDE.md", "AGENTS.md", "Other agents' files (1)"]);
    const others = claude.children!.at(-1)!;
    expect(others.collapsed).toBe(true);
    expect(others.children!.map((n) => n.label)).toEqual(["style.mdc"]);
    expect(claude.description).toBe("1 at start · 1 not loaded");
  });

  it("never says no files load while any enabled agent loads one", () => {
    expect(agentsViewMessage(payload(), "src/x.ts")).toBeUndefined();
    const none = payload();
    none.agents = none.agents.map((a) => ({ ...a, files: [] }));
    expect(agentsViewMessage(none, "src/x.ts")).toMatch(/^No enabled agent \(Claude Code, Cursor\) loads an instruction file for src\/x\.ts\./);
  });
});
