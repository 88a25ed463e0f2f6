import { describe, expect, it } from "vitest";
import { buildAgentsTree } from "../src/agentsModel";
import type { AgentsPayload } from "../src/protocol";
import { CTX, REPO } from "./fixtures";

describe("the last session's verdict in the per-agent Active Rules groups", () => {
  it("puts the verdict first in each group whose sessions RuleLens reads", () => {
    const base = { cwd: REPO, git_root: REPO, files: [], skipped: [], notes: [] };
    const codex = { ...base, agent: "codex", display: "Codex CLI",
      last_session: "✓ matches your Codex CLI session of 2026-09-01 14:02 UTC" };
    const claude = { ...base, agent: "claude@2.1", display: "Claude Code",
      last_session: "⚠ differs: CLAUDE.local.md predicted start, absent in the session" };
    const cursor = { ...base, agent: "cursor@2026-08", display: "Cursor", last_session: null };
    const payload: AgentsPayload = { cwd: REPO, file: `${REPO}/x.py`, enabled: ["codex", "claude", "cursor"],
      agents: [codex, claude, cursor], rows: [] };
    const [c, cl, cu] = buildAgentsTree(payload, CTX);
    expect(c.children?.[0]).toMatchObject({ kind: "session", icon: "pass",
      label: "Last session: ✓ matches your Codex CLI session of 2026-09-01 14:02 UTC" });
    expect(cl.children?.[0]).toMatchObject({ kind: "session", icon: "warning" });
    expect(cu.children?.some((n) => n.kind === "session")).toBe(false);
  });
});
