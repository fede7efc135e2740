import { describe, expect, it } from "vitest";
import { calibratedVerdict, claimVerdicts, nliEvidenceStrength, nliSupportScore, type Verdict } from "@citeflow/core";
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

describe("the evidence floor", () => {
  it("a claim no sentence speaks to is NO_EVIDENCE below the floor, whatever its support score; at the floor the band decides; without a floor nothing changes", () => {
    const cal = { slope: 2, intercept: 0.6, band: [0.48, 0.64] as [number, number], rule: "floor test", evidenceFloor: 0.05 };
    const v = (claimId: string, SUPPORT: number, CONTRADICT: number): Verdict => ({
      claimId,
      passageId: "p",
      label: "NO_EVIDENCE",
      probabilities: { SUPPORT, NO_EVIDENCE: 1 - SUPPORT - CONTRADICT, CONTRADICT },
    });
    // "mute": 0.004 − 0.003 gives P(supported) 0.646, past the band's top: a SUPPORT decided by noise without the floor.
    const verdicts = [v("mute", 0.004, 0.003), v("mute", 0.002, 0.001), v("read", 0.05, 0.01), v("strong", 0.9, 0.02)];
    expect(nliEvidenceStrength(verdicts.filter((x) => x.claimId === "mute"))).toBeCloseTo(0.004);
    expect(nliEvidenceStrength([{ claimId: "x", label: "NO_REFERENCE", probabilities: {} }])).toBeUndefined();
    const claims = ["mute", "read", "strong"].map((id) => ({ id, text: id, passageIds: ["p"] }));
    const out = claimVerdicts(claims, verdicts, cal);
    expect(out.map((x) => x.label)).toEqual(["NO_EVIDENCE", "SUPPORT", "SUPPORT"]);
    expect(out[0]!.calibration).toMatchObject({ evidence: 0.004, evidenceFloor: 0.05, forced: "SUPPORT", rule: "floor test" });
    expect(out[1]!.calibration!.evidence).toBe(0.05);
    const { evidenceFloor: _, ...noFloor } = cal;
    expect(claimVerdicts(claims, verdicts, noFloor).map((x) => x.label)).toEqual(["SUPPORT", "SUPPORT", "SUPPORT"]);
    expect(claimVerdicts(claims, verdicts, noFloor)[0]!.calibration).not.toHaveProperty("evidenceFloor");
  });

  it("NO_EVIDENCE is no verdict on true/false claims and a verdict, right or wrong, on 3-way ones", () => {
    const cal = (label: string, forced: string) => ({ label, calibration: { confidence: 0.7, band: [0.4, 0.6] as [number, number], forced, rule: "r", evidenceFloor: 0.05 } });
    const items = [
      { gold: "SUPPORT", verdict: cal("SUPPORT", "SUPPORT") },
      { gold: "NO_EVIDENCE", verdict: cal("NO_EVIDENCE", "SUPPORT") },
      { gold: "CONTRADICT", verdict: cal("NO_EVIDENCE", "SUPPORT") },
      { gold: "CONTRADICT", verdict: cal("CANNOT_TELL", "SUPPORT") },
    ];
    expect(selectiveScores(items)).toMatchObject({ given: 1, accuracy_given: 1, no_evidence: 2, evidence_floor: 0.05 });
    expect(selectiveScores(items, true)).toMatchObject({ given: 3, no_evidence: 2 });
    expect(selectiveScores(items, true)!.accuracy_given).toBeCloseTo(2 / 3);
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
    expect(s).toMatchObject({ given: 4, claims: 5, coverage: 0.8, band: [0.3, 0.7], rule: "r", no_evidence: 0 });
    expect(s).not.toHaveProperty("evidence_floor");
    expect(s.accuracy_given).toBeCloseTo(2 / 4);
    expect(s.at_coverage["0.4"]).toBe(1);
    expect(s.at_coverage["1.0"]).toBeCloseTo(2 / 5);
    expect(selectiveScores([{ gold: "SUPPORT", verdict: { label: "SUPPORT" } }])).toBeUndefined();
  });
});
