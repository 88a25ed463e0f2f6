/**
 * From settings to the argv that starts `rulelens serve`, without `vscode`.
 *
 * The setting is one string so it reads like a shell line (`python -m rulelens serve`); a
 * leading `python` stands for the interpreter the user chose, because that interpreter is the
 * one whose environment has `rulelens` installed.
 */

export interface ServerCommandInputs {
  command: string;
  /** `rulelens.server.python`, possibly empty. */
  python: string;
  /** The Python extension's selected interpreter, when that extension is installed. */
  pythonExtensionInterpreter?: string[];
}

export interface ResolvedCommand {
  command: string;
  args: string[];
  /** Where the interpreter came from, for the log and the error message. */
  /** "bundled": the venv the extension set up from the wheels its .vsix carries (bootstrap.ts). */
  pythonSource: "setting" | "python-extension" | "default" | "bundled" | "not-used";
}

/** Split like a POSIX shell would for simple lines: whitespace, single and double quotes, backslash. */
export function splitCommandLine(line: string): string[] {
  const out: string[] = [];
  let cur = "";
  let has = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (c === "\\" && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = "";
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} quote in rulelens.server.command`);
  if (has) out.push(cur);
  return out;
}

export function resolveServerCommand(inputs: ServerCommandInputs): ResolvedCommand {
  const argv = splitCommandLine(inputs.command.trim() || "python -m rulelens serve");
  if (argv.length === 0) throw new Error("rulelens.server.command is empty");
  if (argv[0] !== "python") return { command: argv[0], args: argv.slice(1), pythonSource: "not-used" };

  let python: string[];
  let pythonSource: ResolvedCommand["pythonSource"];
  if (inputs.python.trim()) {
    python = [inputs.python.trim()];
    pythonSource = "setting";
  } else if (inputs.pythonExtensionInterpreter && inputs.pythonExtensionInterpreter.length > 0) {
    python = inputs.pythonExtensionInterpreter;
    pythonSource = "python-extension";
  } else {
    python = ["python3"];
    pythonSource = "default";
  }
  return { command: python[0], args: [...python.slice(1), ...argv.slice(1)], pythonSource };
}

/** Settings sent to the server; in an untrusted workspace no embedder may call the network. */
export interface ServerSettings {
  agentCwd?: string;
  /** The Grok profile (`rulelens.agent`): `grok`, `grok@1.0.45`, `grok@1.0.6`. */
  agent?: string;
  /** Agents to show side by side (`rulelens.agents`); absent: Grok plus every agent with files here. */
  agents?: string[] | "all";
  memory: {
    embedder: string;
    api: { baseUrl?: string; model?: string; dimensions?: number; keyEnv?: string };
  };
  lint: { disable: string[] };
  trusted: boolean;
}

export function restrictForTrust(settings: ServerSettings, trusted: boolean): ServerSettings {
  if (trusted) return { ...settings, trusted: true };
  return {
    ...settings,
    trusted: false,
    memory: { embedder: settings.memory.embedder === "local" ? "local" : "none", api: {} },
  };
}
