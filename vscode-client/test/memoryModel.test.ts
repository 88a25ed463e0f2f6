import { describe, expect, it } from "vitest";
import { emptyText, explainMarkdown, matchedLine, memoryRow, rememberDialog, reindexSummary, statusMarkdown } from "../src/memoryModel";
import { CTX, HOME } from "./fixtures";

const result = {
  path: `${HOME}/.grok/memory/MEMORY.md`, start_line: 3, end_line: 9,
  snippet: "Orders are\n  idempotent   by request id", score: 0.8123, raw_score: 0.9,
  source: "memory", staleness: "12 days", agent_returns: true, injected_first_turn: false,
};

describe("memory rows", () => {
  it("puts the score first, then the file and lines; flags as description; the snippet as detail", () => {
    const row = memoryRow(result, CTX);
    expect(row.label).toBe("0.81  MEMORY.md:3-9");          // the file name first
    expect(row.description).toBe("~/.grok/memory/ · memory · agent returns it · 12 days");
    expect(row.detail).toBe("Orders are");
    const miss = memoryRow({ ...result, agent_returns: false, staleness: null, injected_first_turn: true }, CTX);
    expect(miss.description).toBe("~/.grok/memory/ · memory · below agent's cut · first turn");
    const stale = memoryRow({ ...result, staleness: "**Stale (3 weeks ago):** Verify current state before relying on this.\n", superseded_by: "x:0" }, CTX);
    expect(stale.description).toBe("~/.grok/memory/ · memory · agent returns it · Stale (3 weeks ago) · superseded");
  });

  it("shows the matched sentence, not the chunk's context prefix, with the keywords' ranges", () => {
    const snippet = "[Context: # Project Memory — /home/me/src/shop]\n\n## Payments\n\n- Stripe webhooks are verified with the secret.\n- Webhook retries are idempotent: keyed on event.id.";
    const row = memoryRow({ ...result, snippet }, CTX, ["webhook", "retries"]);
    expect(row.detail).toBe("- Webhook retries are idempotent: keyed on event.id.");
    expect(row.highlights).toEqual([[2, 9], [10, 17]]);
    expect(matchedLine(snippet, ["zebra"]).text).toBe("- Stripe webhooks are verified with the secret.");
    const turn = memoryRow({ ...result, source: "transcript", start_line: 12, end_line: 12, label: "not searched by the agent's memory tools" }, CTX, []);
    expect(turn.label).toBe("0.81  MEMORY.md:12");
    expect(turn.description).toBe("~/.grok/memory/ · transcript · not searched by the agent's memory tools");
  });

  it("words the explain view from the server's numbers", () => {
    const md = explainMarkdown({ ...result, explain: { bm25: -2.5, bm25_rank: 1, cosine: 0.61, vector_rank: 2, coverage: 1, matched: ["orders"], base: 0.774, cutoff: "cosine 0.61 >= 0.35",
      agent: { keyword_score: 1, keyword_rank: 1, vector_similarity: 0.7, merged: 1, decay: 0.5, age_days: 30, half_life_days: 30, source_weight: 1, access_boost: 1, display: 0.5, min_score: 0.7, passed_threshold: false, rank_before_mmr: null, rank_after_mmr: null, why_not: "the agent would not return this because its score 0.50 is under min_score 0.70" },
      why_not: "the agent would not return this because its score 0.50 is under min_score 0.70" } }, "orders", "best");
    expect(md).toContain("- keyword: bm25 -2.50 (rank 1), coverage 1.00 [orders]");
    expect(md).toContain("- merged 1.00; decay 0.50 (age 30.0 d, half-life 30 d)");
    expect(md).toContain("→ 0.50 vs min_score 0.70 (missed)");
    expect(md).toContain("**the agent would not return this because its score 0.50 is under min_score 0.70**");
  });

  it("explains empty lists differently for the agent's view and the wider list", () => {
    expect(emptyText("", false)).toBe("Type to search memory");
    expect(emptyText("zebra", false)).toMatch(/toggle the wider list/);
    expect(emptyText("zebra", true)).toBe('No memory matches "zebra" in this workspace\'s memory or the global one — "RuleLens: Memory Status" lists the files searched');
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
