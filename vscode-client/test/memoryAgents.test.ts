import { beforeEach, describe, expect, it } from "vitest";
import { remember, type CommandRunner } from "../src/memoryCommands";
import { agentGroups, injectedMark, memoryRow } from "../src/memoryModel";
import { Methods, ServerCommands, type AgentMemoryStatus, type MemoryResult } from "../src/protocol";
import { CTX, HOME, REPO } from "./fixtures";
import { Uri, window, workspace } from "./stubs/vscode";

const CLAUDE = `${HOME}/.claude/projects/-home-demo-repo/memory`;
const GEMINI = `${HOME}/.gemini/tmp/demo-shop/memory`;

function hit(agent: string, path: string, injected: "start" | "on-demand", score: number): MemoryResult {
  return { agent, path, start_line: 1, end_line: 4, snippet: "- stripe webhook retries back off", injected,
    scope: "workspace", score, source: "memory", agent_returns: false };
}

describe("every agent's memory in the quick pick", () => {
  it("groups hits by agent in the order of each agent's best hit, with the injected / on-demand mark", () => {
    const results = [hit("gemini", `${GEMINI}/MEMORY.md`, "start", 1.0), hit("claude", `${CLAUDE}/stripe_webhooks.md`, "on-demand", 0.63),
      hit("gemini", `${GEMINI}/refunds.md`, "on-demand", 0.5), hit("claude", `${CLAUDE}/MEMORY.md`, "start", 0.4)];
    const groups = agentGroups(results, CTX, { gemini: "Gemini CLI", claude: "Claude Code" }, ["stripe"]);
    expect(groups.map((g) => (g.kind === "separator" ? `# ${g.label}` : `${g.row.description}`))).toEqual([
      "# Gemini CLI (2)", "Gemini CLI · injected at start · workspace", "Gemini CLI · on demand · workspace",
      "# Claude Code (2)", "Claude Code · on demand · workspace", "Claude Code · injected at start · workspace"]);
  });

  it("labels a hit with its file name and lines, the agent and mark as its description", () => {
    const [, first] = agentGroups([hit("claude", `${CLAUDE}/stripe_webhooks.md`, "on-demand", 0.63)], CTX, { claude: "Claude Code" });
    expect(first.kind === "hit" && [first.row.label, first.row.description]).toEqual(["0.63  stripe_webhooks.md:1-4", "Claude Code · on demand · workspace"]);
  });

  it("words the three labels", () => {
    expect(["start", "on-demand", "no"].map(injectedMark)).toEqual(["injected at start", "on demand", "not read by the agent"]);
    expect(memoryRow(hit("claude", `${CLAUDE}/MEMORY.md`, "on-demand", 0.9), CTX).description).toBe("on demand · workspace");
  });
});

const STATUS: AgentMemoryStatus = {
  agents: [
    { agent: "grok", files: [], notes: ["off"] },
    { agent: "claude", files: [{ path: `${CLAUDE}/MEMORY.md`, injected: "start", cut_at_line: null }], notes: [] },
    { agent: "codex", files: [], notes: ["off"] },
    { agent: "gemini", files: [{ path: `${GEMINI}/MEMORY.md`, injected: "start", cut_at_line: null }], notes: [] },
  ],
  present: ["claude", "gemini"],
  names: { grok: "Grok", claude: "Claude Code", codex: "Codex", gemini: "Gemini CLI" },
  remember_scopes: { grok: ["global", "workspace"], claude: ["workspace"], codex: [], gemini: ["global", "workspace"] },
};

class AgentServer implements CommandRunner {
  readonly calls: { command: string; args: any[] }[] = [];
  readonly requests: { method: string; params: any }[] = [];
  async request<R>(method: string, params: unknown): Promise<R | null> {
    this.requests.push({ method, params });
    return STATUS as R;
  }
  async executeCommand<R>(command: string, args: unknown[]): Promise<R | null> {
    this.calls.push({ command, args: args as any[] });
    const a = (args as any[])[0];
    return { agent: a.agent, path: `${CLAUDE}/MEMORY.md`, scope: a.scope, format: "- TEXT line in MEMORY.md",
      text: "- ship on Tuesdays\n", written: !a.dryRun } as R;
  }
}

describe("RuleLens: Remember… asks which agent", () => {
  let picks: { items: any[]; options: any }[];
  let dialogs: { message: string; options: any }[];
  beforeEach(() => {
    picks = [];
    dialogs = [];
    workspace.workspaceFolders = [{ uri: Uri.file(REPO), name: "repo", index: 0 }];
    window.activeTextEditor = undefined;
    window.showInputBox = async () => "ship on Tuesdays";
    window.showQuickPick = async (items: any[], options: any) => {
      picks.push({ items, options });
      return items.find((i) => i.agent === "claude");
    };
    window.showWarningMessage = async (message: string, options: any) => {
      dialogs.push({ message, options });
      return "Append";
    };
    window.showInformationMessage = async () => undefined;
    window.showErrorMessage = async () => undefined;
  });

  it("lists the agents present first, then the others; Claude's single scope is not asked", async () => {
    const server = new AgentServer();
    const result = await remember(server);
    expect(server.requests).toEqual([{ method: Methods.memoryStatus, params: { workspaceUri: Uri.file(REPO).toString(), agent: "all" } }]);
    expect(picks).toHaveLength(1);
    expect(picks[0].items.map((i) => i.label)).toEqual(["Claude Code", "Gemini CLI", "other agents", "Grok", "Codex"]);
    expect(picks[0].items.find((i) => i.agent === "codex").description).toMatch(/cannot append/);
    const [dry, real] = server.calls.map((c) => c.args[0]);
    expect(server.calls.map((c) => c.command)).toEqual([ServerCommands.remember, ServerCommands.remember]);
    expect(dry).toMatchObject({ agent: "claude", scope: "workspace", dryRun: true, text: "ship on Tuesdays" });
    expect(real.dryRun).toBeUndefined();
    expect(dialogs[0].message).toContain("Claude Code's workspace memory");
    expect(dialogs[0].options.detail).toContain("- ship on Tuesdays\n");
    expect(result && "written" in result && result.written).toBe(true);
  });
});
