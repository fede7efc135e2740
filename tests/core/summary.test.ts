import { describe, expect, it } from "vitest";
import { rankingScore, runKind, runMetrics, summarizeOutputs, summarizeValue } from "@citeflow/core";

const passage = (id: string, scores: Record<string, number>) => ({ id, title: "t", text: "x", metadata: {}, scores });

describe("summarizeOutputs: a node's outputs in one line", () => {
  it("says how many passages and the top one's most refined score", () => {
    expect(summarizeValue([passage("1#0", { bm25: 17.93, dense: 0.41 }), passage("2#0", { bm25: 3 })])).toBe("2 passages · top dense 0.41");
    expect(summarizeValue([passage("1#0", { bm25: 17.956 })])).toBe("1 passage · top bm25 18");
    expect(summarizeValue([passage("1#0", { bm25: 1.5, fused: 0.0328, rerank: 0.9 })])).toBe("1 passage · top rerank 0.9");
    expect(summarizeValue([passage("1#0", {})])).toBe("1 passage");
  });

  it("counts verdicts by label, in the order they first appear", () => {
    const v = (label: string) => ({ claimId: "c", label, probabilities: {} });
    expect(summarizeValue([v("SUPPORT"), v("CONTRADICT"), v("SUPPORT"), v("NO_EVIDENCE")])).toBe("2 SUPPORT · 1 CONTRADICT · 1 NO_EVIDENCE");
  });

  it("counts an answer's citations and the hallucinated ones", () => {
    const answer = { text: "A [1] B [2]", citations: { "[1]": "1#0", "[2]": "9#0" }, allowed: ["1#0"], invalidCitations: [{ marker: "[2]", target: "9#0" }] };
    expect(summarizeOutputs({ answer })).toBe("answer · 2 citations · 1 hallucinated");
    expect(summarizeValue({ ...answer, citations: {}, invalidCitations: [] })).toBe("answer · 0 citations · 0 hallucinated");
  });

  it("names claims, questions, text, numbers and empty lists", () => {
    expect(summarizeValue([{ id: "c1", text: "a", passageIds: [] }])).toBe("1 claim");
    expect(summarizeValue({ id: "q1", text: "Does vitamin D prevent fractures?" })).toBe("“Does vitamin D prevent fractures?”");
    expect(summarizeValue("  a\n long   text ".repeat(10))).toMatch(/^“a long text a long text .*…”$/);
    expect(summarizeValue(0.123456)).toBe("0.123");
    expect(summarizeValue([])).toBe("none");
    expect(summarizeValue([1, 2, 3])).toBe("3 items");
    expect(summarizeValue(null)).toBe("nothing");
    expect(summarizeValue({ precision: 1, recall: 0.6667, f1: 0.8, sentences: 3, citations: 3, hallucinatedCitations: 0 })).toBe("precision 1 · recall 0.667 · f1 0.8 · sentences 3");
    expect(summarizeValue({ a: "x", b: [1] })).toBe("2 fields");
  });

  it("names each port when there are several, within 80 characters", () => {
    const s = summarizeOutputs({ passages: [passage("1#0", { bm25: 2 })], query: "vitamin D and fractures in older adults, a long query that goes on and on" });
    expect(s.startsWith("passages: 1 passage · top bm25 2 · query: “vitamin D")).toBe(true);
    expect(s.length).toBeLessThanOrEqual(80);
    expect(summarizeOutputs({})).toBe("");
  });
});

describe("runKind", () => {
  it("says what a run was from its options", () => {
    expect(runKind({ force: false, overridden: [], breakpoints: [], step: false })).toBe("run");
    expect(runKind({ to: "papers", force: false, overridden: [], step: false })).toBe("run to papers");
    expect(runKind({ from: "top", overridden: ["top"] })).toBe("run from top · edited: top");
    expect(runKind({ only: "answer", step: true, force: true })).toBe("node answer · steps · forced");
  });
});

describe("rankingScore", () => {
  it("names the score a ranked list is ordered by", () => {
    expect(rankingScore(["bm25", "dense", "fused"])).toBe("fused");
    expect(rankingScore(["bm25", "rerank", "fused"])).toBe("rerank");
    expect(rankingScore(["custom", "other"])).toBe("custom");
    expect(rankingScore([])).toBeUndefined();
  });
});

describe("runMetrics: a run's numbers, for every front end", () => {
  it("each number of a metrics output and each answer's hallucinated markers, by port name and in node order; a judge's preferred and rejected answers are not the run's", () => {
    const answer = (invalid: number) => ({ text: "x", citations: [], invalidCitations: Array.from({ length: invalid }, (_, i) => i + 9) });
    const nodes = [
      { id: "draft", outputs: { answer: answer(2) } },
      { id: "judge", outputs: { preferred: answer(5), rejected: answer(7), decision: "a" } },
      { id: "final", outputs: { answer: answer(0) } },
      { id: "score", outputs: { metrics: { precision: 0.5, recall: 0.25, f1: 1 / 3, judge: "nli" } } },
    ];
    expect(runMetrics(nodes.map((n) => ({ id: n.id, output: (port: string) => (n.outputs as Record<string, unknown>)[port] })))).toEqual({
      "draft.hallucinatedCitations": 2,
      "final.hallucinatedCitations": 0,
      "score.precision": 0.5,
      "score.recall": 0.25,
      "score.f1": 1 / 3,
    });
  });
});
