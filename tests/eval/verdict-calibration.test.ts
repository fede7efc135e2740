import { describe, expect, it } from "vitest";
import { calibratedVerdict, claimVerdicts, nliSupportScore, type Verdict } from "@citeflow/core";
import { accuracyAtCoverage, chooseBand, fitPlatt, riskCoverage, scoreNliBySource, scoreNliPairs, selectiveScores } from "@citeflow/eval";

const probs = (SUPPORT: number, NO_EVIDENCE: number, CONTRADICT: number) => ({ SUPPORT, NO_EVIDENCE, CONTRADICT });

describe("eval nli's figures on fixed rows", () => {
  it("3-way accuracy, macro-F1 over the labels gold uses, SUPPORT vs CONTRADICT on those rows alone, per source", () => {
    const rows = [
      { gold: "SUPPORT" as const, probabilities: probs(0.6, 0.3, 0.1), source: "a" }, // right, S>C right
      { gold: "SUPPORT" as const, probabilities: probs(0.2, 0.5, 0.3), source: "a" }, // NO_EVIDENCE: wrong; S<C: wrong
      { gold: "CONTRADICT" as const, probabilities: probs(0.2, 0.7, 0.1), source: "b" }, // wrong; S>C: wrong
      { gold: "CONTRADICT" as const, probabilities: probs(0.1, 0.1, 0.8), source: "b" }, // right, right
      { gold: "NO_EVIDENCE" as const, probabilities: probs(0.1, 0.8, 0.1), source: "b" }, // right; not in S vs C
    ];
    const s = scoreNliPairs(rows);
    expect(s.accuracy).toBeCloseTo(3 / 5);
    expect(s.support_vs_contradict).toBeCloseTo(2 / 4);
    expect(s.support_vs_contradict_rows).toBe(4);
    expect(s.confusion.SUPPORT).toEqual({ SUPPORT: 1, NO_EVIDENCE: 1, CONTRADICT: 0 });
    // F1: SUPPORT 2·1/(2+0+1) = 2/3; NO_EVIDENCE 2·1/(2+2+0) = 1/2; CONTRADICT 2·1/(2+0+1) = 2/3.
    expect(s.macro_f1).toBeCloseTo((2 / 3 + 1 / 2 + 2 / 3) / 3);
    // Two labels in gold (NLI4CT's case): macro-F1 over those two, a NO_EVIDENCE prediction still wrong.
    const two = scoreNliPairs(rows.slice(0, 4));
    expect(two.macro_f1).toBeCloseTo((2 / 3 + 2 / 3) / 2);
    const by = scoreNliBySource(rows);
    expect(Object.keys(by)).toEqual(["a", "b"]);
    expect(by.b!.accuracy).toBeCloseTo(2 / 3);
  });
});

describe("calibrated claim verdicts", () => {
  it("Platt scaling recovers a logistic relation and keeps separable data finite", () => {
    // Items whose P(positive) is sigmoid(3·score − 1), in exact proportions.
    const items: Array<{ score: number; positive: boolean }> = [];
    for (let s = -2; s <= 2; s += 0.25) {
      const p = 1 / (1 + Math.exp(-(3 * s - 1)));
      const pos = Math.round(p * 400);
      for (let i = 0; i < 400; i++) items.push({ score: s, positive: i < pos });
    }
    const fit = fitPlatt(items);
    expect(fit.slope).toBeCloseTo(3, 1);
    expect(fit.intercept).toBeCloseTo(-1, 1);
    const sep = fitPlatt([
      { score: -1, positive: false },
      { score: 1, positive: true },
    ]);
    expect(Number.isFinite(sep.slope) && sep.slope > 0).toBe(true);
  });

  it("the risk–coverage curve orders by confidence; the band gives verdicts only where they are right often enough", () => {
    const curve = riskCoverage([
      { confidence: 0.9, correct: true },
      { confidence: 0.8, correct: true },
      { confidence: 0.7, correct: false },
      { confidence: 0.6, correct: true },
    ]);
    expect(curve.map((p) => [p.coverage, p.accuracy])).toEqual([
      [0.25, 1],
      [0.5, 1],
      [0.75, 2 / 3],
      [1, 3 / 4],
    ]);
    expect(accuracyAtCoverage(curve, 0.5)).toBe(1);
    // P(supported) for 8 claims: the sure ones at either end are right, the middle ones a coin toss.
    const items = [
      { pSupport: 0.95, positive: true },
      { pSupport: 0.9, positive: true },
      { pSupport: 0.85, positive: true },
      { pSupport: 0.6, positive: false },
      { pSupport: 0.55, positive: true },
      { pSupport: 0.45, positive: true },
      { pSupport: 0.2, positive: false },
      { pSupport: 0.1, positive: false },
    ];
    const band = chooseBand(items, 0.99)!;
    expect(band.coverage).toBe(5 / 8);
    expect(band.accuracy).toBe(1);
    expect(band.band[0]).toBeGreaterThan(0.2);
    expect(band.band[0]).toBeLessThan(0.45);
    expect(band.band[1]).toBeGreaterThan(0.6);
    expect(band.band[1]).toBeLessThan(0.85);
    expect(
      chooseBand(
        [
          { pSupport: 0.5, positive: true },
          { pSupport: 0.5, positive: false },
        ],
        0.9,
      ),
    ).toBeUndefined();
  });

  it("a claim's verdict: SUPPORT or CONTRADICT outside the band with its calibrated confidence, CANNOT_TELL inside, NO_REFERENCE with nothing read", () => {
    const cal = { slope: 4, intercept: 0, band: [0.2, 0.8] as [number, number], rule: "test" };
    const v = (claimId: string, p: Record<string, number>): Verdict => ({ claimId, passageId: "p", label: "SUPPORT", probabilities: p });
    const verdicts = [
      v("sure", { SUPPORT: 0.9, NO_EVIDENCE: 0.05, CONTRADICT: 0.05 }),
      v("sure", { SUPPORT: 0.1, NO_EVIDENCE: 0.8, CONTRADICT: 0.1 }),
      { ...v("against", { SUPPORT: 0.05, NO_EVIDENCE: 0.15, CONTRADICT: 0.8 }), label: "CONTRADICT" },
      v("torn", { SUPPORT: 0.45, NO_EVIDENCE: 0.1, CONTRADICT: 0.45 }),
      { claimId: "unread", passageId: "q", label: "NO_REFERENCE", probabilities: {} },
    ];
    expect(nliSupportScore(verdicts.filter((x) => x.claimId === "sure"))).toBeCloseTo(0.9 - 0.1);
    const claims = ["sure", "against", "torn", "unread"].map((id) => ({ id, text: id, passageIds: ["p"] }));
    const out = claimVerdicts(claims, verdicts, cal);
    expect(out.map((x) => x.label)).toEqual(["SUPPORT", "CONTRADICT", "CANNOT_TELL", "NO_REFERENCE"]);
    const sure = out[0]!.calibration!;
    expect(sure.pSupport).toBeCloseTo(1 / (1 + Math.exp(-4 * 0.8)));
    expect(sure.confidence).toBe(sure.pSupport);
    expect(out[1]!.calibration!.confidence).toBeCloseTo(1 - out[1]!.calibration!.pSupport);
    expect(out[2]!.calibration).toMatchObject({ forced: "SUPPORT", band: [0.2, 0.8], rule: "test" });
    expect(calibratedVerdict("x", 0, { ...cal, band: [0.5, 0.5] }).label).toBe("SUPPORT");
    // Without a calibration for the model: the strongest verdict, no band.
    expect(claimVerdicts(claims.slice(0, 2), verdicts, undefined).map((x) => [x.label, x.calibration])).toEqual([
      ["SUPPORT", undefined],
      ["CONTRADICT", undefined],
    ]);
  });
});

describe("eval scifact's selective figures", () => {
  it("counts the verdicts given outside the band and how many are right; CANNOT_TELL is no verdict; a claim without evidence makes any verdict wrong", () => {
    const cal = (label: string, confidence: number, forced: string) => ({ label, calibration: { confidence, band: [0.3, 0.7] as [number, number], forced, rule: "r" } });
    const s = selectiveScores([
      { gold: "SUPPORT", verdict: cal("SUPPORT", 0.9, "SUPPORT") },
      { gold: "CONTRADICT", verdict: cal("CONTRADICT", 0.8, "CONTRADICT") },
      { gold: "SUPPORT", verdict: cal("CONTRADICT", 0.75, "CONTRADICT") },
      { gold: "CONTRADICT", verdict: cal("CANNOT_TELL", 0.55, "SUPPORT") },
      { gold: "NO_EVIDENCE", verdict: cal("SUPPORT", 0.72, "SUPPORT") },
    ])!;
    expect(s).toMatchObject({ given: 4, claims: 5, coverage: 0.8, band: [0.3, 0.7], rule: "r" });
    expect(s.accuracy_given).toBeCloseTo(2 / 4);
    expect(s.at_coverage["0.4"]).toBe(1);
    expect(s.at_coverage["1.0"]).toBeCloseTo(2 / 5);
    expect(selectiveScores([{ gold: "SUPPORT", verdict: { label: "SUPPORT" } }])).toBeUndefined();
  });
});
