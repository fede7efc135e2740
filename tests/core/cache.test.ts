import { describe, expect, it } from "vitest";
import { defineNode, MemoryCache, NodeRegistry } from "@citeflow/core";
import { z } from "zod";
import { RunStore } from "@citeflow/runstore";
import { doc, eventsOf, run, tempDir, testRegistry } from "../helpers.js";

const graph = (delta = 10, value = 1) =>
  doc({ a: ["test.const", { value }], b: ["test.add", { delta }], c: ["test.add", { delta: 100 }], side: ["test.const", { value: 9 }] }, ["a.out->b.a", "b.out->c.a"]);
const statuses = (r: Awaited<ReturnType<typeof run>>) => Object.fromEntries(r.result.nodes.map((n) => [n.id, n.cache]));

describe("cache", () => {
  it("hits on an identical re-run without calling any node", async () => {
    const cache = new MemoryCache();
    await run(graph(), { cache });
    const r = await run(graph(), { cache });
    expect(statuses(r)).toEqual({ a: "hit", b: "hit", side: "hit", c: "hit" });
    expect(r.probe.calls).toEqual({});
    expect(r.byId.c!.outputs!.out).toBe(111);
    expect(eventsOf(r.events, "node-end").every((e) => e.cache === "hit")).toBe(true);
  });

  it("a cached value that does not fit its port (a cache file changed by hand) is a miss, said in the node's warnings", async () => {
    const cache = new MemoryCache();
    await run(graph(), { cache });
    for (const e of cache.entries.values()) if (e.nodeType === "test.add" && e.outputs.out === 11) e.outputs = { out: "eleven" };
    const r = await run(graph(), { cache });
    expect(statuses(r)).toEqual({ a: "hit", b: "miss", side: "hit", c: "hit" });
    expect(r.byId.c!.outputs!.out).toBe(111);
    const b = eventsOf(r.events, "node-end").find((e) => e.nodeId === "b")!;
    expect(b.warnings).toEqual([expect.stringMatching(/^its cached result did not fit its output ports \(node "b" \(test\.add\) output "out" is not Number: .*\): it ran again$/)]);
    // Run again, the entry is whole again.
    expect(statuses(await run(graph(), { cache }))).toEqual({ a: "hit", b: "hit", side: "hit", c: "hit" });
  });

  it("misses from a changed param downward only", async () => {
    const cache = new MemoryCache();
    await run(graph(10), { cache });
    const r = await run(graph(20), { cache });
    expect(statuses(r)).toEqual({ a: "hit", b: "miss", side: "hit", c: "miss" });
    expect(r.byId.c!.outputs!.out).toBe(121);
  });

  it("misses below a changed upstream value", async () => {
    const cache = new MemoryCache();
    await run(graph(10, 1), { cache });
    const r = await run(graph(10, 2), { cache });
    expect(statuses(r)).toEqual({ a: "miss", b: "miss", side: "hit", c: "miss" });
  });

  it("keys on canonical params: defaults spelled out or not, in any key order, hit", async () => {
    const cache = new MemoryCache();
    await run(doc({ a: ["test.const", {}] }), { cache });
    const r = await run(doc({ a: ["test.const", { value: 1 }] }), { cache });
    expect(statuses(r)).toEqual({ a: "hit" });
  });

  it("misses after a node's version is bumped", async () => {
    const cache = new MemoryCache();
    await run(graph(), { cache }, testRegistry({ addVersion: 1 }));
    const r = await run(graph(), { cache }, testRegistry({ addVersion: 2 }));
    expect(statuses(r)).toEqual({ a: "hit", b: "miss", side: "hit", c: "miss" });
  });

  it("force recomputes everything and refreshes the entries", async () => {
    const cache = new MemoryCache();
    await run(graph(), { cache });
    const r = await run(graph(), { cache, force: true });
    expect(Object.values(statuses(r)).every((s) => s === "miss")).toBe(true);
    expect(Object.keys(r.probe.calls).sort()).toEqual(["a", "b", "c", "side"]);
  });

  it("explicit invalidation of one entry recomputes just that node", async () => {
    const cache = new MemoryCache();
    const first = await run(graph(), { cache });
    await cache.delete(first.byId.b!.cacheKey!);
    const r = await run(graph(), { cache });
    expect(statuses(r)).toEqual({ a: "hit", b: "miss", side: "hit", c: "hit" });
  });

  it("never reuses a node marked cacheable: false", async () => {
    const cache = new MemoryCache();
    await run(doc({ n: ["test.nocache"] }), { cache });
    const r = await run(doc({ n: ["test.nocache"] }), { cache });
    expect(statuses(r)).toEqual({ n: "miss" });
    expect(cache.entries.size).toBe(0);
  });

  it("keys graph-input nodes on the input value", async () => {
    const cache = new MemoryCache();
    const d = doc({ q: ["input.question"], t: ["test.question-text"] }, ["q.question->t.question"], { question: { type: "Question" } });
    await run(d, { cache, inputs: { question: { id: "1", text: "Does aspirin prevent stroke?" } } });
    const same = await run(d, { cache, inputs: { question: { id: "1", text: "Does aspirin prevent stroke?" } } });
    expect(statuses(same)).toEqual({ q: "hit", t: "hit" });
    const other = await run(d, { cache, inputs: { question: { id: "2", text: "Is coffee bad for the heart?" } } });
    expect(statuses(other)).toEqual({ q: "miss", t: "miss" });
    expect(other.byId.t!.outputs!.text).toBe("Is coffee bad for the heart?");
  });

  it("hits are visible in the run store, and persist across store instances", async () => {
    const dir = tempDir();
    const s1 = new RunStore(dir);
    await run(graph(), s1.runOptions());
    const s2 = new RunStore(dir);
    const second = await run(graph(), s2.runOptions());
    const rec = s2.readRun(second.result.runId);
    expect(Object.fromEntries(rec.nodes.map((n) => [n.id, n.cache]))).toEqual({ a: "hit", b: "hit", side: "hit", c: "hit" });
    expect(s2.nodeOutput(second.result.runId, "c", "out")).toBe(111);
  });
});

describe("the models a node names", () => {
  const modelled = defineNode({
    type: "test.modelled",
    version: 1,
    title: "Modelled",
    family: "test",
    description: "Names two models in its spans, one of them twice",
    inputs: {},
    outputs: { out: { type: "Number" } },
    params: z.object({}),
    run: async (_inputs, _p, ctx) => {
      await ctx.span("embed", async (s) => s.set("model", "embedder-1"));
      await ctx.span("judge", async (s) => {
        s.set("model", "judge-2");
        await ctx.span("retry", async (inner) => inner.set("model", "judge-2"));
      });
      await ctx.span("plain", async (s) => s.set("query", "no model here"));
      return { out: 1 };
    },
  });
  const registry = new NodeRegistry([modelled]);

  it("come from its spans, reach node-end and the run store, and stay with a cached result", async () => {
    const store = new RunStore(tempDir());
    const first = await run(doc({ n: ["test.modelled"] }), store.runOptions(), registry);
    expect(eventsOf(first.events, "node-end")[0]!.models).toEqual(["embedder-1", "judge-2"]);
    expect(store.readRun(first.result.runId).nodes[0]!.models).toEqual(["embedder-1", "judge-2"]);
    const second = await run(doc({ n: ["test.modelled"] }), store.runOptions(), registry);
    expect(statuses(second)).toEqual({ n: "hit" });
    expect(eventsOf(second.events, "node-end")[0]!.models).toEqual(["embedder-1", "judge-2"]);
    expect(store.readRun(second.result.runId).nodes[0]!.models).toEqual(["embedder-1", "judge-2"]);
    // A node that names no model has none.
    const plain = await run(graph(), { cache: new MemoryCache() });
    expect(eventsOf(plain.events, "node-end").every((e) => e.models === undefined)).toBe(true);
  });
});

describe("fingerprints", () => {
  let version: unknown = 1;
  const indexed = defineNode({
    type: "test.indexed",
    version: 1,
    title: "Indexed",
    family: "test",
    description: "Depends on outside state (an index) named by its fingerprint",
    inputs: {},
    outputs: { out: { type: "Number" } },
    params: z.object({}),
    fingerprint: () => {
      if (version === "broken") throw new Error("index unreadable");
      return version;
    },
    run: async () => ({ out: Number(version) }),
  });
  const registry = new NodeRegistry([indexed]);

  it("a changed fingerprint misses; the same one hits", async () => {
    const cache = new MemoryCache();
    version = 1;
    await run(doc({ n: ["test.indexed"] }), { cache }, registry);
    expect((await run(doc({ n: ["test.indexed"] }), { cache }, registry)).byId.n!.cache).toBe("hit");
    version = 2;
    const r = await run(doc({ n: ["test.indexed"] }), { cache }, registry);
    expect(r.byId.n).toMatchObject({ cache: "miss", outputs: { out: 2 } });
  });

  it("a fingerprint that throws fails the node, not the run machinery", async () => {
    version = "broken";
    const r = await run(doc({ n: ["test.indexed"] }), {}, registry);
    expect(r.byId.n).toMatchObject({ status: "error", error: { message: "index unreadable" } });
  });
});
