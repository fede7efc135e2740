import { describe, expect, it } from "vitest";
import { runMetrics, toAnswer, type Passage } from "@citeflow/core";
import { citationScores, premiseSentences } from "@citeflow/eval";
import { doc, run } from "../helpers.js";

const P = (id: string, text: string): Passage => ({ id, title: "", text, metadata: {}, scores: {} });
const passages = [P("a#0", "ALPHA"), P("b#0", "BETA"), P("c#0", "GAMMA")];
// A scripted judge: a premise entails the sentence when it holds every capitalised keyword the sentence names.
const entails = async (premises: string[], hypothesis: string) => {
  const needs = hypothesis.match(/\b(ALPHA|BETA|GAMMA|DELTA)\b/g) ?? [];
  return needs.length > 0 && premises.some((p) => needs.every((k) => p.includes(k)));
};
const long = (s: string) => `${s} ${"x".repeat(50)}`;

describe("citation precision / recall (ALCE rules)", () => {
  it("supported sentences count for recall; every needed citation for precision", async () => {
    const a = toAnswer(`${long("ALPHA holds")} [1]. ${long("ALPHA and BETA hold")} [1][2].`, passages);
    expect(await citationScores(a, passages, entails)).toEqual({ precision: 1, recall: 1, f1: 1, sentences: 2, citations: 3 });
  });

  it("over-citation: a citation neither needed nor sufficient costs precision, not recall", async () => {
    const a = toAnswer(`${long("ALPHA holds")} [1][3].`, passages);
    expect(await citationScores(a, passages, entails)).toMatchObject({ precision: 0.5, recall: 1, citations: 2 });
  });

  it("an unsupported sentence costs recall and all its citations' precision", async () => {
    const a = toAnswer(`${long("GAMMA holds")} [1][2]. ${long("ALPHA holds")} [1].`, passages);
    expect(await citationScores(a, passages, entails)).toMatchObject({ precision: 1 / 3, recall: 0.5 });
  });

  it("the judge reads the cited passage whole and each of its sentences alone, as verify.nli does", async () => {
    const text = "ALPHA rose. Then two. Then three. Then four. BETA fell.";
    const sentences = premiseSentences({ text });
    expect(sentences).toEqual(["ALPHA rose.", "Then two.", "Then three.", "Then four.", "BETA fell."]);
    expect(premiseSentences({ text: "" })).toEqual([]);
    const ps = [{ ...P("d#0", text), title: "DELTA trial" }];
    expect(await citationScores(toAnswer(`${long("ALPHA rose")} [1].`, ps), ps, entails)).toMatchObject({ recall: 1 });
    // The judge also reads the whole passage (ALCE's premise), so this scripted one finds both there.
    expect(await citationScores(toAnswer(`${long("ALPHA rose and BETA fell")} [1].`, ps), ps, entails)).toMatchObject({ recall: 1 });
    const seen: string[][] = [];
    await citationScores(toAnswer(`${long("ALPHA rose")} [1].`, ps), ps, async (premises, h) => (seen.push(premises), entails(premises, h)));
    expect(seen).toEqual([[`DELTA trial\n${text}`, ...sentences]]);
    // Two cited passages: joined once, then every sentence of each.
    const two = [ps[0]!, P("e#0", "GAMMA one. GAMMA two.")];
    const both: string[][] = [];
    await citationScores(toAnswer(`${long("ALPHA rose")} [1][2].`, two), two, async (premises, h) => (both.push(premises), entails(premises, h)));
    expect(both[0]).toEqual([`DELTA trial\n${text}\n\nGAMMA one. GAMMA two.`, ...sentences, "GAMMA one.", "GAMMA two."]);
  });

  it("a sentence is judged by what it states: markers and a reporting frame left out", async () => {
    const hypotheses: string[] = [];
    const a = toAnswer(`The papers report: ${long("ALPHA holds")} [1].`, passages);
    await citationScores(a, passages, async (premises, h) => (hypotheses.push(h), entails(premises, h)));
    expect(hypotheses).toEqual([long("ALPHA holds") + "."]);
  });

  it("short sentences are skipped; an uncited sentence inherits the previous citations; at most 3 count", async () => {
    const a = toAnswer(`Short ALPHA [1]. ${long("Still ALPHA here")} ${long("and BETA later")} [1][2][3][1].`, passages);
    const s = await citationScores(a, passages, entails);
    expect(s.sentences).toBe(1);
    expect(s.citations).toBe(3);
    const inherit = toAnswer(`${long("ALPHA is so")} [1]. ${long("Again ALPHA")}.`, passages);
    expect(await citationScores(inherit, passages, entails)).toMatchObject({ sentences: 2, recall: 1, citations: 2 });
  });
});

describe("eval.citations with the offline NLI model", () => {
  it("scores an answer and counts hallucinated citations", async () => {
    const ps = [P("1#0", "Aspirin lowered the rate of stroke in older adults over five years of follow-up.")];
    const a = toAnswer("Aspirin lowered the rate of stroke in older adults over five years of follow-up [1]. It also cures the common cold in every patient [7].", ps);
    const r = await run(doc({ a: ["test.any", { value: a }], p: ["test.any", { value: ps }], e: ["eval.citations", { model: "pair-nli-scifact" }] }, ["a.out->e.answer", "p.out->e.passages"]));
    expect(r.byId.e!.status, JSON.stringify(r.byId.e!.error)).toBe("done");
    const m = r.byId.e!.outputs!.metrics as Record<string, number>;
    expect(m.hallucinatedCitations).toBe(1);
    // Named as a run's metrics name an answer's invalid markers (core's runMetrics), so the two never drift apart.
    const metrics = runMetrics([
      { id: "answer", output: (port) => (port === "answer" ? a : undefined) },
      { id: "citations", output: (port) => (port === "metrics" ? m : undefined) },
    ]);
    expect(metrics["citations.hallucinatedCitations"]).toBe(metrics["answer.hallucinatedCitations"]);
    expect(m.sentences).toBe(2);
    // Two sentences, each citing passage 1 (the second's [7] names no passage, so it inherits the
    // first's citation, as in ALCE). The second is not in the passage: recall is 1/2 when the model
    // finds the first entailed, else 0; precision is the same share of the 2 citations, and so F1.
    expect(m.citations).toBe(2);
    expect([0, 0.5]).toContain(m.recall);
    expect(m.precision).toBe(m.recall);
    expect(m.f1).toBeCloseTo(m.recall!, 10);
  });
});
