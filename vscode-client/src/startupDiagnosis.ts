/**
 * Turns a failed server start into one sentence a user can act on, without `vscode`.
 *
 * A language client that cannot start usually fails for one of three reasons: the interpreter
 * does not exist, `rulelens` is not installed in it, or it is too old. The probe result says
 * which; the message names the setting to change.
 */

export const MIN_SERVER_VERSION = "0.1.0";

export interface ProbeResult {
  /** e.g. "ENOENT" when the executable does not exist. */
  spawnErrorCode?: string;
  exitCode?: number | null;
  stdout?: string;
  stderr?: string;
}

export interface Diagnosis {
  message: string;
  /** The setting the button opens. */
  setting: "rulelens.server.python" | "rulelens.server.command";
}

/**
 * How to get a server, from where the user is: RuleLens is not on a package index, so the
 * routes are the server a platform .vsix carries, or a wheel or checkout (README "Install").
 */
const INSTALL_ROUTES = (python: string) =>
  `Empty rulelens.server.python to use the server a platform .vsix (rulelens-<platform>.vsix) brings, ` +
  `or install it there from a RuleLens wheel or checkout: "${python} -m pip install <rulelens .whl or checkout>" (see "Install" in the RuleLens README).`;

export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/).map((x) => parseInt(x, 10) || 0);
  const pb = b.split(/[.+-]/).map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length, 3); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * @param executable the program that was started (the interpreter, or the command's argv[0])
 * @param usesPython whether the probe ran `python -c "import rulelens"` (vs. the raw command)
 */
export function diagnose(executable: string, usesPython: boolean, probe: ProbeResult, startError: string): Diagnosis {
  const setting = usesPython ? "rulelens.server.python" : "rulelens.server.command";
  if (probe.spawnErrorCode === "ENOENT") {
    return usesPython
      ? { message: `RuleLens could not start: no Python interpreter at "${executable}". Set the interpreter that has rulelens installed.`, setting }
      : { message: `RuleLens could not start: the server command "${executable}" was not found.`, setting };
  }
  if (probe.spawnErrorCode) {
    return { message: `RuleLens could not start "${executable}" (${probe.spawnErrorCode}).`, setting };
  }
  if (usesPython) {
    const err = probe.stderr ?? "";
    if (probe.exitCode !== 0 && /No module named ['"]?rulelens/.test(err)) {
      return {
        message: `RuleLens could not start: the "rulelens" package is not installed for ${executable}. ${INSTALL_ROUTES(executable)}`,
        setting,
      };
    }
    const version = (probe.stdout ?? "").trim();
    if (probe.exitCode === 0 && version && compareVersions(version, MIN_SERVER_VERSION) < 0) {
      return {
        message: `RuleLens could not start: rulelens ${version} in ${executable} is older than ${MIN_SERVER_VERSION}. ${INSTALL_ROUTES(executable)}`,
        setting,
      };
    }
  }
  const firstLine = startError.split("\n").find((l) => l.trim()) ?? "unknown error";
  return {
    message: `RuleLens could not start its language server: ${firstLine}. See the "RuleLens" output for details.`,
    setting: "rulelens.server.command",
  };
}
