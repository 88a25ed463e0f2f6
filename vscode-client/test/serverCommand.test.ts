import { describe, expect, it } from "vitest";
import { restrictForTrust, resolveServerCommand, splitCommandLine, type ServerSettings } from "../src/serverCommand";
import { compareVersions, diagnose } from "../src/startupDiagnosis";

describe("server command", () => {
  it("splits like a shell for quotes and escapes", () => {
    expect(splitCommandLine(`python -m rulelens serve`)).toEqual(["python", "-m", "rulelens", "serve"]);
    expect(splitCommandLine(`"/opt/my env/bin/rulelens" serve --log 'a b' c\\ d ""`)).toEqual(["/opt/my env/bin/rulelens", "serve", "--log", "a b", "c d", ""]);
    expect(() => splitCommandLine(`"unterminated`)).toThrow(/unterminated/);
  });

  it("replaces a leading python with the setting, then the Python extension, then python3", () => {
    const base = { command: "python -m rulelens serve", python: "" };
    expect(resolveServerCommand({ ...base, python: "/venv/bin/python" })).toEqual({
      command: "/venv/bin/python", args: ["-m", "rulelens", "serve"], pythonSource: "setting",
    });
    expect(resolveServerCommand({ ...base, pythonExtensionInterpreter: ["conda", "run", "-n", "x", "python"] })).toEqual({
      command: "conda", args: ["run", "-n", "x", "python", "-m", "rulelens", "serve"], pythonSource: "python-extension",
    });
    expect(resolveServerCommand(base)).toEqual({ command: "python3", args: ["-m", "rulelens", "serve"], pythonSource: "default" });
    expect(resolveServerCommand({ ...base, command: "" }).args).toEqual(["-m", "rulelens", "serve"]);
    expect(resolveServerCommand({ ...base, command: "/usr/local/bin/rulelens serve", python: "/x" })).toEqual({
      command: "/usr/local/bin/rulelens", args: ["serve"], pythonSource: "not-used",
    });
  });

  it("never sends an api embedder to the server from an untrusted workspace", () => {
    const s: ServerSettings = {
      memory: { embedder: "api", api: { baseUrl: "http://127.0.0.1:9/v1", model: "m", dimensions: 8, keyEnv: "K" } },
      lint: { disable: ["RL101"] },
      trusted: true,
    };
    expect(restrictForTrust(s, true).memory.embedder).toBe("api");
    const untrusted = restrictForTrust(s, false);
    expect(untrusted.memory).toEqual({ embedder: "none", api: {} });
    expect(untrusted.trusted).toBe(false);
    expect(untrusted.lint.disable).toEqual(["RL101"]);
  });
});

describe("start-up diagnosis", () => {
  it("names the missing interpreter and the setting to change", () => {
    const d = diagnose("/nope/python", true, { spawnErrorCode: "ENOENT" }, "spawn /nope/python ENOENT");
    expect(d.setting).toBe("rulelens.server.python");
    expect(d.message).toContain('no Python interpreter at "/nope/python"');
  });

  it("tells a missing package from a too-old one", () => {
    const missing = diagnose("/usr/bin/python3", true, { exitCode: 1, stderr: "ModuleNotFoundError: No module named 'rulelens'" }, "closed");
    expect(missing.message).toContain('"rulelens" package is not installed for /usr/bin/python3');
    // RuleLens is not on an index: the fix names the bundled server or a wheel, never `pip install rulelens`.
    expect(missing.message).toContain('"/usr/bin/python3 -m pip install <rulelens .whl or checkout>"');
    expect(missing.message).not.toMatch(/pip install (-U )?rulelens\b/);
    const old = diagnose("/v/python", true, { exitCode: 0, stdout: "0.0.9\n" }, "closed");
    expect(old.message).toContain("rulelens 0.0.9 in /v/python is older than 0.1.0");
    expect(compareVersions("0.10.0", "0.9.9")).toBeGreaterThan(0);
  });

  it("falls back to the first line of the start error", () => {
    const d = diagnose("rulelens", false, { exitCode: 0, stdout: "rulelens 0.1.0" }, "\nServer initialization failed.\nmore");
    expect(d.message).toBe('RuleLens could not start its language server: Server initialization failed.. See the "RuleLens" output for details.');
    expect(diagnose("rl", false, { spawnErrorCode: "ENOENT" }, "").message).toContain('server command "rl" was not found');
  });
});
