import { describe, expect, it } from "vitest";
import type { Passage } from "@citeflow/core";
import { citationBoost, perPaper, reciprocalRankFusion, weightedFusion, yearRange } from "@citeflow/retrieval";

const p = (id: string, scores: Record<string, number>, metadata: Passage["metadata"] = {}): Passage => ({ id, title: id, text: id, metadata, scores });

describe("fusion", () => {
  const lexical = { score: "bm25", passages: [p("1#0", { bm25: 10 }), p("2#0", { bm25: 5 })] };
  const dense = { score: "dense", passages: [p("2#0", { dense: 0.8 }), p("3#0", { dense: 0.4 })] };

  it("Verif.ai: divide by each list's top score, then 0.7·lexical + 0.3·dense", () => {
    const fused = weightedFusion([lexical, dense], [0.7, 0.3]);
    const f = Object.fromEntries(fused.map((x) => [x.id, x.scores]));
    expect(f["1#0"]!.fused).toBeCloseTo(0.7, 9);
    expect(f["2#0"]!.fused).toBeCloseTo(0.7 * 0.5 + 0.3 * 1, 9);
    expect(f["3#0"]!.fused).toBeCloseTo(0.3 * 0.5, 9);
    expect(fused.map((x) => x.id)).toEqual(["1#0", "2#0", "3#0"]);
    // Every score it received is kept.
    expect(f["2#0"]).toMatchObject({ bm25: 5, dense: 0.8, bm25_norm: 0.5, dense_norm: 1 });
  });

  it("min-max normalisation is selectable", () => {
    const f = Object.fromEntries(weightedFusion([lexical, dense], [0.5, 0.5], "minmax").map((x) => [x.id, x.scores.fused]));
    expect(f).toEqual({ "1#0": 0.5, "2#0": 0.5, "3#0": 0 });
  });

  it("refuses weights that sum over 1, negative weights, and lists without their score", () => {
    expect(() => weightedFusion([lexical, dense], [0.8, 0.3])).toThrow(/weights sum to 1.1, over 1/);
    expect(() => weightedFusion([lexical, dense], [-0.1, 0.3])).toThrow(/≥ 0/);
    expect(() => weightedFusion([{ score: "bm25", passages: [p("1#0", {})] }], [1])).toThrow(/has no "bm25" score/);
  });

  it("reciprocal-rank fusion", () => {
    const f = Object.fromEntries(reciprocalRankFusion([lexical, dense], 60).map((x) => [x.id, x.scores.rrf]));
    expect(f["2#0"]).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(f["1#0"]).toBeCloseTo(1 / 61, 12);
  });
});

describe("meta-filters", () => {
  it("at most N passages per paper", () => {
    const ps = ["1#0", "1#1", "2#0", "1#2", "2#1"].map((id) => p(id, {}));
    expect(perPaper(ps, 2).map((x) => x.id)).toEqual(["1#0", "1#1", "2#0", "2#1"]);
  });

  it("normalised citation boost re-ranks", () => {
    const ps = [p("1#0", { rerank: 1 }, { citationCount: 0 }), p("2#0", { rerank: 0.9 }, { citationCount: 100 }), p("3#0", { rerank: 0.95 })];
    const out = citationBoost(ps, "rerank", 0.2);
    expect(out.map((x) => x.id)).toEqual(["2#0", "1#0", "3#0"]);
    expect(out[0]!.scores).toMatchObject({ rerank: 0.9, citation_boost: 0.2, boosted: 1.1 });
  });

  it("year range", () => {
    const ps = [p("1#0", {}, { year: 2010 }), p("2#0", {}, { year: 2020 }), p("3#0", {})];
    expect(yearRange(ps, 2015).map((x) => x.id)).toEqual(["2#0"]);
    expect(yearRange(ps, undefined, 2015, true).map((x) => x.id)).toEqual(["1#0", "3#0"]);
  });
});
