/**
 * Names and payload shapes of RuleLens' custom LSP methods, as written in docs/protocol.md.
 *
 * This module is the client's only copy of the contract: everything the extension shows comes
 * from these payloads, so precedence, skip reasons and ranking are never recomputed here.
 * No `vscode` import, so the pure models and their tests can use it.
 */

export const Methods = {
  chain: "rulelens/chain",
  /** `{uri, cwd?, agents?}` -> {@link AgentsPayload}: every enabled agent's view of a file. */
  agentsForFile: "rulelens/agentsForFile",
  /** `{workspaceUri?}` -> {@link AgentInfo}[]: every agent the server knows (its registry). */
  agents: "rulelens/agents",
  render: "rulelens/render",
  memorySearch: "rulelens/memorySearch",
  memoryStatus: "rulelens/memoryStatus",
  memoryContext: "rulelens/memoryContext",
  chainChanged: "rulelens/chainChanged",
  /** Server -> client `{workspaceUri, reindexed, removed}` after the memory index changed. */
  memoryIndexed: "rulelens/memoryIndexed",
} as const;

/** Server-side commands run through `workspace/executeCommand`. */
export const ServerCommands = {
  showChain: "rulelens.showChain",
  remember: "rulelens.remember",
  reindexMemory: "rulelens.reindexMemory",
} as const;

export type Role = "home" | "project" | string;
export type Kind = "named" | "rule" | string;

/** Where a loaded file comes from (Grok >= 1.0.45): `configured` = `[paths] extra_rule_dirs`. */
export type Source = "home" | "configured" | "project" | string;

/** Folder trust (Grok >= 1.0.45): `undecided`/`untrusted` withhold every project file. */
export interface TrustState {
  state: "trusted" | "untrusted" | "undecided" | "not-required" | string;
  key: string | null;
  reason: string;
}

export interface ChainFile {
  path: string;
  name: string;
  role: Role;
  source?: Source;
  kind: Kind;
  precedence: number;
  bytes: number;
  tokens: number;
  content?: string;
}

/** How sure a line is: read in the agent's own code, only in its documentation, or observed. */
export type Evidence = "code" | "docs" | "observed";

export interface SkippedFile {
  path: string;
  reason: string;
  detail: string;
  /** Per-agent views: how sure this line is, and where that comes from. */
  evidence?: Evidence;
  evidence_source?: string;
  /** Known, version-gated bugs that affect this file. */
  notes?: string[];
}

export interface TrackerSplit {
  agent_cwd: string;
  session_files: string[];
  mentioned_by_path: string[];
  note?: string;
}

export interface ChainPayload {
  /** The profile that produced the chain (`grok@1.0.45`). */
  agent?: string;
  trust?: TrustState | null;
  /** One line, present only when trust withholds files, with the command that changes it. */
  trustNote?: string;
  cwd: string;
  git_root: string | null;
  files: ChainFile[];
  skipped: SkippedFile[];
  tracker?: TrackerSplit | null;
}

/** `start` | `on-read` | `may`: when the file reaches the model. */
export type When = "start" | "on-read" | "may";

export interface AgentFile extends ChainFile {
  when: When;
  why: string;
  imported_by?: string | null;
  truncated_at?: number | null;
  /** How sure this line is, and where that comes from (`repo@commit:path` or a doc URL). */
  evidence?: Evidence;
  evidence_source?: string;
  /** Known, version-gated bugs that affect this file. */
  notes?: string[];
}

/** One entry of `rulelens/agents`: an agent the server knows. */
export interface AgentInfo {
  id: string;
  short: string;
  display: string;
  evidence: Evidence;
  source: string;
  /** Its files exist in the workspace folder. */
  present: boolean;
  /** Shown (the `rulelens.agents` setting, else every present agent). */
  enabled: boolean;
  trust_command?: string | null;
}

/** One agent's view (`rulelens chain FILE --agent A --json`). */
export interface AgentChain {
  agent: string;
  display?: string;
  cwd: string;
  git_root: string | null;
  files: AgentFile[];
  skipped: SkippedFile[];
  notes?: string[];
  basis_label?: string;
  /** The agent's own command that trusts a folder (`grok --trust`), if it has one. */
  trust_command?: string | null;
  /** Paths this agent merely does not read that another enabled agent loads. */
  foreign?: string[];
  /** Its last recorded session's verdict (`rulelens verify`), where RuleLens reads its sessions. */
  last_session?: string | null;
}

export interface AgentsPayload {
  cwd: string;
  file: string;
  enabled: string[];
  /** The per-agent headline every view shares: `Grok 5 · Claude 3 · Codex 1`. */
  headline?: string;
  /** The same, cut to one line (`· +4 more`), as the code lens shows it. */
  lens?: string;
  agents: AgentChain[];
  rows: { path: string; cells: { agent: string; when: string; why: string }[] }[];
}

export interface RenderPayload {
  text: string;
}

export interface MemoryResult {
  path: string;
  start_line: number;
  end_line: number;
  snippet: string;
  score: number;
  raw_score?: number;
  source: string;
  staleness?: string | null;
  agent_returns: boolean;
  injected_first_turn?: boolean;
  /** `rank: "best"`: the newer near-duplicate this result is placed after. */
  superseded_by?: string | null;
  /** `explain: true`: the numbers behind the rank (see docs/protocol.md). */
  explain?: Record<string, unknown>;
  /** Transcript turns: always "not searched by the agent's memory tools". */
  label?: string;
  title?: string | null;
  /** `agent` set on the request (issue 24): whose memory the hit is in… */
  agent?: string;
  /** …and what that agent does with these lines: injected at start, read on demand, or not read. */
  injected?: "start" | "on-demand" | "no";
  scope?: "global" | "workspace";
}

export interface MemorySearchPayload {
  query: string;
  keywords?: string[];
  mode?: string;
  rank?: "agent" | "best";
  warnings?: string[];
  results: MemoryResult[];
  /** With `sources` holding "transcript": matching session turns, never the agent's results. */
  transcripts?: MemoryResult[];
  /** `agent` set: the agents searched, their display names, and why some gave nothing. */
  agents?: string[];
  names?: Record<string, string>;
  notes?: string[];
}

export interface MemorySearchParams {
  query: string;
  workspaceUri?: string;
  all?: boolean;
  rank?: "agent" | "best";
  explain?: boolean;
  sources?: string[];
  /** Another agent's memory ("claude", "codex", "gemini", "qwen") or "all"; absent: Grok's. */
  agent?: string;
}

/** `rulelens/memoryStatus` with `agent: "all"`: each agent's memory files, which agents are
 * present in the workspace (the default for remember), their names and writable scopes. */
export interface AgentMemoryStatus {
  agents: { agent: string; files: { path: string; injected: string; cut_at_line: number | null }[]; notes: string[] }[];
  present: string[];
  names: Record<string, string>;
  remember_scopes: Record<string, ("global" | "workspace")[]>;
}

/** `rulelens/memoryContext`: the first-turn `<memory-context>` block, byte for byte. */
export interface MemoryContextPayload {
  query: string;
  text: string;
  results: number;
  reason: string;
  agent: string;
}

export interface ChainChangedParams {
  uris: string[];
}

export interface RememberArgs {
  text: string;
  scope: "global" | "workspace";
  workspaceUri?: string;
  /** Hex SHA-256 of the file as the user saw it (`""`: no file); the server refuses if it changed. */
  expectedSha256?: string;
  /** Write nothing; answer a {@link RememberPlan}. */
  dryRun?: boolean;
  /** Another agent's memory (issue 24); the answer is then an {@link AgentRememberResult}. */
  agent?: string;
}

/** `rulelens.remember` with `agent`: the exact bytes appended (or, with `dryRun`, that would be). */
export interface AgentRememberResult {
  agent: string;
  path: string;
  scope: "global" | "workspace";
  format: string;
  text: string;
  written: boolean;
}

export interface RememberResult {
  path: string;
  /** The normalised note as appended. */
  text: string;
  sha256?: string;
}

/** The answer to `rulelens.remember` with `dryRun: true`: what would be appended, and why it might not be found. */
export interface RememberPlan {
  path: string;
  /** Exactly what the append would add (a blank-line separator included when the file has text). */
  text: string;
  /** The note as the server normalises it (the agent's rule). */
  note: string;
  /** SHA-256 of the file now (`""`: no file); the real call sends it as `expectedSha256`. */
  sha256: string;
  /** Whether the agent's memory search could return the note once appended. */
  searchable: boolean;
  /** One line saying why the note would not be found, else null. */
  warning: string | null;
}
