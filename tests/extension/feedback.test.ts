/** The editor's pure helpers: the self-feedback iteration tree and the word diff of its edits. */
import { describe, expect, it } from "vitest";
import { DIFFABLE, feedbackIterations, sharedWords, wordDiff } from "../../extension/lib/feedback.js";

describe("self-feedback iteration tree", () => {
  it("reads items, retrievals and edits from loop.self-feedback spans, in order", () => {
    const spans = [
      { name: "model", status: "ok", children: [], data: {} },
      {
        name: "feedback 2",
        status: "ok",
        ms: 5,
        data: { feedback: { text: "Be shorter." }, kept: false, lengthRatio: 0.1, before: "A long answer.", after: "A long answer." },
        children: [{ name: "edit", status: "ok", ms: 4, children: [] }],
      },
      {
        name: "feedback 1",
        status: "ok",
        ms: 9,
        data: { feedback: { text: "Add the second study.", question: "second study" }, kept: true, lengthRatio: 1.8, before: "A answer.", after: "A long answer." },
        children: [
          { name: "retrieve", status: "ok", ms: 2, data: { query: "second study", added: ["12#0", "40#1"] }, children: [] },
          { name: "edit", status: "ok", ms: 6, children: [] },
        ],
      },
    ];
    expect(feedbackIterations(spans)).toEqual([
      {
        n: 1,
        status: "ok",
        ms: 9,
        feedback: { text: "Add the second study.", question: "second study" },
        retrieval: { query: "second study", added: ["12#0", "40#1"], ms: 2 },
        edit: { kept: true, lengthRatio: 1.8, before: "A answer.", after: "A long answer.", ms: 6 },
      },
      { n: 2, status: "ok", ms: 5, feedback: { text: "Be shorter." }, edit: { kept: false, lengthRatio: 0.1, before: "A long answer.", after: "A long answer.", ms: 4 } },
    ]);
    expect(feedbackIterations([{ name: "feedback 1", status: "error", error: { message: "timeout" }, data: { feedback: { text: "x" } }, children: [] }])).toEqual([
      { n: 1, status: "error", error: "timeout", feedback: { text: "x" } },
    ]);
  });

  it("diffs words: what was kept, removed and added, and rebuilds both texts", () => {
    const a = "Vitamin D lowers fracture risk [0].";
    const b = "Vitamin D supplements lower fracture risk in older adults [0][2].";
    const d = wordDiff(a, b);
    expect(
      d
        .filter((p) => p.op !== "ins")
        .map((p) => p.text)
        .join(""),
    ).toBe(a);
    expect(
      d
        .filter((p) => p.op !== "del")
        .map((p) => p.text)
        .join(""),
    ).toBe(b);
    expect(d.filter((p) => p.op === "del").map((p) => p.text.trim())).toEqual(["lowers", "[0]."]);
    expect(
      d
        .filter((p) => p.op === "ins")
        .map((p) => p.text.trim())
        .join(" "),
    ).toContain("in older adults");
    expect(wordDiff("same", "same")).toEqual([{ op: "same", text: "same" }]);
    expect(wordDiff("", "new")).toEqual([{ op: "ins", text: "new" }]);
  });

  it("measures the words two texts share, so unrelated texts are shown apart rather than as a wall of colour", () => {
    const near = sharedWords(wordDiff("Vitamin D lowers fracture risk [0].", "Vitamin D supplements lower fracture risk in older adults [0][2]."));
    expect(near).toBeGreaterThan(DIFFABLE);
    const unrelated = sharedWords(wordDiff("The papers do not answer the question.", "Aspirin reduced stroke in 2007 by a third [1]."));
    expect(unrelated).toBeLessThan(DIFFABLE);
    expect(sharedWords(wordDiff("same words here", "same words here"))).toBe(1);
    expect(sharedWords(wordDiff("", ""))).toBe(1);
  });
});
