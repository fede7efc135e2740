// The in-process LLM (Gemma 3 270M Q4_K_M on llama.cpp, CPU) and the pretrained embedder, measured:
//   - prompt and generation tokens/s, beside the physical limit for generation: every token reads
//     the weights once, so tokens/s ≤ memory bandwidth / model bytes (bandwidth measured here, now);
//   - questions per minute with 1, 2 and 4 sequences against one at a time;
//   - seconds per question for each template, end to end;
//   - quality on held-out SciFact training claims (every 5th judged claim, claims with evidence):
//     citation precision/recall/F1 (ALCE, NLI judge) and hallucinated markers per answer, with the
//     citation grammar and without, against the extractive baseline; claim verification as
//     OpenScholar measures it (the LM reads the retrieved passages, true/false) against the NLI model;
//     arXivBot's sufficiency check against gold retrieval;
//   - retrieval nDCG@10 with all-MiniLM-L6-v2 against the offline static-use-en.
// Needs `npm run models` (data and peer models: bench/paths.mjs). $CITEFLOW_BENCH_STORE may name a
// SciFact store built with all-MiniLM-L6-v2 (the demo's); else one is built here.
// Run: npm run bench   (CITEFLOW_BENCH_CLAIMS=n sets how many held-out claims, default 30;
//   CITEFLOW_BENCH_TEMPLATE_CLAIMS=n claims a template is timed on, default 2; CITEFLOW_BENCH_SPEED_PROMPTS=n prompts the speed is the median of, default 16;
//   CITEFLOW_BENCH_CHAT_MODEL=<model> adds rows for another model (a larger GGUF, a served model) with the same prompts;
//   CITEFLOW_BENCH_SUFFICIENCY_CLAIMS=n runs arXivBot's sufficiency check on the first n of them;
//   CITEFLOW_BENCH_ONLY=quality measures speed and answer quality only: no retrieval, concurrency or templates;
//   CITEFLOW_BENCH_ONLY=adapter: the adapter's answers and verdicts only;
//   CITEFLOW_BENCH_ONLY=answers: speed and Verif.ai's answers only (no verification, no sufficiency);
//   CITEFLOW_BENCH_ONLY=sufficiency: speed and arXivBot's sufficiency check only (on dev it prints the threshold that agrees best);
//   CITEFLOW_BENCH_ONLY=claims: speed and arXivBot's claims only (CITEFLOW_BENCH_CLAIMS_ADAPTER=<adapter.gguf> measures that claims adapter instead of the shipped one);
//   CITEFLOW_BENCH_ONLY=templates: speed and the templates end to end only;
//   CITEFLOW_BENCH_ADAPTER=<adapter.gguf> measures that adapter instead of the shipped one;
//   CITEFLOW_BENCH_SPLIT=dev takes the claims from the dev split of the training claims (bench/scifact-dev.json),
//   where recipes are chosen, instead of the held-out split, where the chosen one is reported)
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

import { basename, dirname, join } from "node:path";
import { generatedTokens, loadGraph, MemoryCache, parsePassageId, startRun, toAnswer } from "@citeflow/core";
import { citationScores, docsInOrder, nliEntails, readQrels, scoreClassification, scoreRetrieval } from "@citeflow/eval";
import { goldAnswer, goldRationales, readGoldLabels } from "@citeflow/datasets";
import { CLAIMS_ADAPTER, DEFAULT_ADAPTER, DEFAULT_MODELS, findAdapter, JUDGE_ADAPTER, loadEmbedder, loadLocalChat, modelsHome } from "@citeflow/models";
import { configFromEnv, createRegistry, createServices, JUDGE_ADAPTER_THRESHOLD, JUDGE_THRESHOLD, templatePath } from "@citeflow/nodes";
import { aggregateVerdicts, sciFactVerificationGraph } from "@citeflow/cli";
import { LanceStore, hybridSearch, openScholarChunker, readBeirCorpus } from "@citeflow/retrieval";
import { copyBandwidth } from "./bandwidth.mjs";
import { CLAIMS_COLUMNS, claimsFaithfulness, claimsRow } from "./claims.mjs";
import { rationaleCounts } from "./rationales.mjs";
import { checkScore, SUFFICIENCY_COLUMNS, sufficiencyRow } from "./sufficiency.mjs";
import { DATA, MODELS, scratch } from "./paths.mjs";

const home = modelsHome(process.env);
const GGUF = join(home, "gemma-3-270m-q4_k_m.gguf");
const EMBEDDER = "Xenova/all-MiniLM-L6-v2";
if (!existsSync(GGUF)) throw new Error(`bench/llm needs ${GGUF}: run npm run models`);
const N_CLAIMS = Number(process.env.CITEFLOW_BENCH_CLAIMS || 30);
// arXivBot's sufficiency check runs the whole template (a query, claims, the check, an answer: about 80 s a claim on the base).
// Another model measured with the same prompts, beside Gemma: a GGUF (path or name, `+adapter` too) or a server's model
// ($OPENAI_BASE_URL, $OPENAI_API_KEY), named as a node's `model` param names it.
const NAMED = process.env.CITEFLOW_BENCH_CHAT_MODEL?.trim() || undefined;
const SUFFICIENCY_CLAIMS = Number(process.env.CITEFLOW_BENCH_SUFFICIENCY_CLAIMS || N_CLAIMS);
const TEMPLATE_CLAIMS = Number(process.env.CITEFLOW_BENCH_TEMPLATE_CLAIMS || 2);
const ONLY = process.env.CITEFLOW_BENCH_ONLY || undefined;
const ALL = ONLY === undefined;
// The parts each CITEFLOW_BENCH_ONLY value measures besides the models' speed (unset: every part);
// "peers": beside the adapter's rows, those of the base model, the baselines and the NLI judge.
const PARTS = {
  quality: ["answers", "judges", "peers", "sufficiency", "claims"],
  adapter: ["answers", "judges"],
  answers: ["answers", "peers"],
  sufficiency: ["sufficiency", "claims"],
  claims: ["claims"],
  templates: ["templates"],
};
if (!ALL && !(ONLY in PARTS)) throw new Error(`CITEFLOW_BENCH_ONLY=${ONLY}: one of ${Object.keys(PARTS).join(", ")}`);
const measures = (part) => ALL || PARTS[ONLY].includes(part);
const SPLIT = process.env.CITEFLOW_BENCH_SPLIT === "dev" ? "dev" : "held-out";
const scifact = join(DATA, "scifact");

const SPEED_PROMPTS = Number(process.env.CITEFLOW_BENCH_SPEED_PROMPTS || 16);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x, d = 1) => x.toFixed(d);
const rows = (header, body) => {
  const all = [header, ...body];
  const w = header.map((_, i) => Math.max(...all.map((r) => String(r[i]).length)));
  for (const r of all) console.log(r.map((c, i) => String(c).padEnd(w[i])).join("  "));
};

// ── Memory bandwidth: the best of five 512 MiB copies (read + write each byte once). ──
const best = copyBandwidth();
const modelBytes = readFileSync(GGUF).length;
const limit = best / modelBytes;

// ── Data: held-out claims, the corpus, a store. ──
const qrels = readQrels(join(scifact, "qrels_train.tsv"));
const claims = readFileSync(join(scifact, "claims_train.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l));
const judged = claims.filter((c) => qrels.has(String(c.id)));
const gold = (c) => {
  for (const es of Object.values(c.evidence ?? {})) for (const e of es) if (e.label) return e.label;
  return "NO_EVIDENCE";
};
// The fixed held-out split no Citeflow model trains on (the adapter included): its first claims with evidence;
// or, with CITEFLOW_BENCH_SPLIT=dev, the dev split's (training claims a recipe being chosen leaves out).
const splitFile = SPLIT === "dev" ? "./scifact-dev.json" : "./scifact-heldout.json";
const heldIds = new Set(JSON.parse(readFileSync(new URL(splitFile, import.meta.url), "utf8"))[SPLIT === "dev" ? "dev_ids" : "heldout_ids"]);
const heldOut = claims.filter((c) => heldIds.has(c.id) && gold(c) !== "NO_EVIDENCE").slice(0, N_CLAIMS);
const docs = [];
for await (const d of readBeirCorpus(join(scifact, "corpus.jsonl"))) docs.push(d);

async function buildStore(embedderId, dir) {
  const embedder = await loadEmbedder(embedderId, { modelsDirs: [MODELS, home] });
  const t = performance.now();
  await (await LanceStore.open(dir)).ingest(docs, { chunker: openScholarChunker(), chunkerName: "openscholar-256", embedder, batchSize: 64 });
  return (performance.now() - t) / 1000;
}
let store = process.env.CITEFLOW_BENCH_STORE;
let ingestS;
if (!store || !existsSync(store)) {
  store = scratch("citeflow-bench-minilm-");
  ingestS = await buildStore(EMBEDDER, store);
}
const staticStore = scratch("citeflow-bench-static-");
const staticIngestS = ALL ? await buildStore("static-use-en", staticStore) : 0;

// ── Retrieval quality: every judged training claim (neither embedder was trained on SciFact). ──
async function retrievalScores(dir, embedderId) {
  const s = await LanceStore.open(dir);
  const embedder = await loadEmbedder(embedderId, { modelsDirs: [MODELS, home] });
  const out = {};
  for (const mode of ["dense", "hybrid"]) {
    const runs = new Map();
    for (const c of judged) {
      const [v] = await embedder.embed([c.claim]);
      const hits = mode === "dense" ? await s.dense(v, 100) : await hybridSearch(s, c.claim, v, { k: 100, candidates: 100, fusion: "verifai" });
      runs.set(String(c.id), docsInOrder(hits.map((p) => p.id)));
    }
    out[mode] = scoreRetrieval(runs, qrels)["ndcg@10"];
  }
  return out;
}
const minilmScores = ALL ? await retrievalScores(store, EMBEDDER) : undefined;
const staticScores = ALL ? await retrievalScores(staticStore, "static-use-en") : undefined;

// ── Speed: prompt and generation tokens/s, one sequence. ──
const registry = createRegistry();
const configured = configFromEnv(process.env);
const services = createServices({
  ...configured,
  store,
  chat: { ...configured.chat, model: GGUF },
  models: { nli: process.env.CITEFLOW_NLI_MODEL || "pair-nli-scifact", reranker: process.env.CITEFLOW_RERANK_MODEL || "pair-rerank-scifact" },
});
const chat1 = await loadLocalChat(GGUF, { sequences: 1 });
const passagesText = (ds) => ds.map((d, i) => `[${i + 1}] ${d.title}\n${d.text}`).join("\n\n");
// The same prompts with Citeflow's LoRA adapter applied (llama.cpp adds its low-rank products to every adapted layer).
const adapterPath = process.env.CITEFLOW_BENCH_ADAPTER || findAdapter(DEFAULT_ADAPTER, [MODELS, home]);
const adapterName = process.env.CITEFLOW_BENCH_ADAPTER ? basename(dirname(adapterPath)) : DEFAULT_ADAPTER;
const tuned = adapterPath ? await loadLocalChat(GGUF, { sequences: 1, adapter: { path: adapterPath, name: DEFAULT_ADAPTER } }) : undefined;
// Base and adapter take turns on each prompt, each going first every other time, so that a slower minute of the
// machine slows both; the ratio is the median of each prompt's (one prompt's tokens/s vary ±15 % between runs).
const speed = [];
const adapterSpeed = [];
for (let i = 0; i < SPEED_PROMPTS; i++) {
  // A different first line each time: nothing of the prompt is reused from the last call.
  const ask = [{ role: "user", content: `Request ${i}. Summarise the papers below.\n\n${passagesText(docs.slice(i * 5, i * 5 + 5))}\n\nSummary:` }];
  const turns = [() => chat1.chat(ask, { maxTokens: 96 }).then((r) => speed.push(r.usage)), ...(tuned ? [() => tuned.chat(ask, { maxTokens: 96 }).then((r) => adapterSpeed.push(r.usage))] : [])];
  for (const turn of i % 2 ? turns.reverse() : turns) await turn();
}
const promptTps = median(speed.map((u) => u.promptTokens / (u.timeToFirstTokenMs / 1000)));
const generated = (us) => us.filter((u) => u.completionTokens > 8).map((u) => u.tokensPerSecond);
const genTps = median(generated(speed));
const adapterGenTps = tuned ? median(generated(adapterSpeed)) : undefined;
const adapterRatio = tuned
  ? median(speed.map((u, i) => adapterSpeed[i].tokensPerSecond / u.tokensPerSecond).filter((r, i) => speed[i].completionTokens > 8 && adapterSpeed[i].completionTokens > 8 && Number.isFinite(r)))
  : undefined;

// ── Concurrency: 8 questions on 1, 2 and 4 sequences, against one at a time. ──
const questions = heldOut.slice(0, 8).map((c, i) => [{ role: "user", content: `${passagesText(docs.slice(100 + i * 3, 103 + i * 3))}\n\nQuestion: ${c.claim}\nAnswer:` }]);
const qpm = {};
for (const n of ALL ? [1, 2, 4] : []) {
  const m = await loadLocalChat(GGUF, { sequences: n });
  await m.chat(questions[0], { maxTokens: 4 }); // warm
  const t = performance.now();
  await Promise.all(questions.map((q) => m.chat(q, { maxTokens: 64 })));
  qpm[n] = questions.length / ((performance.now() - t) / 60000);
}

// ── Templates end to end, three held-out claims each. ──
async function runTemplate(doc, text, cache) {
  const t = performance.now();
  const handle = startRun(loadGraph(doc, registry), { services, inputs: { question: { id: "q", text } }, ...(cache ? { cache } : {}) });
  const result = await handle.result;
  if (result.status !== "ok") throw new Error(`${doc.name}: ${JSON.stringify(result.nodes.find((n) => n.error)?.error)}`);
  // Prompt tokens the model calls sent, and how many of them a sequence already held (not read again).
  const usage = handle.events.items.filter((e) => e.type === "span-end" && e.data?.usage).map((e) => e.data.usage);
  const prompt = usage.reduce((n, u) => n + u.promptTokens, 0);
  const reused = usage.reduce((n, u) => n + (u.cachedPromptTokens ?? 0), 0);
  const answered = generatedTokens(handle.events.items);
  return { s: (performance.now() - t) / 1000, calls: usage.length, prompt, reused, answered, byId: Object.fromEntries(result.nodes.map((n) => [n.id, n])), events: handle.events.items };
}
const template = (name) => JSON.parse(readFileSync(templatePath(name), "utf8"));
const perTemplate = [];
const step = (s) => process.stderr.write(`bench/llm: ${s}\n`);
for (const name of measures("templates") ? ["verifai", "core-gpt", "arxivbot", "openscholar", "synth-openscholar"] : []) {
  step(`template ${name}`);
  const done = [];
  for (const c of heldOut.slice(0, TEMPLATE_CLAIMS)) done.push(await runTemplate(template(name), c.claim));
  const mean = (f) => done.reduce((x, r) => x + f(r), 0) / done.length;
  perTemplate.push([
    name,
    fmt(mean((r) => r.s)),
    done.map((r) => fmt(r.s)).join(" / "),
    fmt(mean((r) => r.calls)),
    ...[(r) => r.prompt, (r) => r.prompt - r.reused, (r) => r.answered].map((f) => fmt(mean(f), 0)),
  ]);
}

// ── Quality: Verif.ai's answers three ways; claim verification two ways. ──
// The citation judge is Citeflow's NLI model, as in the product (pair-nli-scifact, static vectors, finds a sentence
// entailed by itself 0.412 of the time: bench/encoders.mjs).
const CITATION_JUDGE = DEFAULT_MODELS.nli;
const goldLabels = readGoldLabels(join(scifact, "claims_train.jsonl"), join(scifact, "corpus.jsonl"));
/** The gold answer for the passages this run's generator was given, as an Answer. */
function goldFor(c, r) {
  const items = r.byId.top.outputs.items;
  const given = r.byId.answer.outputs.answer.allowed.map((id) => items.find((p) => p.id === id));
  return toAnswer(goldAnswer(goldLabels, String(c.id), given, 1), given);
}
/** eval.citations' judge, for answers scored outside the graph. */
const judgeEntails = nliEntails(async (pairs) => (await services.nli({ id: services.modelId("nli", CITATION_JUDGE) })).classify(pairs));
function verifai(answerParams) {
  const doc = template("verifai");
  const node = (id) => doc.nodes.find((n) => n.id === id);
  node("answer").params = { ...node("answer").params, ...answerParams };
  node("citations").params = { ...node("citations").params, model: CITATION_JUDGE };
  return doc;
}
// Gemma alone is named by its file; Citeflow's adapter (citeflow train lm) by base+adapter, when installed.
const ways = !measures("answers")
  ? []
  : [
      ...(adapterPath
        ? [
            [`Gemma 3 270M + ${adapterName}, quoting (the default)`, verifai({ generator: "llm", model: `${GGUF}+${adapterPath}`, quote: true }), undefined, true],
            [`Gemma 3 270M + ${adapterName}, its own words, a citation required`, verifai({ generator: "llm", model: `${GGUF}+${adapterPath}`, quote: false, requireCitation: true })],
            [`Gemma 3 270M + ${adapterName}, its own words, citation grammar`, verifai({ generator: "llm", model: `${GGUF}+${adapterPath}`, quote: false, requireCitation: false })],
          ]
        : []),
      ...(NAMED ? [[`${NAMED}, quoting (held to it in-process)`, verifai({ generator: "llm", model: NAMED, quote: true })]] : []),
      ...(!measures("peers")
        ? []
        : [
            ["Gemma 3 270M alone, quoting", verifai({ generator: "llm", model: GGUF, quote: true })],
            ["Gemma 3 270M alone, its own words, a citation required", verifai({ generator: "llm", model: GGUF, quote: false, requireCitation: true })],
            ["Gemma 3 270M, free", verifai({ generator: "llm", model: GGUF, constrainCitations: false })],
            ["extractive baseline", verifai({ generator: "extractive" })],
            // The adapter's training target: the answer SciFact's labels give for the passages the generator was given.
            ["SciFact's gold answers (the adapter's training target)", verifai({ generator: "extractive" }), goldFor],
          ]),
    ];
// Claims of the same split for which SciFact's corpus holds no evidence: an answer should say the papers do not answer (20, or fewer at a smoke size).
const NEI_CLAIMS = Number(process.env.CITEFLOW_BENCH_NEI_CLAIMS || Math.min(20, N_CLAIMS));
const noEvidence = claims.filter((c) => heldIds.has(c.id) && gold(c) === "NO_EVIDENCE").slice(0, NEI_CLAIMS);
const quality = [];
for (const [label, doc, replace, refusals] of ways) {
  step(`quality: ${label}`);
  const m = { precision: [], recall: [], f1: [], hallucinated: 0, cited: 0, citations: 0, onGold: 0, statements: 0, rationaleStatements: 0, rationales: 0, quoted: 0 };
  for (const c of heldOut) {
    const r = await runTemplate(doc, c.claim);
    const answer = replace ? replace(c, r) : r.byId.answer.outputs.answer;
    const metrics = replace ? await citationScores(answer, r.byId.top.outputs.items, judgeEntails) : r.byId.citations.outputs.metrics;
    for (const k of ["precision", "recall", "f1"]) m[k].push(metrics[k]);
    m.hallucinated += answer.invalidCitations.length;
    m.cited += Object.keys(answer.citations).length > 0 ? 1 : 0;
    // Citations on the papers SciFact gives as this claim's evidence.
    const cited = Object.values(answer.citations).map((id) => id.slice(0, id.lastIndexOf("#")));
    m.citations += cited.length;
    m.onGold += cited.filter((d) => d in (c.evidence ?? {})).length;
    // Which sentences it quotes, against the rationale sentences the passages it was given show (bench/rationales.mjs).
    const items = r.byId.top.outputs.items;
    const shown = goldRationales(
      goldLabels,
      String(c.id),
      answer.allowed.map((id) => items.find((p) => p.id === id)),
    ).map((x) => x.sentence);
    const counts = rationaleCounts(answer.text, shown);
    for (const k of ["statements", "rationaleStatements", "rationales", "quoted"]) m[k] += counts[k];
  }
  let refused = 0;
  for (const c of refusals ? noEvidence : []) refused += Object.keys((await runTemplate(doc, c.claim)).byId.answer.outputs.answer.citations).length === 0 ? 1 : 0;
  const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
  quality.push([
    label,
    fmt(mean(m.precision), 3),
    fmt(mean(m.recall), 3),
    fmt(mean(m.f1), 3),
    fmt(m.hallucinated / heldOut.length, 2),
    `${m.cited}/${heldOut.length}`,
    m.citations ? fmt(m.onGold / m.citations, 2) : "–",
    m.statements ? `${fmt(m.rationaleStatements / m.statements, 2)} (${m.rationaleStatements}/${m.statements})` : "–",
    m.rationales ? `${fmt(m.quoted / m.rationales, 2)} (${m.quoted}/${m.rationales})` : "–",
    refusals ? `${refused}/${noEvidence.length}` : "–",
  ]);
}
const verification = [];
// The judges: Gemma with the judge's adapter (verify.llm's default), alone and with the answers' adapter reading the
// passages (OpenScholar's protocol), and the NLI model. In-process, verify.llm scores "true" against "false"; each
// model's threshold on log P(true) − log P(false) was chosen on the dev split's 100 claims (`citeflow eval scifact
// --judge llm --binary`, which prints it), never here; the judge adapter's and the base's are verify.llm's defaults.
// Threshold 0 is OpenScholar's protocol: the likelier answer.
const DEV_THRESHOLD = { base: JUDGE_THRESHOLD, adapter: 3.65, judge: JUDGE_ADAPTER_THRESHOLD };
const judgePath = findAdapter(JUDGE_ADAPTER, [MODELS, home]);
const judges = !measures("judges")
  ? []
  : [
      ...(judgePath ? [[`Gemma 3 270M + ${JUDGE_ADAPTER}, threshold ${DEV_THRESHOLD.judge} (dev split; verify.llm's default)`, "llm", `${GGUF}+${judgePath}`, DEV_THRESHOLD.judge]] : []),
      ...(adapterPath
        ? [
            [`Gemma 3 270M + ${adapterName} reads the passages`, "llm", `${GGUF}+${adapterPath}`, 0],
            [`Gemma 3 270M + ${adapterName}, threshold ${DEV_THRESHOLD.adapter} (dev split)`, "llm", `${GGUF}+${adapterPath}`, DEV_THRESHOLD.adapter],
          ]
        : []),
      ...(NAMED ? [[`${NAMED} reads the passages`, "llm", NAMED]] : []),
      ...(!measures("peers")
        ? []
        : [
            ["Gemma 3 270M reads the passages (OpenScholar)", "llm", GGUF, 0],
            [`Gemma 3 270M, threshold ${DEV_THRESHOLD.base} (dev split; verify.llm's default)`, "llm", GGUF, DEV_THRESHOLD.base],
            ["pair-nli-scifact (NLI, trained on all SciFact train claims)", "nli"],
          ]),
    ];
for (const [label, judge, model, threshold] of judges) {
  step(`verification: ${label}`);
  const pairs = [];
  for (const c of heldOut) {
    const doc = sciFactVerificationGraph({ k: 3, judge, ...(model ? { model } : {}), ...(threshold !== undefined ? { threshold } : {}) });
    const r = await runTemplate(doc, c.claim);
    const predicted = aggregateVerdicts(r.byId.verify.outputs.verdicts);
    pairs.push({ gold: gold(c) === "SUPPORT" ? "true" : "false", predicted: predicted === "SUPPORT" ? "true" : "false" });
  }
  const s = scoreClassification(pairs, ["true", "false"]);
  const t = pairs.filter((p) => p.predicted === "true").length;
  verification.push([label, fmt(s.accuracy, 3), fmt(s.macro_f1, 3), `${t}/${pairs.length}`]);
}
// arXivBot's sufficiency check against gold retrieval: "sufficient" should mean a paper SciFact gives
// as the claim's evidence is among the three passages it read. In-process, Gemma scores "enough"
// against "not"; with judge "reranker", the reranker's best score for the passages read decides (each
// default was chosen on the dev split, never here). Each check's scores also say how well it ranks (bench/sufficiency.mjs).
const sufficiency = [];
const checkers = !measures("sufficiency")
  ? []
  : [
      ["Gemma 3 270M scores enough against not (judge: llm, arXivBot's own check)", { model: GGUF }],
      [`${DEFAULT_MODELS.reranker}'s best score for the passages read (judge: reranker, arXivBot's template)`, { model: GGUF, judge: "reranker", reranker: DEFAULT_MODELS.reranker }],
      ...(NAMED ? [[NAMED, { model: NAMED }]] : []),
    ];
// The checks read the same query, passages and claims: those come from the cache after the first.
const upstream = new MemoryCache();
for (const [label, params] of checkers) {
  step(`sufficiency: ${label}`);
  const seen = [];
  for (const c of heldOut.slice(0, SUFFICIENCY_CLAIMS)) {
    const doc = template("arxivbot");
    // The answer after the check is not measured here.
    doc.nodes = doc.nodes.filter((n) => !["answer", "citations"].includes(n.id));
    doc.edges = doc.edges.filter((e) => !/^(answer|citations)\./.test(e.to));
    for (const n of doc.nodes) if (["query.enrich", "claims.extract"].includes(n.type)) n.params = { ...n.params, model: params.model };
    doc.nodes.find((n) => n.id === "enough").params = { ...doc.nodes.find((n) => n.id === "enough").params, ...params };
    const r = await runTemplate(doc, c.claim, upstream);
    seen.push({
      sufficient: r.byId.enough.outputs.decision === "sufficient",
      goldRead: r.byId.top3.outputs.items.some((p) => parsePassageId(p.id).docId in (c.evidence ?? {})),
      score: checkScore(r.events),
    });
  }
  sufficiency.push(sufficiencyRow(label, seen, SPLIT === "dev"));
}
// arXivBot's claims (claims.extract), which its answer is made of, from Gemma alone, with the shipped claims adapter
// (or $CITEFLOW_BENCH_CLAIMS_ADAPTER) and from the extractive baseline: is each a sentence SciFact gives as the evidence?
const claimsAdapterPath = process.env.CITEFLOW_BENCH_CLAIMS_ADAPTER || findAdapter(CLAIMS_ADAPTER, [MODELS, home]);
const claimModels = !measures("claims")
  ? []
  : [["Gemma 3 270M", GGUF], ...(claimsAdapterPath ? [[`Gemma 3 270M + ${basename(dirname(claimsAdapterPath))}`, `${GGUF}+${claimsAdapterPath}`]] : []), ["extractive baseline (no model)", "none"]];
const claimRows = [];
for (const [label, model] of claimModels) {
  step(`claims: ${label}`);
  const perQuestion = [];
  for (const c of heldOut.slice(0, SUFFICIENCY_CLAIMS)) {
    const doc = template("arxivbot");
    doc.nodes = doc.nodes.filter((n) => ["question", "query", "retrieve", "top3", "claims"].includes(n.id));
    doc.edges = doc.edges.filter((e) => doc.nodes.some((n) => e.to.startsWith(`${n.id}.`)));
    for (const n of doc.nodes) if (n.type === "query.enrich" || n.type === "claims.extract") n.params = { ...n.params, model: n.type === "query.enrich" ? GGUF : model };
    perQuestion.push(claimsFaithfulness(goldLabels, c, await runTemplate(doc, c.claim, upstream)));
  }
  claimRows.push(claimsRow(label, perQuestion));
}
const alwaysTrue = heldOut.filter((c) => gold(c) === "SUPPORT").length / heldOut.length;

// ── Report. ──
console.log(`\nIn-process LLM: ${GGUF} (${(modelBytes / 1e6).toFixed(0)} MB), llama.cpp CPU, ${chat1.contextSize}-token context per sequence`);
console.log(`memory bandwidth (best 512 MiB copy): ${(best / 1e9).toFixed(1)} GB/s → generation limit ${fmt(limit)} tokens/s (bandwidth / model bytes)`);
console.log(`prompt: ${fmt(promptTps, 0)} tokens/s (median of ${SPEED_PROMPTS} prompts of ~${median(speed.map((u) => u.promptTokens))} tokens)`);
console.log(`generation: ${fmt(genTps)} tokens/s = ${fmt(genTps / limit, 2)}× the bandwidth limit`);
if (adapterGenTps !== undefined)
  console.log(`generation with ${adapterName}: ${fmt(adapterGenTps)} tokens/s; ${fmt(adapterRatio, 2)}× the base's (median of each prompt's ratio, base and adapter taking turns)`);
if (ALL)
  console.log(
    `questions per minute (8 questions, 64 tokens each): ${[1, 2, 4].map((n) => `${n} sequence${n > 1 ? "s" : ""} ${fmt(qpm[n])}`).join(" · ")} (${fmt(qpm[2] / qpm[1], 2)}× and ${fmt(qpm[4] / qpm[1], 2)}× one at a time)`,
  );
if (measures("templates")) {
  console.log(`\nseconds per question, end to end (${TEMPLATE_CLAIMS} ${SPLIT} claims, default maxTokens):`);
  rows(["template", "mean s", "each", "model calls", "prompt tokens sent", "prompt tokens read (the rest reused)", "tokens generated"], perTemplate);
}
if (quality.length) {
  console.log(`\nVerif.ai answers on ${heldOut.length} ${SPLIT} claims with evidence (ALCE citation scores, NLI judge ${CITATION_JUDGE}):`);
  rows(
    [
      "answers from",
      "precision",
      "recall",
      "F1",
      "hallucinated / answer",
      "answers citing",
      "citations on gold papers",
      "cited statements that are rationale sentences",
      "shown rationale sentences quoted",
      `says the papers do not answer, ${noEvidence.length} claims without evidence`,
    ],
    quality,
  );
}
if (judges.length) {
  console.log(`\nSciFact binary verification on the same ${heldOut.length} claims, top 3 hybrid passages (always "true" scores ${fmt(alwaysTrue, 3)}):`);
  rows(["judge", "accuracy", "macro-F1", "said true"], verification);
}
if (sufficiency.length) {
  console.log(`\narXivBot's sufficiency check on the first ${Math.min(SUFFICIENCY_CLAIMS, heldOut.length)} ${SPLIT} claims against gold retrieval (a gold paper among the 3 passages read):`);
  rows(SUFFICIENCY_COLUMNS, sufficiency);
}
if (claimRows.length) {
  console.log(`\narXivBot's claims (claims.extract), which its answer is made of, on the same claims (its query from ${basename(GGUF)}):`);
  rows(CLAIMS_COLUMNS, claimRows);
}
if (minilmScores && staticScores) {
  console.log(`\nretrieval on ${judged.length} judged training claims, nDCG@10 (published bge-small 0.72 and all-MiniLM-L6-v2 0.65 are on SciFact test):`);
  rows(
    ["embedder", "dense", "hybrid (0.7 BM25 + 0.3 dense)", "ingest 6,237 passages"],
    [
      [EMBEDDER, fmt(minilmScores.dense, 3), fmt(minilmScores.hybrid, 3), ingestS !== undefined ? `${fmt(ingestS)} s` : "(the demo's store)"],
      ["static-use-en (offline)", fmt(staticScores.dense, 3), fmt(staticScores.hybrid, 3), `${fmt(staticIngestS)} s`],
    ],
  );
}
execFileSync("rm", ["-rf", staticStore]);
