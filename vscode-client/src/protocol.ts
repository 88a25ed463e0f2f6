/**
 * Names and payload shapes of RuleLens' custom LSP methods, as written in docs/protocol.md.
 *
 * This module is the client's only copy of the contract: everything the extension shows comes
 * from these payloads, so precedence, skip reasons and ranking are never recomputed here.
 * No `vscode` import, so the pure models and their tests can use it.
 */

export const Methods = {
  chain: "rulelens/chain",
  render: "rulelens/render",
  memorySearch: "rulelens/memorySearch",
  memoryStatus: "rulelens/memoryStatus",
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

export interface ChainFile {
  path: string;
  name: string;
  role: Role;
  kind: Kind;
  precedence: number;
  bytes: number;
  tokens: number;
  content?: string;
}

export interface SkippedFile {
  path: string;
  reason: string;
  detail: string;
}

export interface TrackerSplit {
  agent_cwd: string;
  session_files: string[];
  mentioned_by_path: string[];
  note?: string;
}

export interface ChainPayload {
  cwd: string;
  git_root: string | null;
  files: ChainFile[];
  skipped: SkippedFile[];
  tracker?: TrackerSplit | null;
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
}

export interface MemorySearchPayload {
  query: string;
  keywords?: string[];
  mode?: string;
  results: MemoryResult[];
}

export interface MemorySearchParams {
  query: string;
  workspaceUri?: string;
  all?: boolean;
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
