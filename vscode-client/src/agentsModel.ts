/**
 * The Active Rules tree when several agents are enabled: one group per agent, built from the
 * `rulelens/agentsForFile` payload. Kept free of `vscode` (unit-testable, like chainModel).
 *
 * Each agent group lists every file it knows about exactly once: loaded at start (in load
 * order), added when the agent works on the file, what the model may pull in, and what does
 * not load, each row with its reason. The start directory is named in the view's header.
 */

import * as path from "node:path";
import { displayPath, formatBytes, type ChainNode, type PathContext } from "./chainModel";
import type { AgentChain, AgentsPayload } from "./protocol";

const WHEN_LABEL: Record<string, string> = { start: "at start", "on-read": "on read", may: "may pull in" };
const WHEN_ICON: Record<string, string> = { start: "pass-filled", "on-read": "eye", may: "question" };

function family(agent: string): string {
  return agent.split("@")[0];
}

function agentGroup(view: AgentChain, ctx: PathContext): ChainNode {
  const id = family(view.agent);
  const name = view.display ?? id;
  const children: ChainNode[] = [];
  const withheld = view.skipped.filter((s) => s.reason === "untrusted-folder").length;
  if (id === "grok" && withheld > 0) {
    // Folder trust withholds project files: one line first, with the command that changes it.
    const n = `${withheld} project file${withheld === 1 ? "" : "s"}`;
    children.push({
      id: `agent:${id}:trust`,
      kind: "trust",
      label: `Folder not trusted yet: ${n} withheld; run \`grok --trust\` here`,
      tooltip: (view.notes ?? []).join("\n") || undefined,
      icon: "shield",
      contextValue: "rulelens.trust",
    });
  }
  let start = 0;
  for (const f of view.files) {
    if (f.when === "start") start += 1;
    const shown = displayPath(f.path, ctx, view.git_root);
    const cut = f.truncated_at != null ? ` · cut at byte ${f.truncated_at}` : "";
    children.push({
      id: `agent:${id}:file:${f.path}`,
      kind: "file",
      label: f.when === "start" ? `${start}. ${shown}` : shown,
      description: `${WHEN_LABEL[f.when] ?? f.when} · ${formatBytes(f.bytes)}${cut} · ${f.why}`,
      tooltip: `${f.path}\n${name}: ${WHEN_LABEL[f.when] ?? f.when}\n${f.why}` + (f.imported_by ? `\nimported by ${f.imported_by}` : ""),
      icon: WHEN_ICON[f.when] ?? "file",
      contextValue: f.when === "may" ? "rulelens.agent.may" : "rulelens.loaded",
      path: f.path,
    });
  }
  for (const s of view.skipped) {
    children.push({
      id: `agent:${id}:skipped:${s.path}`,
      kind: "skipped",
      label: displayPath(s.path, ctx, view.git_root),
      description: `not loaded · ${s.reason}: ${s.detail}`,
      tooltip: `${s.path}\n${name}: not loaded (${s.reason})\n${s.detail}`,
      icon: "circle-slash",
      contextValue: "rulelens.skipped",
      path: s.path,
    });
  }
  const onRead = view.files.filter((f) => f.when === "on-read").length;
  const may = view.files.filter((f) => f.when === "may").length;
  const parts = [`${start} at start`];
  if (onRead) parts.push(`${onRead} on read`);
  if (may) parts.push(`${may} may`);
  if (view.skipped.length) parts.push(`${view.skipped.length} not loaded`);
  return {
    id: `agent:${id}`,
    kind: "group",
    label: name,
    description: parts.join(" · "),
    tooltip: [name, ...(view.basis_label ? [view.basis_label] : []), ...(view.notes ?? [])].join("\n"),
    icon: "account",
    contextValue: "rulelens.group.agent",
    children,
  };
}

/** One group per agent, in the server's order. */
export function buildAgentsTree(payload: AgentsPayload | null | undefined, ctx: PathContext): ChainNode[] {
  if (!payload) return [];
  return payload.agents.map((v) => agentGroup(v, ctx));
}

/** The start directory as a header: `start: ./` (the workspace folder) or `start: src/`. */
export function startLabel(cwd: string, ctx: PathContext): string {
  const root = ctx.roots.find((r) => path.resolve(r) === path.resolve(cwd));
  if (root) return "start: ./";
  return `start: ${displayPath(cwd, ctx)}/`;
}

/** Paths listed twice inside one agent group (must be none: a file is in one group only). */
export function duplicatePaths(nodes: ChainNode[]): string[] {
  const dupes: string[] = [];
  for (const group of nodes) {
    const seen = new Set<string>();
    for (const c of group.children ?? []) {
      if (!c.path) continue;
      if (seen.has(c.path)) dupes.push(`${group.label}: ${c.path}`);
      seen.add(c.path);
    }
  }
  return dupes;
}
