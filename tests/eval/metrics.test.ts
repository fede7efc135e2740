import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { docsInOrder, mrrAt, ndcgAt, readQrels, recallAt, scoreRetrieval } from "@citeflow/eval";
import { tempDir } from "../helpers.js";

const rels = new Map([
  ["a", 1],
  ["b", 2],
  ["z", 0],
]);

describe("retrieval metrics (BEIR / trec_eval definitions)", () => {
  it("nDCG@k with graded gains", () => {
    // ranking: x, b, a → DCG = 2/log2(3) + 1/log2(4); ideal: b, a → 2/log2(2) + 1/log2(3)
    const dcg = 2 / Math.log2(3) + 1 / 2;
    const idcg = 2 + 1 / Math.log2(3);
    expect(ndcgAt(["x", "b", "a"], rels, 10)).toBeCloseTo(dcg / idcg, 12);
    expect(ndcgAt(["b", "a"], rels, 10)).toBeCloseTo(1, 12);
    expect(ndcgAt(["x", "b", "a"], rels, 1)).toBe(0);
    expect(ndcgAt(["x"], new Map(), 10)).toBe(0);
  });

  it("recall@k counts only relevant (> 0) documents", () => {
    expect(recallAt(["a", "z"], rels, 100)).toBe(0.5);
    expect(recallAt(["x", "a", "b"], rels, 2)).toBe(0.5);
  });

  it("MRR@k", () => {
    expect(mrrAt(["x", "y", "b"], rels, 10)).toBeCloseTo(1 / 3, 12);
    expect(mrrAt(["x", "y", "b"], rels, 2)).toBe(0);
  });

  it("averages over judged queries only, and maps passages to papers by first appearance", () => {
    const qrels = new Map([
      ["q1", new Map([["d1", 1]])],
      ["q2", new Map([["d2", 1]])],
    ]);
    const runs = new Map([
      ["q1", docsInOrder(["d1#0", "d1#1", "d3#0"])],
      ["q2", docsInOrder(["d3#0", "d2#4"])],
      ["unjudged", ["d1"]],
    ]);
    expect(docsInOrder(["d1#0", "d1#1", "d3#0"])).toEqual(["d1", "d3"]);
    const s = scoreRetrieval(runs, qrels);
    expect(s.queries).toBe(2);
    expect(s["mrr@10"]).toBeCloseTo((1 + 0.5) / 2, 12);
    expect(s["recall@100"]).toBe(1);
  });

  it("reads BEIR qrels and names a bad line", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "q.tsv"), "query-id\tcorpus-id\tscore\n1\t31715818\t1\n1\t42\t0\n");
    const q = readQrels(join(dir, "q.tsv"));
    expect([...q.get("1")!.entries()]).toEqual([
      ["31715818", 1],
      ["42", 0],
    ]);
    writeFileSync(join(dir, "bad.tsv"), "query-id\tcorpus-id\tscore\n1 31715818 1\n");
    expect(() => readQrels(join(dir, "bad.tsv"))).toThrow(/bad.tsv:2: expected "query-id<TAB>corpus-id<TAB>score"/);
  });
});
