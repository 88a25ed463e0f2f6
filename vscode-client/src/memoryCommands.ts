/**
 * `RuleLens: Remember…` and `RuleLens: Reindex Memory`: the two commands that change state.
 *
 * Remembering writes to the agent's memory, so it asks for the scope, then asks the server for
 * a dry run (`dryRun: true`: the note as it will be appended, the file's hash, and whether the
 * agent's search could find it) and shows that in a modal confirmation. The append itself
 * carries the dry run's hash, so an edit made to the file in between is refused, not
 * overwritten. The note's normalisation lives only in the server.
 */

import * as vscode from "vscode";
import { pathContext } from "./chainView";
import { rememberDialog, reindexSummary } from "./memoryModel";
import { workspaceUri } from "./memorySearch";
import { ServerCommands, type RememberArgs, type RememberPlan, type RememberResult } from "./protocol";
import type { RuleLensServer } from "./server";

/** The slice of the server that remembering uses (a stand-in in unit tests). */
export type CommandRunner = Pick<RuleLensServer, "executeCommand">;

export async function remember(server: CommandRunner, initial?: string, log?: vscode.LogOutputChannel): Promise<RememberResult | undefined> {
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

  const args: RememberArgs = { text, scope: pick.scope, workspaceUri: workspaceUri() };
  const plan = await run<RememberPlan>(server, { ...args, dryRun: true }, "the note cannot be saved");
  if (!plan) return undefined;
  log?.info(`remember: dry run for ${plan.path}: searchable=${plan.searchable}`);
  const { message, detail } = rememberDialog(plan, pick.scope, pathContext());
  const ok = await vscode.window.showWarningMessage(message, { modal: true, detail }, "Append");
  if (ok !== "Append") return undefined;

  const result = await run<RememberResult>(server, { ...args, expectedSha256: plan.sha256 }, "the note was not saved");
  if (!result) return undefined;
  if (result.text !== plan.note) log?.warn(`remember: the server appended ${JSON.stringify(result.text)}, its dry run said ${JSON.stringify(plan.note)}`);
  const open = await vscode.window.showInformationMessage(`Remembered in ${result.path}`, "Open");
  if (open === "Open") await vscode.window.showTextDocument(vscode.Uri.file(result.path));
  return result;
}

/** One `rulelens.remember` call; a failure or no answer becomes one error message and `null`. */
async function run<R>(server: CommandRunner, args: RememberArgs, failure: string): Promise<R | null> {
  let result: R | null;
  try {
    result = await server.executeCommand<R>(ServerCommands.remember, [args]);
  } catch (err) {
    void vscode.window.showErrorMessage(`RuleLens: ${failure}: ${errorText(err)}`);
    return null;
  }
  if (!result) void vscode.window.showErrorMessage(`RuleLens: ${failure} (the server did not answer; see the RuleLens output).`);
  return result ?? null;
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
