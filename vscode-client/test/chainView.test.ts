import { describe, expect, it } from "vitest";
import * as vscode from "vscode";
import { ActiveRulesProvider, type ChainSource } from "../src/chainView";
import { Methods, type AgentsPayload, type ChainPayload } from "../src/protocol";
import type { ServerStatus } from "../src/server";
import { CTX, demoChain, REPO } from "./fixtures";

/** An in-memory server: answers `rulelens/chain` from a table and can push notifications. */
class TableServer implements ChainSource {
  status: ServerStatus = { state: "running" };
  readonly statusEmitter = new vscode.EventEmitter<ServerStatus>();
  readonly changed = new vscode.EventEmitter<string[]>();
  readonly onDidChangeStatus = this.statusEmitter.event;
  readonly onChainChanged = this.changed.event;
  readonly requests: { method: string; params: any }[] = [];
  table = new Map<string, ChainPayload | null>();
  agents = new Map<string, AgentsPayload>();
  delays = new Map<string, number>();

  async request<R>(method: string, params: any): Promise<R | null> {
    this.requests.push({ method, params });
    if (method === Methods.agentsForFile) return (this.agents.get(params.uri) ?? null) as R | null;
    const delay = this.delays.get(params.uri) ?? 0;
    if (delay) await new Promise((r) => setTimeout(r, delay));
    return (this.table.get(params.uri) ?? null) as R | null;
  }
}

const ORDERS = vscode.Uri.file(`${REPO}/src/app/handlers/orders.py`);
const README = vscode.Uri.file(`${REPO}/docs/README.md`);

function setup() {
  const server = new TableServer();
  server.table.set(ORDERS.toString(), demoChain());
  const provider = new ActiveRulesProvider(server, () => CTX);
  let treeEvents = 0;
  provider.onDidChangeTreeData(() => treeEvents++);
  return { server, provider, events: () => treeEvents };
}

describe("Active Rules provider", () => {
  it("asks the server for the active file's chain and turns it into tree items", async () => {
    const { server, provider } = setup();
    await provider.setDocument(ORDERS);
    expect(server.requests).toEqual([
      { method: Methods.chain, params: { uri: ORDERS.toString() } },
      { method: Methods.agentsForFile, params: { uri: ORDERS.toString() } },
    ]);
    const roots = provider.getChildren();
    expect(roots).toHaveLength(8); // loaded files + Skipped; no file is listed twice
    const first = provider.getTreeItem(roots[0]) as vscode.TreeItem;
    expect(first.label).toBe("1. ~/.grok/rules/personal.md");
    expect(first.command?.command).toBe("vscode.open");
    expect((first.command?.arguments?.[0] as vscode.Uri).fsPath).toBe("/demo/home/.grok/rules/personal.md");
    const group = provider.getTreeItem(roots[7]) as vscode.TreeItem;
    expect(group.collapsibleState).toBe(vscode.TreeItemCollapsibleState.Expanded);
    expect(provider.getChildren(roots[7]).map((n) => n.label)).toContain("CLAUDE.local.md");
    expect(provider.description).toBe("start: src/app/handlers/ · orders.py · 7 loaded · ~237 tokens");
    expect(provider.message).toBeUndefined();
  });

  it("shows one group per agent, each file once, when several agents are enabled", async () => {
    const { server, provider } = setup();
    const chain = demoChain();
    const agents: AgentsPayload = {
      cwd: REPO, file: ORDERS.fsPath, enabled: ["grok", "codex"], rows: [],
      agents: [
        { agent: "grok@1.0.45", display: "Grok", cwd: REPO, git_root: REPO,
          files: [{ ...chain.files[2], when: "start", why: "AGENTS.md in the start directory" }],
          skipped: [{ path: `${REPO}/src/app/AGENTS.md`, reason: "below-start-dir", detail: "below the start directory" }] },
        { agent: "codex", display: "Codex CLI", cwd: REPO, git_root: REPO,
          files: [{ ...chain.files[2], when: "start", why: "AGENTS.md", truncated_at: 100 },
                  { ...chain.files[6], when: "may", why: "advised to the model" }],
          skipped: [] },
      ],
    };
    server.agents.set(ORDERS.toString(), agents);
    await provider.setDocument(ORDERS);
    const roots = provider.getChildren();
    expect(roots.map((n) => n.label)).toEqual(["Grok", "Codex CLI"]);
    expect(roots[0].description).toBe("1 at start · 1 not loaded");
    const grok = provider.getChildren(roots[0]);
    // The file name first; its folder and the reason in the description, the detail in the tooltip.
    expect(grok.map((n) => n.label)).toEqual(["1. CLAUDE.md", "AGENTS.md"]);   // ~/.claude/CLAUDE.md
    expect(grok.map((n) => n.description?.split(" · ").slice(0, 2))).toEqual([["~/.claude/", "at start"], ["src/app/", "not loaded: below-start-dir"]]);
    expect(grok[1].tooltip).toContain("below the start directory");
    const codex = provider.getChildren(roots[1]);
    expect(codex[0].description).toContain("cut at byte 100");
    expect(codex[1].description?.split(" · ")[1]).toBe("may pull in");
    expect(provider.description?.startsWith("start: ./ · orders.py")).toBe(true);
  });

  it("refreshes when the server says this document's chain changed, and only then", async () => {
    const { server, provider, events } = setup();
    await provider.setDocument(ORDERS);
    const before = events();
    const changed = demoChain();
    changed.files = changed.files.filter((f) => f.precedence !== 7);
    server.table.set(ORDERS.toString(), changed);

    server.changed.fire([README.toString()]);
    await provider.settled;
    expect(server.requests.filter((r) => r.method === Methods.chain)).toHaveLength(1);
    expect(provider.getChildren().filter((n) => n.kind === "file")).toHaveLength(7);

    server.changed.fire([ORDERS.toString()]);
    await provider.settled;
    expect(server.requests.filter((r) => r.method === Methods.chain)).toHaveLength(2);
    expect(events()).toBe(before + 1);
    const files = provider.getChildren().filter((n) => n.kind === "file");
    expect(files).toHaveLength(6);
    expect(files.at(-1)?.label).toBe("6. src/AGENTS.md");
    expect(files.at(-1)?.winning).toBe(true);
  });

  it("shows empty-state text when nothing applies, and when the server is down", async () => {
    const { server, provider } = setup();
    server.table.set(README.toString(), { cwd: `${REPO}/docs`, git_root: REPO, files: [], skipped: [] });
    await provider.setDocument(README);
    expect(provider.getChildren()).toEqual([]);
    expect(provider.message).toBe("No instruction files load for docs/README.md. Add an AGENTS.md to give the agent instructions.");

    server.status = { state: "failed", reason: "no Python interpreter at \"python9\"" };
    server.statusEmitter.fire(server.status);
    await provider.settled;
    expect(provider.message).toBe('The RuleLens server is not running: no Python interpreter at "python9"');
  });

  it("keeps the newest document's chain when an older answer arrives late", async () => {
    const { server, provider } = setup();
    server.table.set(README.toString(), { cwd: `${REPO}/docs`, git_root: REPO, files: [], skipped: [] });
    server.delays.set(ORDERS.toString(), 30);
    const slow = provider.setDocument(ORDERS);
    const fast = provider.setDocument(README);
    await Promise.all([slow, fast]);
    expect(provider.documentUri?.toString()).toBe(README.toString());
    expect(provider.getChildren()).toEqual([]);
  });

  it("follows editors but keeps the chain while our own virtual documents are focused", async () => {
    const { provider } = setup();
    provider.follow({ document: { uri: ORDERS } } as unknown as vscode.TextEditor);
    await provider.settled;
    provider.follow({ document: { uri: vscode.Uri.parse("rulelens-prompt:/orders.py.md?x") } } as unknown as vscode.TextEditor);
    await provider.settled;
    expect(provider.documentUri?.toString()).toBe(ORDERS.toString());
    provider.follow(undefined);
    await provider.settled;
    expect(provider.documentUri).toBeUndefined();
    expect(provider.message).toMatch(/Open a file/);
  });
});
