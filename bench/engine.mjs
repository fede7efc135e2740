// Executor overhead and cached re-run time. Prints medians, and ratios against a peer measured in
// the same process: calling the same node functions directly, in the same order, with no engine.
// Run: npm run bench   (targets from the spine issue: ≤ 1 ms per node, ≤ 50 ms cached 10-node graph)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineNode, loadGraph, MemoryCache, NodeRegistry, runGraph } from "@citeflow/core";
import { RunStore } from "@citeflow/runstore";
import { z } from "zod";

const noop = defineNode({
  type: "bench.noop",
  version: 1,
  title: "No-op",
  family: "bench",
  description: "Adds one to its input",
  inputs: { in: { type: "Number", optional: true } },
  outputs: { out: { type: "Number" } },
  params: z.object({ k: z.number().default(0) }),
  async run(inputs) {
    return { out: (inputs.in ?? 0) + 1 };
  },
});
const registry = new NodeRegistry([noop]);

/** A chain of n no-op nodes (n0 → n1 → …), each with its own params so cache keys differ. */
function chain(n) {
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `n${i}`, type: "bench.noop", version: 1, params: { k: i } }));
  const edges = nodes.slice(1).map((_, i) => ({ from: `n${i}.out`, to: `n${i + 1}.in` }));
  return loadGraph({ citeflow: 1, name: `chain-${n}`, inputs: {}, nodes, edges }, registry);
}

/** The peer: the same node functions awaited in order by hand. */
async function direct(n) {
  let v;
  for (let i = 0; i < n; i++) v = (await noop.run({ in: v }, { k: i }, undefined)).out;
  return v;
}

async function time(fn, reps) {
  for (let i = 0; i < Math.min(5, reps); i++) await fn(); // warm-up
  const ms = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return ms[Math.floor(ms.length / 2)];
}

const fmt = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`);
const rows = [];
const row = (name, median, peer, note = "") => rows.push([name, fmt(median), peer === undefined ? "" : fmt(peer), peer === undefined ? "" : `${(median / peer).toFixed(0)}×`, note]);

for (const n of [10, 100]) {
  const g = chain(n);
  const reps = n === 10 ? 200 : 40;
  const engine = await time(() => runGraph(g), reps);
  const peer = await time(() => direct(n), reps);
  row(`run ${n}-node chain, no cache`, engine, peer, `overhead ${fmt((engine - peer) / n)} per node`);
  const memory = new MemoryCache();
  await runGraph(g, { cache: memory });
  row(`re-run ${n}-node chain, memory cache`, await time(() => runGraph(g, { cache: memory }), reps), peer);
}

const dir = mkdtempSync(join(tmpdir(), "citeflow-bench-"));
try {
  const g = chain(10);
  const store = new RunStore(dir);
  const first = await time(() => runGraph(g, { ...store.runOptions(), force: true }), 20);
  row("run 10-node chain, run store (recorded, cache written)", first, undefined);
  const cached = await time(() => runGraph(g, store.runOptions()), 50);
  row("re-run 10-node chain, run store (all hits, recorded)", cached, undefined, "target ≤ 50 ms");
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const header = ["case", "median", "peer (direct calls)", "ratio", ""];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
for (const r of [header, ...rows])
  console.log(
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd(),
  );
