import { describe, expect, it } from "vitest";
import { buildAgentsTree } from "../src/agentsModel";
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
    const grok = { agent: "grok@1.0.45", display: "Grok", cwd: REPO, git_root: REPO, files: [], skipped: chain.skipped, notes: ["no trust decision yet; run `grok --trust`"] };
    const claude = { ...grok, agent: "claude@2.1", display: "Claude Code", notes: [] };
    const payload: AgentsPayload = { cwd: REPO, file: `${REPO}/x.py`, enabled: ["grok", "claude"], agents: [grok, claude], rows: [] };
    const [g, c] = buildAgentsTree(payload, CTX);
    expect(g.children?.[0]).toMatchObject({ kind: "trust", label: "Folder not trusted yet: 2 project files withheld; run `grok --trust` here", icon: "shield" });
    expect(g.children?.[0].tooltip).toBe("no trust decision yet; run `grok --trust`");
    expect(c.children?.some((n) => n.kind === "trust")).toBe(false);
  });
});
