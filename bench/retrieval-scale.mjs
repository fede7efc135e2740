// Hybrid retrieval at scale: 1,000,000 synthetic passages with 384-d vectors in a LanceDB store
// built by Citeflow's ingest (BM25 index, IVF_FLAT vector index), then hybrid top-100 latency
// p50 / p95 with the query vectors given (embedding excluded), side by side with LanceDB's own
// hybrid query (vector + full-text, RRF reranker) on the same table.
//
// The corpus: words drawn from a 50,000-word Zipf vocabulary, ~60 words a passage; vectors from
// 2,000 Gaussian clusters on the unit sphere. A query is 5 words of one passage and that
// passage's vector plus noise, so its source passage is the known right answer (hit@10 reported).
// Run: npm run bench (or node bench/retrieval-scale.mjs; CITEFLOW_BENCH_PASSAGES=N for another size).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";

// LanceDB's native hybrid query (the peer) logs a deprecation warning per query unless told not to.
process.env.LANCEDB_LOG ??= "error";
const { LanceStore, hybridSearch } = await import("@citeflow/retrieval");

// The peer runs on the very LanceDB build the retrieval package uses.
const lancedb = createRequire(new URL("../packages/retrieval/package.json", import.meta.url))("@lancedb/lancedb");

const N = Number(process.env.CITEFLOW_BENCH_PASSAGES ?? 1_000_000);
const DIM = 384;
const VOCAB = 50_000;
const CLUSTERS = 2_000;
const QUERIES = 200;
const K = 100;

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const gauss = (r) => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
const unit = (v) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

// Vocabulary: pronounceable pseudo-words; Zipf sampling through a cumulative table.
const syll = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qu", "ri", "do", "fe", "gu", "hi"];
const words = Array.from({ length: VOCAB }, (_, i) => {
  let w = "";
  for (let x = i + 17; x > 0; x = Math.floor(x / 16)) w += syll[x % 16];
  return w;
});
const cdf = new Float64Array(VOCAB);
for (let i = 0, s = 0; i < VOCAB; i++) cdf[i] = s += 1 / (i + 1);
const total = cdf[VOCAB - 1];
const pick = (r) => {
  const x = r() * total;
  let lo = 0;
  let hi = VOCAB - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cdf[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return words[lo];
};
const centers = Array.from({ length: CLUSTERS }, (_, c) => {
  const r = rng(1_000_000 + c);
  return unit(Array.from({ length: DIM }, () => gauss(r)));
});
const textOf = (i) => {
  const r = rng(i * 2 + 1);
  return Array.from({ length: 40 + Math.floor(r() * 40) }, () => pick(r)).join(" ");
};
const vectorOf = (i, noise = 0.35) => {
  const r = rng(i * 2 + 2);
  const c = centers[i % CLUSTERS];
  return unit(c.map((x) => x + ((noise * gauss(r)) / Math.sqrt(DIM)) * 4));
};

function* documents() {
  for (let i = 0; i < N; i++) yield { docId: `syn${i}`, title: `Synthetic ${i}`, text: textOf(i), metadata: {} };
}
// The "embedder" gives each passage its synthetic vector (the passage number is in its title).
const embedder = { id: "synthetic-384", embed: async (texts) => texts.map((t) => vectorOf(Number(/^Synthetic (\d+)/.exec(t)[1]))) };
const oneChunk = (d) => [{ id: `${d.docId}#0`, title: d.title, text: d.text, metadata: d.metadata, scores: {} }];

const dir = mkdtempSync(join(tmpdir(), "citeflow-bench-scale-"));
const store = await LanceStore.open(dir);
let t0 = performance.now();
let lastReport = 0;
await store.ingest(documents(), {
  chunker: oneChunk,
  chunkerName: "whole",
  embedder,
  batchSize: 10_000,
  onProgress: ({ added }) => {
    if (added - lastReport >= 200_000) {
      lastReport = added;
      process.stderr.write(`  ${added} passages written, ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
    }
  },
});
const buildS = (performance.now() - t0) / 1000;
const meta = await store.meta();

const qr = rng(42);
const queries = Array.from({ length: QUERIES }, () => {
  const i = Math.floor(qr() * N);
  const w = textOf(i).split(" ");
  const start = Math.floor(qr() * Math.max(1, w.length - 5));
  return { source: `syn${i}#0`, text: w.slice(start, start + 5).join(" "), vector: unit(vectorOf(i).map((x) => x + 0.01 * gauss(qr))) };
});

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
async function measure(search) {
  for (const q of queries.slice(0, 10)) await search(q); // warm-up
  const times = [];
  let hits = 0;
  for (const q of queries) {
    const s = performance.now();
    const ids = await search(q);
    times.push(performance.now() - s);
    if (ids.slice(0, 10).includes(q.source)) hits++;
  }
  return { p50: pct(times, 50), p95: pct(times, 95), hit10: hits / queries.length };
}

const ours = await measure(async (q) => (await hybridSearch(store, q.text, q.vector, { k: K, candidates: K, fusion: "verifai" })).map((p) => p.id));
const oursRrf = await measure(async (q) => (await hybridSearch(store, q.text, q.vector, { k: K, candidates: K, fusion: "rrf" })).map((p) => p.id));
const table = await (await lancedb.connect(dir)).openTable("passages");
const rrf = await lancedb.rerankers.RRFReranker.create();
const nprobes = meta.vectorIndex?.nprobes ?? 20;
const peer = await measure(async (q) =>
  (await table.query().nearestTo(q.vector).distanceType("cosine").nprobes(nprobes).fullTextSearch(q.text).rerank(rrf).select(["id", "title", "text", "metadata"]).limit(K).toArray()).map((r) => r.id),
);
rmSync(dir, { recursive: true, force: true });

const f = (x) => `${x.toFixed(2)} ms`;
console.log(
  `\nscale: ${N.toLocaleString("en")} synthetic passages, ${DIM}-d; store built in ${buildS.toFixed(0)} s (ingest, compaction, BM25 + btree + ${meta.vectorIndex ? `IVF_FLAT ${meta.vectorIndex.partitions} partitions, ${meta.vectorIndex.nprobes} probed` : "no vector index"}); ${QUERIES} queries, top ${K}, query embedding excluded`,
);
const rows = [
  ["system", "p50", "p95", "hit@10"],
  ["Citeflow hybridSearch (ids → Verif.ai fusion → read top 100)", f(ours.p50), f(ours.p95), ours.hit10.toFixed(3)],
  ["Citeflow hybridSearch, RRF fusion", f(oursRrf.p50), f(oursRrf.p95), oursRrf.hit10.toFixed(3)],
  ["LanceDB native hybrid query (vector + FTS, RRF reranker)", f(peer.p50), f(peer.p95), peer.hit10.toFixed(3)],
];
const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const r of rows) console.log(r.map((c, i) => c.padEnd(w[i])).join("  "));
console.log(`latency ratio (peer / Citeflow): p50 ${(peer.p50 / ours.p50).toFixed(1)}×, p95 ${(peer.p95 / ours.p95).toFixed(1)}× (target: Citeflow p50 ≤ 50 ms at 1M)`);
