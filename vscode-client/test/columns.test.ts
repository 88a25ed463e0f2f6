import { describe, expect, it } from "vitest";
import { documentColumn } from "../src/columns";

// Issue 20: the rendered prompt and Memory Status opened as a cramped third column.
describe("documentColumn", () => {
  it("uses the active group when it is the only one (no new column)", () => {
    expect(documentColumn([1], 1)).toBe(1);
  });
  it("uses the neighbour of the active group: right first, then left", () => {
    expect(documentColumn([1, 2], 1)).toBe(2);
    expect(documentColumn([1, 2], 2)).toBe(1);
    expect(documentColumn([1, 2, 3], 2)).toBe(3);
  });
  it("keeps the group that already shows the document", () => {
    expect(documentColumn([1, 2, 3], 1, 3)).toBe(3);
    expect(documentColumn([1, 2], 1, 5)).toBe(2); // a stale holder is ignored
  });
});
