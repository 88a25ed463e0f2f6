/**
 * The .vsix first-run set-up driven directly (issue 19, defect 6): the real lock code on a
 * real file system against real processes (a dead holder is a child that was spawned and
 * reaped; a live one is a running `sleep`), and BundledServer.ensure with interpreters that
 * are real programs on PATH: scripts that print what python, venv and pip print when the venv
 * module is missing or the disk is full, and, when this machine lets the test mount one, the
 * real `python3 -m venv` into a tmpfs of 2 MiB.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as vscode from "vscode";
import { BundledServer } from "../src/bootstrap";
import { acquireLock, processStart, readOwner, type LockEvent } from "../src/bootstrapLock";
import type { BundleManifest } from "../src/bootstrapPlan";

let tmp: string;
const children: ChildProcess[] = [];
const savedPath = process.env.PATH;
type Task = (progress: { report(v: { message?: string }): void }) => Promise<unknown>;
const win = vscode.window as unknown as { withProgress: (o: unknown, task: Task) => Promise<unknown> };
const savedProgress = win.withProgress;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "rulelens-bootstrap-"));
});

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  process.env.PATH = savedPath;
  win.withProgress = savedProgress;
  rmSync(tmp, { recursive: true, force: true });
});

/** The pid of a process that has exited and been reaped: nothing runs under it now. */
function deadPid(): number {
  const done = spawnSync(process.execPath, ["-e", ""]);
  expect(done.status).toBe(0);
  return done.pid;
}

function liveHolder(): ChildProcess {
  const child = spawn("sleep", ["60"], { stdio: "ignore" });
  children.push(child);
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on("exit", () => resolve())));
}

function writeLock(lockDir: string, owner: object): void {
  mkdirSync(lockDir, { recursive: true });
  writeFileSync(path.join(lockDir, "owner.json"), JSON.stringify(owner));
}

describe("the set-up lock", () => {
  it("takes over at once a lock whose holder died (a window closed mid-install)", async () => {
    const lockDir = path.join(tmp, "server-env.lock");
    const pid = deadPid();
    writeLock(lockDir, { pid, start: "12345" });
    const events: LockEvent[] = [];
    const started = Date.now();
    const release = await acquireLock(lockDir, (e) => events.push(e));
    expect(Date.now() - started).toBeLessThan(2000); // the old lock waited ten minutes
    expect(events.map((e) => e.kind)).toEqual(["taken-over"]);
    expect(events[0]).toMatchObject({ why: `its holder (pid ${pid}) is no longer running` });
    expect(readOwner(lockDir)).toEqual({ pid: process.pid, start: processStart(process.pid) });
    release();
    expect(readOwner(lockDir)).toBeUndefined();
  });

  it("takes over a lock whose pid now belongs to a process started at another time", async () => {
    const lockDir = path.join(tmp, "server-env.lock");
    const mine = processStart(process.pid);
    expect(mine).toMatch(/^\d+$/);
    writeLock(lockDir, { pid: process.pid, start: String(Number(mine) - 1) }); // a reused pid
    const events: LockEvent[] = [];
    const release = await acquireLock(lockDir, (e) => events.push(e), { pid: process.pid, start: mine });
    expect(events.map((e) => e.kind)).toEqual(["taken-over"]);
    release();
  });

  it("says it waits before waiting for a live holder, and goes on once the holder dies", async () => {
    const lockDir = path.join(tmp, "server-env.lock");
    const holder = liveHolder();
    const pid = holder.pid as number;
    writeLock(lockDir, { pid, start: processStart(pid) });
    const events: LockEvent[] = [];
    let waitingSeen: () => void = () => undefined;
    const waiting = new Promise<void>((r) => (waitingSeen = r));
    let acquired = false;
    const pending = acquireLock(lockDir, (e) => {
      events.push(e);
      if (e.kind === "waiting") waitingSeen();
    }).then((release) => {
      acquired = true;
      return release;
    });
    await waiting;
    expect(acquired).toBe(false);
    expect(events).toEqual([{ kind: "waiting", owner: { pid, start: processStart(pid) } }]);
    holder.kill("SIGKILL");
    await exited(holder);
    const release = await pending;
    expect(events.map((e) => e.kind)).toEqual(["waiting", "taken-over"]);
    release();
  });
});

// -- BundledServer.ensure ---------------------------------------------------------------------

const manifest = (pythons: string[]): BundleManifest => ({
  target: "linux-x64",
  rulelens: { version: "0.1.0", wheel: "rulelens-0.1.0-py3-none-any.whl" },
  pythons,
  sha256: "aa",
});

/** An extension context over `tmp`: bundled/ with the manifest, global storage at `storage`. */
function server(storage: string, m: BundleManifest): { server: BundledServer; logs: string[] } {
  const ext = path.join(tmp, "ext");
  mkdirSync(path.join(ext, "bundled", "wheels"), { recursive: true });
  writeFileSync(path.join(ext, "bundled", "manifest.json"), JSON.stringify(m));
  const context = {
    extensionPath: ext,
    globalStorageUri: { fsPath: storage },
    extension: { packageJSON: { version: "0.1.0" } },
  } as unknown as vscode.ExtensionContext;
  const logs: string[] = [];
  const log = Object.fromEntries(["info", "warn", "error", "debug", "trace"].map((k) => [k, (m: string) => logs.push(`${k}: ${m}`)]));
  return { server: new BundledServer(context, log as unknown as vscode.LogOutputChannel), logs };
}

/** Every progress message, in order (`then` hears each as it comes). */
function watchProgress(then: (message: string) => void = () => undefined): string[] {
  const seen: string[] = [];
  win.withProgress = async (_o, task) => task({
    report: (v) => {
      seen.push(v.message ?? "");
      then(v.message ?? "");
    },
  });
  return seen;
}

/**
 * A `python3` on PATH: a shell script that answers the version probe with 3.12, `-c pass`
 * with success, `-m venv DIR` by `venv` (a copy of itself as DIR/bin/python, or a failure),
 * and `-m pip` by `pip` (a failure's real words).
 */
function fakePython(venv: string, pip: string): void {
  const bin = path.join(tmp, "bin");
  mkdirSync(bin, { recursive: true });
  const script = `#!/bin/sh
case "$1 $2" in
  "-c import sys"*) echo 3.12; exit 0 ;;
  "-c pass") exit 0 ;;
  "-m venv") ${venv} ;;
  "-m pip") ${pip} ;;
esac
exit 3
`;
  writeFileSync(path.join(bin, "python3"), script);
  chmodSync(path.join(bin, "python3"), 0o755);
  process.env.PATH = `${bin}:/usr/bin:/bin`;
}

const VENV_OK = `mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && exit 0`;

describe("BundledServer.ensure", () => {
  it("shows progress first, takes over a dead window's lock, and names a missing python", async () => {
    const storage = path.join(tmp, "storage");
    writeLock(path.join(storage, "server-env.lock"), { pid: deadPid(), start: "1" });
    process.env.PATH = path.join(tmp, "empty"); // no python at all
    const seen = watchProgress();
    const { server: s, logs } = server(storage, manifest(["3.12"]));
    const started = Date.now();
    const got = await s.ensure(manifest(["3.12"]));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(seen[0]).toBe("starting…");
    expect(logs.some((l) => /took over the set-up lock: its holder \(pid \d+\) is no longer running/.test(l))).toBe(true);
    expect(got).toMatchObject({ failure: { setting: "rulelens.server.python" } });
    const message = (got as { failure: { message: string } }).failure.message;
    expect(message).toMatch(/needs Python 3\.12.*Found none on PATH.*set rulelens\.server\.python/);
  });

  it("while another window sets up, says so before waiting", async () => {
    const storage = path.join(tmp, "storage");
    const holder = liveHolder();
    writeLock(path.join(storage, "server-env.lock"), { pid: holder.pid, start: processStart(holder.pid as number) });
    process.env.PATH = path.join(tmp, "empty");
    let saidWaiting: () => void = () => undefined;
    const waiting = new Promise<void>((r) => (saidWaiting = r));
    const seen = watchProgress((m) => {
      if (m.startsWith("waiting")) saidWaiting();
    });
    const { server: s } = server(storage, manifest(["3.12"]));
    const pending = s.ensure(manifest(["3.12"]));
    await waiting;
    expect(seen).toEqual(["starting…", `waiting for another window (pid ${holder.pid}) that is setting up the server…`]);
    holder.kill("SIGKILL");
    await exited(holder);
    expect(await pending).toMatchObject({ failure: { setting: "rulelens.server.python" } });
  });

  it("names a full disk when pip says ENOSPC", async () => {
    fakePython(VENV_OK, `echo "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device" >&2; exit 1`);
    watchProgress();
    const { server: s } = server(path.join(tmp, "storage"), manifest(["3.12"]));
    const got = await s.ensure(manifest(["3.12"]));
    const message = (got as { failure: { message: string } }).failure.message;
    expect(message).toMatch(/^RuleLens could not install its bundled server: the disk is full \(.*storage: \d+ KiB free\)\. Free some space/);
  });

  it("names the missing venv module with the package that brings it", async () => {
    fakePython(`echo "The virtual environment was not created successfully because ensurepip is not available.  On Debian/Ubuntu systems, you need to install the python3-venv package using the following command." ; exit 1`, "exit 1");
    watchProgress();
    const { server: s } = server(path.join(tmp, "storage"), manifest(["3.12"]));
    const got = await s.ensure(manifest(["3.12"]));
    const message = (got as { failure: { message: string } }).failure.message;
    expect(message).toBe("RuleLens could not create its server environment: python3 has no venv module. Install it (on Debian and Ubuntu: sudo apt install python3-venv) and reload the window, or set rulelens.server.python.");
  });

  const real = spawnSync("python3", ["-c", "import sys, venv, ensurepip; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" });
  const realVersion = real.status === 0 ? real.stdout.trim() : undefined;
  const canMount = (() => {
    if (realVersion === undefined || process.getuid?.() !== 0) return false;
    const probe = mkdtempSync(path.join(os.tmpdir(), "rulelens-mount-"));
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe], { stdio: "ignore" });
      execFileSync("umount", [probe], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    } finally {
      rmSync(probe, { recursive: true, force: true });
    }
  })();

  it.runIf(canMount)("names a full disk when the real venv fills a 2 MiB tmpfs", async () => {
    const storage = path.join(tmp, "storage");
    mkdirSync(storage);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", storage]);
    try {
      watchProgress();
      const { server: s, logs } = server(storage, manifest([realVersion as string]));
      const got = await s.ensure(manifest([realVersion as string]));
      const message = (got as { failure: { message: string } }).failure.message;
      expect(message).toMatch(/^RuleLens could not create its server environment: the disk is full \(.*storage: \d+ KiB free\)/);
      // What venv itself said hides the cause (its ensurepip output is captured).
      expect(logs.join("\n")).toMatch(/venv/);
    } finally {
      execFileSync("umount", ["-l", storage]);
    }
  }, 120_000);
});
