/**
 * `RuleLens: Remember…` and `RuleLens: Reindex Memory`: the two commands that change state.
 *
 * Remembering writes to the agent's memory, so it asks for the scope and shows the exact text
 * in a modal confirmation before the server appends anything.
 */

import * as vscode from "vscode";
import { previewNote, reindexSummary } from "./memoryModel";
import { workspaceUri } from "./memorySearch";
import { ServerCommands, type RememberArgs, type RememberResult } from "./protocol";
import type { RuleLensServer } from "./server";

export async function remember(server: RuleLensServer, initial?: string, log?: vscode.LogOutputChannel): Promise<RememberResult | undefined> {
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
  const preview = previewNote(text);
  const ok = await vscode.window.showWarningMessage(
    `Append this note to the ${pick.scope} memory's MEMORY.md?`,
    { modal: true, detail: preview },
    "Append",
  );
  if (ok !== "Append") return undefined;

  let result: RememberResult | null;
  try {
    result = await server.executeCommand<RememberResult>(ServerCommands.remember, [{ ...args, workspaceUri: workspaceUri() }]);
  } catch (err) {
    void vscode.window.showErrorMessage(`RuleLens: the note was not saved: ${errorText(err)}`);
    return undefined;
  }
  if (!result) {
    void vscode.window.showErrorMessage("RuleLens: the note was not saved (the server did not answer; see the RuleLens output).");
    return undefined;
  }
  if (result.text !== preview) log?.warn(`remember: the server appended ${JSON.stringify(result.text)}, the preview said ${JSON.stringify(preview)}`);
  const open = await vscode.window.showInformationMessage(`Remembered in ${result.path}`, "Open");
  if (open === "Open") await vscode.window.showTextDocument(vscode.Uri.file(result.path));
  return result;
}

export async function reindex(server: RuleLensServer): Promise<unknown> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "RuleLens: reindexing memory…", cancellable: false },
    async () => {
      let result: unknown;
      try {
        result = await server.executeCommand<unknown>(ServerCommands.reindexMemory, [{ workspaceUri: workspaceUri() }]);
      } catch (err) {
        void vscode.window.showErrorMessage(`RuleLens: reindex failed: ${errorText(err)} (details in the RuleLens output).`);
        return undefined;
      }
      if (result === null) void vscode.window.showErrorMessage("RuleLens: reindex failed (the server did not answer; see the RuleLens output).");
      else void vscode.window.showInformationMessage(reindexSummary(result));
      return result;
    },
  );
}

function errorText(err: unknown): string {
  const message = (err as Error)?.message ?? String(err);
  return message.split("\n")[0];
}
