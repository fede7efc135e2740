// Citeflow's trained NLI model (and any reranker it trained) against the models they replace, on the fixed held-out
// split of SciFact training claims (bench/scifact-heldout.json: no shipped model trained on them):
//   - NLI: a sentence against itself → SUPPORT (500 corpus sentences); SUPPORT vs CONTRADICT on the
//     held-out gold rationales; open-retrieval true/false (`citeflow eval scifact --binary`, hybrid
//     top 3 on the all-MiniLM-L6-v2 store, OpenScholar's setting); pairs/s; as eval.citations' judge:
//     a gold rationale sentence (copied word for word, as an answer quoting it would) entailed by its
//     abstract read whole, whole or one of its sentences (premiseSentences, what eval.citations reads),
//     and, as the control, by another held-out claim's abstract read the same way.
//   - Reranker: nDCG@10 of hybrid top-100 reranked (hybrid alone is the floor); pairs/s.
// Peers: the static-vector pair models from $CITEFLOW_MODELS (the previous offline defaults), when
// that folder has them. Speeds are medians of 5 timed batches of 64 pairs, run alone.
// Needs the all-MiniLM-L6-v2 SciFact store: $CITEFLOW_BENCH_STORE (the demo's), else it is built.
// Run: npm run bench (or node bench/encoders.mjs); CITEFLOW_BENCH_ONLY=nli or =rerank runs one half;
// CITEFLOW_BENCH_CLAIMS=n measures on the first n held-out claims only (CI's smoke run; the figures are from all).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { judgePremises, nliEntails, premiseSentences } from "@citeflow/eval";
import { DEFAULT_MODELS, loadNli, loadReranker, modelsDirsFromEnv } from "@citeflow/models";
import { DATA, scratch } from "./paths.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(root, "packages", "cli", "dist", "bin.js");
const scifact = join(DATA, "scifact");
const heldIds = new Set(JSON.parse(readFileSync(join(root, "bench", "scifact-heldout.json"), "utf8")).heldout_ids);
const claims = readFileSync(join(scifact, "claims_train.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l))
  .filter((c) => heldIds.has(c.id))
  .slice(0, Number(process.env.CITEFLOW_BENCH_CLAIMS || Infinity));
const docs = readFileSync(join(scifact, "corpus.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l));
const corpus = new Map(docs.map((d) => [String(d.doc_id), d.abstract]));
const titles = new Map(docs.map((d) => [String(d.doc_id), d.title]));

const dirs = modelsDirsFromEnv(process.env);
const have = (id) => dirs.some((d) => existsSync(join(d, id, "config.json")));
const nliModels = [DEFAULT_MODELS.nli, "pair-nli-scifact"].filter(have);
const rerankModels = [DEFAULT_MODELS.reranker, "pair-rerank-scifact"].filter(have);
if (!have(DEFAULT_MODELS.nli)) throw new Error(`bench/encoders: ${DEFAULT_MODELS.nli} is not installed: run npm run models`);
// A reranker trained with citeflow train rerank, to measure beside the installed ones: $CITEFLOW_BENCH_RERANKER (an id in the models folders).
if (process.env.CITEFLOW_BENCH_RERANKER) rerankModels.unshift(process.env.CITEFLOW_BENCH_RERANKER);

const work = scratch("citeflow-bench-encoders-");
let store = process.env.CITEFLOW_BENCH_STORE;
if (!store || !existsSync(store)) {
  store = join(work, "store");
  console.log(`building the all-MiniLM-L6-v2 SciFact store in ${store} (about 10–17 minutes on two cores)…`);
  execFileSync(process.execPath, [BIN, "ingest", join(scifact, "corpus.jsonl"), "--store", store, "--batch", "64"], { stdio: ["ignore", "ignore", "inherit"] });
}
const cli = (args, env = {}) =>
  JSON.parse(execFileSync(process.execPath, [BIN, ...args, "--json"], { encoding: "utf8", env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "ignore"], maxBuffer: 1 << 26 }));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function pairsPerSecond(run, given) {
  // 8 to warm up and 5 batches of 64, the given pairs repeated as often as a small run needs.
  const pairs = Array.from({ length: 8 + 5 * 64 }, (_, i) => given[i % given.length]);
  await run(pairs.slice(0, 8)); // warm-up
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await run(pairs.slice(8 + i * 64, 8 + i * 64 + 64));
    times.push(performance.now() - t);
  }
  return 64 / (median(times) / 1000);
}

const only = process.env.CITEFLOW_BENCH_ONLY;
// ── NLI ──
const rationales = claims.flatMap((c) =>
  Object.entries(c.evidence).flatMap(([doc, sets]) => sets.flatMap((s) => s.sentences.map((i) => ({ hypothesis: c.claim, premise: corpus.get(doc)[i], label: s.label })))),
);
const sentences = [...new Set(claims.flatMap((c) => c.cited_doc_ids.flatMap((d) => corpus.get(String(d)) ?? [])))].slice(0, 500);
const withEvidence = join(work, "heldout-with-evidence.jsonl");
writeFileSync(withEvidence, claims.map((c) => JSON.stringify(c) + "\n").join(""));
const support = rationales.filter((r) => r.label === "SUPPORT").length;
console.log(
  `held-out: ${claims.length} claims (${claims.filter((c) => Object.keys(c.evidence).length).length} with evidence), ${rationales.length} gold rationale sentences (majority ${(Math.max(support, rationales.length - support) / rationales.length).toFixed(3)})\n`,
);
if (only !== "rerank") console.log("NLI model                      self→SUPPORT  S vs C (rationales)  true/false open retrieval  pairs/s");
const nliRows = [];
for (const id of only === "rerank" ? [] : nliModels) {
  const nli = await loadNli(id, { modelsDirs: dirs });
  const self = await nli.classify(sentences.map((s) => ({ premise: s, hypothesis: s })));
  const selfRate = self.filter((p) => p.SUPPORT >= p.NO_EVIDENCE && p.SUPPORT >= p.CONTRADICT).length / self.length;
  const sc = await nli.classify(rationales);
  const scAcc = sc.filter((p, i) => (p.SUPPORT >= p.CONTRADICT ? "SUPPORT" : "CONTRADICT") === rationales[i].label).length / sc.length;
  const binary = cli(["eval", "scifact", "--claims", withEvidence, "--store", store, "--binary", "-k", "3"], { CITEFLOW_NLI_MODEL: id });
  const speed = await pairsPerSecond((p) => nli.classify(p), rationales.concat(rationales).slice(0, 400));
  nliRows.push({ id, speed });
  console.log(`${id.padEnd(30)} ${selfRate.toFixed(3).padStart(12)}  ${scAcc.toFixed(3).padStart(19)}  ${binary.accuracy.toFixed(3).padStart(25)}  ${speed.toFixed(0).padStart(7)}`);
}
if (nliRows.length > 1) console.log(`speed ratio ${nliRows[0].id} / ${nliRows[1].id}: ${(nliRows[0].speed / nliRows[1].speed).toFixed(2)}`);

// ── NLI as the citation judge: a quoted rationale sentence against its own abstract, and against another claim's. ──
const quoted = claims.flatMap((c, k) =>
  Object.entries(c.evidence).flatMap(([doc, sets]) => {
    const others = claims.filter((o, j) => j !== k && Object.keys(o.evidence).length && !(doc in o.evidence));
    const other = Object.keys(others[k % Math.max(others.length, 1)]?.evidence ?? {})[0];
    const passage = (d) => ({ title: titles.get(d), text: corpus.get(d).join(" ") });
    return [...new Set(sets.flatMap((s) => s.sentences))].map((i) => ({ sentence: corpus.get(doc)[i], own: passage(doc), other: other && passage(other) }));
  }),
);
if (only !== "rerank" && quoted.length) {
  console.log(`\nas eval.citations' judge: ${quoted.length} gold rationale sentences of these claims, quoted, against their abstract (entailed: SUPPORT is the likeliest label)`);
  console.log("NLI model                      abstract whole  whole or a sentence  control: another claim's abstract");
  for (const id of nliModels) {
    const nli = await loadNli(id, { modelsDirs: dirs });
    const entailed = nliEntails((pairs) => nli.classify(pairs));
    let whole = 0,
      bySentence = 0,
      control = 0,
      controls = 0;
    for (const q of quoted) {
      const all = `${q.own.title}\n${q.own.text}`;
      const w = (await entailed([all], q.sentence)) ? 1 : 0;
      whole += w;
      bySentence += w || (await entailed(premiseSentences(q.own), q.sentence)) ? 1 : 0;
      if (q.other) {
        controls++;
        control += (await entailed(judgePremises([q.other]), q.sentence)) ? 1 : 0;
      }
    }
    const rate = (n, d) => `${n}/${d} (${(n / d).toFixed(3)})`;
    console.log(`${id.padEnd(30)} ${rate(whole, quoted.length).padStart(14)}  ${rate(bySentence, quoted.length).padStart(19)}  ${rate(control, controls).padStart(34)}`);
  }
}

// ── Reranker (all of it skipped with CITEFLOW_BENCH_ONLY=nli) ──
if (only !== "nli") {
  const queries = join(work, "heldout-queries.jsonl");
  writeFileSync(queries, claims.map((c) => JSON.stringify({ id: String(c.id), text: c.claim }) + "\n").join(""));
  const qrels = join(scifact, "qrels_train.tsv");
  const hybrid = cli(["eval", "retrieval", "--store", store, "--queries", queries, "--qrels", qrels, "--mode", "hybrid"]);
  // Each reranker against hybrid alone on the same queries: nDCG@10 of both, B − A and its 95 % paired bootstrap interval.
  console.log(`\nreranker (hybrid top-100 → rerank)   nDCG@10  MRR@10  B − A vs hybrid (95 % interval)  pairs/s`);
  console.log(`${"none (hybrid alone)".padEnd(36)} ${hybrid["ndcg@10"].toFixed(3).padStart(7)}  ${hybrid["mrr@10"].toFixed(3).padStart(6)}`);
  const passages = [...corpus.values()].slice(0, 400).map((a) => a.join(" "));
  const rrRows = [];
  for (const id of rerankModels) {
    // One pass per reranker: the comparison carries B's nDCG@10 and MRR@10 beside the difference.
    const d = cli(["eval", "retrieval", "--store", store, "--queries", queries, "--qrels", qrels, "--mode", "hybrid", "--compare", "none", id]);
    const r = d.b.scores;
    const rr = await loadReranker(id, { modelsDirs: dirs });
    const speed = await pairsPerSecond((p) => rr.score(claims[0].claim, p), passages);
    rrRows.push({ id, speed });
    const diff = `${d.difference >= 0 ? "+" : ""}${d.difference.toFixed(3)} (${d.interval95[0].toFixed(3)} to ${d.interval95[1].toFixed(3)})`;
    console.log(`${id.padEnd(36)} ${r["ndcg@10"].toFixed(3).padStart(7)}  ${r["mrr@10"].toFixed(3).padStart(6)}  ${diff.padStart(31)}  ${speed.toFixed(0).padStart(7)}`);
  }
  if (rrRows.length > 1) console.log(`speed ratio ${rrRows[0].id} / ${rrRows[1].id}: ${(rrRows[0].speed / rrRows[1].speed).toFixed(2)}`);
}
