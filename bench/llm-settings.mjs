// The in-process model's settings, measured against the physical limit: generation reads every
// weight once a token, so tokens/s ≤ memory bandwidth / model bytes (bandwidth measured here, now,
// as in bench/llm.mjs). Tried: threads, the KV cache's type, flash attention (generation), and the
// batch size prompts are read in (prompt). Citeflow's choice (loadLocalChat) is marked.
// Needs `npm run models`. Run alone: llama.cpp slows sharply when another process uses a core.
// Run: node bench/llm-settings.mjs   (CITEFLOW_BENCH_REPEATS=n prompts each setting, default 4)
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { getLlama, LlamaCompletion } from "node-llama-cpp";
import { modelsHome } from "@citeflow/models";
import { readBeirCorpus } from "@citeflow/retrieval";
import { copyBandwidth } from "./bandwidth.mjs";
import { DATA } from "./paths.mjs";

const GGUF = join(modelsHome(process.env), "gemma-3-270m-q4_k_m.gguf");
const REPEATS = Number(process.env.CITEFLOW_BENCH_REPEATS || 4);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x, d = 1) => x.toFixed(d);

const bandwidth = copyBandwidth();
const limit = bandwidth / readFileSync(GGUF).length;

const docs = [];
for await (const d of readBeirCorpus(join(DATA, "scifact", "corpus.jsonl"))) if (docs.push(d) >= 5 * REPEATS) break;
// A different first line each time: nothing of a prompt is reused from the one before.
const prompt = (i) =>
  `Request ${i}. Summarise the papers below.\n\n${docs
    .slice(i * 5, i * 5 + 5)
    .map((d, k) => `[${k + 1}] ${d.title}\n${d.text}`)
    .join("\n\n")}\n\nSummary:`;

const cores = availableParallelism();
const llama = await getLlama({ gpu: false, build: "never", maxThreads: cores });
const model = await llama.loadModel({ modelPath: GGUF });

async function measure(settings) {
  const context = await model.createContext({ contextSize: 4096, sequences: 1, swaFullCache: true, ...settings });
  const sequence = context.getSequence();
  const gen = [];
  const read = [];
  for (let i = 0; i < REPEATS; i++) {
    await sequence.clearHistory();
    const completion = new LlamaCompletion({ contextSequence: sequence });
    const t = performance.now();
    let first;
    let tokens = 0;
    await completion.generateCompletion(prompt(i), {
      maxTokens: 96,
      temperature: 0,
      onToken: (ts) => {
        first ??= performance.now();
        tokens += ts.length;
      },
    });
    const end = performance.now();
    completion.dispose({ disposeSequence: false });
    // The prompt's tokens (and the beginning-of-text one) were read before the first token came.
    read.push((model.tokenize(prompt(i)).length + 1) / ((first - t) / 1000));
    if (tokens > 8) gen.push((tokens - 1) / ((end - first) / 1000));
  }
  await context.dispose();
  return { generation: median(gen), prompt: median(read) };
}

const chosen = { threads: cores, batchSize: 128, flashAttention: true };
const tried = [
  ["threads", { ...chosen, threads: 1 }],
  ["threads", chosen],
  ["flash attention off", { ...chosen, flashAttention: false }],
  // llama.cpp quantises the V cache only with flash attention.
  ["KV cache q8_0", { ...chosen, flashAttention: true, experimentalKvCacheKeyType: "Q8_0", experimentalKvCacheValueType: "Q8_0" }],
  ["batch", { ...chosen, batchSize: 64 }],
  ["batch", { ...chosen, batchSize: 256 }],
  ["batch", { ...chosen, batchSize: 512 }],
];
const rows = [];
for (const [what, s] of tried) {
  process.stderr.write(`bench/llm-settings: ${what} ${JSON.stringify(s)}\n`);
  const r = await measure(s);
  const label = `threads ${s.threads}, batch ${s.batchSize}, flash attention ${s.flashAttention ? "on" : "off"}${s.experimentalKvCacheKeyType ? ", KV q8_0" : ""}`;
  rows.push([label + (s === chosen ? " (Citeflow's)" : ""), fmt(r.generation), fmt(r.generation / limit, 2), fmt(r.prompt, 0)]);
}

console.log(`\nIn-process model settings: ${GGUF}, ${cores} cores, ${REPEATS} prompts of ~1,600 tokens each, 96 tokens generated`);
console.log(`memory bandwidth (best 512 MiB copy): ${fmt(bandwidth / 1e9)} GB/s → generation limit ${fmt(limit)} tokens/s`);
const header = ["setting", "generation tokens/s", "× limit", "prompt tokens/s"];
const w = header.map((_, i) => Math.max(...[header, ...rows].map((r) => String(r[i]).length)));
for (const r of [header, ...rows]) console.log(r.map((c, i) => String(c).padEnd(w[i])).join("  "));
process.exit(0);
