/**
 * `RuleLens: Self Test`: writes what the extension sees (lenses, hovers, diagnostics, tree rows,
 * status bar, a memory search) to JSON, so end-to-end tests assert on data, not pixels.
 *
 * It stands in for @vscode/test-electron, which cannot download VS Code here: the e2e driver
 * runs it from the palette inside real code-server and reads the file.
 */

import { promises as fs } from "node:fs";
import * as vscode from "vscode";
import { statusBarText, type ActiveRulesProvider } from "./chainView";
import { lastSearch, searchMemoryOnce } from "./memorySearch";
import { memoryRow } from "./memoryModel";
import { pathContext } from "./chainView";
import type { RuleLensServer } from "./server";

export interface SelfTestOptions {
  file?: string;
  out?: string;
  query?: string;
  /** Files to open and wait for the server's diagnostics on (env: RULELENS_SELFTEST_DIAGNOSTICS, a JSON list). */
  diagnosticsFiles?: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function poll<T>(what: () => Promise<T> | T, done: (v: T) => boolean, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  let value = await what();
  while (!done(value) && Date.now() < end) {
    await sleep(250);
    value = await what();
  }
  return value;
}

function hoverText(h: vscode.Hover): string[] {
  return h.contents.map((c) => (typeof c === "string" ? c : "value" in c ? c.value : String(c)));
}

/**
 * `RuleLens: Self Test Documents`: the text of every open RuleLens view document (rendered
 * prompt, memory status, explain) and of the visible editors, from the editor's model, so a
 * test never reads wrapped screen lines. Written next to the self-test file (`.documents.json`).
 */
export async function selfTestDocuments(opts: SelfTestOptions = {}): Promise<string> {
  const base = opts.out ?? process.env.RULELENS_SELFTEST_OUT;
  if (!base) throw new Error("RuleLens self-test: set RULELENS_SELFTEST_OUT or pass {out}");
  const out = `${base}.documents.json`;
  const visible = new Set(vscode.window.visibleTextEditors.map((e) => e.document.uri.toString()));
  const active = vscode.window.activeTextEditor?.document.uri.toString();
  const documents = vscode.workspace.textDocuments
    .filter((d) => d.uri.scheme.startsWith("rulelens") || visible.has(d.uri.toString()))
    .map((d) => ({ uri: d.uri.toString(), scheme: d.uri.scheme, path: d.uri.path, languageId: d.languageId,
      visible: visible.has(d.uri.toString()), active: d.uri.toString() === active, text: d.getText() }));
  const columns = vscode.window.tabGroups.all.length;
  const tmp = `${out}.tmp`;
  await fs.writeFile(tmp, JSON.stringify({ written: new Date().toISOString(), columns, documents }, null, 2));
  await fs.rename(tmp, out);
  return out;
}

export async function selfTest(server: RuleLensServer, provider: ActiveRulesProvider, opts: SelfTestOptions = {}): Promise<string> {
  const out = opts.out ?? process.env.RULELENS_SELFTEST_OUT;
  if (!out) throw new Error("RuleLens self-test: set RULELENS_SELFTEST_OUT or pass {out}");
  const file = opts.file ?? process.env.RULELENS_SELFTEST_FILE;
  const report: Record<string, unknown> = { started: new Date().toISOString(), server: server.status };
  try {
    const uri = file ? vscode.Uri.file(file) : vscode.window.activeTextEditor?.document.uri;
    if (!uri) throw new Error("no file to test: pass {file} or open one");
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: true });
    await poll(() => server.status.state, (s) => s === "running" || s === "failed", 30_000);
    await provider.setDocument(uri);
    await provider.settled;

    const lenses = await poll(
      async () => (await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri, 10)) ?? [],
      (l) => l.some((x) => x.command?.title),
      20_000,
    );
    const hovers = (await vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", uri, new vscode.Position(0, 0))) ?? [];
    // Rule files with known findings: open each (the language client sends didOpen) and wait
    // until the server's diagnostics for it arrive, so the list below is not a race.
    const lintFiles = opts.diagnosticsFiles ?? (process.env.RULELENS_SELFTEST_DIAGNOSTICS ? (JSON.parse(process.env.RULELENS_SELFTEST_DIAGNOSTICS) as string[]) : []);
    const diagnosticsWaitedMs: Record<string, number> = {};
    for (const f of lintFiles) {
      const t = Date.now();
      const lintUri = vscode.Uri.file(f);
      await vscode.workspace.openTextDocument(lintUri);
      await poll(() => vscode.languages.getDiagnostics(lintUri), (ds) => ds.length > 0, 20_000);
      diagnosticsWaitedMs[f] = Date.now() - t;
    }
    const diagnostics = vscode.languages.getDiagnostics().flatMap(([u, ds]) =>
      ds.map((d) => ({ uri: u.toString(), line: d.range.start.line, code: typeof d.code === "object" ? String(d.code.value) : d.code, severity: d.severity, message: d.message, source: d.source })),
    );
    Object.assign(report, {
      file: uri.fsPath,
      server: server.status,
      lenses: lenses.map((l) => ({ line: l.range.start.line, title: l.command?.title, command: l.command?.command })),
      hovers: hovers.flatMap(hoverText),
      diagnostics,
      diagnosticsWaitedMs,
      tree: { description: provider.description, message: provider.message, items: provider.snapshot() },
      statusBar: statusBarText(provider),
    });
    const query = opts.query ?? process.env.RULELENS_SELFTEST_QUERY;
    if (query) {
      try {
        const payload = await searchMemoryOnce(server, query, false);
        const ctx = pathContext();
        report.memorySearch = { query, mode: payload?.mode, results: (payload?.results ?? []).map((r) => memoryRow(r, ctx)) };
      } catch (err) {
        report.memorySearch = { query, error: String((err as Error)?.message ?? err) };
      }
    }
    report.lastQuickPick = lastSearch ?? null;
    report.ok = true;
  } catch (err) {
    report.ok = false;
    report.error = String((err as Error)?.stack ?? err);
  }
  report.finished = new Date().toISOString();
  const tmp = `${out}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(report, null, 2));
  await fs.rename(tmp, out);
  return out;
}
