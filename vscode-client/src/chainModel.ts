/**
 * The "Active Rules" tree as plain data: payload of `rulelens/chain` in, labelled nodes out.
 *
 * Kept free of `vscode` so the ordering, grouping and wording a user reads can be unit-tested
 * without an editor. The server decides what loads and in which order; this module only
 * decides how that answer is worded (relative paths, `~` for home, which file wins).
 */

import * as path from "node:path";
import type { ChainFile, ChainPayload, SkippedFile } from "./protocol";

export type NodeKind = "file" | "skipped" | "mentioned" | "group" | "trust" | "session" | "hint";

export interface ChainNode {
  id: string;
  kind: NodeKind;
  label: string;
  description?: string;
  tooltip?: string;
  /** A codicon id, e.g. "law"; the view turns it into a ThemeIcon. */
  icon?: string;
  contextValue: string;
  /** Absolute path of the file the node stands for; clicking opens it. */
  path?: string;
  winning?: boolean;
  children?: ChainNode[];
  /** Shown folded (other agents' files in an agent's group). */
  collapsed?: boolean;
}

export interface PathContext {
  /** Workspace folder paths; the deepest containing one makes a path relative. */
  roots: string[];
  /** The user's home directory, shown as `~`. */
  home: string;
}

/** Shortest readable path: relative to the workspace (or the git root), `~/` for home files. */
export function displayPath(file: string, ctx: PathContext, gitRoot?: string | null): string {
  const candidates = [...ctx.roots, ...(gitRoot ? [gitRoot] : [])]
    .filter((root) => isInside(file, root))
    .sort((a, b) => b.length - a.length);
  if (candidates.length > 0) return toPosix(path.relative(candidates[0], file));
  if (ctx.home && isInside(file, ctx.home)) return "~/" + toPosix(path.relative(ctx.home, file));
  return file;
}

function isInside(file: string, root: string): boolean {
  const rel = path.relative(root, file);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
}

function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/** The file that wins on conflicts: the agent loads files first to last and the last wins. */
export function winningFile(payload: ChainPayload): ChainFile | undefined {
  return [...payload.files].sort((a, b) => a.precedence - b.precedence).at(-1);
}

const ROLE_ICON: Record<string, string> = { home: "home", configured: "settings-gear", project: "repo" };

/** Files folder trust withholds (they would load once the folder is trusted). */
export function withheldCount(payload: ChainPayload): number {
  return payload.skipped.filter((s) => s.reason === "untrusted-folder").length;
}

function fileNode(file: ChainFile, total: number, ctx: PathContext, payload: ChainPayload, winner?: ChainFile): ChainNode {
  const shown = displayPath(file.path, ctx, payload.git_root);
  const winning = winner !== undefined && file.path === winner.path;
  const source = file.source ?? file.role;
  const parts = [`${source} ${file.kind}`, formatBytes(file.bytes), `~${file.tokens} tok`];
  const order = winning
    ? `loaded last of ${total}: wins on conflicts`
    : `loaded ${file.precedence} of ${total}: files loaded after it win on conflicts`;
  return {
    id: `file:${file.path}`,
    kind: "file",
    label: `${file.precedence}. ${shown}`,
    description: (winning ? "★ wins · " : "") + parts.join(" · "),
    tooltip: `${file.path}\n${source} ${file.kind} file, ${file.bytes} bytes, ~${file.tokens} tokens\n${order}`,
    icon: winning ? "star-full" : ROLE_ICON[source] ?? (file.kind === "rule" ? "law" : "book"),
    contextValue: winning ? "rulelens.loaded.winning" : "rulelens.loaded",
    path: file.path,
    winning,
  };
}

function skippedNode(skip: SkippedFile, ctx: PathContext, payload: ChainPayload): ChainNode {
  return {
    id: `skipped:${skip.path}`,
    kind: "skipped",
    label: displayPath(skip.path, ctx, payload.git_root),
    description: skip.reason,
    tooltip: `${skip.path}\nNot loaded (${skip.reason}): ${skip.detail}`,
    icon: "circle-slash",
    contextValue: "rulelens.skipped",
    path: skip.path,
  };
}

/**
 * Top level: the loaded files in load order, then a "Skipped" group (every file that will not
 * load, with its reason), then the tracker split when the agent's session would only mention
 * some files by path. Groups that would be empty are left out.
 */
export function buildChainTree(payload: ChainPayload | null | undefined, ctx: PathContext): ChainNode[] {
  if (!payload) return [];
  const files = [...payload.files].sort((a, b) => a.precedence - b.precedence);
  const winner = winningFile(payload);
  const nodes: ChainNode[] = [];
  if (payload.trustNote) {
    // One line at the top: what trust withholds and the command that changes it.
    nodes.push({
      id: "trust",
      kind: "trust",
      label: payload.trustNote,
      tooltip: payload.trust ? `${payload.trust.state}: ${payload.trust.reason}` : payload.trustNote,
      icon: "shield",
      contextValue: "rulelens.trust",
    });
  }
  nodes.push(...files.map((f) => fileNode(f, files.length, ctx, payload, winner)));

  if (payload.skipped.length > 0) {
    nodes.push({
      id: "group:skipped",
      kind: "group",
      label: `Skipped (${payload.skipped.length})`,
      description: "will not load",
      tooltip: "Instruction-like files the agent will not load for this file, each with the reason",
      icon: "eye-closed",
      contextValue: "rulelens.group.skipped",
      children: payload.skipped.map((s) => skippedNode(s, ctx, payload)),
    });
  }

  // A file this list already shows as loaded is not listed again as "only mentioned": the two
  // lists assume different start directories, and one file in both reads as a contradiction.
  const loaded = new Set(files.map((f) => f.path));
  const mentioned = (payload.tracker?.mentioned_by_path ?? []).filter((p) => !loaded.has(p));
  if (mentioned.length > 0) {
    const cwd = payload.tracker?.agent_cwd ?? "";
    nodes.push({
      id: "group:mentioned",
      kind: "group",
      label: `Would only be mentioned by path (${mentioned.length})`,
      description: cwd ? `agent started in ${agentCwdLabel(cwd, ctx, payload.git_root)}` : undefined,
      tooltip:
        "For an agent session started in the agent working directory, these files are not loaded at session start; " +
        "the agent's AgentsMdTracker would only mention them by path when it touches this file." +
        (payload.tracker?.note ? `\n${payload.tracker.note}` : ""),
      icon: "mention",
      contextValue: "rulelens.group.mentioned",
      children: mentioned.map((p) => ({
        id: `mentioned:${p}`,
        kind: "mentioned" as const,
        label: displayPath(p, ctx, payload.git_root),
        tooltip: p,
        icon: "link",
        contextValue: "rulelens.mentioned",
        path: p,
      })),
    });
  }
  return nodes;
}

function agentCwdLabel(cwd: string, ctx: PathContext, gitRoot: string | null): string {
  const same = (a: string, b: string) => path.resolve(a) === path.resolve(b);
  if (ctx.roots.some((r) => same(r, cwd))) return "the workspace folder";
  if (gitRoot && same(gitRoot, cwd)) return "the repository root";
  return displayPath(cwd, ctx, gitRoot);
}

/** What the view says instead of a tree, or undefined when the tree has content. */
export type ViewState =
  | { state: "no-editor" }
  | { state: "not-a-file"; scheme: string }
  | { state: "server-down"; reason: string }
  | { state: "loading" }
  | { state: "loaded"; file: string; payload: ChainPayload | null };

export function viewMessage(view: ViewState, ctx: PathContext): string | undefined {
  switch (view.state) {
    case "no-editor":
      return "Open a file to see which agent instruction files govern it.";
    case "not-a-file":
      return `This editor is not a file on disk (${view.scheme}:); rules apply to files only.`;
    case "server-down":
      return `The RuleLens server is not running: ${view.reason}`;
    case "loading":
      return undefined;
    case "loaded": {
      const shown = displayPath(view.file, ctx);
      if (!view.payload) {
        const inside = ctx.roots.some((r) => isInside(view.file, r));
        return inside
          ? `RuleLens has no chain for ${shown}.`
          : `${shown} is outside the workspace folders; RuleLens shows the rules for files inside them.`;
      }
      if (view.payload.files.length === 0) {
        const skipped = view.payload.skipped.length;
        return (
          `No instruction files load for ${shown}.` +
          (skipped > 0 ? ` ${skipped} file(s) look like rules but are skipped (see below).` : " Add an AGENTS.md to give the agent instructions.")
        );
      }
      return undefined;
    }
  }
}

/** The view's subtitle: which file the chain is for, and its size. */
export function viewDescription(file: string, payload: ChainPayload | null | undefined): string {
  const base = path.basename(file);
  if (!payload) return base;
  const tokens = payload.files.reduce((n, f) => n + f.tokens, 0);
  return `${base} · ${payload.files.length} loaded · ~${tokens} tokens`;
}

/**
 * Status-bar text for the active file: `Rules: 4`; when there is no count to give, why not
 * (`Rules: server down`, `Rules: outside workspace`) instead of a misleading `Rules: 0`.
 */
export function statusText(payload: ChainPayload | null | undefined, view?: ViewState, ctx?: PathContext): string {
  if (payload) {
    const withheld = withheldCount(payload);
    return `Rules: ${payload.files.length}` + (withheld ? ` (+${withheld} after trust)` : "");
  }
  if (view?.state === "server-down") return "Rules: server down";
  if (view?.state === "loading") return "Rules: …";
  if (view?.state === "loaded" && ctx && !ctx.roots.some((r) => isInside(view.file, r))) return "Rules: outside workspace";
  return "Rules: —";
}

export function statusTooltip(payload: ChainPayload | null | undefined, ctx: PathContext): string {
  if (!payload) return "RuleLens: no chain for this editor";
  const winner = winningFile(payload);
  // Name the start directory: the per-agent groups in Active Rules may start elsewhere.
  const lines = [`${payload.files.length} instruction file(s) load for this file (Grok started in ${displayPath(payload.cwd, ctx, payload.git_root)}/)`];
  if (winner) lines.push(`deepest wins: ${displayPath(winner.path, ctx, payload.git_root)}`);
  if (payload.skipped.length) lines.push(`${payload.skipped.length} skipped`);
  if (payload.trustNote) lines.push(payload.trustNote);
  lines.push("Click to show Active Rules");
  return lines.join("\n");
}
