/**
 * `RuleLens: Remember…` and `RuleLens: Reindex Memory`: the two commands that change state.
 *
 * Remembering writes to an agent's memory, so it asks which agent (those present in the
 * workspace first) and the scope, then asks the server for
 * a dry run (`dryRun: true`: the note as it will be appended, the file's hash, and whether the
 * agent's search could find it) and shows that in a modal confirmation. The append itself
 * carries the dry run's hash, so an edit made to the file in between is refused, not
 * overwritten. The note's normalisation lives only in the server.
 */

import * as vscode from "vscode";
import { pathContext } from "./chainView";
import { agentRememberDialog, rememberDialog, reindexSummary } from "./memoryModel";
import { workspaceUri } from "./memorySearch";
import { Methods, ServerCommands, type AgentMemoryStatus, type AgentRememberResult, type RememberArgs, type RememberPlan, type RememberResult } from "./protocol";
import type { RuleLensServer } from "./server";

/** The slice of the server that remembering uses (a stand-in in unit tests); `request` asks
 * which agents keep memory here (absent: Grok's memory only, as before issue 24). */
export type CommandRunner = Pick<RuleLensServer, "executeCommand"> & Partial<Pick<RuleLensServer, "request">>;

type AgentItem = vscode.QuickPickItem & { agent?: string };

/**
 * Which agent's memory the note goes to: the agents present in the workspace first (their
 * markers, or memory already kept for it), the first of them preselected; the rest after a
 * separator. `undefined`: cancelled; `"grok"` also when the server cannot say.
 */
export async function pickAgent(server: CommandRunner): Promise<{ agent: string; status: AgentMemoryStatus | null } | undefined> {
  let status: AgentMemoryStatus | null = null;
  try {
    status = server.request ? await server.request<AgentMemoryStatus>(Methods.memoryStatus, { workspaceUri: workspaceUri(), agent: "all" }) : null;
  } catch {
    status = null;
  }
  if (!status?.agents?.length) return { agent: "grok", status: null };
  const present = new Set(status.present);
  const item = (agent: string): AgentItem => {
    const scopes = status!.remember_scopes[agent] ?? [];
    const files = status!.agents.find((a) => a.agent === agent)?.files.length ?? 0;
    return { label: status!.names[agent] ?? agent, agent,
      description: scopes.length ? `${files} memory file(s) · ${scopes.join(" or ")}` : "writes its own memory (RuleLens cannot append)" };
  };
  const ids = status.agents.map((a) => a.agent);
  const items: AgentItem[] = [
    ...ids.filter((a) => present.has(a)).map(item),
    { label: "other agents", kind: vscode.QuickPickItemKind.Separator },
    ...ids.filter((a) => !present.has(a)).map(item),
  ];
  const pick = await vscode.window.showQuickPick(items, { title: "RuleLens: Remember… — which agent's memory?",
    placeHolder: `Agents present in this workspace first (${status.present.map((a) => status!.names[a] ?? a).join(", ")})` });
  return pick?.agent ? { agent: pick.agent, status } : undefined;
}

/** Remember into another agent's memory: its scope (asked when it has two), the server's dry
 * run of the exact bytes, a modal confirmation, then the append with `agent`. */
async function rememberAgent(server: CommandRunner, text: string, agent: string, status: AgentMemoryStatus,
  log?: vscode.LogOutputChannel): Promise<AgentRememberResult | undefined> {
  const scopes = status.remember_scopes[agent] ?? [];
  let scope = scopes[0];
  if (scopes.length > 1) {
    const pick = await vscode.window.showQuickPick(scopes.map((s) => ({ label: s === "workspace" ? "$(folder) This workspace" : "$(globe) Global", scope: s })),
      { title: `RuleLens: Remember… — ${status.names[agent] ?? agent}: where?` });
    if (!pick) return undefined;
    scope = pick.scope;
  }
  const args: RememberArgs = { text, scope: scope ?? "workspace", workspaceUri: workspaceUri(), agent };
  const plan = await run<AgentRememberResult>(server, { ...args, dryRun: true }, "the note cannot be saved");
  if (!plan) return undefined;
  log?.info(`remember: dry run for ${agent} ${plan.path}`);
  const { message, detail } = agentRememberDialog(plan, status.names[agent] ?? agent, pathContext());
  const ok = await vscode.window.showWarningMessage(message, { modal: true, detail }, "Append");
  if (ok !== "Append") return undefined;
  const result = await run<AgentRememberResult>(server, args, "the note was not saved");
  if (!result) return undefined;
  const open = await vscode.window.showInformationMessage(`Remembered in ${result.path}`, "Open");
  if (open === "Open") await vscode.window.showTextDocument(vscode.Uri.file(result.path));
  return result;
}

export async function remember(server: CommandRunner, initial?: string, log?: vscode.LogOutputChannel): Promise<RememberResult | AgentRememberResult | undefined> {
  const editor = vscode.window.activeTextEditor;
  const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : "";
  const text = await vscode.window.showInputBox({
    title: "RuleLens: Remember…",
    prompt: "A note for the agent's memory (appended to its MEMORY.md)",
    value: initial ?? selected.trim(),
    validateInput: (v) => (v.trim() ? undefined : "Type the note to remember"),
  });
  if (!text?.trim()) return undefined;

  const chosen = await pickAgent(server);
  if (!chosen) return undefined;
  if (chosen.agent !== "grok" && chosen.status) return rememberAgent(server, text, chosen.agent, chosen.status, log);

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
