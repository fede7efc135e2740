// A question set against a served model: `citeflow run --questions` one at a time and with
// --parallel, against a simulated OpenAI-compatible server (loopback) that answers each call after a
// fixed latency and serves up to CAPACITY calls at once. The physical limit for P questions in flight
// (one call each) is min(P, CAPACITY) / latency questions a second; the ratio says how much of it
// Citeflow keeps (run store writes, graph work and the client are the rest). Also prints the median
// time of a question (the sum of its nodes' times, as each run recorded them).
// Also the CLI's peak resident memory (its maxRSS, written as it exits): flat from 100 to 1,000
// questions when nothing a run leaves behind is kept.
// Run alone: node bench/parallel.mjs   ($CITEFLOW_BENCH_QUESTIONS questions, default 1000; the
// one-at-a-time baseline runs the first 100 of them).
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(root, "packages", "cli", "dist", "bin.js");
const N = Number(process.env.CITEFLOW_BENCH_QUESTIONS || 1000);
const LATENCY_MS = 200;
const CAPACITY = 32;

// The simulated server: every call waits LATENCY_MS; past CAPACITY calls at once they queue.
let busy = 0;
const queue = [];
const server = createServer(async (req, res) => {
  let text = "";
  for await (const c of req) text += c;
  if (busy >= CAPACITY) await new Promise((r) => queue.push(r));
  busy++;
  await new Promise((r) => setTimeout(r, LATENCY_MS));
  busy--;
  queue.shift()?.();
  const n = /Q(\d+)/.exec(text)?.[1] ?? "?";
  const body = {
    id: "c",
    object: "chat.completion",
    created: 0,
    model: "sim",
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: `trials of compound Q${n}` } }],
    usage: { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 },
  };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/v1`;

const dir = mkdtempSync(join(tmpdir(), "citeflow-bench-parallel-"));
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

// Loaded before the CLI: writes its peak resident memory (KiB) to stderr as it exits.
const PEAK = `data:text/javascript,${encodeURIComponent('import { writeSync } from "node:fs"; process.on("exit", () => writeSync(2, `peak rss ${process.resourceUsage().maxRSS}\\n`));')}`;

function set(n, parallel) {
  const runs = join(dir, `runs-${n}-${parallel}`);
  const env = { ...process.env, CITEFLOW_CHAT_MODEL: "sim", OPENAI_BASE_URL: url, OPENAI_API_KEY: "sk-bench" };
  const t0 = performance.now();
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ["--import", PEAK, BIN, "run", graph, "--questions", questions(n), "--runs", runs, "--json", "--parallel", String(parallel)],
      { env, maxBuffer: 1 << 28 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(stderr));
        const wall = (performance.now() - t0) / 1000;
        const peak = Number(/^peak rss (\d+)$/m.exec(stderr)?.[1]) / 1024;
        const ms = JSON.parse(stdout)
          .runs.map((r) => r.nodes.reduce((sum, x) => sum + (x.ms ?? 0), 0))
          .sort((a, b) => a - b);
        resolve({ n, parallel, wall, perSecond: n / wall, median: ms[Math.floor(ms.length / 2)], peak });
      },
    ),
  );
}

console.log(`simulated server: ${LATENCY_MS} ms a call, ${CAPACITY} calls at once; query.enrich over ${N} questions (one call each)`);
console.log("--parallel   questions  wall s   questions/s   physical limit/s   ratio   median ms a question   peak RSS MiB");
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
    `${String(p).padStart(10)}   ${String(n).padStart(9)}  ${r.wall.toFixed(1).padStart(6)}   ${r.perSecond.toFixed(2).padStart(11)}   ${limit.toFixed(1).padStart(16)}   ${(r.perSecond / limit).toFixed(2).padStart(5)}   ${r.median.toFixed(0).padStart(8)}   ${r.peak.toFixed(0).padStart(20)}`,
  );
}
server.close();
