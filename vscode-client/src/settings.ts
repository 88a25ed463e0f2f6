/**
 * Reads the `rulelens.*` settings. Only reads: what they mean is decided by the server.
 */

import * as vscode from "vscode";
import { restrictForTrust, type ServerCommandInputs, type ServerSettings } from "./serverCommand";

/** The `rulelens` section as the server expects it (docs/protocol.md), filtered by workspace trust. */
export function readServerSettings(): ServerSettings {
  const c = vscode.workspace.getConfiguration("rulelens");
  const settings: ServerSettings = {
    agentCwd: c.get<string>("agentCwd") || undefined,
    agent: c.get<string>("agent") || undefined,
    agents: agentsSetting(c.get<unknown>("agents")),
    memory: {
      embedder: c.get<string>("memory.embedder", "none"),
      api: {
        baseUrl: c.get<string>("memory.api.baseUrl") || undefined,
        model: c.get<string>("memory.api.model") || undefined,
        dimensions: c.get<number>("memory.api.dimensions"),
        keyEnv: c.get<string>("memory.api.keyEnv") || undefined,
      },
    },
    lint: { disable: c.get<string[]>("lint.disable", []) },
    trusted: vscode.workspace.isTrusted,
  };
  return restrictForTrust(settings, vscode.workspace.isTrusted);
}

/** `rulelens.agents`: a list of agent ids, or `"all"`; empty/absent: the server's default. */
function agentsSetting(value: unknown): string[] | "all" | undefined {
  if (value === "all") return "all";
  if (Array.isArray(value)) {
    const ids = value.filter((v): v is string => typeof v === "string" && v.trim() !== "");
    return ids.length > 0 ? ids : undefined;
  }
  return undefined;
}

interface PythonExtensionApi {
  settings?: {
    getExecutionDetails?(resource?: vscode.Uri): { execCommand: string[] | undefined };
    onDidChangeExecutionDetails?: vscode.Event<vscode.Uri | undefined>;
  };
  environments?: { getActiveEnvironmentPath?(resource?: vscode.Uri): { path: string } };
}

/** The Python extension's selected interpreter, when that extension is installed and answers. */
async function pythonExtensionInterpreter(): Promise<string[] | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
  if (!ext) return undefined;
  try {
    const api = ext.isActive ? ext.exports : await ext.activate();
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const exec = api?.settings?.getExecutionDetails?.(resource)?.execCommand;
    if (exec && exec.length > 0) return exec;
    const p = api?.environments?.getActiveEnvironmentPath?.(resource)?.path;
    return p ? [p] : undefined;
  } catch {
    return undefined;
  }
}

export async function serverCommandInputs(): Promise<ServerCommandInputs> {
  const c = vscode.workspace.getConfiguration("rulelens.server");
  const python = c.get<string>("python", "");
  return {
    command: c.get<string>("command", "python -m rulelens serve"),
    python,
    pythonExtensionInterpreter: python.trim() ? undefined : await pythonExtensionInterpreter(),
  };
}

/**
 * Calls `onChange` when the Python extension's selected interpreter changes, but only while
 * `rulelens.server.python` is empty (otherwise that setting decides and the change is moot).
 */
export async function watchPythonInterpreter(onChange: () => void): Promise<vscode.Disposable | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
  if (!ext) return undefined;
  try {
    const api = ext.isActive ? ext.exports : await ext.activate();
    return api?.settings?.onDidChangeExecutionDetails?.(() => {
      if (!vscode.workspace.getConfiguration("rulelens.server").get<string>("python", "").trim()) onChange();
    });
  } catch {
    return undefined;
  }
}
