/**
 * The "Active Rules" tree view and the `Rules: N` status-bar item.
 *
 * Follows the active editor, asks the server for `rulelens/chain`, and re-asks when the server
 * says `rulelens/chainChanged` for that document. All wording comes from `chainModel`.
 */

import * as os from "node:os";
import * as vscode from "vscode";
import { agentsStatusText, agentsStatusTooltip, agentsViewMessage, buildAgentsTree, startLabel } from "./agentsModel";
import {
  buildChainTree,
  displayPath,
  statusText,
  statusTooltip,
  viewDescription,
  viewMessage,
  type ChainNode,
  type PathContext,
  type ViewState,
} from "./chainModel";
import { Methods, type AgentInfo, type AgentsPayload, type ChainPayload } from "./protocol";
import type { ServerStatus } from "./server";

export const VIEW_ID = "rulelens.activeRules";

/** What the view needs from the server; the real one is `RuleLensServer`. */
export interface ChainSource {
  readonly status: ServerStatus;
  readonly onDidChangeStatus: vscode.Event<ServerStatus>;
  readonly onChainChanged: vscode.Event<string[]>;
  request<R>(method: string, params: unknown): Promise<R | null>;
}

/** Schemes of our own read-only documents and panels: focusing them keeps the current chain. */
const KEEP_SCHEMES = new Set(["output", "rulelens-prompt", "rulelens-status", "vscode-settings", "git", "debug"]);

export function pathContext(): PathContext {
  return { roots: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath), home: os.homedir() };
}

export class ActiveRulesProvider implements vscode.TreeDataProvider<ChainNode>, vscode.Disposable {
  private readonly treeEmitter = new vscode.EventEmitter<ChainNode | undefined | void>();
  readonly onDidChangeTreeData = this.treeEmitter.event;
  private readonly stateEmitter = new vscode.EventEmitter<void>();
  /** Fires after each change of document, payload or server state (message, description, status bar). */
  readonly onDidChangeState = this.stateEmitter.event;

  private document: vscode.Uri | undefined;
  private payload: ChainPayload | null = null;
  private agents: AgentsPayload | null = null;
  /** `rulelens/agents`: the server's agents, asked with each refresh (null: not answered). */
  private known: AgentInfo[] | null = null;
  /** Where agent sessions start for the per-agent views; undefined: the server's default. */
  startDirectory: string | undefined;
  private nodes: ChainNode[] = [];
  private view: ViewState = { state: "no-editor" };
  private generation = 0;
  private readonly disposables: vscode.Disposable[] = [];
  /** Resolves when the latest refresh has finished; used by the self-test and the unit tests. */
  settled: Promise<void> = Promise.resolve();

  constructor(
    private readonly source: ChainSource,
    private readonly ctx: () => PathContext = pathContext,
  ) {
    this.disposables.push(
      source.onChainChanged((uris) => {
        const current = this.document?.toString();
        if (!current) return;
        if (uris.length === 0 || uris.some((u) => sameUri(u, current))) void this.refresh();
      }),
      source.onDidChangeStatus((status) => {
        if (status.state === "running" || status.state === "failed") void this.refresh();
      }),
    );
  }

  get documentUri(): vscode.Uri | undefined {
    return this.document;
  }

  get chain(): ChainPayload | null {
    return this.payload;
  }

  /** Follow an editor. Our own virtual documents and panels keep the current chain. */
  follow(editor: vscode.TextEditor | undefined): void {
    if (!editor) {
      if (vscode.window.visibleTextEditors.some((e) => e.document.uri.scheme === "file")) return;
      this.setDocument(undefined);
      return;
    }
    const uri = editor.document.uri;
    if (KEEP_SCHEMES.has(uri.scheme)) return;
    this.setDocument(uri);
  }

  setDocument(uri: vscode.Uri | undefined): Promise<void> {
    if (uri?.toString() === this.document?.toString() && this.view.state !== "no-editor") return this.settled;
    this.document = uri;
    return this.refresh();
  }

  refresh(): Promise<void> {
    const gen = ++this.generation;
    this.settled = this.load(gen);
    return this.settled;
  }

  private async load(gen: number): Promise<void> {
    const uri = this.document;
    let view: ViewState;
    let payload: ChainPayload | null = null;
    let agents: AgentsPayload | null = null;
    if (!uri) view = { state: "no-editor" };
    else if (uri.scheme !== "file") view = { state: "not-a-file", scheme: uri.scheme };
    else if (this.source.status.state === "failed") view = { state: "server-down", reason: this.source.status.reason };
    else {
      let error: string | undefined;
      try {
        payload = await this.source.request<ChainPayload>(Methods.chain, { uri: uri.toString() });
        const params: Record<string, string> = { uri: uri.toString() };
        if (this.startDirectory) params.cwd = this.startDirectory;
        agents = payload ? await this.source.request<AgentsPayload>(Methods.agentsForFile, params).catch(() => null) : null;
        if (agents) {
          // Every agent the server knows (its registry), and which have files here.
          const folder = vscode.workspace.getWorkspaceFolder(uri);
          const params: Record<string, string> = folder ? { workspaceUri: folder.uri.toString() } : {};
          this.known = await this.source.request<AgentInfo[]>(Methods.agents, params).catch(() => null);
        }
      } catch (err) {
        error = String((err as Error)?.message ?? err);
      }
      const status: ServerStatus = this.source.status as ServerStatus;
      if (error) view = { state: "server-down", reason: error };
      else if (payload === null && status.state === "failed") view = { state: "server-down", reason: status.reason };
      else if (payload === null && status.state !== "running") view = { state: "loading" };
      else view = { state: "loaded", file: uri.fsPath, payload };
    }
    if (gen !== this.generation) return; // a newer refresh owns the view
    this.payload = payload;
    this.agents = agents;
    this.view = view;
    // One answer per screen: the per-agent groups (even for one agent) for the same start
    // directory as the lens and hover; the single Grok chain only when the server has none.
    this.nodes = agents && agents.agents.length > 0 ? buildAgentsTree(agents, this.ctx(), this.known ?? []) : buildChainTree(payload, this.ctx());
    this.treeEmitter.fire();
    this.stateEmitter.fire();
  }

  get state(): ViewState {
    return this.view;
  }

  get message(): string | undefined {
    if (this.view.state === "loaded" && this.agents && this.agents.agents.length > 0) {
      return agentsViewMessage(this.agents, displayPath(this.view.file, this.ctx()));
    }
    return viewMessage(this.view, this.ctx());
  }

  get description(): string | undefined {
    if (this.document?.scheme !== "file") return undefined;
    const many = this.agents && this.agents.agents.length > 0;
    const start = many ? this.agents!.cwd : this.payload?.cwd;
    const base = viewDescription(this.document.fsPath, many ? null : this.payload);
    return start ? `${startLabel(start, this.ctx())} · ${base}` : base;
  }

  /** The per-agent payload shown, when several agents are enabled. */
  get agentViews(): AgentsPayload | null {
    return this.agents;
  }

  /** Ask for a folder and show every agent's view for sessions started there. */
  async chooseStartDirectory(): Promise<void> {
    const current = this.agents?.cwd ?? this.payload?.cwd;
    const picked = await vscode.window.showOpenDialog({
      canSelectFolders: true, canSelectFiles: false, canSelectMany: false,
      defaultUri: current ? vscode.Uri.file(current) : undefined,
      openLabel: "Start agent sessions here",
    });
    if (!picked || picked.length === 0) return;
    this.startDirectory = picked[0].fsPath;
    await this.refresh();
  }

  getChildren(node?: ChainNode): ChainNode[] {
    return node ? node.children ?? [] : this.nodes;
  }

  getParent(): undefined {
    return undefined;
  }

  getTreeItem(node: ChainNode): vscode.TreeItem {
    const item = new vscode.TreeItem(
      node.label,
      node.children
        ? node.collapsed ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.None,
    );
    item.id = node.id;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.contextValue = node.contextValue;
    if (node.icon) item.iconPath = new vscode.ThemeIcon(node.icon);
    if (node.path) {
      item.command = { command: "vscode.open", title: "Open", arguments: [vscode.Uri.file(node.path)] };
    }
    return item;
  }

  /** Flat list of what the view shows, for the self-test. */
  snapshot(): { label: string; description?: string; group?: string }[] {
    const out: { label: string; description?: string; group?: string }[] = [];
    for (const n of this.nodes) {
      out.push({ label: n.label, description: n.description });
      for (const c of n.children ?? []) out.push({ label: c.label, description: c.description, group: n.label });
    }
    return out;
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
    this.treeEmitter.dispose();
    this.stateEmitter.dispose();
  }
}

function sameUri(a: string, b: string): boolean {
  try {
    return vscode.Uri.parse(a).toString() === vscode.Uri.parse(b).toString();
  } catch {
    return a === b;
  }
}

/** Creates the tree view and the status-bar item, and keeps both in step with the provider. */
export function registerActiveRules(context: vscode.ExtensionContext, provider: ActiveRulesProvider): vscode.TreeView<ChainNode> {
  const view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: provider, showCollapseAll: true });
  const status = vscode.window.createStatusBarItem("rulelens.status", vscode.StatusBarAlignment.Right, 100);
  status.name = "RuleLens";
  status.command = "rulelens.focusChain";
  const sync = () => {
    view.message = provider.message;
    view.description = provider.description;
    if (provider.documentUri?.scheme === "file") {
      const text = statusBarText(provider) ?? "";
      status.text = `$(law) ${text}`;
      status.accessibilityInformation = { label: `RuleLens: ${text}` };
      const agents = provider.agentViews;
      status.tooltip = agents && agents.agents.length > 0 ? agentsStatusTooltip(agents, pathContext()) : statusTooltip(provider.chain, pathContext());
      status.show();
    } else status.hide();
  };
  context.subscriptions.push(
    view,
    status,
    provider,
    provider.onDidChangeState(sync),
    vscode.window.onDidChangeActiveTextEditor((e) => provider.follow(e)),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void provider.refresh()),
  );
  provider.follow(vscode.window.activeTextEditor);
  sync();
  return view;
}

/** Text shown in the status bar right now (the self-test reports it). */
export function statusBarText(provider: ActiveRulesProvider): string | undefined {
  if (provider.documentUri?.scheme !== "file") return undefined;
  const agents = provider.agentViews;
  // The lens's headline, for the same start directory; the Grok chain only as a fallback.
  if (agents && agents.agents.length > 0 && provider.state.state === "loaded") return agentsStatusText(agents);
  return statusText(provider.chain, provider.state, pathContext());
}
