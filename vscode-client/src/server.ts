/**
 * Launches, restarts and talks to `rulelens serve`. Nothing else.
 *
 * Following Microsoft's python-tools template: this module only owns the process and the
 * connection; the Python side owns behaviour. When the server cannot start, the user gets one
 * message that names the setting to fix (with a button to it) and the details go to the log.
 */

import { spawn } from "node:child_process";
import { accessSync, constants as fsConstants, statSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  LanguageClient,
  RevealOutputChannelOn,
  State,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import type { BundledServer } from "./bootstrap";
import { usesBundledServer } from "./bootstrapPlan";
import { Methods, ServerCommands, type ChainChangedParams } from "./protocol";
import { resolveServerCommand, type ResolvedCommand } from "./serverCommand";
import { readServerSettings, serverCommandInputs, watchPythonInterpreter } from "./settings";
import { diagnose, type ProbeResult } from "./startupDiagnosis";

export type ServerStatus = { state: "starting" } | { state: "running" } | { state: "failed"; reason: string } | { state: "stopped" };

export class RuleLensServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly statusEmitter = new vscode.EventEmitter<ServerStatus>();
  private readonly chainChangedEmitter = new vscode.EventEmitter<string[]>();
  private readonly disposables: vscode.Disposable[] = [];
  private clientDisposables: vscode.Disposable[] = [];
  private crashTimes: number[] = [];
  private starting: Promise<void> | undefined;
  status: ServerStatus = { state: "stopped" };

  /** Fires on every state change; views show "server not running" from it. */
  readonly onDidChangeStatus = this.statusEmitter.event;
  /** `rulelens/chainChanged` from the server: the URIs whose chain changed on disk. */
  readonly onChainChanged = this.chainChangedEmitter.event;
  private readonly memoryIndexedEmitter = new vscode.EventEmitter<void>();
  /** `rulelens/memoryIndexed`: the memory index changed (open status documents re-read). */
  readonly onMemoryIndexed = this.memoryIndexedEmitter.event;

  /** Called with the result of `rulelens.showChain` (the code lens): the view reveals itself. */
  onShowChain: ((uri: string | undefined) => void) | undefined;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    /** The server a platform .vsix carries; used unless the settings name another one. */
    private readonly bundled?: BundledServer,
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("rulelens.server")) void this.restart("server settings changed");
        else if (e.affectsConfiguration("rulelens")) this.pushSettings();
        if (e.affectsConfiguration("rulelens.memory.embedder")) this.offerExtras();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.restart("workspace trusted")),
    );
    void watchPythonInterpreter(() => void this.restart("the Python extension's interpreter changed")).then((d) => d && this.disposables.push(d));
  }

  get languageClient(): LanguageClient | undefined {
    return this.client;
  }

  isRunning(): boolean {
    return this.client?.state === State.Running;
  }

  private setStatus(status: ServerStatus): void {
    this.status = status;
    this.statusEmitter.fire(status);
  }

  start(): Promise<void> {
    if (!this.starting) this.starting = this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  async restart(why: string): Promise<void> {
    this.log.info(`restarting the server: ${why}`);
    await this.starting?.catch(() => undefined);
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.clientDisposables.forEach((d) => d.dispose());
    this.clientDisposables = [];
    if (client) {
      try {
        if (client.needsStop()) await client.stop(5000);
      } catch (err) {
        this.log.warn(`stopping the server: ${String(err)}`);
      }
      await client.dispose().catch(() => undefined);
    }
    this.setStatus({ state: "stopped" });
  }

  private async doStart(): Promise<void> {
    this.setStatus({ state: "starting" });
    let resolved: ResolvedCommand;
    try {
      const inputs = await serverCommandInputs();
      const manifest = usesBundledServer(inputs) ? this.bundled?.manifest() : undefined;
      if (manifest && this.bundled) {
        const env = await this.bundled.ensure(manifest, inputs.pythonExtensionInterpreter);
        if ("failure" in env) {
          await this.reportFailure(env.failure, env.detail);
          return;
        }
        resolved = { command: env.python, args: ["-m", "rulelens", "serve"], pythonSource: "bundled" };
      } else {
        resolved = resolveServerCommand(inputs);
      }
    } catch (err) {
      await this.reportFailure({ message: `RuleLens: ${String((err as Error).message ?? err)}`, setting: "rulelens.server.command" }, String(err));
      return;
    }
    this.log.info(`starting: ${[resolved.command, ...resolved.args].join(" ")} (python from ${resolved.pythonSource})`);
    if (!findExecutable(resolved.command)) {
      // Checked before starting: the language client would otherwise add its own second
      // "couldn't create connection" notification to ours.
      await this.reportFailure(diagnose(resolved.command, resolved.pythonSource !== "not-used", { spawnErrorCode: "ENOENT" }, ""), `${resolved.command}: not found`);
      return;
    }

    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const serverOptions: ServerOptions = {
      command: resolved.command,
      args: resolved.args,
      transport: TransportKind.stdio,
      options: { cwd, env: { ...process.env, PYTHONUNBUFFERED: "1" } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }],
      outputChannel: this.log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: { rulelens: readServerSettings() },
      initializationFailedHandler: (error) => {
        this.log.error(`initialize failed: ${String(error)}`);
        return false;
      },
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue, handled: true }),
        closed: () => this.onClosed(),
      },
      middleware: {
        executeCommand: async (command, args, next) => {
          const result = await next(command, args);
          if (command === ServerCommands.showChain) this.onShowChain?.(typeof args[0] === "string" ? args[0] : undefined);
          return result;
        },
        workspace: {
          // The server may pull settings instead of waiting for a push; answer with the same
          // trust-filtered object so an untrusted workspace never gets a network embedder.
          configuration: async (params, token, next) => {
            const values = await next(params, token);
            if (!Array.isArray(values)) return values;
            return params.items.map((item, i) => (item.section === "rulelens" ? readServerSettings() : values[i]));
          },
        },
      },
    };
    const client = new QuietStartLanguageClient("rulelens", "RuleLens", serverOptions, clientOptions, () => this.status.state === "starting");
    this.client = client;
    this.clientDisposables.push(
      client.onNotification(Methods.chainChanged, (params: ChainChangedParams) => {
        this.chainChangedEmitter.fire(params?.uris ?? []);
      }),
      client.onNotification(Methods.memoryIndexed, () => this.memoryIndexedEmitter.fire()),
      client.onDidChangeState((e) => {
        if (e.newState === State.Running) this.setStatus({ state: "running" });
      }),
    );
    try {
      await client.start();
      this.log.info(`server running: ${client.initializeResult?.serverInfo?.name ?? "?"} ${client.initializeResult?.serverInfo?.version ?? ""}`);
      this.setStatus({ state: "running" });
      this.pushSettings();
      this.python = resolved.pythonSource === "not-used" ? undefined : resolved.command;
      this.offerExtras();
    } catch (err) {
      const detail = err instanceof Error ? err.stack ?? err.message : String(err);
      this.log.error(`server failed to start: ${detail}`);
      if (this.client === client) this.client = undefined;
      await client.dispose().catch(() => undefined);
      const probe = await this.probe(resolved);
      this.log.error(`probe: ${JSON.stringify(probe)}`);
      await this.reportFailure(diagnose(resolved.command, resolved.pythonSource !== "not-used", probe, String((err as Error)?.message ?? err)), detail);
    }
  }

  private onClosed(): { action: CloseAction; handled: boolean; message?: string } {
    if (this.status.state !== "running") return { action: CloseAction.DoNotRestart, handled: true };
    const now = Date.now();
    this.crashTimes = [...this.crashTimes.filter((t) => now - t < 180_000), now];
    if (this.crashTimes.length <= 3) {
      this.log.warn("the server exited; restarting it");
      return { action: CloseAction.Restart, handled: true };
    }
    void this.reportFailure({ message: "The RuleLens server crashed 4 times in 3 minutes and was not restarted.", setting: "rulelens.server.command" }, "crash loop");
    return { action: CloseAction.DoNotRestart, handled: true };
  }

  /** Runs `python -c 'import rulelens'` (or the raw command with --version) to tell missing Python from a missing package. */
  private probe(resolved: ResolvedCommand): Promise<ProbeResult> {
    const usesPython = resolved.pythonSource !== "not-used";
    const argv = usesPython
      ? [resolved.command, ...resolved.args.slice(0, resolved.args.indexOf("-m") >= 0 ? resolved.args.indexOf("-m") : 0), "-c", "import rulelens; print(rulelens.__version__)"]
      : [resolved.command, "--version"];
    return new Promise((resolve) => {
      let stdout = "";
      let stderr = "";
      let done = false;
      const finish = (r: ProbeResult) => {
        if (!done) {
          done = true;
          resolve(r);
        }
      };
      try {
        const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], timeout: 10_000 });
        child.stdout.on("data", (d) => (stdout += String(d)));
        child.stderr.on("data", (d) => (stderr += String(d)));
        child.on("error", (e: NodeJS.ErrnoException) => finish({ spawnErrorCode: e.code ?? "ERROR", stderr: e.message }));
        child.on("close", (code) => finish({ exitCode: code, stdout, stderr }));
      } catch (e) {
        finish({ spawnErrorCode: (e as NodeJS.ErrnoException).code ?? "ERROR", stderr: String(e) });
      }
    });
  }

  private async reportFailure(diagnosis: { message: string; setting: string }, detail: string): Promise<void> {
    this.log.error(`${diagnosis.message}\n${detail}`);
    this.setStatus({ state: "failed", reason: diagnosis.message });
    const choice = await vscode.window.showErrorMessage(diagnosis.message, "Open Setting", "Show Log");
    if (choice === "Open Setting") await vscode.commands.executeCommand("workbench.action.openSettings", diagnosis.setting);
    else if (choice === "Show Log") this.log.show(true);
  }

  /** The running server's interpreter, when it was started as `python -m rulelens serve`. */
  private python: string | undefined;

  /** The local embedder is an extra no bundle carries: say how to add it when it is chosen. */
  private offerExtras(): void {
    if (this.python && this.bundled && readServerSettings().memory.embedder === "local") {
      void this.bundled.offerExtra(this.python, "local");
    }
  }

  /** `workspace/didChangeConfiguration` with the whole `rulelens` section, trust-filtered. */
  pushSettings(): void {
    const client = this.client;
    if (!client || client.state !== State.Running) return;
    const settings = readServerSettings();
    this.log.info(`settings -> server: ${JSON.stringify(settings)}`);
    void client.sendNotification(DidChangeConfigurationNotification.type, { settings: { rulelens: settings } });
  }

  async request<R>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<R | null> {
    if (this.starting) await this.starting;
    const client = this.client;
    if (!client || client.state !== State.Running) return null;
    return token ? client.sendRequest<R>(method, params, token) : client.sendRequest<R>(method, params);
  }

  async executeCommand<R>(command: string, args: unknown[]): Promise<R | null> {
    return this.request<R>("workspace/executeCommand", { command, arguments: args });
  }

  dispose(): void {
    void this.stop();
    this.disposables.forEach((d) => d.dispose());
    this.statusEmitter.dispose();
    this.chainChangedEmitter.dispose();
    this.memoryIndexedEmitter.dispose();
  }
}

/** The executable a command name resolves to (absolute, relative or on PATH), or undefined. */
export function findExecutable(command: string, envPath = process.env.PATH ?? ""): string | undefined {
  const runnable = (p: string) => {
    try {
      accessSync(p, fsConstants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (command.includes("/") || command.includes(path.sep)) return runnable(command) ? command : undefined;
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    if (runnable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * A LanguageClient that logs, but does not pop up, its own errors while the server starts:
 * a failed start gets exactly one message, ours, which names the setting to fix.
 */
class QuietStartLanguageClient extends LanguageClient {
  constructor(
    id: string,
    name: string,
    serverOptions: ServerOptions,
    clientOptions: LanguageClientOptions,
    private readonly starting: () => boolean,
  ) {
    super(id, name, serverOptions, clientOptions);
  }

  override error(message: string, data?: unknown, showNotification?: boolean | "force"): void {
    super.error(message, data, this.starting() ? false : showNotification);
  }
}
