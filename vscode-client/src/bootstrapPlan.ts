/**
 * The decisions behind the bundled server environment, without `vscode` (unit-tested).
 *
 * A platform .vsix carries `bundled/manifest.json` and `bundled/wheels/` (scripts/package.py):
 * the RuleLens wheel and its dependencies' wheels for each supported CPython. On first
 * activation the extension creates a venv in its global storage and installs from those wheels
 * with pip, never from an index; a marker file in the venv records what was installed, so later
 * activations reuse it and an extension update reinstalls into it.
 */

import * as path from "node:path";
import type { ServerCommandInputs } from "./serverCommand";

export const DEFAULT_SERVER_COMMAND = "python -m rulelens serve";
export const MARKER_FILE = "rulelens-extension.json";

/** bundled/manifest.json, written by scripts/package.py. */
export interface BundleManifest {
  target: string;
  rulelens: { version: string; wheel: string };
  /** CPython versions the wheels cover, e.g. ["3.11", "3.12"]. */
  pythons: string[];
  /** Of all bundled wheels: changes whenever one of them does. */
  sha256: string;
  extras_not_bundled?: string[];
  /**
   * pip's own wheel, in `wheels/`: the venv is made without pip (no ensurepip, which installs
   * pip, and on Python 3.11 setuptools, file by file) and this wheel's pip installs pip and
   * RuleLens in one run. Measured on this 2-core machine: about a third of the set-up time.
   */
  pip?: string;
}

/** What the venv holds, written after a successful install. */
export interface EnvMarker {
  extensionVersion: string;
  bundleSha256: string;
  rulelensVersion: string;
  /** The interpreter the venv was made from, and its version. */
  basePython: string[];
  pythonVersion: string;
}

export type Plan = "reuse" | "create" | "upgrade";

/**
 * Reuse a venv set up by this very extension build; reinstall into a working venv after an
 * update (keeping what the user added to it, such as the local embedder's packages); make a
 * new one when there is none or it no longer runs (its base Python was removed).
 */
export function planEnvironment(marker: EnvMarker | undefined, venvRuns: boolean, extensionVersion: string, manifest: BundleManifest): Plan {
  if (!marker || !venvRuns) return "create";
  if (marker.extensionVersion === extensionVersion && marker.bundleSha256 === manifest.sha256) return "reuse";
  return "upgrade";
}

/** True unless the user chose a server: a non-default command or an interpreter. */
export function usesBundledServer(inputs: Pick<ServerCommandInputs, "command" | "python">): boolean {
  const command = inputs.command.trim();
  return (command === "" || command === DEFAULT_SERVER_COMMAND) && inputs.python.trim() === "";
}

/**
 * Interpreters to try as the venv's base, in order: the Python extension's selection, then the
 * usual names, newest supported version first.
 */
export function pythonCandidates(platform: NodeJS.Platform, supported: string[], pythonExtension?: string[]): string[][] {
  const out: string[][] = [];
  if (pythonExtension && pythonExtension.length > 0) out.push(pythonExtension);
  const newestFirst = [...supported].sort(compareMinor).reverse();
  if (platform === "win32") {
    out.push(["py", "-3"], ["python"], ...newestFirst.map((v) => ["py", `-${v}`]));
  } else {
    out.push(["python3"], ...newestFirst.map((v) => [`python${v}`]), ["python"]);
  }
  return out;
}

function compareMinor(a: string, b: string): number {
  const [am, an] = a.split(".").map(Number);
  const [bm, bn] = b.split(".").map(Number);
  return am - bm || an - bn;
}

/** The program that prints `major.minor` of the interpreter that runs it. */
export const VERSION_PROBE = "import sys; print('%d.%d' % sys.version_info[:2])";

export function parsePythonVersion(stdout: string): string | undefined {
  const m = /^(\d+)\.(\d+)\s*$/.exec(stdout.trim());
  return m ? `${m[1]}.${m[2]}` : undefined;
}

/** The interpreter inside a venv. */
export function venvPython(venv: string, platform: NodeJS.Platform): string {
  return platform === "win32" ? path.join(venv, "Scripts", "python.exe") : path.join(venv, "bin", "python");
}

/** The venv's arguments: without pip when the bundle brings pip's wheel (`pipInstallArgs`). */
export function venvArgs(envDir: string, manifest: BundleManifest): string[] {
  return ["-m", "venv", envDir, ...(manifest.pip ? ["--without-pip"] : [])];
}

/**
 * pip's arguments for installing the bundled wheel and its dependencies from the bundle only.
 * With pip's wheel in the bundle, pip runs from that wheel (`python pip.whl/pip`, which pip
 * supports) and installs itself too, so the venv keeps a pip for extras; else the venv's pip.
 * `--force-reinstall` makes an update replace a same-numbered development build too.
 */
export function pipInstallArgs(wheelsDir: string, manifest: BundleManifest): string[] {
  const pip = manifest.pip ? path.join(wheelsDir, manifest.pip) : undefined;
  return [
    ...(pip ? [path.join(pip, "pip")] : ["-m", "pip"]),
    "install", "--no-index", "--find-links", wheelsDir, "--force-reinstall",
    "--disable-pip-version-check", "--no-input", "--no-cache-dir", "--no-warn-script-location",
    ...(pip ? [pip] : []),
    path.join(wheelsDir, manifest.rulelens.wheel),
  ];
}

/**
 * The environment pip runs in: none of the user's pip settings (an index URL, find-links, a
 * constraint file could each break an offline install), and no configuration files at all.
 */
export function isolatedPipEnv(env: NodeJS.ProcessEnv, devnull: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (!k.toUpperCase().startsWith("PIP_") && k !== "PYTHONPATH" && k !== "PYTHONHOME") out[k] = v;
  }
  return { ...out, PIP_CONFIG_FILE: devnull, PIP_NO_INPUT: "1", PYTHONNOUSERSITE: "1" };
}

/** The one message when no interpreter can hold the server. */
export function noPythonMessage(supported: string[], found: { argv: string[]; version: string }[]): string {
  const range = `${supported[0]}–${supported[supported.length - 1]}`;
  const seen = found.length ? ` Found only: ${found.map((f) => `${f.argv.join(" ")} (${f.version})`).join(", ")}.` : " Found none on PATH.";
  return (
    `RuleLens needs Python ${range} to run its language server.${seen} ` +
    `Install Python ${supported[0]} or newer (python.org, or your system's python3 and python3-venv packages) and reload the window, ` +
    `or set rulelens.server.python to an interpreter that has rulelens installed.`
  );
}

/** What pip, venv and Python print when the disk is full (ENOSPC) or the quota is used up. */
export const DISK_FULL = /No space left on device|ENOSPC|\[Errno 28\]|Disk quota exceeded|EDQUOT|\[Errno 122\]/;
/** Below this much free space after a failed step, the disk is taken as the cause. */
export const LOW_SPACE_BYTES = 64 * 1024 * 1024;

/**
 * The one message when the venv cannot be made or filled, naming the cause and its fix: a full
 * disk (from the output, or from `freeBytes` on the disk of `storage` when the output hides it:
 * venv runs ensurepip with its output captured), no venv module or ensurepip, else the last
 * line of the output.
 */
export function setupFailedMessage(stage: "venv" | "install" | "check", python: string[], output: string,
  storage?: { dir: string; freeBytes?: number }): string {
  const what = stage === "venv" ? "create its server environment" : stage === "install" ? "install its bundled server" : "run its bundled server";
  const lowSpace = storage?.freeBytes !== undefined && storage.freeBytes < LOW_SPACE_BYTES;
  if (DISK_FULL.test(output) || (stage !== "check" && lowSpace)) {
    const where = storage ? ` (${storage.dir}${storage.freeBytes !== undefined ? `: ${Math.floor(storage.freeBytes / 1024)} KiB free` : ""})` : "";
    return `RuleLens could not ${what}: the disk is full${where}. Free some space (the set-up needs about 100 MB) and reload the window, or set rulelens.server.python to an interpreter that has rulelens installed.`;
  }
  if (stage === "venv" && /ensurepip is not available|No module named ['"]?(ensurepip|venv)/.test(output)) {
    return `RuleLens could not create its server environment: ${python.join(" ")} has no venv module. Install it (on Debian and Ubuntu: sudo apt install python3-venv) and reload the window, or set rulelens.server.python.`;
  }
  const first = output.split("\n").map((l) => l.trim()).filter(Boolean).slice(-1)[0] ?? "no output";
  return `RuleLens could not ${what} (${first}). See the "RuleLens" output; or set rulelens.server.python to an interpreter that has rulelens installed.`;
}
