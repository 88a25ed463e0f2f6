/**
 * The server environment a platform .vsix brings along: a venv in the extension's global
 * storage, filled from the wheels under `bundled/` with `pip install --no-index`.
 *
 * First activation creates it behind a progress notification, shown before anything waits;
 * later activations find the marker and reuse it; an extension update reinstalls into it. Two
 * windows starting at once share the work through a lock directory that records its holder's
 * pid and start time, so a lock left by a closed window is taken over at once
 * (bootstrapLock.ts). The plan and the failure messages live in bootstrapPlan.ts.
 */

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { acquireLock, type LockEvent } from "./bootstrapLock";
import {
  MARKER_FILE,
  VERSION_PROBE,
  isolatedPipEnv,
  noPythonMessage,
  parsePythonVersion,
  pipInstallArgs,
  planEnvironment,
  pythonCandidates,
  setupFailedMessage,
  venvArgs,
  venvPython,
  type BundleManifest,
  type EnvMarker,
} from "./bootstrapPlan";

export type BundledResult = { python: string } | { failure: { message: string; setting: "rulelens.server.python" }; detail: string };

interface RunResult {
  code: number | null;
  output: string;
  error?: string;
}

export class BundledServer {
  private readonly bundleDir: string;
  private readonly envDir: string;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.bundleDir = path.join(context.extensionPath, "bundled");
    this.envDir = path.join(context.globalStorageUri.fsPath, "server-env");
  }

  /** The manifest of a platform .vsix; undefined for a build without bundled wheels. */
  manifest(): BundleManifest | undefined {
    try {
      return JSON.parse(readFileSync(path.join(this.bundleDir, "manifest.json"), "utf8")) as BundleManifest;
    } catch {
      return undefined;
    }
  }

  /** The venv's interpreter, set up first if needed. */
  async ensure(manifest: BundleManifest, pythonExtension?: string[]): Promise<BundledResult> {
    const version = String(this.context.extension.packageJSON.version);
    const python = venvPython(this.envDir, process.platform);
    const plan = planEnvironment(this.readMarker(), await this.runs(python), version, manifest);
    if (plan === "reuse") {
      this.log.info(`bundled server: reusing ${this.envDir} (set up for extension ${version})`);
      return { python };
    }
    mkdirSync(path.dirname(this.envDir), { recursive: true });
    const title = plan === "create" ? "RuleLens: first-run set-up" : "RuleLens: updating its server";
    // The notification comes first: waiting for another window's lock happens inside it.
    return await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, async (progress) => {
      const report = (message: string) => progress.report({ message });
      report("starting…");
      const release = await acquireLock(`${this.envDir}.lock`, (e) => this.lockEvent(e, report));
      try {
        // Another window may have finished the same work while this one waited for the lock.
        const again = planEnvironment(this.readMarker(), await this.runs(python), version, manifest);
        if (again === "reuse") {
          this.log.info(`bundled server: set up by another window in ${this.envDir}`);
          return { python };
        }
        this.log.info(`bundled server: ${again === "create" ? "setting up" : "upgrading"} ${this.envDir} for extension ${version}`);
        return await this.setUp(again, manifest, version, python, pythonExtension, report);
      } finally {
        release();
      }
    });
  }

  private lockEvent(e: LockEvent, report: (message: string) => void): void {
    const holder = e.owner ? `pid ${e.owner.pid}` : "an older RuleLens";
    if (e.kind === "waiting") {
      this.log.info(`bundled server: waiting for another window (${holder}) that is setting up ${this.envDir}`);
      report(`waiting for another window (${holder}) that is setting up the server…`);
    } else {
      this.log.warn(`bundled server: took over the set-up lock: ${e.why}`);
    }
  }

  private async setUp(
    plan: "create" | "upgrade",
    manifest: BundleManifest,
    version: string,
    python: string,
    pythonExtension: string[] | undefined,
    report: (message: string) => void,
  ): Promise<BundledResult> {
    const started = Date.now();
    let base: { argv: string[]; version: string };
    if (plan === "create") {
      const found = await this.findBasePython(manifest, pythonExtension);
      if (!("argv" in found)) return found;
      base = found;
      report(`creating a Python ${base.version} environment…`);
      rmSync(this.envDir, { recursive: true, force: true });
      const venv = await this.run([...base.argv, ...venvArgs(this.envDir, manifest)]);
      if (venv.code !== 0) return this.failed("venv", base.argv, venv);
    } else {
      const marker = this.readMarker();
      base = { argv: marker?.basePython ?? [python], version: marker?.pythonVersion ?? "?" };
    }
    report(`installing rulelens ${manifest.rulelens.version} (bundled)…`);
    const wheels = path.join(this.bundleDir, "wheels");
    const install = await this.run([python, ...pipInstallArgs(wheels, manifest)], isolatedPipEnv(process.env, os.devNull));
    if (install.code !== 0) return this.failed("install", [python], install);
    const check = await this.run([python, "-c", "import rulelens; print(rulelens.__version__)"]);
    if (check.code !== 0 || check.output.trim() !== manifest.rulelens.version) return this.failed("check", [python], check);
    const marker: EnvMarker = {
      extensionVersion: version,
      bundleSha256: manifest.sha256,
      rulelensVersion: manifest.rulelens.version,
      basePython: base.argv,
      pythonVersion: base.version,
    };
    writeFileSync(path.join(this.envDir, MARKER_FILE), JSON.stringify(marker, null, 2));
    this.log.info(`bundled server: ready in ${((Date.now() - started) / 1000).toFixed(1)} s (${plan}, Python ${base.version})`);
    return { python };
  }

  private async findBasePython(manifest: BundleManifest, pythonExtension?: string[]): Promise<{ argv: string[]; version: string } | BundledResult> {
    const found: { argv: string[]; version: string }[] = [];
    for (const argv of pythonCandidates(process.platform, manifest.pythons, pythonExtension)) {
      const probe = await this.run([...argv, "-c", VERSION_PROBE]);
      const v = probe.code === 0 ? parsePythonVersion(probe.output) : undefined;
      if (!v) continue;
      if (manifest.pythons.includes(v)) return { argv, version: v };
      found.push({ argv, version: v });
    }
    const message = noPythonMessage(manifest.pythons, found);
    return { failure: { message, setting: "rulelens.server.python" }, detail: `no interpreter with a version in ${manifest.pythons.join(", ")}` };
  }

  private failed(stage: "venv" | "install" | "check", argv: string[], r: RunResult): BundledResult {
    const output = r.error ?? r.output;
    const storage = path.dirname(this.envDir);
    let freeBytes: number | undefined;
    try {
      const fs = statfsSync(storage);
      freeBytes = fs.bavail * fs.bsize;
    } catch {
      freeBytes = undefined;
    }
    const message = setupFailedMessage(stage, argv, output, { dir: storage, freeBytes });
    this.log.error(`bundled server: ${message}`);
    return { failure: { message, setting: "rulelens.server.python" }, detail: output };
  }

  private readMarker(): EnvMarker | undefined {
    try {
      return JSON.parse(readFileSync(path.join(this.envDir, MARKER_FILE), "utf8")) as EnvMarker;
    } catch {
      return undefined;
    }
  }

  private async runs(python: string): Promise<boolean> {
    return existsSync(python) && (await this.run([python, "-c", "pass"])).code === 0;
  }

  /** Runs argv to completion; output (stdout and stderr) goes to the log as it comes. */
  private run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
    return new Promise((resolve) => {
      let output = "";
      const child = spawn(argv[0], argv.slice(1), { env, stdio: ["ignore", "pipe", "pipe"] });
      const collect = (d: Buffer) => {
        output += String(d);
      };
      child.stdout.on("data", collect);
      child.stderr.on("data", collect);
      child.on("error", (e) => resolve({ code: null, output, error: `${argv[0]}: ${e.message}` }));
      child.on("close", (code) => {
        // pip's runs are logged: `-m pip`, or the bundled wheel's `…/pip-*.whl/pip`.
        const pip = argv.some((a) => a === "pip" || a.endsWith(`${path.sep}pip`));
        if (code !== 0 || pip) this.log.info(`$ ${argv.join(" ")} -> ${code}\n${output.trim()}`);
        resolve({ code, output });
      });
    });
  }

  /**
   * When `rulelens.memory.embedder` is `local` and the server's interpreter lacks that extra
   * (it is not bundled), one message names the missing packages and the command that adds
   * them (from `python -m rulelens.extras local`, the server's own answer), with buttons to
   * run it in a terminal or copy it. Nothing runs unless the user clicks.
   */
  async offerExtra(python: string, extra: "local"): Promise<void> {
    const probe = await this.run([python, "-m", "rulelens.extras", extra]);
    let answer: { missing?: string[]; command?: string };
    try {
      answer = JSON.parse(probe.output.trim().split("\n").pop() ?? "{}");
    } catch {
      return;
    }
    const missing = answer.missing ?? [];
    if (probe.code !== 0 || missing.length === 0 || !answer.command) return;
    const command = answer.command;
    this.log.info(`local embedder: missing ${missing.join(", ")}; offering: ${command}`);
    const choice = await vscode.window.showWarningMessage(
      `RuleLens: the local embedder needs packages this server does not have (${missing.join(", ")}). Add them with: ${command} — then run "RuleLens: Restart Server".`,
      "Run in Terminal",
      "Copy Command",
    );
    if (choice === "Run in Terminal") {
      const terminal = vscode.window.createTerminal("RuleLens: local embedder");
      terminal.show();
      terminal.sendText(command);
    } else if (choice === "Copy Command") {
      await vscode.env.clipboard.writeText(command);
    }
  }
}
