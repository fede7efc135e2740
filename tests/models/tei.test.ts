/**
 * Encoders served by text-embeddings-inference (`tei:<url>`), against a loopback server speaking
 * TEI's shapes (GET /info, POST /predict, POST /rerank) and its errors (413, 429 with Retry-After,
 * 503 while loading). Its /predict answers with the in-process model's own scores, so a served
 * run must give the in-process run's verdicts.
 */
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryCache, toAnswer, type Verdict } from "@citeflow/core";
import { describeModel, loadNli, loadReranker, teiNli, teiReranker, vllmReranker, type NliModel } from "@citeflow/models";
import { configFromEnv, createServices } from "@citeflow/nodes";
import { doc, run } from "../helpers.js";
import { json, loopback, type Loopback } from "./loopback.js";

const MODELS = process.env.CITEFLOW_MODELS!;
const KEY = "tei-key-5d1c9a7e3b2f8046";
let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const info = (kind: "classifier" | "reranker", id2label: Record<string, string>, batch = 4) => ({
  model_id: "acme/nli-test",
  model_sha: "0123abcd",
  model_type: { [kind]: { id2label, label2id: Object.fromEntries(Object.entries(id2label).map(([k, v]) => [v, Number(k)])) } },
  max_client_batch_size: batch,
  version: "1.6.0",
});
const SCIFACT_LABELS = { 0: "SUPPORT", 1: "NO_EVIDENCE", 2: "CONTRADICT" };

/** A TEI server whose /predict answers with `nli`'s scores for each [claim, evidence] pair, batch size 4. */
async function teiServing(nli: NliModel, extra: (req: { path: string; n: number }, res: ServerResponse) => boolean = () => false) {
  return loopback(async (req, res) => {
    if (extra(req, res)) return;
    if (req.path === "/info") return json(res, 200, info("classifier", SCIFACT_LABELS));
    if (req.path === "/predict") {
      const inputs = req.body.inputs as Array<[string, string]>;
      if (inputs.length > 4) return json(res, 413, { error: `batch size ${inputs.length} > maximum allowed batch size 4`, error_type: "validation" });
      const probs = await nli.classify(inputs.map(([hypothesis, premise]) => ({ premise, hypothesis })));
      return json(
        res,
        200,
        probs.map((p) => Object.entries(p).map(([label, score]) => ({ label, score }))),
      );
    }
    json(res, 404, { error: "not found" });
  });
}

const passages = [
  { id: "1#0", title: "Aspirin trial", text: "Aspirin lowered the rate of stroke in older adults. The trial ran for five years.", metadata: {}, scores: {} },
  { id: "2#0", title: "Coffee", text: "Coffee intake was not associated with heart disease. Tea was not studied.", metadata: {}, scores: {} },
  { id: "3#0", title: "Stroke risk", text: "Daily aspirin reduced stroke risk by a fifth.", metadata: {}, scores: {} },
];
const verifyGraph = (model: string) =>
  doc(
    {
      a: ["test.any", { value: toAnswer("Aspirin lowers stroke risk [1][3]. Coffee is fine for the heart [2]. Aspirin raises stroke risk [3].", passages) }],
      p: ["test.any", { value: passages }],
      split: ["claims.split"],
      verify: ["verify.nli", model ? { model } : {}],
    },
    ["a.out->split.answer", "split.claims->verify.claims", "p.out->verify.passages"],
  );

describe("encoders served by text-embeddings-inference (tei:<url>)", () => {
  it("$CITEFLOW_NLI_MODEL=tei:<url>: verify.nli sends its pairs to /predict in the server's batch size, with the configured key, and gives the in-process model's verdicts", async () => {
    const local = await loadNli("pair-nli-scifact", { modelsDirs: [MODELS] });
    server = await teiServing(local);
    const env = { ...process.env, CITEFLOW_NLI_MODEL: `tei:${server.url}`, CITEFLOW_ENCODER_API_KEY: KEY };
    const served = await run(verifyGraph(""), { services: createServices(configFromEnv(env)) });
    const inProcess = await run(verifyGraph("pair-nli-scifact"), { services: createServices(configFromEnv({ ...process.env, CITEFLOW_MODELS: MODELS })) });
    const labels = (r: typeof served) => (r.byId.verify!.outputs!.verdicts as Verdict[]).map((v) => [v.claimId, v.label, v.passageId]);
    expect(served.byId.verify!.status, JSON.stringify(served.byId.verify!.error)).toBe("done");
    expect(labels(served)).toEqual(labels(inProcess));
    const predicts = server.requests.filter((r) => r.path === "/predict");
    expect(predicts.length).toBeGreaterThan(1);
    expect(predicts.every((r) => r.body.inputs.length <= 4 && r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(describeModel(`tei:${server.url}`, [])).toBe(`tei:${server.url} (served by text-embeddings-inference at ${server.url})`);
  });

  it("the server's model and revision are in the cache key: a server redeployed with another revision recomputes, the same one is a hit", async () => {
    const local = await loadNli("pair-nli-scifact", { modelsDirs: [MODELS] });
    let sha = "0123abcd";
    server = await teiServing(local, (req, res) => (req.path === "/info" ? (json(res, 200, { ...info("classifier", SCIFACT_LABELS), model_sha: sha }), true) : false));
    const cache = new MemoryCache();
    // Each run a new process would be: services of its own, which read /info again.
    const once = () => run(verifyGraph(""), { cache, services: createServices(configFromEnv({ ...process.env, CITEFLOW_NLI_MODEL: `tei:${server!.url}` })) });
    expect((await once()).byId.verify!.cache).toBe("miss");
    expect((await once()).byId.verify!.cache).toBe("hit");
    sha = "4567ef01";
    const redeployed = await once();
    expect(redeployed.byId.verify!.cache).toBe("miss");
    expect(redeployed.byId.verify!.status).toBe("done");
  });

  it("a server named by a graph's model param needs consent and gets no key", async () => {
    const local = await loadNli("pair-nli-scifact", { modelsDirs: [MODELS] });
    server = await teiServing(local);
    const services = createServices(configFromEnv({ ...process.env, CITEFLOW_ENCODER_API_KEY: KEY }));
    const refused = await run(verifyGraph(`tei:${server.url}`), { services });
    expect(refused.byId.verify!.error!.message).toContain(`params.model names the server ${server.url}, which you have not configured`);
    expect(server.requests).toHaveLength(0);
    services.allowEndpoint(server.url);
    const allowed = await run(verifyGraph(`tei:${server.url}`), { services });
    expect(allowed.byId.verify!.status).toBe("done");
    expect(server.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
  });

  it("429 with Retry-After and 503 while loading are waited out; 413, the wrong count, a score that is not a number and unmapped labels are errors naming the server and the batch", async () => {
    const local = await loadNli("pair-nli-scifact", { modelsDirs: [MODELS] });
    const pairs = Array.from({ length: 6 }, (_, i) => ({ premise: `Aspirin lowered stroke ${i}.`, hypothesis: "Aspirin lowers stroke." }));
    server = await teiServing(local, (req, res) => {
      if (req.path !== "/predict" || req.n > 3) return false;
      if (req.n === 1) json(res, 429, { error: "Model is overloaded", error_type: "overloaded" }, { "retry-after": "0" });
      else json(res, 503, { error: "unhealthy", error_type: "unhealthy" });
      return true;
    });
    const nli = await teiNli(server.url);
    expect(await nli.classify(pairs)).toEqual(await local.classify(pairs));
    await server.close();

    let answer: (body: any, res: ServerResponse) => void = () => undefined;
    server = await loopback((req, res) => (req.path === "/info" ? json(res, 200, info("classifier", SCIFACT_LABELS)) : answer(req.body, res)));
    const served = await teiNli(server.url, { retries: 0 });
    answer = (_b, res) => json(res, 413, { error: "batch size 4 > maximum allowed batch size 2", error_type: "validation" });
    await expect(served.classify(pairs)).rejects.toThrow(
      `TEI server at ${server.url}: POST /predict (batch 1 of 2, 4 inputs) answered HTTP 413 — batch size 4 > maximum allowed batch size 2 (the batch is larger than the server takes`,
    );
    answer = (_b, res) => json(res, 200, [[{ label: "SUPPORT", score: 1 }]]);
    await expect(served.classify(pairs)).rejects.toThrow("POST /predict (batch 1 of 2, 4 inputs) answered 1 predictions for 4 pairs");
    answer = (b, res) =>
      json(
        res,
        200,
        b.inputs.map(() => [{ label: "SUPPORT", score: "NaN" }]),
      );
    await expect(served.classify(pairs)).rejects.toThrow(/answered \{"label":"SUPPORT","score":"NaN"\} for pair 1: not a score of one of the model's labels/);
    answer = (_b, res) => res.end("<html>gateway</html>");
    await expect(served.classify(pairs)).rejects.toThrow("answered something that is not JSON");
    await server.close();

    server = await loopback((req, res) => json(res, 200, info("classifier", { 0: "LABEL_0", 1: "LABEL_1" })));
    await expect(teiNli(server.url)).rejects.toThrow(`TEI server at ${server.url} serves acme/nli-test, whose labels (LABEL_0, LABEL_1) do not map onto SUPPORT / NO_EVIDENCE / CONTRADICT`);
  });

  it("a reranker: /rerank's ranks back in the texts' order, the in-process cross-encoder's scores", async () => {
    const local = await loadReranker("pair-rerank-scifact", { modelsDirs: [MODELS] });
    server = await loopback(async (req, res) => {
      if (req.path === "/info") return json(res, 200, info("reranker", { 0: "LABEL_0" }, 2));
      const scores = await local.score(req.body.query, req.body.texts);
      // TEI answers best first.
      json(
        res,
        200,
        scores.map((score, index) => ({ index, score })).sort((a, b) => b.score - a.score),
      );
    });
    const texts = passages.map((p) => p.text);
    const served = await teiReranker(server.url);
    expect(await served.score("aspirin and stroke", texts)).toEqual(await local.score("aspirin and stroke", texts));
    expect(server.requests.filter((r) => r.path === "/rerank").map((r) => r.body.texts.length)).toEqual([2, 1]);
    await expect(teiNli(server.url)).rejects.toThrow("serves acme/nli-test as a reranker, not a sequence classifier");
  });

  it("vllm:<url>/<model>: a reranker through vLLM's /v1/rerank (results by index, relevance_score), the in-process scores; NLI through vLLM is refused with what to do", async () => {
    const local = await loadReranker("pair-rerank-scifact", { modelsDirs: [MODELS] });
    server = await loopback(async (req, res) => {
      if (req.path !== "/v1/rerank") return json(res, 404, { error: { message: "Not Found" } });
      if (req.body.model !== "acme/ce") return json(res, 404, { error: { message: `The model \`${req.body.model}\` does not exist.` } });
      const scores = await local.score(req.body.query, req.body.documents);
      json(res, 200, {
        id: "rerank-1",
        model: "acme/ce",
        usage: { total_tokens: 10 },
        results: scores.map((relevance_score, index) => ({ index, document: { text: req.body.documents[index] }, relevance_score })).reverse(),
      });
    });
    const env = { ...process.env, CITEFLOW_RERANK_MODEL: `vllm:${server.url}/acme/ce`, CITEFLOW_NLI_MODEL: `vllm:${server.url}/acme/nli` };
    const services = createServices(configFromEnv(env));
    const texts = passages.map((p) => p.text);
    const served = await services.reranker({ id: services.modelId("reranker", ""), modelsDir: "", dtype: "fp32" });
    expect(await served.score("aspirin and stroke", texts)).toEqual(await local.score("aspirin and stroke", texts));
    expect(describeModel(`vllm:${server.url}/acme/ce`, [])).toBe(`vllm:${server.url}/acme/ce (acme/ce served by vLLM at ${server.url})`);
    expect(() => services.nli({ id: services.modelId("nli", ""), modelsDir: "", dtype: "fp32" })).toThrow("vLLM serves NLI models through /classify, which reads one text, not a pair");
    const wrong = await vllmReranker(server.url, "acme/other", { retries: 0 });
    await expect(wrong.score("q", texts)).rejects.toThrow(`vLLM server at ${server.url}: POST /v1/rerank (batch 1 of 1, 3 inputs) answered HTTP 404 — The model \`acme/other\` does not exist.`);
  });
});
