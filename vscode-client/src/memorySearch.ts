/**
 * `RuleLens: Search Memory`: a Quick Pick that asks the server as you type.
 *
 * Each keystroke restarts a short debounce; a newer query cancels the request in flight, so
 * the list always belongs to the text in the box. The server ranks; we only show.
 */

import * as vscode from "vscode";
import { pathContext } from "./chainView";
import { emptyText, memoryRow, placeholder, SEARCH_DEBOUNCE_MS, type MemoryRow } from "./memoryModel";
import { Methods, type MemoryResult, type MemorySearchPayload } from "./protocol";
import type { RuleLensServer } from "./server";

type Item = vscode.QuickPickItem & { result?: MemoryResult };

/** The last list shown, for the self-test. */
export let lastSearch: { query: string; all: boolean; rows: MemoryRow[] } | undefined;

export function workspaceUri(): string | undefined {
  const active = vscode.window.activeTextEditor?.document.uri;
  const folder = (active && vscode.workspace.getWorkspaceFolder(active)) ?? vscode.workspace.workspaceFolders?.[0];
  return folder?.uri.toString();
}

export async function searchMemoryOnce(server: RuleLensServer, query: string, all: boolean, token?: vscode.CancellationToken): Promise<MemorySearchPayload | null> {
  return server.request<MemorySearchPayload>(Methods.memorySearch, { query, workspaceUri: workspaceUri(), all }, token);
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
  const toggle = (): vscode.QuickInputButton => ({
    iconPath: new vscode.ThemeIcon(all ? "filter-filled" : "list-flat"),
    tooltip: all ? "Show only what the agent would return" : "Show the wider list (also results below the agent's cut)",
  });
  const sync = () => {
    qp.title = all ? "RuleLens: Search Memory — wider list" : "RuleLens: Search Memory — what the agent would return";
    qp.placeholder = placeholder(all);
    qp.buttons = [toggle()];
  };
  sync();
  qp.matchOnDescription = false;
  qp.matchOnDetail = false;

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
    try {
      const payload = await searchMemoryOnce(server, query, all, cts.token);
      if (cts.token.isCancellationRequested) return;
      const ctx = pathContext();
      const rows = (payload?.results ?? []).map((r) => memoryRow(r, ctx));
      lastSearch = { query, all, rows };
      qp.items = rows.length
        ? rows.map((r) => ({ label: r.label, description: r.description, detail: r.detail, alwaysShow: true, result: r.result }))
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
    qp.onDidTriggerButton(() => {
      all = !all;
      sync();
      schedule(qp.value, 0);
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
