// How often Verif.ai's answer reads a paper that holds the claim's evidence: its retrieval (hybrid
// top 50, one passage per paper) cut to the first 3, 5, 8 and 10 papers, hybrid alone and reranked
// by Citeflow's reranker (fused with BM25). An answer can only cite the evidence it was given, and
// the adapter is taught to say the papers do not answer when none of them holds it, so this bounds
// how many of its answers can cite. Without the reranker it also counts the claims for which a
// sentence SciFact gives as evidence is in the text read (the gold answer cites): with one passage
// a paper (the best of its 256-word windows) and with each paper's retrieved passages joined
// (filter.join-paper, Verif.ai's template).
// Claims: the dev split of the training claims (bench/scifact-dev.json, where the number of papers
// was chosen), or with CITEFLOW_BENCH_SPLIT=held-out the fixed held-out split; those with evidence,
// the first CITEFLOW_BENCH_CLAIMS (default all).
// Needs the all-MiniLM-L6-v2 SciFact store: $CITEFLOW_BENCH_STORE, else the demo's (.citeflow/stores/…, npm run demo).
// Run alone: node bench/papers-read.mjs
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadGraph, parsePassageId, startRun } from "@citeflow/core";
import { goldAnswer, readGoldLabels } from "@citeflow/datasets";
import { DEFAULT_MODELS } from "@citeflow/models";
import { configFromEnv, createRegistry, createServices } from "@citeflow/nodes";
import { joinPapers } from "@citeflow/retrieval";
import { DATA } from "./paths.mjs";

const demoStore = fileURLToPath(new URL("../.citeflow/stores/scifact-all-MiniLM-L6-v2", import.meta.url));
const store = process.env.CITEFLOW_BENCH_STORE || demoStore;
if (!existsSync(store)) throw new Error(`bench/papers-read needs the all-MiniLM-L6-v2 SciFact store: ${store} is not there (npm run demo builds it; or set $CITEFLOW_BENCH_STORE)`);
const heldOut = process.env.CITEFLOW_BENCH_SPLIT === "held-out";
const split = JSON.parse(readFileSync(new URL(heldOut ? "./scifact-heldout.json" : "./scifact-dev.json", import.meta.url), "utf8"));
const ids = new Set(heldOut ? split.heldout_ids : split.dev_ids);
const claims = readFileSync(join(DATA, "scifact", "claims_train.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l))
  .filter((c) => ids.has(c.id) && Object.keys(c.evidence).length > 0)
  .slice(0, Number(process.env.CITEFLOW_BENCH_CLAIMS || Infinity));

const labels = readGoldLabels(join(DATA, "scifact", "claims_train.jsonl"), join(DATA, "scifact", "corpus.jsonl"));
const registry = createRegistry();
const configured = configFromEnv(process.env);
const services = createServices({ ...configured, store, models: { ...configured.models, reranker: DEFAULT_MODELS.reranker } });
// Verif.ai's retrieval up to its papers, with the reranker between them or not.
const retrieval = (rerank) => ({
  citeflow: 1,
  name: "papers read",
  inputs: { question: { type: "Question" } },
  nodes: [
    { id: "question", type: "input.question", version: 1, params: {} },
    { id: "retrieve", type: "retrieve.hybrid", version: 1, params: { k: 50 } },
    ...(rerank ? [{ id: "rerank", type: "rerank.cross-encoder", version: 1, params: {} }] : []),
    { id: "papers", type: "filter.per-paper", version: 1, params: { max: 1 } },
  ],
  edges: [
    { from: "question.question", to: "retrieve.question" },
    ...(rerank
      ? [
          { from: "question.question", to: "rerank.question" },
          { from: "retrieve.passages", to: "rerank.passages" },
          { from: "rerank.passages", to: "papers.passages" },
        ]
      : [{ from: "retrieve.passages", to: "papers.passages" }]),
  ],
});
const CUTS = [3, 5, 8, 10];
console.log(`claims with evidence: ${claims.length} (${heldOut ? "held-out" : "dev"} split)`);
console.log(`papers read${" ".repeat(16)}${CUTS.map((k) => `first ${k}`.padStart(14)).join("")}`);
for (const [label, rerank] of [
  ["hybrid", false],
  [`+ ${DEFAULT_MODELS.reranker.split("/")[1]}`, true],
]) {
  const graph = loadGraph(retrieval(rerank), registry);
  const hits = CUTS.map(() => 0);
  // Without the reranker, also: is a rationale sentence in the text read, one passage a paper or each paper's passages joined?
  const sentences = { one: CUTS.map(() => 0), joined: CUTS.map(() => 0) };
  for (const c of claims) {
    const r = await startRun(graph, { services, inputs: { question: { id: String(c.id), text: c.claim } } }).result;
    if (r.status !== "ok") throw new Error(`claim ${c.id}: ${JSON.stringify(r.nodes.find((n) => n.error)?.error)}`);
    const onePerPaper = r.nodes.find((n) => n.id === "papers").outputs.passages;
    const papers = onePerPaper.map((p) => parsePassageId(p.id).docId);
    CUTS.forEach((k, i) => (hits[i] += papers.slice(0, k).some((d) => d in c.evidence) ? 1 : 0));
    if (rerank) continue;
    const joined = joinPapers(r.nodes.find((n) => n.id === "retrieve").outputs.passages);
    const cites = (ps) => /\[\d+\]/.test(goldAnswer(labels, String(c.id), ps, 1));
    CUTS.forEach((k, i) => {
      sentences.one[i] += cites(onePerPaper.slice(0, k)) ? 1 : 0;
      sentences.joined[i] += cites(joined.slice(0, k)) ? 1 : 0;
    });
  }
  const line = (what, counts) => console.log(`${what.padEnd(26)} ${counts.map((h) => `${h} (${(h / claims.length).toFixed(2)})`.padStart(14)).join("")}`);
  line(label, hits);
  if (!rerank) {
    line("  evidence read, 1 passage", sentences.one);
    line("  evidence read, joined", sentences.joined);
  }
}
process.exit(0);
