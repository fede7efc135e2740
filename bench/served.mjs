// Verif.ai's template over a question set against a served model: `citeflow run verifai --questions
// … --parallel P` on the SciFact store, with its answers written by a simulated OpenAI-compatible
// server (loopback) that behaves like a GPU server under load: at most STREAMS calls at once (a 429
// with Retry-After past that), each call's first token after a time that grows with its prompt
// (TTFT_MS + prompt tokens / PREFILL tokens a second), then its completion at RATE tokens a second.
// Retrieval (hybrid, all-MiniLM-L6-v2), the papers' join, claims and NLI verification (Citeflow's
// shipped cross-encoder) run in the CLI, on this machine's two cores, as they would for a user.
// The server's capacity is what its STREAMS slots produce when none is ever idle: STREAMS × the
// set's completion tokens over the seconds its calls took. The ratio is the completion tokens a second
// the set got (from the CLI's start to its end) over that capacity. Peak RSS: the CLI's maxRSS.
// The CLI is told the server's limit ($CITEFLOW_SERVER_CONCURRENCY = STREAMS), as a user would be.
// The next row runs the whole set again up to the answer (--to answer), without the NLI nodes; the last two (a tenth
// of the set, then all of it) on Verif.ai's template with a reranker after retrieval, the NLI model and the reranker
// served ($CITEFLOW_NLI_MODEL, $CITEFLOW_RERANK_MODEL = tei:<url>) by simulated text-embeddings-inference servers
// (bench/tei-sim.mjs: ENC_SLOTS batches at once, ENC_RATE pairs a second a batch), answering stand-in scores. Before it, a check that
// served and in-process verdicts agree: `citeflow eval scifact` on CHECK claims ($CITEFLOW_BENCH_SERVED_CHECK, default 20) in-process, then against the simulated
// server answering with the in-process model's own probabilities.
// Needs the all-MiniLM-L6-v2 SciFact store: $CITEFLOW_BENCH_STORE, else the demo's (npm run demo).
// Run alone: node bench/served.mjs   ($CITEFLOW_BENCH_SERVED_QUESTIONS questions, default 1000, at 32 in flight;
// the other rows run the first tenth of them, one at a time the first twentieth; CITEFLOW_BENCH_SERVED_ONLY=encoders
// runs only the last three rows and the check; a disagreement fails the benchmark).
import { execFile } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_MODELS, loadNli, modelsDirsFromEnv } from "@citeflow/models";
import { CLI, USAGE, usage } from "./cli-usage.mjs";
import { DATA, scratch } from "./paths.mjs";
import { LABELS, startTeiSim } from "./tei-sim.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const N = Number(process.env.CITEFLOW_BENCH_SERVED_QUESTIONS || 1000);
const STREAMS = 32;
const RATE = 40;
const TTFT_MS = 40;
const PREFILL = 20_000;
const ENC_SLOTS = 4;
const ENC_RATE = 2000;
const CHECK = Number(process.env.CITEFLOW_BENCH_SERVED_CHECK || 20);
const store = process.env.CITEFLOW_BENCH_STORE || join(root, ".citeflow", "stores", "scifact-all-MiniLM-L6-v2");
if (!existsSync(store)) throw new Error(`bench/served needs the all-MiniLM-L6-v2 SciFact store: ${store} is not there (npm run demo builds it; or set $CITEFLOW_BENCH_STORE)`);

/** The simulated model's answer: the first sentence of each of the first three papers, cited. */
function answer(prompt) {
  const papers = [...prompt.matchAll(/^\[(\d+)\] [^\n]*\n([^\n]+)/gm)].slice(0, 3);
  if (!papers.length) return "The papers do not answer the question.";
  return papers.map(([, n, text]) => `${(/^.{20,240}?[.!?](?=\s|$)/.exec(text)?.[0] ?? text.slice(0, 240)).replace(/[.!?]$/, "")} [${n}].`).join(" ");
}

const tokens = (text) => Math.ceil(text.length / 4);
let inFlight = 0;
let seen;
const server = createServer(async (req, res) => {
  let body = "";
  for await (const c of req) body += c;
  if (inFlight >= STREAMS) {
    seen.refused++;
    res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
    return res.end(JSON.stringify({ error: { message: "too many requests in flight", type: "rate_limit_exceeded" } }));
  }
  inFlight++;
  const prompt = JSON.parse(body)
    .messages.map((m) => m.content)
    .join("\n\n");
  const text = answer(prompt);
  const [p, c] = [tokens(prompt), tokens(text)];
  const ms = TTFT_MS + (p / PREFILL) * 1000 + (c / RATE) * 1000;
  await new Promise((r) => setTimeout(r, ms));
  inFlight--;
  seen.calls++;
  seen.completion += c;
  seen.served += ms / 1000;
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      id: "c",
      object: "chat.completion",
      created: 0,
      model: "sim",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: text } }],
      usage: { prompt_tokens: p, completion_tokens: c, total_tokens: p + c },
    }),
  );
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/v1`;

// N distinct questions: the SciFact training claims, then as questions ("Is it true that …?").
const dir = scratch("citeflow-bench-served-");
const claims = readFileSync(join(DATA, "scifact", "claims_train.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l).claim);
const questions = (n) => {
  const f = join(dir, `q${n}.jsonl`);
  const text = (i) => (i < claims.length ? claims[i] : `Is it true that ${claims[i % claims.length].replace(/\.$/, "")}?`);
  writeFileSync(f, Array.from({ length: n }, (_, i) => JSON.stringify({ id: `q${i}`, question: text(i) })).join("\n"));
  return f;
};

const CORES = availableParallelism();

/** The set of n questions at `parallel` in flight; `extra`: more arguments for citeflow run (e.g. --to); `graph`: a template's name or a graph file. */
function set(n, parallel, extra = [], more = {}, graph = "verifai") {
  const env = { ...process.env, ...more, CITEFLOW_CHAT_MODEL: "sim", OPENAI_BASE_URL: url, OPENAI_API_KEY: "sk-bench", CITEFLOW_SERVER_CONCURRENCY: String(STREAMS) };
  const runs = join(dir, `runs-${n}-${parallel}${extra.join("")}${Object.keys(more).join("")}`);
  const args = ["run", graph, "--questions", questions(n), "--store", store, "--runs", runs, "--json", "--parallel", String(parallel), ...extra];
  seen = { calls: 0, completion: 0, served: 0, refused: 0 };
  const t0 = performance.now();
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ["--import", USAGE, CLI, ...args], { env, maxBuffer: 1 << 28 }, (err, stdout, stderr) => {
      // A set with failed runs exits 1 and still prints its summary.
      if (err && !stdout) return reject(new Error(stderr));
      const wall = (performance.now() - t0) / 1000;
      const out = JSON.parse(stdout);
      const runs = out.runs ?? [out];
      const failed = runs.filter((r) => r.status !== "ok").length;
      const capacity = (STREAMS * seen.completion) / seen.served;
      // What the CLI's own work allows: its cores over the CPU seconds a question took (the run's start included).
      const { peakMiB, cpuSeconds, tenths } = usage(stderr);
      const cpu = cpuSeconds / n;
      const cpuLimit = (CORES / cpu) * (seen.completion / n);
      resolve({ wall, failed, peak: peakMiB, tenths, tps: seen.completion / wall, capacity, cpu, cpuLimit });
    }),
  );
}

console.log(
  `simulated server: ${STREAMS} calls at once (429 past that), first token after ${TTFT_MS} ms + prompt / ${PREFILL} tokens/s, then ${RATE} tokens/s a call; Verif.ai's template over ${N} SciFact claims; ${CORES} cores`,
);
console.log(
  "--parallel   questions  failed   wall s   questions/min   completion tok/s   server capacity tok/s   ratio   CLI CPU s a question   tok/s the cores allow   ratio to the lower limit   429s   peak RSS MiB",
);
const part = (d) => Math.max(1, Math.round(N / d));
/** One row of the table: the set's figures against the server's capacity and against what the cores allow. */
function row(label, n, r) {
  const cols = [
    [label, 10],
    [n, 9],
    [r.failed, 6],
    [r.wall.toFixed(1), 6],
    [((60 * n) / r.wall).toFixed(0), 13],
    [r.tps.toFixed(0), 16],
    [r.capacity.toFixed(0), 21],
    [(r.tps / r.capacity).toFixed(2), 5],
    [r.cpu.toFixed(2), 20],
    [r.cpuLimit.toFixed(0), 21],
    [(r.tps / Math.min(r.capacity, r.cpuLimit)).toFixed(2), 24],
    [seen.refused, 4],
    [r.peak.toFixed(0), 12],
  ];
  console.log(cols.map(([v, w]) => String(v).padStart(w)).join("   "));
}
const ENCODERS_ONLY = process.env.CITEFLOW_BENCH_SERVED_ONLY === "encoders";
for (const [n, p] of ENCODERS_ONLY
  ? []
  : [
      [part(20), 1],
      [part(10), 4],
      [part(10), 16],
      [part(10), 32],
      [N, 32],
      [part(10), 64],
    ]) {
  row(p, n, await set(n, p));
}
// The same set without the NLI nodes on the question's path: retrieval, the papers' join and the answer.
console.log("without the NLI nodes (--to answer):");
row(32, N, await set(N, 32, ["--to", "answer"]));

/** `citeflow eval scifact` on the first CHECK training claims: each claim's verdict labels, per passage and for the claim. */
function verdictsOf(more) {
  const claimsFile = join(dir, "check-claims.jsonl");
  const lines = readFileSync(join(DATA, "scifact", "claims_train.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .slice(0, CHECK);
  writeFileSync(claimsFile, lines.join("\n") + "\n");
  const out = join(dir, `check-${Object.keys(more).length ? "served" : "local"}.jsonl`);
  const args = ["eval", "scifact", "--claims", claimsFile, "--store", store, "--out", out, "--json", "--runs", join(dir, "check-runs")];
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...more } }, (err, _stdout, stderr) => {
      if (err) return reject(new Error(stderr));
      const records = readFileSync(out, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      resolve(records.map((r) => [r.verdict?.label, ...r.verdicts.map((v) => v.label)].join(" ")));
    }),
  );
}
const nli = await loadNli(DEFAULT_MODELS.nli, { modelsDirs: modelsDirsFromEnv(process.env) });
// TEI sends a SciFact-style model's pairs claim first: [claim, premise].
const modelScores = async (pairs) => nli.classify(pairs.map(([hypothesis, premise]) => ({ premise, hypothesis })));
const checkServer = await startTeiSim({ slots: ENC_SLOTS, rate: ENC_RATE, score: modelScores, modelId: DEFAULT_MODELS.nli });
const local = await verdictsOf({});
const served = await verdictsOf({ CITEFLOW_NLI_MODEL: `tei:${checkServer.url}` });
checkServer.close();
const same = local.filter((v, i) => v === served[i]).length;
console.log(
  `served and in-process verdicts (citeflow eval scifact, ${CHECK} claims, ${DEFAULT_MODELS.nli} in-process against the same model's probabilities served over TEI's /predict, labels ${LABELS.join(" / ")}): the same on ${same} of ${local.length} claims (the claim's verdict and each passage's)`,
);
if (same !== local.length) process.exitCode = 1;

// Verif.ai's template with a reranker after retrieval (rerank.cross-encoder over its 50 passages), so that both
// encoders are on the question's path: the NLI model and the reranker each served by its own simulated TEI server.
const template = JSON.parse(readFileSync(join(root, "packages", "nodes", "templates", "verifai.citeflow.json"), "utf8"));
template.nodes.push({ id: "rerank", type: "rerank.cross-encoder", version: 1, params: {}, ui: { x: 270, y: 100 } });
template.edges = template.edges.flatMap((e) =>
  e.from === "retrieve.passages"
    ? [
        { from: "retrieve.passages", to: "rerank.passages" },
        { from: "question.question", to: "rerank.question" },
        { from: "rerank.passages", to: e.to },
      ]
    : [e],
);
const reranked = join(dir, "verifai-reranked.citeflow.json");
writeFileSync(reranked, JSON.stringify(template));
const tei = await startTeiSim({ slots: ENC_SLOTS, rate: ENC_RATE });
const teiRerank = await startTeiSim({ slots: ENC_SLOTS, rate: ENC_RATE, kind: "reranker" });
const servedEncoders = { CITEFLOW_NLI_MODEL: `tei:${tei.url}`, CITEFLOW_RERANK_MODEL: `tei:${teiRerank.url}` };
console.log(
  `Verif.ai with a reranker after retrieval, the NLI model and the reranker served (simulated TEI servers, one each: ${ENC_SLOTS} batches at once, ${ENC_RATE} pairs/s a batch, stand-in scores):`,
);
// 100 questions first, for peak memory against 1,000 (the encoders' figures below are the 1,000's).
row(32, part(10), await set(part(10), 32, [], servedEncoders, reranked));
for (const t of [tei, teiRerank]) Object.assign(t.seen, { batches: 0, pairs: 0, busy: 0 });
const r = await set(N, 32, [], servedEncoders, reranked);
row(32, N, r);
// Where the memory goes as the set runs: resident, V8's heap, and what is outside the heap (models, the store), by tenths.
const mib = (xs) => xs.map((x) => x.toFixed(0)).join(" ");
console.log(
  `  memory by tenths of the set's time, MiB: resident ${mib(r.tenths.map(([rss]) => rss))}; V8's heap ${mib(r.tenths.map(([, heap]) => heap))}; outside the heap ${mib(r.tenths.map(([rss, heap]) => rss - heap))}`,
);
for (const [name, t] of [
  ["NLI", tei],
  ["reranker", teiRerank],
])
  console.log(
    `  the ${name} server: ${t.seen.pairs} pairs (${(t.seen.pairs / N).toFixed(0)} a question) in ${t.seen.batches} batches, its slots busy ${(t.seen.busy / (ENC_SLOTS * r.wall)).toFixed(2)} of the set's time`,
  );
tei.close();
teiRerank.close();
server.close();
