/**
 * Read-only virtual documents: the rendered prompt and the memory status.
 *
 * Virtual documents (a TextDocumentContentProvider) cannot be edited or saved, which is the
 * point: they show what the agent sees, not a file the user might change by accident.
 */

import * as path from "node:path";
import * as vscode from "vscode";
import { statusMarkdown } from "./memoryModel";
import { Methods, type RenderPayload } from "./protocol";
import type { RuleLensServer } from "./server";
import { documentColumn } from "./columns";
import { workspaceUri } from "./memorySearch";

export const PROMPT_SCHEME = "rulelens-prompt";
export const STATUS_SCHEME = "rulelens-status";

class ServerDocuments implements vscode.TextDocumentContentProvider {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  private readonly open = new Set<string>();

  constructor(private readonly server: RuleLensServer) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    this.open.add(uri.toString());
    const target = uri.query ? decodeURIComponent(uri.query) : undefined;
    if (uri.scheme === PROMPT_SCHEME) {
      if (!target) return "No file.";
      const payload = await this.server.request<RenderPayload>(Methods.render, { uri: target });
      if (!payload) return `RuleLens has no rendered prompt for ${vscode.Uri.parse(target).fsPath} (is the server running? see the RuleLens output).`;
      return payload.text;
    }
    const status = await this.server.request<unknown>(Methods.memoryStatus, target ? { workspaceUri: target } : {});
    if (status === null) return "# Memory status\n\nThe RuleLens server did not answer (is it running? see the RuleLens output).\n";
    return statusMarkdown(status);
  }

  forget(uri: vscode.Uri): void {
    this.open.delete(uri.toString());
  }

  /** Re-read every open virtual document, e.g. after the chain changed on disk. */
  refreshAll(): void {
    for (const u of this.open) this.emitter.fire(vscode.Uri.parse(u));
  }
}

let documents: ServerDocuments | undefined;

export function registerDocuments(context: vscode.ExtensionContext, server: RuleLensServer): void {
  documents = new ServerDocuments(server);
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(PROMPT_SCHEME, documents),
    vscode.workspace.registerTextDocumentContentProvider(STATUS_SCHEME, documents),
    server.onChainChanged(() => documents?.refreshAll()),
    server.onMemoryIndexed(() => documents?.refreshAll()),
    vscode.workspace.onDidCloseTextDocument((d) => documents?.forget(d.uri)),
  );
}

export function promptUri(file: vscode.Uri): vscode.Uri {
  return vscode.Uri.from({ scheme: PROMPT_SCHEME, path: `/${path.basename(file.fsPath)} — rendered prompt.md`, query: encodeURIComponent(file.toString()) });
}

export async function showRenderedPrompt(file: vscode.Uri | undefined, focusPath?: string): Promise<void> {
  if (!file || file.scheme !== "file") {
    void vscode.window.showInformationMessage("RuleLens: open a file first; the rendered prompt is the text the agent injects for it.");
    return;
  }
  const uri = promptUri(file);
  documents?.refreshAll();
  const doc = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(doc, { preview: true, viewColumn: targetColumn(uri) });
  if (focusPath) {
    // Put the cursor on the part that came from the file whose context action was used.
    const at = doc.getText().indexOf(focusPath);
    if (at >= 0) {
      const pos = doc.positionAt(at);
      editor.selection = new vscode.Selection(pos, pos);
      editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.AtTop);
    }
  }
}

/**
 * The group a RuleLens document opens in: the one already showing it, else the active
 * group's neighbour if there is one, else the active group — never a new, cramped column.
 */
function targetColumn(uri: vscode.Uri): vscode.ViewColumn {
  const groups = vscode.window.tabGroups.all;
  const holder = groups.find((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString()));
  return documentColumn(groups.map((g) => g.viewColumn), vscode.window.tabGroups.activeTabGroup.viewColumn, holder?.viewColumn);
}

/**
 * Memory Status as a Markdown preview (not raw Markdown), in the group `targetColumn` picks.
 * The document stays open as a model (the preview renders it; `Self Test Documents` reads
 * it); without the built-in Markdown extension it opens as text.
 */
export async function showMemoryStatus(): Promise<void> {
  const ws = workspaceUri();
  const uri = vscode.Uri.from({ scheme: STATUS_SCHEME, path: "/RuleLens memory status.md", query: ws ? encodeURIComponent(ws) : "" });
  documents?.refreshAll();
  const doc = await vscode.workspace.openTextDocument(uri);
  const column = targetColumn(uri);
  const active = vscode.window.tabGroups.activeTabGroup.viewColumn;
  try {
    // markdown.showPreview opens in the active group: make the chosen neighbour active first.
    if (column === active + 1) await vscode.commands.executeCommand("workbench.action.focusRightGroup");
    else if (column === active - 1) await vscode.commands.executeCommand("workbench.action.focusLeftGroup");
    await vscode.commands.executeCommand("markdown.showPreview", uri);
  } catch {
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: column });
  }
}
