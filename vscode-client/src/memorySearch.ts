/**
 * `RuleLens: Search Memory`: a Quick Pick that asks the server as you type.
 *
 * Each keystroke restarts a short debounce; a newer query cancels the request in flight, so
 * the list always belongs to the text in the box. The server ranks; we only show.
 */

import * as vscode from "vscode";
import { pathContext } from "./chainView";
import { agentGroups, emptyText, explainMarkdown, memoryRow, placeholder, SEARCH_DEBOUNCE_MS, type MemoryRow } from "./memoryModel";
import { Methods, type MemoryContextPayload, type MemoryResult, type MemorySearchParams, type MemorySearchPayload } from "./protocol";
import type { RuleLensServer } from "./server";

type Item = vscode.QuickPickItem & { result?: MemoryResult };

/** The last list shown, for the self-test (`groups`: the all-agents view's headings and marks). */
export let lastSearch: { query: string; all: boolean; rank: Rank; rows: MemoryRow[]; agent?: string;
  groups?: { label: string; rows: string[] }[] } | undefined;

export type Rank = "agent" | "best";

/** Read-only views (the first-turn context, explain): their text by URI. */
const CONTEXT_SCHEME = "rulelens-memory-context";
const contextTexts = new Map<string, string>();

/** The ranking to start with (`rulelens.memory.rank`), the sources to search, and whose
 * memory (`rulelens.memory.agents`: Grok's, or every agent's grouped by agent). */
function memorySettings(): { rank: Rank; sources: string[]; everyAgent: boolean } {
  const cfg = vscode.workspace.getConfiguration("rulelens");
  const rank = cfg.get<string>("memory.rank") === "best" ? "best" : "agent";
  const sources = cfg.get<string[]>("memory.sources") ?? ["memory"];
  return { rank, sources: sources.length ? sources : ["memory"], everyAgent: cfg.get<string>("memory.agents") === "all" };
}

export function workspaceUri(): string | undefined {
  const active = vscode.window.activeTextEditor?.document.uri;
  const folder = (active && vscode.workspace.getWorkspaceFolder(active)) ?? vscode.workspace.workspaceFolders?.[0];
  return folder?.uri.toString();
}

export async function searchMemoryOnce(server: RuleLensServer, query: string, all: boolean, token?: vscode.CancellationToken,
  extra: Partial<MemorySearchParams> = {}): Promise<MemorySearchPayload | null> {
  const params: MemorySearchParams = { query, workspaceUri: workspaceUri(), all, ...extra };
  if (params.rank === "agent") delete params.rank;
  if (params.sources && params.sources.length === 1 && params.sources[0] === "memory") delete params.sources;
  return server.request<MemorySearchPayload>(Methods.memorySearch, params, token);
}

/** The explain detail view of one result: the same search asked with `explain: true`. */
export async function explainResult(server: RuleLensServer, query: string, rank: Rank, result: MemoryResult): Promise<string | undefined> {
  const payload = await searchMemoryOnce(server, query, true, undefined, { rank, explain: true });
  const found = payload?.results.find((r) => r.path === result.path && r.start_line === result.start_line) ?? result;
  const text = explainMarkdown(found, query, rank);
  lastExplain = text;
  const uri = vscode.Uri.from({ scheme: CONTEXT_SCHEME, path: "/why this result.md", query: encodeURIComponent(`${query}\n${result.path}:${result.start_line}`) });
  contextTexts.set(uri.toString(), text);  // read-only, like the first-turn context view
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: sideColumn() });
  return text;
}

/** The last explain view, for the self-test. */
export let lastExplain: string | undefined;

/** The group already showing `uri`, else an editor group beside the active one that already
 * exists, else a new one beside it: views open in the side group, not a new column each time. */
export function sideColumn(uri?: vscode.Uri): vscode.ViewColumn {
  const active = vscode.window.activeTextEditor?.viewColumn ?? vscode.ViewColumn.One;
  if (uri) {
    const holder = vscode.window.tabGroups.all.find((g) => g.tabs.some((t) =>
      t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString()));
    if (holder) return holder.viewColumn;
  }
  const others = vscode.window.tabGroups.all.map((g) => g.viewColumn).filter((c) => c !== active);
  return others.length ? others.sort((a, b) => a - b)[0] : vscode.ViewColumn.Beside;
}

export async function openResult(result: MemoryResult): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(result.path));
  const last = Math.min(Math.max(result.end_line, result.start_line), doc.lineCount) - 1;
  const first = Math.min(Math.max(result.start_line - 1, 0), last);
  const range = new vscode.Range(first, 0, last, doc.lineAt(last).range.end.character);
  await vscode.window.showTextDocument(doc, { selection: range, preview: true });
}

export function searchMemory(server: RuleLensServer, initialQuery = ""): Promise<void> {
  const qp = vscode.window.createQuickPick<Item>();
  let all = false;
  const settings = memorySettings();
  let rank: Rank = settings.rank;
  let everyAgent = settings.everyAgent;
  const agentButton = (): vscode.QuickInputButton => ({
    iconPath: new vscode.ThemeIcon(everyAgent ? "organization" : "person"),
    tooltip: everyAgent ? "Every agent's memory, grouped by agent — switch to Grok's memory" : "Grok's memory — switch to every agent's memory (Claude Code, Codex, Gemini CLI, Qwen Code…)",
  });
  const toggle = (): vscode.QuickInputButton => ({
    iconPath: new vscode.ThemeIcon(all ? "filter-filled" : "list-flat"),
    tooltip: all ? "Show only what the agent would return" : "Show the wider list (also results below the agent's cut)",
  });
  const rankButton = (): vscode.QuickInputButton => ({
    iconPath: new vscode.ThemeIcon(rank === "best" ? "sparkle" : "hubot"),
    tooltip: rank === "best" ? "Ranked for people (best) — switch to the agent's ranking" : "The agent's ranking — switch to best (for people)",
  });
  const explainButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("info"), tooltip: "Why did this rank here?" };
  const sync = () => {
    const view = everyAgent ? "every agent, grouped (injected at start / on demand)"
      : rank === "best" ? "ranked for people (best)" : all ? "wider list" : "what the agent would return";
    qp.title = `RuleLens: Search Memory — ${view}`;
    qp.placeholder = everyAgent ? "Search every agent's memory for this workspace" : placeholder(all);
    qp.buttons = everyAgent ? [agentButton()] : [toggle(), rankButton(), agentButton()];
  };
  sync();
  qp.matchOnDescription = false;
  // The server ranks and filters; VS Code only highlights the typed words in the matched
  // sentence (its API takes no highlight ranges), and `alwaysShow` keeps the server's list.
  qp.matchOnDetail = true;

  let timer: NodeJS.Timeout | undefined;
  let inflight: vscode.CancellationTokenSource | undefined;

  const run = async (query: string) => {
    inflight?.cancel();
    const cts = (inflight = new vscode.CancellationTokenSource());
    if (!query.trim()) {
      qp.items = [{ label: emptyText(query, all), alwaysShow: true }];
      qp.busy = false;
      return;
    }
    qp.busy = true;
    if (everyAgent) {
      try {
        const payload = await searchMemoryOnce(server, query, all, cts.token, { agent: "all" });
        if (cts.token.isCancellationRequested) return;
        const groups = agentGroups(payload?.results ?? [], pathContext(), payload?.names ?? {}, payload?.keywords ?? []);
        const rows = groups.flatMap((g) => (g.kind === "hit" ? [g.row] : []));
        const heads: { label: string; rows: string[] }[] = [];
        for (const g of groups) {
          if (g.kind === "separator") heads.push({ label: g.label, rows: [] });
          else heads[heads.length - 1].rows.push(`${g.row.label}  ${g.row.description}`);
        }
        lastSearch = { query, all, rank: "best", rows, agent: "all", groups: heads };
        qp.items = groups.length
          ? groups.map((g): Item => g.kind === "separator"
            ? { label: g.label, kind: vscode.QuickPickItemKind.Separator }
            : { label: g.row.label, description: g.row.description, detail: g.row.detail, alwaysShow: true, result: g.row.result })
          : [{ label: payload ? `No agent's memory matches "${query}"` : "The RuleLens server is not running — see the RuleLens output", alwaysShow: true }];
      } catch (err) {
        if (cts.token.isCancellationRequested) return;
        qp.items = [{ label: `Memory search failed: ${String((err as Error)?.message ?? err)}`, alwaysShow: true }];
      } finally {
        if (inflight === cts) qp.busy = false;
      }
      return;
    }
    try {
      const payload = await searchMemoryOnce(server, query, all, cts.token, { rank, sources: settings.sources });
      if (cts.token.isCancellationRequested) return;
      const ctx = pathContext();
      const found = [...(payload?.results ?? []), ...(payload?.transcripts ?? [])];
      const rows = found.map((r) => memoryRow(r, ctx, payload?.keywords ?? []));
      lastSearch = { query, all, rank, rows };
      qp.items = rows.length
        ? rows.map((r) => ({ label: r.label, description: r.description, detail: r.detail, alwaysShow: true, result: r.result,
            buttons: r.result.source === "transcript" ? [] : [explainButton] }))
        : [{ label: payload ? emptyText(query, all) : "The RuleLens server is not running — see the RuleLens output", alwaysShow: true }];
    } catch (err) {
      if (cts.token.isCancellationRequested) return;
      qp.items = [{ label: `Memory search failed: ${String((err as Error)?.message ?? err)}`, alwaysShow: true }];
    } finally {
      if (inflight === cts) qp.busy = false;
    }
  };
  const schedule = (query: string, delay = SEARCH_DEBOUNCE_MS) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(query), delay);
  };

  return new Promise<void>((resolve) => {
    qp.onDidChangeValue((v) => schedule(v));
    qp.onDidTriggerButton((button) => {
      if (button.tooltip === rankButton().tooltip) rank = rank === "best" ? "agent" : "best";
      else if (button.tooltip === agentButton().tooltip) everyAgent = !everyAgent;
      else all = !all;
      sync();
      schedule(qp.value, 0);
    });
    qp.onDidTriggerItemButton(async (e) => {
      if (!e.item.result) return;
      qp.hide();
      await explainResult(server, qp.value, rank, e.item.result);
    });
    qp.onDidAccept(async () => {
      const picked = qp.selectedItems[0] ?? qp.activeItems[0];
      if (!picked?.result) return;
      qp.hide();
      await openResult(picked.result);
    });
    qp.onDidHide(() => {
      if (timer) clearTimeout(timer);
      inflight?.cancel();
      qp.dispose();
      resolve();
    });
    qp.value = initialQuery;
    qp.show();
    schedule(initialQuery, 0);
  });
}


/** A read-only view of the first-turn `<memory-context>` block (the server's bytes). */
export function registerMemoryContext(context: vscode.ExtensionContext): void {
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(CONTEXT_SCHEME, {
    provideTextDocumentContent: (uri) => contextTexts.get(uri.toString()) ?? "",
  }));
}

/** The last context shown, for the self-test. */
export let lastContext: MemoryContextPayload | undefined;

export async function showMemoryContext(server: RuleLensServer, initial?: string): Promise<MemoryContextPayload | undefined> {
  const query = initial ?? (await vscode.window.showInputBox({
    title: "RuleLens: First-Turn Memory Context",
    prompt: "The user's first message (a greeting or short text uses the agent's fallback query)",
  }));
  if (query === undefined) return undefined;
  const payload = await server.request<MemoryContextPayload>(Methods.memoryContext, { query, workspaceUri: workspaceUri() });
  if (!payload) return undefined;
  lastContext = payload;
  const uri = vscode.Uri.from({ scheme: CONTEXT_SCHEME, path: "/first-turn memory context.md", query: encodeURIComponent(query) });
  contextTexts.set(uri.toString(), payload.text || `(nothing is injected)\n\n${payload.reason}\n`);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: sideColumn() });
  return payload;
}
