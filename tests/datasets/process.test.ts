import { describe, expect, it } from "vitest";
import { dedupe, split, type Row } from "@citeflow/datasets";

describe("dedupe and split", () => {
  const row = (key: string, text: string, data: Record<string, unknown> = { text }): Row => ({
    key,
    dedupText: text,
    data,
    provenance: { runId: "r", graph: "g", graphHash: "h", nodeId: "n", nodeType: "t", passageIds: [], docIds: [], models: {}, sources: [] },
  });

  it("drops exact duplicates and near duplicates (case, punctuation, spacing), keeping the first", () => {
    const r = dedupe([row("a", "Vitamin D helps."), row("a", "Vitamin D helps."), row("b", "vitamin  d, HELPS"), row("c", "Vitamin C helps.")]);
    expect(r.rows.map((x) => x.key)).toEqual(["a", "c"]);
    expect([r.exact, r.near]).toEqual([1, 1]);
  });

  it("keeps rows of one key on one side, changes with the seed, and rejects a bad ratio", () => {
    const rows = Array.from({ length: 200 }, (_, i) => row(`q${i % 50}`, `t${i}`));
    const s = split(rows, 0.8, 1);
    const trainKeys = new Set(s.train.map((r) => r.key));
    expect(s.validation.every((r) => !trainKeys.has(r.key))).toBe(true);
    expect(s.train.length).toBeGreaterThan(100);
    expect(split(rows, 0.8, 2).train.map((r) => r.key)).not.toEqual(s.train.map((r) => r.key));
    expect(() => split(rows, 1.5, 0)).toThrow(/--split 1.5/);
  });
});
