/**
 * RuleLens for VS Code: wires the server, the Active Rules view and the palette commands.
 *
 * Everything shown comes from `rulelens serve` over the protocol in docs/protocol.md; lint
 * diagnostics, hovers and code lenses arrive through the language client unchanged.
 */

import * as vscode from "vscode";
import { ActiveRulesProvider, registerActiveRules, VIEW_ID } from "./chainView";
import type { ChainNode } from "./chainModel";
import { registerDocuments, showMemoryStatus, showRenderedPrompt } from "./documents";
import { reindex, remember } from "./memoryCommands";
import { registerMemoryContext, searchMemory, showMemoryContext } from "./memorySearch";
import { BundledServer } from "./bootstrap";
import { RuleLensServer } from "./server";
import { selfTest, selfTestDocuments, type SelfTestOptions } from "./selfTest";

export interface RuleLensApi {
  server: RuleLensServer;
  provider: ActiveRulesProvider;
}

export async function activate(context: vscode.ExtensionContext): Promise<RuleLensApi> {
  const log = vscode.window.createOutputChannel("RuleLens", { log: true });
  const server = new RuleLensServer(log, new BundledServer(context, log));
  const provider = new ActiveRulesProvider(server);
  context.subscriptions.push(log, server);
  const view = registerActiveRules(context, provider);
  registerDocuments(context, server);
  registerMemoryContext(context);

  const reveal = async () => {
    await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
    view.message = provider.message;
  };
  server.onShowChain = (uri) => {
    if (uri) void provider.setDocument(vscode.Uri.parse(uri));
    void reveal();
  };

  const cmd = (id: string, fn: (...args: any[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  cmd("rulelens.searchMemory", (query?: string) => searchMemory(server, typeof query === "string" ? query : ""));
  cmd("rulelens.rememberNote", (text?: string) => remember(server, typeof text === "string" ? text : undefined, log));
  cmd("rulelens.showRenderedPrompt", (node?: ChainNode) =>
    showRenderedPrompt(provider.documentUri ?? vscode.window.activeTextEditor?.document.uri, node?.kind === "file" ? node.path : undefined),
  );
  cmd("rulelens.memoryStatus", () => showMemoryStatus());
  cmd("rulelens.memoryContext", (query?: string) => showMemoryContext(server, typeof query === "string" ? query : undefined));
  cmd("rulelens.reindex", () => reindex(server));
  cmd("rulelens.restartServer", () => server.restart("restart command"));
  cmd("rulelens.refreshChain", () => provider.refresh());
  cmd("rulelens.focusChain", () => reveal());
  cmd("rulelens.setStartDirectory", (dir?: string) => {
    if (typeof dir === "string" && dir) {
      provider.startDirectory = dir;
      return provider.refresh();
    }
    return provider.chooseStartDirectory();
  });
  cmd("rulelens.selfTest", (opts?: SelfTestOptions) => selfTest(server, provider, opts ?? {}));
  cmd("rulelens.selfTestDocuments", (opts?: SelfTestOptions) => selfTestDocuments(opts ?? {}));

  void server.start();
  return { server, provider };
}

export function deactivate(): void {
  // Subscriptions (the server among them) are disposed by VS Code.
}
