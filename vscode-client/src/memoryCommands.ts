/**
 * `RuleLens: Remember…` and `RuleLens: Reindex Memory`: the two commands that change state.
 *
 * Remembering writes to the agent's memory, so it asks for the scope and shows the exact text
 * in a modal confirmation before the server appends anything.
 */

import * as vscode from "vscode";
import { reindexSummary } from "./memoryModel";
import { workspaceUri } from "./memorySearch";
import { ServerCommands, type RememberArgs, type RememberResult } from "./protocol";
import type { RuleLensServer } from "./server";

export async function remember(server: RuleLensServer, initial?: string): Promise<RememberResult | undefined> {
  const editor = vscode.window.activeTextEditor;
  const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : "";
  const text = await vscode.window.showInputBox({
    title: "RuleLens: Remember…",
    prompt: "A note for the agent's memory (appended to its MEMORY.md)",
    value: initial ?? selected.trim(),
    validateInput: (v) => (v.trim() ? undefined : "Type the note to remember"),
  });
  if (!text?.trim()) return undefined;

  const pick = await vscode.window.showQuickPick(
    [
      { label: "$(folder) This workspace", description: "only sessions in this repository see it", scope: "workspace" as const },
      { label: "$(globe) Global", description: "every session sees it", scope: "global" as const },
    ],
    { title: "RuleLens: Remember… — where?", placeHolder: "Which memory should the note go to?" },
  );
  if (!pick) return undefined;

  const args: RememberArgs = { text, scope: pick.scope };
  const ok = await vscode.window.showWarningMessage(
    `Append this note to the ${pick.scope} memory?`,
    { modal: true, detail: text },
    "Append",
  );
  if (ok !== "Append") return undefined;

  const result = await server.executeCommand<RememberResult>(ServerCommands.remember, [args]);
  if (!result) {
    void vscode.window.showErrorMessage("RuleLens: the note was not saved (the server did not answer; see the RuleLens output).");
    return undefined;
  }
  const open = await vscode.window.showInformationMessage(`Remembered in ${result.path}`, "Open");
  if (open === "Open") await vscode.window.showTextDocument(vscode.Uri.file(result.path));
  return result;
}

export async function reindex(server: RuleLensServer): Promise<unknown> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "RuleLens: reindexing memory…", cancellable: false },
    async () => {
      const result = await server.executeCommand<unknown>(ServerCommands.reindexMemory, [{ workspaceUri: workspaceUri() }]);
      if (result === null) void vscode.window.showErrorMessage("RuleLens: reindex failed (the server did not answer; see the RuleLens output).");
      else void vscode.window.showInformationMessage(reindexSummary(result));
      return result;
    },
  );
}
