import { describe, expect, it } from "vitest";
import { buildChainTree, displayPath, statusText, statusTooltip, viewDescription, viewMessage, winningFile } from "../src/chainModel";
import { CTX, demoChain, HOME, REPO } from "./fixtures";

describe("chain tree model", () => {
  it("lists loaded files in load order with precedence, workspace-relative and ~ paths", () => {
    const nodes = buildChainTree(demoChain(), CTX).filter((n) => n.kind === "file");
    expect(nodes.map((n) => n.label)).toEqual([
      "1. ~/.grok/rules/personal.md",
      "2. ~/.claude/CLAUDE.md",
      "3. AGENTS.md",
      "4. .grok/rules/security.md",
      "5. .claude/rules/testing.md",
      "6. src/AGENTS.md",
      "7. src/app/AGENTS.md",
    ]);
  });

  it("describes role, kind, size and tokens, and marks only the deepest file as winning", () => {
    const nodes = buildChainTree(demoChain(), CTX).filter((n) => n.kind === "file");
    expect(nodes[0].description).toBe("home rule · 85 B · ~22 tok");
    expect(nodes[6].description).toBe("★ wins · project named · 149 B · ~38 tok");
    expect(nodes.filter((n) => n.winning).map((n) => n.path)).toEqual([`${REPO}/src/app/AGENTS.md`]);
    expect(nodes[6].contextValue).toBe("rulelens.loaded.winning");
    expect(nodes[2].tooltip).toContain("files loaded after it win");
    expect(winningFile(demoChain())?.precedence).toBe(7);
  });

  it("groups skipped files after the chain, each with its reason and detail", () => {
    const nodes = buildChainTree(demoChain(), CTX);
    const skipped = nodes.find((n) => n.id === "group:skipped");
    expect(skipped?.label).toBe("Skipped (2)");
    expect(nodes.indexOf(skipped!)).toBe(7);
    const local = skipped!.children!.find((c) => c.label === "CLAUDE.local.md");
    expect(local?.description).toBe("gitignored");
    expect(local?.tooltip).toContain("ignored by .gitignore:2");
    expect(local?.path).toBe(`${REPO}/CLAUDE.local.md`);
  });

  it("shows the tracker split as its own group, and leaves out empty groups", () => {
    // The demo chain loads src/AGENTS.md and src/app/AGENTS.md: listing them again as "only
    // mentioned" would put one file in two contradicting groups, so the group is left out.
    const demo = buildChainTree(demoChain(), CTX);
    expect(demo.some((n) => n.id === "group:mentioned")).toBe(false);
    const elsewhere = `${REPO}/lib/AGENTS.md`;
    const chain = demoChain();
    const nodes = buildChainTree({ ...chain, tracker: { ...chain.tracker!, mentioned_by_path: [...chain.tracker!.mentioned_by_path, elsewhere] } }, CTX);
    const mentioned = nodes.at(-1)!;
    expect(mentioned.label).toBe("Would only be mentioned by path (1)");
    expect(mentioned.children!.map((c) => c.label)).toEqual(["lib/AGENTS.md"]);
    expect(mentioned.tooltip).toContain("does not wire the tracker");
    expect(mentioned.description).toBe("agent started in the workspace folder");

    const bare = { ...demoChain(), skipped: [], tracker: { agent_cwd: REPO, session_files: [], mentioned_by_path: [] } };
    expect(buildChainTree(bare, CTX).every((n) => n.kind === "file")).toBe(true);
  });

  it("has empty-state text for each situation and none when there is a chain", () => {
    expect(buildChainTree(null, CTX)).toEqual([]);
    expect(viewMessage({ state: "no-editor" }, CTX)).toMatch(/Open a file/);
    expect(viewMessage({ state: "not-a-file", scheme: "untitled" }, CTX)).toMatch(/not a file on disk/);
    expect(viewMessage({ state: "server-down", reason: "no python" }, CTX)).toMatch(/not running: no python/);
    const none = { cwd: "/x", git_root: null, files: [], skipped: [] };
    expect(viewMessage({ state: "loaded", file: `${REPO}/x.py`, payload: none }, CTX)).toBe(
      "No instruction files load for x.py. Add an AGENTS.md to give the agent instructions.",
    );
    const onlySkipped = { ...none, skipped: demoChain().skipped };
    expect(viewMessage({ state: "loaded", file: `${REPO}/x.py`, payload: onlySkipped }, CTX)).toMatch(/2 file\(s\) look like rules but are skipped/);
    expect(viewMessage({ state: "loaded", file: `${REPO}/x.py`, payload: demoChain() }, CTX)).toBeUndefined();
    expect(viewMessage({ state: "loaded", file: `${HOME}/.grok/memory/MEMORY.md`, payload: null }, CTX)).toBe(
      "~/.grok/memory/MEMORY.md is outside the workspace folders; RuleLens shows the rules for files inside them.",
    );
    expect(viewMessage({ state: "loaded", file: `${REPO}/x.py`, payload: null }, CTX)).toBe("RuleLens has no chain for x.py.");
  });

  it("words the status bar and view subtitle", () => {
    expect(statusText(demoChain())).toBe("Rules: 7");
    // No count to give: say why instead of a misleading "Rules: 0".
    expect(statusText(null)).toBe("Rules: —");
    expect(statusText(null, { state: "server-down", reason: "exit 1" })).toBe("Rules: server down");
    expect(statusText(null, { state: "loaded", file: `${HOME}/x.md`, payload: null }, CTX)).toBe("Rules: outside workspace");
    expect(statusText({ ...demoChain(), files: [] })).toBe("Rules: 0");
    expect(statusTooltip(demoChain(), CTX)).toContain("deepest wins: src/app/AGENTS.md");
    expect(viewDescription(`${REPO}/src/app/handlers/orders.py`, demoChain())).toBe("orders.py · 7 loaded · ~237 tokens");
  });

  it("prefers the deepest workspace root, then home, else the absolute path", () => {
    const ctx = { roots: [REPO, `${REPO}/src`], home: HOME };
    expect(displayPath(`${REPO}/src/app/AGENTS.md`, ctx)).toBe("app/AGENTS.md");
    expect(displayPath(`${HOME}/.claude/CLAUDE.md`, ctx)).toBe("~/.claude/CLAUDE.md");
    expect(displayPath("/etc/AGENTS.md", ctx)).toBe("/etc/AGENTS.md");
    expect(displayPath(`${REPO}-other/AGENTS.md`, ctx)).toBe(`${REPO}-other/AGENTS.md`);
  });
});
