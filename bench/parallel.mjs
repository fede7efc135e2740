// A question set against a served model: `citeflow run --questions` one at a time and with
// --parallel, against a simulated OpenAI-compatible server (loopback) that answers each call after a
// fixed latency and serves up to CAPACITY calls at once. The physical limit for P questions in flight
// (one call each) is min(P, CAPACITY) / latency questions a second; the ratio says how much of it
// Citeflow keeps (run store writes, graph work and the client are the rest). Also prints the median
// time of a question (the sum of its nodes' times, as each run recorded them). The ratio counts the
// CLI's start (about 0.7 s: loading Node and Citeflow); "server busy" is the server's own view: the
// time it served over the slots it had (min(P, CAPACITY)) from the set's first call to its last answer.
// Also the CLI's peak resident memory (its maxRSS, written as it exits): flat from 100 to 1,000
// questions when nothing a run leaves behind is kept.
// Run alone: node bench/parallel.mjs   ($CITEFLOW_BENCH_QUESTIONS questions, default 1000; the
// one-at-a-time baseline runs the first 100 of them).
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";

import { join } from "node:path";
import { CLI, USAGE, usage } from "./cli-usage.mjs";
import { DATA, scratch } from "./paths.mjs";

const N = Number(process.env.CITEFLOW_BENCH_QUESTIONS || 1000);
const LATENCY_MS = 200;
const CAPACITY = 32;

// What the simulated model says: a query for query.enrich; for synth a question, an answer citing
// [1] (each answer prompt its own), "Better: B" and full rubric marks.
let asked = 0;
function reply(request) {
  const prompt = JSON.parse(request).messages.at(-1).content;
  if (prompt.includes("Write one literature-review question")) return `Does treatment ${asked++} lower blood pressure?`;
  if (prompt.includes('"Better: A" or "Better: B"')) return "Both cite their papers.\nBetter: B";
  if (prompt.includes("Organisation: <1-5>")) return "Clear and supported.\nOrganisation: 5\nFactuality: 5";
  if (prompt.includes("Answer:")) return `It lowers it in trials [1]. (${prompt.slice(0, 12)})`;
  return `trials of compound Q${/Q(\d+)/.exec(prompt)?.[1] ?? "?"}`;
}

// The simulated server: every call waits LATENCY_MS; past CAPACITY calls at once they queue. It
// notes when the set's first call came and its last answer left, and how long it served in all.
let busy = 0;
const queue = [];
let seen = { first: Infinity, last: 0, served: 0 };
const server = createServer(async (req, res) => {
  seen.first = Math.min(seen.first, performance.now());
  let text = "";
  for await (const c of req) text += c;
  if (busy >= CAPACITY) await new Promise((r) => queue.push(r));
  busy++;
  await new Promise((r) => setTimeout(r, LATENCY_MS));
  busy--;
  queue.shift()?.();
  const body = {
    id: "c",
    object: "chat.completion",
    created: 0,
    model: "sim",
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: reply(text) } }],
    usage: { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 },
  };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
  seen.served += LATENCY_MS / 1000;
  seen.last = performance.now();
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/v1`;

const dir = scratch("citeflow-bench-parallel-");
const graph = join(dir, "enrich.citeflow.json");
writeFileSync(
  graph,
  JSON.stringify({
    citeflow: 1,
    name: "enrich",
    inputs: { question: { type: "Question" } },
    nodes: [
      { id: "q", type: "input.question", version: 1, params: {} },
      { id: "enrich", type: "query.enrich", version: 1, params: {} },
    ],
    edges: [{ from: "q.question", to: "enrich.question" }],
  }),
);
const questions = (n) => {
  const f = join(dir, `q${n}.jsonl`);
  writeFileSync(f, Array.from({ length: n }, (_, i) => JSON.stringify({ id: `q${i}`, question: `Does compound Q${i} lower blood pressure?` })).join("\n"));
  return f;
};

/** Runs the CLI against the simulated server; its wall time, stdout, peak RSS and how busy it kept the server. */
function cli(args, parallel) {
  const env = { ...process.env, CITEFLOW_CHAT_MODEL: "sim", OPENAI_BASE_URL: url, OPENAI_API_KEY: "sk-bench" };
  const t0 = performance.now();
  seen = { first: Infinity, last: 0, served: 0 };
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ["--import", USAGE, CLI, ...args, "--json", "--parallel", String(parallel)], { env, maxBuffer: 1 << 28 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(stderr));
      const wall = (performance.now() - t0) / 1000;
      const peak = usage(stderr).peakMiB;
      // How busy the set kept the server while it ran: time served over the slots it could have served in.
      const busy = seen.served / (Math.min(parallel, CAPACITY) * ((seen.last - seen.first) / 1000));
      resolve({ wall, stdout, peak, busy });
    }),
  );
}

async function set(n, parallel) {
  const r = await cli(["run", graph, "--questions", questions(n), "--runs", join(dir, `runs-${n}-${parallel}`)], parallel);
  const ms = JSON.parse(r.stdout)
    .runs.map((x) => x.nodes.reduce((sum, node) => sum + (node.ms ?? 0), 0))
    .sort((a, b) => a - b);
  return { ...r, perSecond: n / r.wall, median: ms[Math.floor(ms.length / 2)] };
}

console.log(`simulated server: ${LATENCY_MS} ms a call, ${CAPACITY} calls at once; query.enrich over ${N} questions (one call each)`);
console.log("--parallel   questions  wall s   questions/s   physical limit/s   ratio   server busy   median ms a question   peak RSS MiB");
for (const [n, p] of [
  [Math.min(N, 100), 1],
  [N, 4],
  [N, 16],
  [Math.min(N, 100), 32],
  [N, 32],
]) {
  const r = await set(n, p);
  const limit = Math.min(p, CAPACITY) / (LATENCY_MS / 1000);
  console.log(
    `${String(p).padStart(10)}   ${String(n).padStart(9)}  ${r.wall.toFixed(1).padStart(6)}   ${r.perSecond.toFixed(2).padStart(11)}   ${limit.toFixed(1).padStart(16)}   ${(r.perSecond / limit).toFixed(2).padStart(5)}   ${r.busy.toFixed(2).padStart(11)}   ${r.median.toFixed(0).padStart(8)}   ${r.peak.toFixed(0).padStart(20)}`,
  );
}

// citeflow synth over N abstracts of a small lexical store: per question, the question is written (one
// call), then a graph answers it twice with two prompts, a pairwise judge keeps one and a rubric
// judge marks it (four calls). What counts is the share of the server's capacity the set used while it ran.
const corpus = join(dir, "corpus.jsonl");
writeFileSync(
  corpus,
  readFileSync(join(DATA, "scifact", "corpus.jsonl"), "utf8")
    .split("\n")
    .slice(0, Math.max(N, 100))
    .join("\n"),
);
const store = join(dir, "store");
await new Promise((resolve, reject) =>
  execFile(process.execPath, [CLI, "ingest", corpus, "--store", store, "--embedder", "static-use-en"], (err, _o, stderr) => (err ? reject(new Error(stderr)) : resolve())),
);
const synthGraph = join(dir, "synth.citeflow.json");
const node = (id, type, params = {}) => ({ id, type, version: 1, params });
const edge = (from, to) => ({ from, to });
writeFileSync(
  synthGraph,
  JSON.stringify({
    citeflow: 1,
    name: "synth, served calls only",
    inputs: { question: { type: "Question" } },
    nodes: [
      node("question", "input.question"),
      node("retrieve", "retrieve.lexical", { k: 5 }),
      { ...node("draft", "generate.answer"), version: 3 },
      { ...node("other", "generate.answer", { prompt: "file:openscholar.answer.v2", citationBase: 0 }), version: 3 },
      { ...node("pairwise", "judge.pairwise"), version: 2 },
      { ...node("rubric", "judge.rubric"), version: 2 },
    ],
    edges: [
      edge("question.question", "retrieve.question"),
      ...["draft", "other", "pairwise", "rubric"].map((n) => edge("question.question", `${n}.question`)),
      ...["draft", "other", "pairwise", "rubric"].map((n) => edge("retrieve.passages", `${n}.passages`)),
      edge("draft.answer", "pairwise.a"),
      edge("other.answer", "pairwise.b"),
      edge("pairwise.preferred", "rubric.answer"),
    ],
  }),
);
const CALLS = 5;
console.log(
  `\nciteflow synth over a ${Math.max(N, 100)}-abstract store, ${CALLS} calls a question (the question, two answers at once, a pairwise and a rubric judge); the server's capacity is ${CAPACITY / (LATENCY_MS / 1000)} calls/s`,
);
console.log("--parallel   questions  wall s   questions/s   server calls/s while the set ran   share of its capacity   peak RSS MiB");
for (const [n, p] of [
  [20, 1],
  [Math.min(N, 100), 32],
  [N, 32],
]) {
  const r = await cli(["synth", "--store", store, "--n", String(n), "--out", join(dir, `synth-${n}-${p}`), "--graph", synthGraph, "--formats", "sft"], p);
  const calls = seen.served / (LATENCY_MS / 1000) / ((seen.last - seen.first) / 1000);
  console.log(
    `${String(p).padStart(10)}   ${String(n).padStart(9)}  ${r.wall.toFixed(1).padStart(6)}   ${(n / r.wall).toFixed(2).padStart(11)}   ${calls.toFixed(1).padStart(32)}   ${(calls / (CAPACITY / (LATENCY_MS / 1000))).toFixed(2).padStart(21)}   ${r.peak.toFixed(0).padStart(12)}`,
  );
}
server.close();
