import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { loadEmbedder, loadNli, loadReranker, ModelNotFoundError, nliLabelMap, resolveModel } from "@citeflow/models";
import { tempDir } from "../helpers.js";

const MODELS = process.env.CITEFLOW_MODELS;
if (!MODELS) throw new Error("CITEFLOW_MODELS must point at the test models folder (vitest.config.ts defaults it)");
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

const claim = "Aspirin reduces the risk of heart attack.";
const evidence = "In the randomised trial, aspirin lowered the rate of myocardial infarction.";
const unrelated = "The stock market closed higher on Friday after strong earnings reports.";

describe("model resolution", () => {
  it("finds a model in the first folder of the path list that has it", () => {
    const empty = tempDir();
    expect(resolveModel("static-use-en", { modelsDirs: [empty, MODELS] })).toEqual({ localDir: MODELS.replace(/\/$/, ""), remote: false });
  });

  it("offline and missing: names the id, every place looked, and the fix", () => {
    const empty = tempDir();
    try {
      resolveModel("Xenova/all-MiniLM-L6-v2", { modelsDirs: [empty], allowDownloads: false, cacheDir: "/nonexistent-cache" });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ModelNotFoundError);
      const msg = (e as Error).message;
      expect(msg).toContain('model "Xenova/all-MiniLM-L6-v2" not found');
      expect(msg).toContain(`${empty}/Xenova/all-MiniLM-L6-v2/config.json`);
      expect(msg).toContain("/nonexistent-cache/Xenova/all-MiniLM-L6-v2/config.json (download cache)");
      expect(msg).toContain("downloads are off");
      expect(msg).toContain("CITEFLOW_MODELS");
    }
    expect(() => resolveModel("../etc", { modelsDirs: [] })).toThrow(/not a model id/);
  });

  it("loading a missing model fails with that error", async () => {
    await expect(loadEmbedder("no-such-model", { modelsDirs: [MODELS], allowDownloads: false })).rejects.toThrow(ModelNotFoundError);
  });
});

describe("transformers.js adapters on the offline ONNX models", () => {
  it("embeds with static-use-en (int8 weights only, so loaded in q8): 256-d unit vectors, related texts closer", async () => {
    const e = await loadEmbedder("static-use-en", { modelsDirs: [MODELS] });
    const [c, ev, un] = await e.embed([claim, evidence, unrelated]);
    expect(c).toHaveLength(256);
    expect(dot(c!, c!)).toBeCloseTo(1, 4);
    expect(dot(c!, ev!)).toBeGreaterThan(dot(c!, un!));
  });

  it("batches give the same vectors as one pass", async () => {
    const texts = [claim, evidence, unrelated, "Vitamin D prevents fractures.", "Coffee intake and heart disease."];
    const one = await (await loadEmbedder("static-use-en", { modelsDirs: [MODELS], batchSize: 64 })).embed(texts);
    const two = await (await loadEmbedder("static-use-en", { modelsDirs: [MODELS], batchSize: 2 })).embed(texts);
    two.forEach((v, i) => v.forEach((x, j) => expect(x).toBeCloseTo(one[i]![j]!, 5)));
  });

  it.each([
    ["static-use-en", "q8"],
    ["tiny-bert-random", "fp32"],
  ] as const)("%s (%s): length-sorted batches and our pooling give transformers.js's mean-pooled vectors, in the order given", async (id, dtype) => {
    // The copy of transformers.js the models package uses.
    const where = createRequire(fileURLToPath(new URL("../../packages/models/package.json", import.meta.url))).resolve("@huggingface/transformers");
    const { env, pipeline } = (await import(pathToFileURL(where).href)) as typeof import("@huggingface/transformers");
    env.localModelPath = `${MODELS}/`;
    env.allowRemoteModels = false;
    const reference = await pipeline("feature-extraction", id, { dtype });
    const texts = [evidence, "", claim, unrelated.repeat(40), "Coffee.", evidence.repeat(3)];
    const ours = await (await loadEmbedder(id, { modelsDirs: [MODELS], batchSize: 2 })).embed(texts);
    for (const [i, t] of texts.entries()) {
      const ref = Array.from((await reference([t], { pooling: "mean", normalize: true })).data as Float32Array);
      expect(ours[i]).toHaveLength(ref.length);
      ours[i]!.forEach((x, j) => expect(x).toBeCloseTo(ref[j]!, 5));
    }
  });

  it("loads a real BERT graph (tiny random BERT, format test)", async () => {
    const e = await loadEmbedder("tiny-bert-random", { modelsDirs: [MODELS] });
    const [v] = await e.embed(["a format test"]);
    expect(v).toHaveLength(128);
  });

  it("reranks with the pair model: the evidence above the unrelated text", async () => {
    const r = await loadReranker("pair-rerank-scifact", { modelsDirs: [MODELS] });
    const [good, bad] = await r.score(claim, [evidence, unrelated]);
    expect(good).toBeGreaterThan(bad!);
  });

  it("NLI gives a distribution over SUPPORT / NO_EVIDENCE / CONTRADICT", async () => {
    const nli = await loadNli("pair-nli-scifact", { modelsDirs: [MODELS] });
    const [withEvidence, withNoise] = await nli.classify([
      { premise: evidence, hypothesis: claim },
      { premise: unrelated, hypothesis: claim },
    ]);
    for (const p of [withEvidence!, withNoise!]) {
      expect(Object.keys(p).sort()).toEqual(["CONTRADICT", "NO_EVIDENCE", "SUPPORT"]);
      expect(p.SUPPORT + p.NO_EVIDENCE + p.CONTRADICT).toBeCloseTo(1, 5);
    }
    // The model tells evidence from noise (it cannot tell SUPPORT from CONTRADICT: see its README).
    expect(withNoise!.NO_EVIDENCE).toBeGreaterThan(withEvidence!.NO_EVIDENCE);
  });

  it("maps MNLI-style labels, and refuses labels it cannot map", () => {
    expect(nliLabelMap({ 0: "entailment", 1: "neutral", 2: "contradiction" }, "m")).toEqual(["SUPPORT", "NO_EVIDENCE", "CONTRADICT"]);
    expect(nliLabelMap({ 0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL" }, "m")).toEqual(["CONTRADICT", "SUPPORT", "NO_EVIDENCE"]);
    expect(() => nliLabelMap({ 0: "LABEL_0", 1: "LABEL_1" }, "m")).toThrow(/cannot map label "LABEL_0"/);
  });
});
