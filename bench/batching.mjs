// One pair a forward pass for int8 models (packages/models/src/transformers.ts, batchOf): ONNX Runtime's dynamic
// quantization scales each layer's activations by the whole batch's range, so in a batch a pair's scores depend on the
// pairs beside it. On the fixed held-out split (bench/scifact-heldout.json), Citeflow's NLI model and reranker, each in
// batches of 32 (as before) and one at a time (the default for int8 weights):
//   - NLI: labels that change between the two, and the largest change of a probability, on the 218 gold rationale
//     pairs and on every sentence of the claims' cited abstracts against the claim (what verify.nli reads);
//   - reranker: the largest change of a score and whether the top 10 keep their order, 20 claims × 50 abstracts;
//   - speed: each setting in a process of its own, as the product runs one model (two ONNX Runtime sessions in one
//     process steal each other's cores: their threads spin between runs), three processes each, alternating, each the
//     median of 7 timed passes; the median of the three, and the ratio one at a time / batched.
// Run alone: node bench/batching.mjs; CITEFLOW_BENCH_CLAIMS=n measures on the first n held-out claims only (CI's smoke run).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_MODELS, loadNli, loadReranker, modelsDirsFromEnv } from "@citeflow/models";
import { DATA } from "./paths.mjs";

const root = join(import.meta.dirname, "..");
const heldIds = new Set(JSON.parse(readFileSync(join(root, "bench", "scifact-heldout.json"), "utf8")).heldout_ids);
const lines = (f) =>
  readFileSync(join(DATA, "scifact", f), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
const claims = lines("claims_train.jsonl")
  .filter((c) => heldIds.has(c.id))
  .slice(0, Number(process.env.CITEFLOW_BENCH_CLAIMS || Infinity));
const docs = lines("corpus.jsonl");
const corpus = new Map(docs.map((d) => [String(d.doc_id), d.abstract]));
const rationales = claims.flatMap((c) => Object.entries(c.evidence).flatMap(([doc, sets]) => sets.flatMap((s) => s.sentences.map((i) => ({ hypothesis: c.claim, premise: corpus.get(doc)[i] })))));
const sentences = claims.flatMap((c) => c.cited_doc_ids.flatMap((d) => (corpus.get(String(d)) ?? []).map((s) => ({ hypothesis: c.claim, premise: s }))));
const dirs = modelsDirsFromEnv(process.env);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const timed = sentences.slice(0, 200);
const texts = docs.slice(0, 50).map((d) => `${d.title} ${d.abstract.join(" ")}`);

// A child process times one model at one batch size: items a second, the median of 7 passes after a warm-up.
if (process.env.CITEFLOW_BENCH_TIME) {
  const [kind, batch] = process.env.CITEFLOW_BENCH_TIME.split(":");
  const options = { modelsDirs: dirs, ...(batch === "default" ? {} : { batchSize: Number(batch) }) };
  const run =
    kind === "nli"
      ? await loadNli(DEFAULT_MODELS.nli, options).then((m) => () => m.classify(timed))
      : await loadReranker(DEFAULT_MODELS.reranker, options).then((m) => () => m.score(claims[0].claim, texts));
  await run();
  const times = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  console.log(JSON.stringify({ perSecond: (kind === "nli" ? timed.length : texts.length) / (median(times) / 1000) }));
  process.exit(0);
}
const timeIn = (kind, batch) =>
  JSON.parse(
    execFileSync(process.execPath, [import.meta.filename], { env: { ...process.env, CITEFLOW_BENCH_TIME: `${kind}:${batch}` }, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
      .trim()
      .split("\n")
      .at(-1),
  ).perSecond;
function speeds(kind) {
  const batched = [],
    alone = [];
  for (let i = 0; i < 3; i++) {
    batched.push(timeIn(kind, 32));
    alone.push(timeIn(kind, "default"));
  }
  return [median(batched), median(alone)];
}

const label = (p) => Object.entries(p).sort((x, y) => y[1] - x[1])[0][0];
const batched = await loadNli(DEFAULT_MODELS.nli, { modelsDirs: dirs, batchSize: 32 });
const alone = await loadNli(DEFAULT_MODELS.nli, { modelsDirs: dirs });
console.log(`NLI ${DEFAULT_MODELS.nli}: batches of 32 against one pair at a time`);
for (const [name, pairs] of [
  ["held-out gold rationales", rationales],
  ["held-out claims × their cited abstracts' sentences", sentences],
]) {
  const [a, b] = [await batched.classify(pairs), await alone.classify(pairs)];
  const flips = a.filter((p, i) => label(p) !== label(b[i])).length;
  const most = Math.max(...a.map((p, i) => Math.max(...Object.keys(p).map((k) => Math.abs(p[k] - b[i][k])))));
  console.log(`  ${name}: ${pairs.length} pairs, ${flips} change label (${((100 * flips) / pairs.length).toFixed(1)} %), largest change of a probability ${most.toFixed(3)}`);
}
const [nb, na] = speeds("nli");
console.log(`  pairs/s on ${timed.length} of those pairs: batched ${nb.toFixed(1)}, one at a time ${na.toFixed(1)}, ratio ${(na / nb).toFixed(2)}`);

const rb = await loadReranker(DEFAULT_MODELS.reranker, { modelsDirs: dirs, batchSize: 32 });
const ra = await loadReranker(DEFAULT_MODELS.reranker, { modelsDirs: dirs });
let most = 0;
let reordered = 0;
const top = (xs) =>
  xs
    .map((x, i) => [x, i])
    .sort((u, v) => v[0] - u[0])
    .slice(0, 10)
    .map((x) => x[1])
    .join();
const ranked = claims.slice(0, 20);
for (const c of ranked) {
  const [a, b] = [await rb.score(c.claim, texts), await ra.score(c.claim, texts)];
  most = Math.max(most, ...a.map((x, i) => Math.abs(x - b[i])));
  if (top(a) !== top(b)) reordered++;
}
console.log(
  `reranker ${DEFAULT_MODELS.reranker}: ${ranked.length} claims × 50 abstracts, largest change of a score ${most.toFixed(4)}, top 10 in another order for ${reordered} of ${ranked.length} claims`,
);
const [sb, sa] = speeds("rerank");
console.log(`  passages/s: batched ${sb.toFixed(1)}, one at a time ${sa.toFixed(1)}, ratio ${(sa / sb).toFixed(2)}`);
