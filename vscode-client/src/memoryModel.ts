/**
 * Memory search results as Quick Pick rows, without `vscode`.
 *
 * The server ranks and marks each result (`agent_returns`, staleness); this module only words
 * them so a user can tell at a glance which notes the agent itself would see.
 */

import type { AgentRememberResult, MemoryResult, RememberPlan } from "./protocol";
import { displayPath, type PathContext } from "./chainModel";

export interface MemoryRow {
  label: string;
  description: string;
  detail: string;
  /** Character ranges of the query's keywords in `detail` (the matched sentence). */
  highlights: [number, number][];
  result: MemoryResult;
}

/**
 * The snippet's line with the most query keywords (the first such line; the first plain line
 * when none matches), without the chunk's `[Context: …]` prefix, and where the keywords are.
 */
export function matchedLine(snippet: string, keywords: string[] = []): { text: string; highlights: [number, number][] } {
  const lines = snippet.split("\n").filter((l) => l.trim() && !l.startsWith("[Context: "));
  const words = [...new Set(keywords.map((k) => k.toLowerCase()).filter(Boolean))];
  const hits = (line: string) => {
    const low = line.toLowerCase();
    return words.filter((w) => low.includes(w)).length;
  };
  let best = lines[0] ?? "";
  let most = -1;
  for (const line of lines) {
    const n = hits(line);
    if (n > most) [best, most] = [line, n];
  }
  if (most <= 0) best = lines.find((l) => !l.trimStart().startsWith("#")) ?? best;
  let text = best.replace(/\s+/g, " ").trim();
  if (text.length > 200) text = text.slice(0, 199) + "…";
  const low = text.toLowerCase();
  const ranges: [number, number][] = [];
  for (const w of [...words].sort((a, b) => b.length - a.length)) {
    for (let at = low.indexOf(w); at >= 0; at = low.indexOf(w, at + w.length)) {
      if (!ranges.some(([a, b]) => at < b && a < at + w.length)) ranges.push([at, at + w.length]);
    }
  }
  return { text, highlights: ranges.sort((a, b) => a[0] - b[0]) };
}

/** How an agent's hit reaches its model, in words (the server's `injected` label). */
export function injectedMark(injected: string | undefined): string {
  if (injected === "start") return "injected at start";
  if (injected === "on-demand") return "on demand";
  return "not read by the agent";
}

/** A quick pick entry of the all-agents search: a group heading or a hit. */
export type AgentGroupRow = { kind: "separator"; agent: string; label: string } | { kind: "hit"; agent: string; row: MemoryRow };

/**
 * The all-agents search as groups, one per agent in the order its best hit ranks (the server's
 * order is kept inside a group), each headed by the agent's name and its hit count.
 */
export function agentGroups(results: MemoryResult[], ctx: PathContext, names: Record<string, string> = {}, keywords: string[] = []): AgentGroupRow[] {
  const order: string[] = [];
  const by = new Map<string, MemoryResult[]>();
  for (const r of results) {
    const agent = r.agent ?? "grok";
    if (!by.has(agent)) {
      by.set(agent, []);
      order.push(agent);
    }
    by.get(agent)!.push(r);
  }
  const out: AgentGroupRow[] = [];
  for (const agent of order) {
    const hits = by.get(agent)!;
    const name = names[agent] ?? agent;
    out.push({ kind: "separator", agent, label: `${name} (${hits.length})` });
    for (const r of hits) {
      // The agent's name leads each row too: not every workbench shows separator labels.
      // The file name only: the agents' memory folders are long home paths (Enter opens it).
      const row = memoryRow(r, ctx, keywords);
      const file = r.path.split("/").pop() ?? r.path;
      out.push({ kind: "hit", agent, row: { ...row, label: `${r.score.toFixed(2)}  ${file}:${r.start_line}-${r.end_line}`,
        description: `${name} · ${row.description}` } });
    }
  }
  return out;
}

/** One quick pick row: score first, the relative file name, the matched sentence as detail,
 * and the flags (source, agent, first turn, staleness, superseded) as a compact description;
 * another agent's hit shows whether that agent sees it at start or reads it on demand. */
export function memoryRow(result: MemoryResult, ctx: PathContext, keywords: string[] = []): MemoryRow {
  // The file name first (a long memory folder would push it out of sight); its folder leads
  // the description.
  const shown = displayPath(result.path, ctx);
  const cut = shown.lastIndexOf("/");
  const name = cut < 0 ? shown : shown.slice(cut + 1);
  const folder = cut < 0 ? undefined : shown.slice(0, cut + 1);
  const where = result.source === "transcript"
    ? `${name}:${result.start_line}`
    : `${name}:${result.start_line}-${result.end_line}`;
  const flags = result.injected !== undefined
    ? [injectedMark(result.injected), result.scope].filter((x): x is string => !!x)
    : result.source === "transcript"
    ? ["transcript", result.label ?? "not searched by the agent's memory tools"]
    : [
        result.source,
        result.agent_returns ? "agent returns it" : "below agent's cut",
        result.injected_first_turn ? "first turn" : undefined,
        result.staleness ? result.staleness.replace(/\*\*/g, "").replace(/:.*$/s, "").trim() : undefined,
        result.superseded_by ? "superseded" : undefined,
      ].filter((x): x is string => !!x);
  const { text, highlights } = matchedLine(result.snippet, keywords);
  // Per-agent hits are grouped under their agent (the group names the memory root).
  const lead = result.injected === undefined ? [folder] : [];
  return { label: `${result.score.toFixed(2)}  ${where}`, description: [...lead, ...flags].filter((x): x is string => !!x).join(" · "), detail: text, highlights, result };
}

/** The explain detail view of one result (Markdown), from a `rulelens/memorySearch` answer
 * asked with `explain: true`. Every number comes from the server. */
export function explainMarkdown(result: MemoryResult, query: string, rank: string): string {
  const e = (result.explain ?? {}) as Record<string, unknown>;
  const agent = (e.agent ?? (rank === "agent" ? e : null)) as Record<string, unknown> | null;
  const n = (v: unknown, digits = 2) => (typeof v === "number" ? v.toFixed(digits) : "—");
  const lines = [`# Why this result: ${query}`, "", `\`${result.path}\` lines ${result.start_line}-${result.end_line} · ${result.source} · ranking: ${rank}`, ""];
  if (typeof e.coverage === "number") {
    lines.push("## best (for people)", "",
      `- keyword: bm25 ${n(e.bm25)} (rank ${e.bm25_rank ?? "—"}), coverage ${n(e.coverage)}${Array.isArray(e.matched) && e.matched.length ? ` [${(e.matched as string[]).join(", ")}]` : ""}`,
      `- vector: cosine ${n(e.cosine)} (rank ${e.vector_rank ?? "—"})`,
      `- merge: ${n(e.base, 3)}; cut-off: ${String(e.cutoff ?? "—")}`);
    if (e.superseded_by) lines.push(`- superseded by the newer \`${String(e.superseded_by)}\``);
    lines.push("");
  }
  if (agent && typeof agent.merged === "number") {
    lines.push("## the agent's pipeline", "",
      `- keyword score ${n(agent.keyword_score)} (rank ${agent.keyword_rank ?? "—"}), vector similarity ${n(agent.vector_similarity)}`,
      `- merged ${n(agent.merged)}; decay ${n(agent.decay)} (age ${n(agent.age_days, 1)} d, half-life ${agent.half_life_days ?? "none"} d)`,
      `- source weight ${n(agent.source_weight)}, access boost ${n(agent.access_boost)} → ${n(agent.display)} vs min_score ${n(agent.min_score)} (${agent.passed_threshold ? "passed" : "missed"})`,
      `- MMR: #${agent.rank_before_mmr ?? "—"} → #${agent.rank_after_mmr ?? "—"}`, "");
  }
  const why = (e.why_not ?? agent?.why_not) as string | null | undefined;
  lines.push(why ? `**${why}**` : "**The agent returns this result.**", "");
  return lines.join("\n");
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
  return all
    ? `No memory matches "${query}" in this workspace's memory or the global one — "RuleLens: Memory Status" lists the files searched`
    : `The agent would return nothing for "${query}" — toggle the wider list to see near misses`;
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
export function agentRememberDialog(plan: AgentRememberResult, name: string, ctx: PathContext): { message: string; detail: string } {
  return { message: `Append this to ${name}'s ${plan.scope} memory (${displayPath(plan.path, ctx)})?`,
    detail: `${plan.text}\n(${plan.format})` };
}

export function rememberDialog(plan: RememberPlan, scope: "global" | "workspace", ctx: PathContext): { message: string; detail: string } {
  const where = displayPath(plan.path, ctx);
  const detail = plan.warning ? `${plan.note}\n\n⚠ ${plan.warning}` : plan.note;
  return { message: `Append this note to the ${scope} memory (${where})?`, detail };
}
