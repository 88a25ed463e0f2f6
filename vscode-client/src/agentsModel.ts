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
import type { AgentChain, AgentInfo, AgentsPayload } from "./protocol";

const WHEN_LABEL: Record<string, string> = { start: "at start", "on-read": "on read", may: "may pull in" };
const WHEN_ICON: Record<string, string> = { start: "pass-filled", "on-read": "eye", may: "question" };

function family(agent: string): string {
  return agent.split("@")[0];
}

/** `src/app/` for a file in `src/app`, `./` at a workspace root, `~/.claude/` at home. */
function folderOf(p: string, ctx: PathContext, gitRoot: string | null): string {
  const shown = displayPath(p, ctx, gitRoot);
  const cut = shown.lastIndexOf("/");
  return cut < 0 ? "./" : shown.slice(0, cut + 1);
}

/** How sure a line is, compactly (as the CLI table and the hover mark their columns). */
export const EVIDENCE_MARK: Record<string, string> = { code: "ᶜ", docs: "ᵈ", observed: "ᵒ" };
const EVIDENCE_WORDS: Record<string, string> = {
  code: "from the agent's own code",
  docs: "from its documentation",
  observed: "observed (issue reports, or your last session of the agent)",
};

/** `ᵈ` (and `†` for a known bug) for a row's description. */
function markOf(line: { evidence?: string; notes?: string[] }): string {
  const mark = line.evidence ? EVIDENCE_MARK[line.evidence] ?? "" : "";
  return mark + (line.notes && line.notes.length ? " †" : "");
}

/** The tooltip lines saying how sure a row is, where that comes from, and its known bugs. */
function evidenceLines(line: { evidence?: string; evidence_source?: string; notes?: string[] }): string {
  const out: string[] = [];
  if (line.evidence) {
    const words = EVIDENCE_WORDS[line.evidence] ?? line.evidence;
    out.push(`${EVIDENCE_MARK[line.evidence] ?? ""} ${words}${line.evidence_source ? `: ${line.evidence_source}` : ""}`);
  }
  for (const note of line.notes ?? []) out.push(`† ${note}`);
  return out.length ? "\n" + out.join("\n") : "";
}

function agentGroup(view: AgentChain, ctx: PathContext): ChainNode {
  const id = family(view.agent);
  const name = view.display ?? id;
  const children: ChainNode[] = [];
  const withheld = view.skipped.filter((s) => s.reason === "untrusted-folder").length;
  if (withheld > 0) {
    // Folder trust withholds project files: one line first, with the command that changes it.
    const n = `${withheld} project file${withheld === 1 ? "" : "s"}`;
    const command = view.trust_command ? `; run \`${view.trust_command}\` here` : "";
    children.push({
      id: `agent:${id}:trust`,
      kind: "trust",
      label: `Folder not trusted yet: ${n} withheld${command}`,
      tooltip: (view.notes ?? []).join("\n") || undefined,
      icon: "shield",
      contextValue: "rulelens.trust",
    });
  }
  if (view.last_session) {
    // The verdict of the agent's last recorded session here (`rulelens verify`).
    const line = view.last_session;
    children.push({
      id: `agent:${id}:session`,
      kind: "session",
      label: `Last session: ${line}`,
      tooltip: `${name}: ${line}\n(rulelens verify --agent ${id})`,
      icon: line.startsWith("✓") ? "pass" : line.startsWith("⚠") ? "warning" : "history",
      contextValue: "rulelens.session",
    });
  }
  let start = 0;
  for (const f of view.files) {
    if (f.when === "start") start += 1;
    const base = path.basename(f.path);
    const cut = f.truncated_at != null ? ` · cut at byte ${f.truncated_at}` : "";
    const when = WHEN_LABEL[f.when] ?? f.when;
    children.push({
      id: `agent:${id}:file:${f.path}`,
      kind: "file",
      // The file name first; its folder and the reason follow, whole in the tooltip.
      label: f.when === "start" ? `${start}. ${base}` : base,
      description: `${folderOf(f.path, ctx, view.git_root)} · ${when} · ${formatBytes(f.bytes)}${cut} ${markOf(f)}`.trimEnd(),
      tooltip: `${f.path}\n${name}: ${when}\n${f.why}` + (f.imported_by ? `\nimported by ${f.imported_by}` : "") + evidenceLines(f),
      icon: WHEN_ICON[f.when] ?? "file",
      contextValue: f.when === "may" ? "rulelens.agent.may" : "rulelens.loaded",
      path: f.path,
    });
  }
  const foreign = new Set(view.foreign ?? []);
  const others: ChainNode[] = [];
  for (const s of view.skipped) {
    const node: ChainNode = {
      id: `agent:${id}:skipped:${s.path}`,
      kind: "skipped",
      label: path.basename(s.path),
      description: `${folderOf(s.path, ctx, view.git_root)} · not loaded: ${s.reason} ${markOf(s)}`.trimEnd(),
      tooltip: `${s.path}\n${name}: not loaded (${s.reason})\n${s.detail}` + evidenceLines(s),
      icon: "circle-slash",
      contextValue: "rulelens.skipped",
      path: s.path,
    };
    (foreign.has(s.path) ? others : children).push(node);
  }
  if (others.length) {
    children.push({
      id: `agent:${id}:others`,
      kind: "group",
      label: `Other agents' files (${others.length})`,
      description: `${name} does not read them`,
      tooltip: `Files other enabled agents load and ${name} does not look for:\n` + others.map((o) => o.path).join("\n"),
      icon: "library",
      contextValue: "rulelens.group.others",
      collapsed: true,
      children: others,
    });
  }
  const onRead = view.files.filter((f) => f.when === "on-read").length;
  const may = view.files.filter((f) => f.when === "may").length;
  const parts = [`${start} at start`];
  if (onRead) parts.push(`${onRead} on read`);
  if (may) parts.push(`${may} may`);
  const notLoaded = view.skipped.length - others.length;
  if (notLoaded) parts.push(`${notLoaded} not loaded`);
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

/** Files an agent loads for the file (at start and when it reads it), as the headline counts. */
export function loadedCount(view: AgentChain): number {
  return view.files.filter((f) => f.when !== "may").length;
}

/** The status bar: the server's one-line headline (`Claude 4 · Cursor 5 · +3 more`). */
export function agentsStatusText(payload: AgentsPayload): string {
  return payload.lens ?? payload.headline ?? payload.agents.map((v) => `${v.display ?? family(v.agent)} ${loadedCount(v)}`).join(" · ");
}

/** The status bar's tooltip: one line per agent, and the start directory, named once. */
export function agentsStatusTooltip(payload: AgentsPayload, ctx: PathContext): string {
  const lines = [`Agent sessions started in ${startLabel(payload.cwd, ctx).replace(/^start: /, "")}`];
  for (const v of payload.agents) {
    const held = v.skipped.filter((s) => s.reason === "untrusted-folder").length;
    lines.push(`${v.display ?? family(v.agent)}: ${loadedCount(v)} file(s)` + (held ? `, +${held} after trust` : ""));
  }
  lines.push("Click to show Active Rules");
  return lines.join("\n");
}

/** What the view says instead of groups: only when no enabled agent loads anything. */
export function agentsViewMessage(payload: AgentsPayload, shown: string): string | undefined {
  if (payload.agents.some((v) => v.files.length > 0)) return undefined;
  const held = payload.agents.reduce((n, v) => n + v.skipped.filter((s) => s.reason === "untrusted-folder").length, 0);
  const names = payload.agents.map((v) => v.display ?? family(v.agent)).join(", ");
  return `No enabled agent (${names}) loads an instruction file for ${shown}.` +
    (held ? ` ${held} project file(s) wait for folder trust (see below).` : " Add an AGENTS.md to give agents instructions.");
}

/** One group per agent, in the server's order. */
export function buildAgentsTree(payload: AgentsPayload | null | undefined, ctx: PathContext,
                                known: AgentInfo[] = []): ChainNode[] {
  if (!payload) return [];
  const groups = payload.agents.map((v) => agentGroup(v, ctx));
  // Agents the server knows whose files are in this workspace but that are not shown (the
  // `rulelens.agents` setting leaves them out): one line, so none goes unnoticed.
  const shown = new Set(payload.agents.map((v) => family(v.agent)));
  const hidden = known.filter((a) => a.present && !shown.has(a.id));
  if (hidden.length) {
    groups.push({
      id: "agents:hidden",
      kind: "hint",
      label: `Also used here, not shown: ${hidden.map((a) => a.short).join(", ")}`,
      description: "add to rulelens.agents",
      tooltip: hidden.map((a) => `${a.display} ${EVIDENCE_MARK[a.evidence] ?? ""} (${a.id}): ${a.source}`).join("\n"),
      icon: "eye-closed",
      contextValue: "rulelens.agents.hidden",
    });
  }
  return groups;
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
