/**
 * Memory search results as Quick Pick rows, without `vscode`.
 *
 * The server ranks and marks each result (`agent_returns`, staleness); this module only words
 * them so a user can tell at a glance which notes the agent itself would see.
 */

import type { MemoryResult, RememberPlan } from "./protocol";
import { displayPath, type PathContext } from "./chainModel";

export interface MemoryRow {
  label: string;
  description: string;
  detail: string;
  result: MemoryResult;
}

export function memoryRow(result: MemoryResult, ctx: PathContext): MemoryRow {
  const where = `${displayPath(result.path, ctx)}:${result.start_line}-${result.end_line}`;
  const flags = [
    result.score.toFixed(2),
    result.source,
    result.staleness ? result.staleness : undefined,
    result.agent_returns ? "agent returns it" : "below agent's cut",
    result.injected_first_turn ? "injected at first turn" : undefined,
  ].filter((x): x is string => !!x);
  const snippet = result.snippet.replace(/\s+/g, " ").trim();
  return {
    label: `${result.agent_returns ? "$(check)" : "$(circle-slash)"} ${where}`,
    description: flags.join(" · "),
    detail: snippet.length > 200 ? snippet.slice(0, 199) + "…" : snippet,
    result,
  };
}

/** Debounce delay for search-as-you-type; short enough to feel live, long enough to skip keystrokes. */
export const SEARCH_DEBOUNCE_MS = 200;

export function placeholder(all: boolean): string {
  return all
    ? "Search the agent's memory (wider list: also results the agent would not return)"
    : "Search the agent's memory (only what the agent would return)";
}

export function emptyText(query: string, all: boolean): string {
  if (!query.trim()) return "Type to search memory";
  return all ? `No memory matches "${query}"` : `The agent would return nothing for "${query}" — toggle the wider list to see near misses`;
}

/**
 * `rulelens/memoryStatus` as Markdown. The payload's shape belongs to the server, so this walks
 * any JSON: objects become headed sections or `key: value` bullets, arrays become lists.
 */
export function statusMarkdown(status: unknown): string {
  const lines = ["# RuleLens memory status", ""];
  const label = (k: string) => k.replace(/_/g, " ");
  const scalar = (v: unknown) => (v === null || v === undefined ? "—" : typeof v === "string" ? (v === "" ? "—" : `\`${v}\``) : String(v));
  const walk = (value: unknown, depth: number, indent: string) => {
    if (Array.isArray(value)) {
      if (value.length === 0) lines.push(`${indent}- (none)`);
      for (const v of value) {
        if (v !== null && typeof v === "object") {
          const entries = Object.entries(v as Record<string, unknown>);
          const [first, ...rest] = entries;
          if (!first) continue;
          lines.push(`${indent}- **${label(first[0])}**: ${isScalar(first[1]) ? scalar(first[1]) : ""}`);
          if (!isScalar(first[1])) walk(first[1], depth + 1, indent + "  ");
          for (const [k, x] of rest) {
            lines.push(`${indent}  - **${label(k)}**: ${isScalar(x) ? scalar(x) : ""}`);
            if (!isScalar(x)) walk(x, depth + 1, indent + "    ");
          }
        } else lines.push(`${indent}- ${scalar(v)}`);
      }
      return;
    }
    if (value !== null && typeof value === "object") {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (isScalar(v)) lines.push(`${indent}- **${label(k)}**: ${scalar(v)}`);
        else if (depth === 0) {
          lines.push("", `## ${label(k)}`, "");
          walk(v, depth + 1, "");
        } else {
          lines.push(`${indent}- **${label(k)}**:`);
          walk(v, depth + 1, indent + "  ");
        }
      }
      return;
    }
    lines.push(`${indent}${scalar(value)}`);
  };
  walk(status, 0, "");
  return lines.join("\n") + "\n";
}

function isScalar(v: unknown): boolean {
  return v === null || typeof v !== "object";
}

/** One line for the result of `rulelens.reindexMemory`, whatever counts the server returns. */
export function reindexSummary(result: unknown): string {
  if (result === null || result === undefined) return "Memory reindexed.";
  if (typeof result !== "object") return `Memory reindexed: ${String(result)}`;
  const parts = Object.entries(result as Record<string, unknown>)
    .filter(([, v]) => typeof v === "number" || typeof v === "string")
    .map(([k, v]) => `${k.replace(/_/g, " ")} ${String(v)}`);
  return parts.length ? `Memory reindexed: ${parts.join(", ")}.` : "Memory reindexed.";
}

/**
 * The confirmation dialog for `RuleLens: Remember…`, worded from the server's dry run: the
 * note as the server normalised it, and the server's one-line warning when the agent's search
 * would skip it. Nothing about normalisation or chunking is decided here.
 */
export function rememberDialog(plan: RememberPlan, scope: "global" | "workspace", ctx: PathContext): { message: string; detail: string } {
  const where = displayPath(plan.path, ctx);
  const detail = plan.warning ? `${plan.note}\n\n⚠ ${plan.warning}` : plan.note;
  return { message: `Append this note to the ${scope} memory (${where})?`, detail };
}
