import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NO_ANSWER } from "@citeflow/core";
import { goldAnswer, goldPairs, goldTrue, readGoldLabels, sciFactLabel } from "@citeflow/datasets";
import { tempDir } from "../helpers.js";

function files(claims: unknown[], corpus: unknown[]): { claims: string; corpus: string } {
  const dir = tempDir("citeflow-gold-");
  const write = (name: string, rows: unknown[]) => {
    writeFileSync(join(dir, name), rows.map((r) => (typeof r === "string" ? r : JSON.stringify(r)) + "\n").join(""));
    return join(dir, name);
  };
  return { claims: write("claims.jsonl", claims), corpus: write("corpus.jsonl", corpus) };
}

const abstract = (id: number, n: number) => ({ doc_id: id, title: `doc ${id}`, abstract: Array.from({ length: n }, (_, i) => `Sentence ${i} of ${id}.`) });

describe("gold NLI pairs from a labelled corpus (export --labels)", () => {
  const f = files(
    [
      { id: 1, claim: "A raises B.", evidence: { "10": [{ sentences: [2, 3], label: "SUPPORT" }] }, cited_doc_ids: [10] },
      { id: 2, claim: "A lowers B.", evidence: { "10": [{ sentences: [2], label: "CONTRADICT" }] }, cited_doc_ids: [10, 11] },
      { id: 3, claim: "C has no evidence.", evidence: {}, cited_doc_ids: [11] },
    ],
    [abstract(10, 6), abstract(11, 4), ...[20, 21, 22, 23, 24, 25, 26].map((d) => abstract(d, 3))],
  );
  const gold = readGoldLabels(f.claims, f.corpus);

  it("every rationale sentence with its label; two other sentences of each evidence and cited abstract; one of each of the first five retrieved non-evidence abstracts", () => {
    const pairs = goldPairs(gold, "1", ["10", "20", "21", "22", "23", "24", "25", "26"]);
    expect(pairs.filter((p) => p.label === "SUPPORT").map((p) => p.premise)).toEqual(["Sentence 2 of 10.", "Sentence 3 of 10."]);
    const noEvidence = pairs.filter((p) => p.label === "NO_EVIDENCE");
    expect(noEvidence.filter((p) => p.docId === "10")).toHaveLength(2);
    expect(noEvidence.filter((p) => p.docId === "10").every((p) => p.sentence !== 2 && p.sentence !== 3)).toBe(true);
    expect([...new Set(noEvidence.filter((p) => p.docId !== "10").map((p) => p.docId))]).toEqual(["20", "21", "22", "23", "24"]);
    expect(pairs.every((p) => p.hypothesis === "A raises B.")).toBe(true);
    // The sample is fixed: the same call gives the same pairs.
    expect(goldPairs(gold, "1", ["10", "20", "21", "22", "23", "24", "25", "26"])).toEqual(pairs);
  });

  it("CONTRADICT rationales, cited abstracts without evidence, unlabelled claims", () => {
    const two = goldPairs(gold, "2", []);
    expect(two.filter((p) => p.label === "CONTRADICT").map((p) => p.premise)).toEqual(["Sentence 2 of 10."]);
    expect(two.filter((p) => p.docId === "11" && p.label === "NO_EVIDENCE")).toHaveLength(2);
    expect(goldPairs(gold, "3", []).every((p) => p.label === "NO_EVIDENCE")).toBe(true);
    expect(goldPairs(gold, "99", ["10"])).toEqual([]);
  });

  it("a gold answer: each rationale sentence a passage shows, with that passage's marker, in prompt order; no verdict", () => {
    const doc10 = gold.sentences.get("10")!;
    const passages = [
      { id: "20#0", text: "Sentence 0 of 20. Sentence 1 of 20." },
      { id: "10#1", text: doc10.slice(3).join(" ") }, // the abstract's second part: sentence 3, not 2
      { id: "10#0", text: doc10.slice(0, 3).join(" ") },
    ];
    expect(goldAnswer(gold, "1", passages, 1)).toBe("The papers report: Sentence 3 of 10 [2]. Sentence 2 of 10 [3].");
    expect(goldAnswer(gold, "1", passages, 0)).toBe("The papers report: Sentence 3 of 10 [1]. Sentence 2 of 10 [2].");
    // A CONTRADICT rationale is cited the same way; no passage holding one → the answer says so.
    expect(goldAnswer(gold, "2", passages, 1)).toBe("The papers report: Sentence 2 of 10 [3].");
    expect(goldAnswer(gold, "2", passages.slice(0, 2), 1)).toBe(NO_ANSWER);
    expect(goldAnswer(gold, "3", passages, 1)).toBe(NO_ANSWER);
    expect(goldAnswer(gold, "99", passages, 1)).toBeUndefined();
  });

  it("a claim's truth for the true/false judge: supported → true; contradicted or without evidence → false; unlabelled → undefined", () => {
    expect(["1", "2", "3", "99"].map((id) => goldTrue(gold, id))).toEqual([true, false, false, undefined]);
  });

  it("SciFact's label, the one rule eval scifact and the export share: the first rationale set's label, NO_EVIDENCE when there is none", () => {
    expect(sciFactLabel([[], [{ label: "CONTRADICT" }, { label: "SUPPORT" }]])).toBe("CONTRADICT");
    expect(sciFactLabel([[{ label: "maybe" }], [{ label: "SUPPORT" }]])).toBe("SUPPORT");
    expect(sciFactLabel([])).toBe("NO_EVIDENCE");
    expect(sciFactLabel(gold.claims.get("2")!.evidence.values())).toBe("CONTRADICT");
  });

  it("bad labelled files are refused with the file and line", () => {
    const bad = files([{ id: 1, claim: "x", evidence: {} }, "{not json"], [abstract(10, 2)]);
    expect(() => readGoldLabels(bad.claims, bad.corpus)).toThrow(/claims\.jsonl:2: not JSON/);
    const label = files([{ id: 1, claim: "x", evidence: { "10": [{ sentences: [0], label: "MAYBE" }] } }], [abstract(10, 2)]);
    expect(() => readGoldLabels(label.claims, label.corpus)).toThrow(/claims\.jsonl:1: evidence for 10: needs "sentences" and a SUPPORT or CONTRADICT "label"/);
    const corpus = files([{ id: 1, claim: "x", evidence: {} }], [{ doc_id: 10, abstract: "one string" }]);
    expect(() => readGoldLabels(corpus.claims, corpus.corpus)).toThrow(/corpus\.jsonl:1: a labelled corpus document needs "doc_id" and "abstract"/);
  });
});
