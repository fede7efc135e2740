import { describe, expect, it } from "vitest";
import { toAnswer, type Claim, type Verdict } from "@citeflow/core";
import { fileURLToPath } from "node:url";
import { doc, envServices, eventsOf, run } from "../helpers.js";

const MODELS = process.env.CITEFLOW_MODELS;
if (!MODELS) throw new Error("CITEFLOW_MODELS must be set (vitest.config.ts defaults it)");

const passages = [
  { id: "1#0", title: "Aspirin trial", text: "Aspirin lowered the rate of stroke in older adults. The trial ran for five years.", metadata: {}, scores: {} },
  { id: "2#0", title: "Coffee", text: "Coffee intake was not associated with heart disease. Tea was not studied.", metadata: {}, scores: {} },
  { id: "3#0", title: "Stroke risk", text: "Daily aspirin reduced stroke risk by a fifth.", metadata: {}, scores: {} },
];
const answer = (text: string) => toAnswer(text, passages);

async function split(text: string, retrieved = passages) {
  const d = doc(
    { a: ["test.any", { value: answer(text) }], p: ["test.any", { value: retrieved }], split: ["claims.split"], verify: ["verify.nli", { model: "pair-nli-scifact", modelsDir: MODELS }] },
    ["a.out->split.answer", "split.claims->verify.claims", "p.out->verify.passages"],
  );
  const r = await run(d);
  expect(r.byId.verify!.status, JSON.stringify(r.byId.verify!.error ?? r.byId.split!.error)).toBe("done");
  return { claims: r.byId.split!.outputs!.claims as Claim[], verdicts: r.byId.verify!.outputs!.verdicts as Verdict[] };
}

describe("claims.split (Verif.ai)", () => {
  it("one claim per cited id; a sentence that cites nothing is its own claim, with no reference; markers removed", async () => {
    const { claims } = await split("Aspirin lowers stroke risk [1][3]. It was tested in older adults. Coffee is fine for the heart [2]. Tea was not studied either.");
    expect(claims.map((c) => [c.id, c.text, c.passageIds])).toEqual([
      ["c1", "Aspirin lowers stroke risk.", ["1#0"]],
      ["c2", "Aspirin lowers stroke risk.", ["3#0"]],
      ["c3", "It was tested in older adults.", []],
      ["c4", "Coffee is fine for the heart.", ["2#0"]],
      ["c5", "Tea was not studied either.", []],
    ]);
    expect(claims[0]!.span).toEqual([0, "Aspirin lowers stroke risk [1][3].".length]);
  });

  it("uncited sentences before a cited quote are never merged into it: each is NO_REFERENCE, the quote alone is checked", async () => {
    // The JupyterLab case: three sentences in the model's own words, then one quote with its marker. Merged, the
    // three rode on the quote's SUPPORT; apart, nothing checks them, and the verdicts say so.
    const { claims, verdicts } = await split(
      "Metformin reduces mortality in diabetic patients. It is the first-line drug. Older adults benefit most. Aspirin lowered the rate of stroke in older adults [1].",
    );
    expect(claims.map((c) => c.passageIds)).toEqual([[], [], [], ["1#0"]]);
    expect(claims[3]!.text).toBe("Aspirin lowered the rate of stroke in older adults.");
    expect(verdicts.map((v) => v.label === "NO_REFERENCE")).toEqual([true, true, true, false]);
  });

  it("a claim states what its sentence reports, without the reporting frame", async () => {
    const { claims } = await split("The papers report: Aspirin lowers stroke risk [1]. The authors found that: coffee is fine [2]. Patients: adults over 65 [1].");
    expect(claims.map((c) => c.text)).toEqual(["Aspirin lowers stroke risk.", "coffee is fine.", "Patients: adults over 65."]);
  });

  it("a verdict sentence that cites nothing stands alone, with no reference", async () => {
    const { claims, verdicts } = await split("The papers report: Aspirin lowered the rate of stroke in older adults [1]. So they support the claim.");
    expect(claims.map((c) => [c.text, c.passageIds])).toEqual([
      ["Aspirin lowered the rate of stroke in older adults.", ["1#0"]],
      ["So they support the claim.", []],
    ]);
    // The cited claim is checked against its passage (by the offline test model here); the verdict sentence has nothing to be checked by.
    expect(verdicts.map((v) => v.label === "NO_REFERENCE")).toEqual([false, true]);
  });

  it("an answer without citations gives claims with no reference", async () => {
    const { claims, verdicts } = await split("Aspirin is good. Coffee is fine.");
    expect(claims.map((c) => c.passageIds)).toEqual([[], []]);
    expect(verdicts.map((v) => v.label)).toEqual(["NO_REFERENCE", "NO_REFERENCE"]);
  });
});

describe("verify.nli with the offline NLI model", () => {
  it("gives a verdict per claim and cited passage, NO_REFERENCE for what was never retrieved, with the closest sentence", async () => {
    const { verdicts } = await split("Aspirin lowers stroke risk in older adults [1][3]. Coffee is fine [2].", passages.slice(0, 2));
    expect(verdicts.map((v) => [v.claimId, v.passageId])).toEqual([
      ["c1", "1#0"],
      ["c2", "3#0"],
      ["c3", "2#0"],
    ]);
    const noRef = verdicts[1]!;
    expect(noRef.label).toBe("NO_REFERENCE");
    for (const v of [verdicts[0]!, verdicts[2]!]) {
      expect(["SUPPORT", "CONTRADICT", "NO_EVIDENCE"]).toContain(v.label);
      const pr = v.probabilities;
      expect(pr.SUPPORT! + pr.NO_EVIDENCE! + pr.CONTRADICT!).toBeCloseTo(1, 5);
      expect(v.evidence!.passageId).toBe(v.passageId);
    }
    expect(verdicts[0]!.evidence!.sentence).toBe("Aspirin lowered the rate of stroke in older adults.");
  });
});

describe("verify.nli judges the question, not only the quote (Citeflow's NLI model)", () => {
  const SHIPPED = fileURLToPath(new URL("../../models", import.meta.url));
  // The repository's models folder is not one of the configured ones here: the test consents to it, as a user would.
  envServices().allowModelsDir(SHIPPED);
  const mouse = { id: "m#0", title: "Metformin in mice", text: "In mice fed a high-fat diet, blood glucose fell by 20 % after four weeks of metformin.", metadata: {}, scores: {} };
  const aspirin = passages[0]!;
  async function check(question: string, text: string, given: typeof passages) {
    const d = doc(
      {
        q: ["test.any", { value: { id: "q1", text: question } }],
        a: ["test.any", { value: toAnswer(text, given) }],
        p: ["test.any", { value: given }],
        split: ["claims.split"],
        verify: ["verify.nli", { model: "citeflow/nli-minilm-scifact", modelsDir: SHIPPED }],
      },
      ["a.out->split.answer", "split.claims->verify.claims", "p.out->verify.passages", "q.out->verify.question"],
    );
    const r = await run(d);
    expect(r.byId.verify!.status, JSON.stringify(r.byId.verify!.error)).toBe("done");
    const out = r.byId.verify!.outputs!;
    const warnings = eventsOf(r.events, "node-end").find((e) => e.nodeId === "verify")!.warnings ?? [];
    return { claimVerdicts: out.claimVerdicts as Verdict[], question: (out.questionVerdicts as Verdict[])[0]!, warnings };
  }

  it("an off-topic quote is true of its passage, and the question verdict says it may not answer the question", async () => {
    const r = await check(
      "Metformin reduces mortality in people with type 2 diabetes.",
      "The papers report: In mice fed a high-fat diet, blood glucose fell by 20 % after four weeks of metformin [1].",
      [mouse],
    );
    expect(r.claimVerdicts.map((v) => v.label)).toEqual([expect.stringMatching(/^(SUPPORT|CANNOT_TELL)$/)]);
    expect(r.question).toMatchObject({ claimId: "q1", about: "question" });
    expect(["CANNOT_TELL", "NO_EVIDENCE"]).toContain(r.question.label);
    expect(r.question.evidence!.sentence).toBe("In mice fed a high-fat diet, blood glucose fell by 20 % after four weeks of metformin.");
    expect(r.warnings).toContain("the quoted sentences may not answer the question");
  });

  it("a quote that states the claim supports it: no caveat", async () => {
    const r = await check("Aspirin lowers the rate of stroke in older adults.", "The papers report: Aspirin lowered the rate of stroke in older adults [1].", [aspirin]);
    expect(r.question.label).toBe("SUPPORT");
    expect(r.warnings).not.toContain("the quoted sentences may not answer the question");
  });

  it("the shipped model's claim verdicts are calibrated on the dev split: P(supported), a confidence, the band and its rule", async () => {
    const r = await check("Aspirin lowers the rate of stroke in older adults.", "The papers report: Aspirin lowered the rate of stroke in older adults [1].", [aspirin]);
    const [v] = r.claimVerdicts;
    expect(v!.calibration).toMatchObject({ forced: "SUPPORT", rule: expect.stringContaining("SciFact dev split") });
    const [lo, hi] = v!.calibration!.band;
    expect(0 < lo && lo < 0.5 && 0.5 < hi && hi < 1).toBe(true);
    expect(v!.label).toBe(v!.calibration!.pSupport >= hi ? "SUPPORT" : "CANNOT_TELL");
    expect(r.question.calibration!.band).toEqual([lo, hi]);
  });

  it("an answer that cites nothing gives the question NO_REFERENCE; without a question the list is empty", async () => {
    const r = await check("Aspirin lowers the rate of stroke.", "Aspirin is good.", [aspirin]);
    expect(r.question.label).toBe("NO_REFERENCE");
    const { verdicts } = await split("Aspirin lowers stroke risk [1].");
    expect(verdicts).toHaveLength(1);
  });
});

describe("verify.nli's band", () => {
  it("overrides the chosen one for a calibrated model: a band over all of [0, 1] gives CANNOT_TELL", async () => {
    const shipped = fileURLToPath(new URL("../../models", import.meta.url));
    envServices().allowModelsDir(shipped);
    const d = doc(
      {
        a: ["test.any", { value: answer("Aspirin lowered the rate of stroke in older adults [1].") }],
        p: ["test.any", { value: passages }],
        split: ["claims.split"],
        verify: ["verify.nli", { model: "citeflow/nli-minilm-scifact", modelsDir: shipped, band: [0, 1] }],
      },
      ["a.out->split.answer", "split.claims->verify.claims", "p.out->verify.passages"],
    );
    const r = await run(d);
    expect(r.byId.verify!.status, JSON.stringify(r.byId.verify!.error)).toBe("done");
    const [v] = r.byId.verify!.outputs!.claimVerdicts as Verdict[];
    expect(v).toMatchObject({ label: "CANNOT_TELL", calibration: { band: [0, 1], rule: expect.stringContaining("band set on the node") } });
  });

  it("is refused for a model no calibration was chosen for, naming the param", async () => {
    const d = doc(
      {
        a: ["test.any", { value: answer("Aspirin lowers stroke risk [1].") }],
        p: ["test.any", { value: passages }],
        split: ["claims.split"],
        verify: ["verify.nli", { model: "pair-nli-scifact", modelsDir: MODELS, band: [0.3, 0.7] }],
      },
      ["a.out->split.answer", "split.claims->verify.claims", "p.out->verify.passages"],
    );
    const r = await run(d);
    expect(r.byId.verify!.status).toBe("error");
    expect(r.byId.verify!.error!.message).toContain('params.band: no calibration was chosen for model "pair-nli-scifact"');
  });
});
