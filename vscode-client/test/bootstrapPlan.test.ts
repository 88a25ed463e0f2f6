import { describe, expect, it } from "vitest";
import {
  isolatedPipEnv,
  noPythonMessage,
  parsePythonVersion,
  pipInstallArgs,
  planEnvironment,
  pythonCandidates,
  setupFailedMessage,
  usesBundledServer,
  venvArgs,
  venvPython,
  type BundleManifest,
  type EnvMarker,
} from "../src/bootstrapPlan";

const manifest: BundleManifest = {
  target: "linux-x64",
  rulelens: { version: "0.1.0", wheel: "rulelens-0.1.0-py3-none-any.whl" },
  pythons: ["3.11", "3.12", "3.13", "3.14"],
  sha256: "aa",
};
const marker: EnvMarker = {
  extensionVersion: "0.1.0", bundleSha256: "aa", rulelensVersion: "0.1.0", basePython: ["python3"], pythonVersion: "3.11",
};

describe("bundled server environment", () => {
  it("reuses only what this build set up, upgrades a working venv, recreates a broken one", () => {
    expect(planEnvironment(undefined, false, "0.1.0", manifest)).toBe("create");
    expect(planEnvironment(marker, true, "0.1.0", manifest)).toBe("reuse");
    expect(planEnvironment(marker, false, "0.1.0", manifest)).toBe("create");
    expect(planEnvironment(marker, true, "0.2.0", manifest)).toBe("upgrade");
    expect(planEnvironment(marker, true, "0.1.0", { ...manifest, sha256: "bb" })).toBe("upgrade");
  });

  it("is used unless a setting names another server", () => {
    expect(usesBundledServer({ command: "python -m rulelens serve", python: "" })).toBe(true);
    expect(usesBundledServer({ command: "  ", python: "" })).toBe(true);
    expect(usesBundledServer({ command: "python -m rulelens serve", python: "/venv/bin/python" })).toBe(false);
    expect(usesBundledServer({ command: "/usr/local/bin/rulelens serve", python: "" })).toBe(false);
  });

  it("tries the Python extension's interpreter, then python3, then versioned names newest first", () => {
    expect(pythonCandidates("linux", ["3.11", "3.12"], ["/opt/py/bin/python"])).toEqual([
      ["/opt/py/bin/python"], ["python3"], ["python3.12"], ["python3.11"], ["python"],
    ]);
    expect(pythonCandidates("win32", ["3.11"])[0]).toEqual(["py", "-3"]);
    expect(venvPython("/s/env", "linux")).toBe("/s/env/bin/python");
    expect(parsePythonVersion("3.11\n")).toBe("3.11");
    expect(parsePythonVersion("Python 3.11.2")).toBeUndefined();
  });

  it("with pip's wheel bundled: a venv without pip, and one run of that wheel's pip installs pip and RuleLens", () => {
    const withPip = { ...manifest, pip: "pip-25.3-py3-none-any.whl" };
    expect(venvArgs("/env", withPip)).toEqual(["-m", "venv", "/env", "--without-pip"]);
    const args = pipInstallArgs("/ext/bundled/wheels", withPip);
    expect(args[0]).toBe("/ext/bundled/wheels/pip-25.3-py3-none-any.whl/pip");
    expect(args[1]).toBe("install");
    expect(args).toContain("--no-index");
    expect(args.slice(-2)).toEqual(["/ext/bundled/wheels/pip-25.3-py3-none-any.whl", "/ext/bundled/wheels/rulelens-0.1.0-py3-none-any.whl"]);
  });

  it("installs from the bundle only, with none of the user's pip settings", () => {
    const args = pipInstallArgs("/ext/bundled/wheels", manifest);
    expect(args).toContain("--no-index");
    expect(args.slice(args.indexOf("--find-links"), args.indexOf("--find-links") + 2)).toEqual(["--find-links", "/ext/bundled/wheels"]);
    expect(args.at(-1)).toBe("/ext/bundled/wheels/rulelens-0.1.0-py3-none-any.whl");
    expect(args.slice(0, 2)).toEqual(["-m", "pip"]);
    expect(venvArgs("/env", manifest)).toEqual(["-m", "venv", "/env"]);
    const env = isolatedPipEnv({ PATH: "/bin", PIP_INDEX_URL: "http://x", pip_find_links: "/w", PYTHONPATH: "/p" }, "/dev/null");
    expect(env).toEqual({ PATH: "/bin", PIP_CONFIG_FILE: "/dev/null", PIP_NO_INPUT: "1", PYTHONNOUSERSITE: "1" });
  });

  it("says what is missing and how to fix it", () => {
    const none = noPythonMessage(manifest.pythons, []);
    expect(none).toContain("needs Python 3.11–3.14");
    expect(none).toContain("Found none on PATH");
    expect(none).toContain("rulelens.server.python");
    expect(noPythonMessage(manifest.pythons, [{ argv: ["python3"], version: "3.9" }])).toContain("Found only: python3 (3.9)");
    expect(setupFailedMessage("venv", ["python3"], "The virtual environment was not created successfully because ensurepip is not available."))
      .toContain("sudo apt install python3-venv");
    expect(setupFailedMessage("install", ["/e/bin/python"], "ERROR: No matching distribution found for apsw\n")).toContain("No matching distribution found for apsw");
  });
});
