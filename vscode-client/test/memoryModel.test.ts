import { describe, expect, it } from "vitest";
import { emptyText, memoryRow, rememberDialog, reindexSummary, statusMarkdown } from "../src/memoryModel";
import { CTX, HOME } from "./fixtures";

const result = {
  path: `${HOME}/.grok/memory/MEMORY.md`, start_line: 3, end_line: 9,
  snippet: "Orders are\n  idempotent   by request id", score: 0.8123, raw_score: 0.9,
  source: "memory", staleness: "12 days", agent_returns: true, injected_first_turn: false,
};

describe("memory rows", () => {
  it("shows where, score, source, staleness and whether the agent returns it", () => {
    const row = memoryRow(result, CTX);
    expect(row.label).toBe("$(check) ~/.grok/memory/MEMORY.md:3-9");
    expect(row.description).toBe("0.81 · memory · 12 days · agent returns it");
    expect(row.detail).toBe("Orders are idempotent by request id");
    const miss = memoryRow({ ...result, agent_returns: false, staleness: null, injected_first_turn: true }, CTX);
    expect(miss.label.startsWith("$(circle-slash)")).toBe(true);
    expect(miss.description).toBe("0.81 · memory · below agent's cut · injected at first turn");
  });

  it("explains empty lists differently for the agent's view and the wider list", () => {
    expect(emptyText("", false)).toBe("Type to search memory");
    expect(emptyText("zebra", false)).toMatch(/toggle the wider list/);
    expect(emptyText("zebra", true)).toBe('No memory matches "zebra"');
  });

  it("renders any status object as Markdown and summarises reindex counts", () => {
    const md = statusMarkdown({ workspace: "demo-shop-1a2b3c4d", roots: ["/h/.grok/memory", "/h/.grok/memory/demo"], index: { files: 3, chunks: 12, path: "/c/idx.sqlite" }, embedder: null });
    expect(md).toContain("# RuleLens memory status");
    expect(md).toContain("- **workspace**: `demo-shop-1a2b3c4d`");
    expect(md).toContain("## roots\n\n- `/h/.grok/memory`");
    expect(md).toContain("## index\n\n- **files**: 3\n- **chunks**: 12");
    expect(md).toContain("- **embedder**: —");
    expect(reindexSummary({ files: 3, chunks: 12, skipped: 0 })).toBe("Memory reindexed: files 3, chunks 12, skipped 0.");
    expect(reindexSummary(null)).toBe("Memory reindexed.");
  });
});

describe("remember confirmation", () => {
  const plan = {
    path: `${HOME}/.grok/memory/MEMORY.md`, text: "\n\n## Use the test clock", note: "## Use the test clock",
    sha256: "ab".repeat(32), searchable: true, warning: null,
  };

  it("shows the server's normalised note and where it goes", () => {
    const d = rememberDialog(plan, "global", CTX);
    expect(d.message).toBe("Append this note to the global memory (~/.grok/memory/MEMORY.md)?");
    expect(d.detail).toBe("## Use the test clock");
  });

  it("adds the server's warning when the agent's search would skip the note", () => {
    const warning = "A one-line note becomes a heading; the agent's search skips heading-only chunks — add a second line to make it findable";
    const d = rememberDialog({ ...plan, searchable: false, warning }, "workspace", CTX);
    expect(d.detail).toBe(`## Use the test clock\n\n⚠ ${warning}`);
    expect(d.message).toContain("workspace memory");
  });
});
