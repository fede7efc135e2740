// Retrieval benchmark on SciFact, side by side with LangChain.js's EnsembleRetriever
// (BM25Retriever + MemoryVectorStore) given the same passages and the same vectors:
//   - ingest time (Citeflow: chunk, embed with the offline static-use-en, LanceDB with BM25 index);
//   - hybrid top-100 latency p50 / p95, query embedding excluded;
//   - nDCG@10 and recall@100 on held-out training claims (every 5th judged claim).
// Data and models: bench/paths.mjs. Run: npm run bench
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadEmbedder } from "@citeflow/models";
import { LanceStore, hybridSearch, indexText, openScholarChunker, readBeirCorpus } from "@citeflow/retrieval";
import { docsInOrder, readQrels, scoreRetrieval } from "@citeflow/eval";
import { BM25Retriever } from "@langchain/community/retrievers/bm25";
import { EnsembleRetriever } from "@langchain/classic/retrievers/ensemble";
import { MemoryVectorStore } from "@langchain/classic/vectorstores/memory";
import { Document } from "@langchain/core/documents";
import { Embeddings } from "@langchain/core/embeddings";
import { DATA, MODELS } from "./paths.mjs";

const scifact = join(DATA, "scifact");
const K = 100;

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const f = (x) => (x < 1 ? `${(x * 1000).toFixed(0)} µs` : `${x.toFixed(2)} ms`);

const qrels = readQrels(join(scifact, "qrels_train.tsv"));
const claims = readFileSync(join(scifact, "claims_train.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l));
const heldOut = claims.filter((c, i) => i % 5 === 0 && qrels.has(String(c.id))).map((c) => ({ id: String(c.id), text: c.claim }));

const docs = [];
for await (const d of readBeirCorpus(join(scifact, "corpus.jsonl"))) docs.push(d);
const embedder = await loadEmbedder("static-use-en", { modelsDirs: [MODELS] });

// Citeflow ingest, timed whole; the vectors it computes are kept for the peer.
const vectorOf = new Map();
const recording = {
  id: embedder.id,
  async embed(texts, o) {
    const v = await embedder.embed(texts, o);
    texts.forEach((t, i) => vectorOf.set(t, v[i]));
    return v;
  },
};
const dir = mkdtempSync(join(tmpdir(), "citeflow-bench-store-"));
let t0 = performance.now();
const store = await LanceStore.open(dir);
const ingest = await store.ingest(docs, { chunker: openScholarChunker(), chunkerName: "openscholar-256", embedder: recording, batchSize: 512 });
const ingestMs = performance.now() - t0;

const queryVector = new Map();
const qv = await embedder.embed(heldOut.map((q) => q.text));
heldOut.forEach((q, i) => queryVector.set(q.text, qv[i]));

// The peer, built from the same passages and vectors.
class Precomputed extends Embeddings {
  constructor() {
    super({});
  }
  async embedDocuments(texts) {
    return texts.map((t) => vectorOf.get(t));
  }
  async embedQuery(text) {
    return queryVector.get(text);
  }
}
const chunk = openScholarChunker();
const passages = docs.flatMap((d) => chunk(d));
const lcDocs = passages.map((p) => new Document({ pageContent: indexText(p), metadata: { id: p.id } }));
t0 = performance.now();
const bm25 = BM25Retriever.fromDocuments(lcDocs, { k: K });
const vs = new MemoryVectorStore(new Precomputed());
await vs.addVectors(
  lcDocs.map((d) => vectorOf.get(d.pageContent)),
  lcDocs,
);
const ensemble = new EnsembleRetriever({ retrievers: [bm25, vs.asRetriever(K)], weights: [0.7, 0.3] });
const lcBuildMs = performance.now() - t0;

// What retrieve.hybrid runs: ids and scores from both indexes, Verif.ai fusion, then the top K read in full.
async function citeflowHybrid(q) {
  return (await hybridSearch(store, q, queryVector.get(q), { k: K, candidates: K, fusion: "verifai" })).map((p) => p.id);
}
// The same search with the passage cache off: every passage of the top 100 is read from disk.
const uncached = await LanceStore.open(dir, { passageCache: 0 });
async function citeflowHybridUncached(q) {
  return (await hybridSearch(uncached, q, queryVector.get(q), { k: K, candidates: K, fusion: "verifai" })).map((p) => p.id);
}
async function langchainHybrid(q) {
  return (await ensemble.invoke(q)).slice(0, K).map((d) => d.metadata.id);
}

async function measure(name, search) {
  for (const q of heldOut.slice(0, 20)) await search(q.text); // warm-up: JIT, page cache
  const times = [];
  const runs = new Map();
  for (const q of heldOut) {
    const s = performance.now();
    const ids = await search(q.text);
    times.push(performance.now() - s);
    runs.set(q.id, docsInOrder(ids));
  }
  return { name, p50: pct(times, 50), p95: pct(times, 95), ...scoreRetrieval(runs, qrels) };
}

const cold = await measure("Citeflow, passage cache off", citeflowHybridUncached);
const ours = await measure("Citeflow (LanceDB, Verif.ai fusion)", citeflowHybrid);
const peer = await measure("LangChain.js EnsembleRetriever", langchainHybrid);
rmSync(dir, { recursive: true, force: true });

console.log(`SciFact: ${docs.length} abstracts → ${ingest.added} passages; ${heldOut.length} held-out claims; top ${K}`);
console.log(
  `ingest (chunk + embed static-use-en + LanceDB + BM25 index): ${(ingestMs / 1000).toFixed(1)} s (target ≤ 30 s); peer index build from the same vectors: ${(lcBuildMs / 1000).toFixed(1)} s`,
);
const rows = [["system", "p50", "p95", "nDCG@10", "recall@100"], ...[ours, cold, peer].map((r) => [r.name, f(r.p50), f(r.p95), r["ndcg@10"].toFixed(3), r["recall@100"].toFixed(3)])];
const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const r of rows) console.log(r.map((c, i) => c.padEnd(w[i])).join("  "));
console.log(`latency ratio (peer / Citeflow): p50 ${(peer.p50 / ours.p50).toFixed(1)}×, p95 ${(peer.p95 / ours.p95).toFixed(1)}× (target ≥ 10×; hybrid p50 target ≤ 10 ms)`);
