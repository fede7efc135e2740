// A simulated text-embeddings-inference (TEI) server for an NLI model or a reranker, on loopback, for bench/served.mjs:
// TEI's real shapes (`GET /info` with the model's kind, labels and batch limit; an NLI model's `POST /predict` with
// `{inputs: [[a, b], …]}` → one list of `{label, score}` a pair; a reranker's `POST /rerank` with `{query, texts}` →
// `[{index, score}]`, best first), and a GPU's behaviour under load: at most SLOTS batches computed at once (the rest
// wait in line, as TEI queues them), each taking its pairs / RATE seconds. What it answers comes from `score`: the
// in-process model's probabilities (to check that served and in-process verdicts agree), or a stand-in.
import { createHash } from "node:crypto";
import { createServer } from "node:http";

export const LABELS = ["SUPPORT", "NO_EVIDENCE", "CONTRADICT"];

/** A stand-in score: fixed probabilities from a hash of the pair (the throughput rows need an answer, not a model); a reranker's is the first. */
export async function hashScores(pairs) {
  return pairs.map(([a, b]) => {
    const h = createHash("sha256").update(`${a}\u0000${b}`).digest();
    const w = [h[0] + 1, h[1] + 1, h[2] + 1];
    const sum = w[0] + w[1] + w[2];
    return Object.fromEntries(LABELS.map((l, i) => [l, w[i] / sum]));
  });
}

/**
 * Starts the server. `kind`: "classifier" (an NLI model) or "reranker"; `score(pairs)`: each pair's probabilities by
 * label, the pair as TEI gets it ([claim, premise] for a SciFact-style model; [query, text] for a reranker, which
 * answers the first); `modelId`: what `/info` says it runs (a calibrated model's id keeps its calibration). Returns its
 * url, what it saw (batches, pairs, busy seconds over all slots) and close().
 */
export async function startTeiSim({ slots, rate, kind = "classifier", batch = 32, score = hashScores, modelId = `sim/stand-in-${kind}` }) {
  const seen = { batches: 0, pairs: 0, busy: 0 };
  let running = 0;
  const line = [];
  const turn = () => (running < slots ? (running++, Promise.resolve()) : new Promise((r) => line.push(r)));
  const done = () => (line.length ? line.shift()() : running--);
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    const json = (status, value) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (req.method === "GET" && req.url === "/info")
      return json(200, {
        model_id: modelId,
        model_sha: "sim-1",
        model_type:
          kind === "reranker"
            ? { reranker: { id2label: { 0: "LABEL_0" }, label2id: { LABEL_0: 0 } } }
            : { classifier: { id2label: Object.fromEntries(LABELS.map((l, i) => [String(i), l])), label2id: Object.fromEntries(LABELS.map((l, i) => [l, i])) } },
        max_client_batch_size: batch,
        max_concurrent_requests: 512,
      });
    const route = kind === "reranker" ? "/rerank" : "/predict";
    if (req.method !== "POST" || req.url !== route) return json(404, { error: "not found", error_type: "Unhealthy" });
    const request = JSON.parse(body);
    const inputs = kind === "reranker" ? request.texts?.map((t) => [request.query, t]) : request.inputs;
    if (!Array.isArray(inputs) || inputs.length > batch) return json(413, { error: `batch size ${inputs?.length} > maximum allowed batch size ${batch}`, error_type: "Validation" });
    await turn();
    const t0 = performance.now();
    const probs = await score(inputs);
    const wait = (inputs.length / rate) * 1000 - (performance.now() - t0);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    seen.busy += (performance.now() - t0) / 1000;
    seen.batches++;
    seen.pairs += inputs.length;
    done();
    if (kind === "reranker")
      return json(
        200,
        probs.map((p, index) => ({ index, score: p[LABELS[0]] })).sort((a, b) => b.score - a.score),
      );
    json(
      200,
      probs.map((p) => LABELS.map((label) => ({ label, score: p[label] }))),
    );
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, seen, close: () => server.close() };
}
