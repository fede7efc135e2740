import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineNode, loadGraph, MemoryCache, NodeOutputError, RunRequestError, startRun } from "@citeflow/core";
import { doc, eventsOf, makeProbe, run, testRegistry } from "../helpers.js";

// a(1) → b(+10) → c(+100)
const chain = () => doc({ a: ["test.const", { value: 1 }], b: ["test.add", { delta: 10 }], c: ["test.add", { delta: 100 }] }, ["a.out->b.a", "b.out->c.a"]);
// a → b, a → c, (b, c) → d
const diamond = () =>
  doc({ a: ["test.const", { value: 1 }], b: ["test.add", { delta: 10 }], c: ["test.add", { delta: 100 }], d: ["test.add"] }, ["a.out->b.a", "a.out->c.a", "b.out->d.a", "c.out->d.b"]);
const out = (r: Awaited<ReturnType<typeof run>>, id: string) => r.byId[id]?.outputs?.out;

describe("graph shapes", () => {
  it("runs a chain in order", async () => {
    const r = await run(chain());
    expect(r.result.status).toBe("ok");
    expect(out(r, "c")).toBe(111);
    expect(eventsOf(r.events, "node-start").map((e) => e.nodeId)).toEqual(["a", "b", "c"]);
  });

  it("runs a diamond, joining both branches", async () => {
    const r = await run(diamond());
    expect(out(r, "d")).toBe(11 + 101);
    const ends = eventsOf(r.events, "node-end").map((e) => e.nodeId);
    expect(ends.indexOf("d")).toBe(3);
  });

  it("fans out to many consumers", async () => {
    const nodes: Record<string, [string, Record<string, unknown>]> = { src: ["test.const", { value: 5 }] };
    const edges: string[] = [];
    for (let i = 0; i < 5; i++) {
      nodes[`k${i}`] = ["test.add", { delta: i }];
      edges.push(`src.out->k${i}.a`);
    }
    const r = await run(doc(nodes, edges));
    expect([0, 1, 2, 3, 4].map((i) => out(r, `k${i}`))).toEqual([5, 6, 7, 8, 9]);
    expect(r.probe.calls.src).toBe(1);
  });

  it("fans in through a many port, values in edge order", async () => {
    const nodes: Record<string, [string, Record<string, unknown>]> = { sum: ["test.sum"] };
    const edges: string[] = [];
    for (const v of [3, 1, 2]) {
      nodes[`v${v}`] = ["test.sleep", { ms: (4 - v) * 5, value: v }];
      edges.push(`v${v}.out->sum.xs`);
    }
    const r = await run(doc(nodes, edges));
    expect(out(r, "sum")).toBe(6);
    expect(r.byId.sum!.outputs!.order).toEqual([3, 1, 2]);
  });

  it("runs disconnected components independently", async () => {
    const r = await run(doc({ a: ["test.const", { value: 1 }], b: ["test.add"], x: ["test.const", { value: 7 }], y: ["test.add", { delta: 1 }] }, ["a.out->b.a", "x.out->y.a"]));
    expect(r.result.status).toBe("ok");
    expect([out(r, "b"), out(r, "y")]).toEqual([1, 8]);
  });

  it("runs independent branches concurrently, within the bound", async () => {
    const nodes: Record<string, [string, Record<string, unknown>]> = {};
    for (let i = 0; i < 6; i++) nodes[`s${i}`] = ["test.sleep", { ms: 30, value: i }];
    const bounded = await run(doc(nodes), { concurrency: 2 });
    expect(bounded.probe.maxActive).toBe(2);
    const wide = await run(doc(nodes), { concurrency: 6 });
    expect(wide.probe.maxActive).toBe(6);
    const serial = await run(doc(nodes), { concurrency: 1 });
    expect(serial.probe.maxActive).toBe(1);
  });

  it("an empty graph runs and succeeds", async () => {
    const r = await run(doc({}));
    expect(r.result.status).toBe("ok");
    expect(r.result.nodes).toEqual([]);
  });
});

describe("partial runs", () => {
  const ancestorsOf: Record<string, string[]> = { a: ["a"], b: ["a", "b"], c: ["a", "c"], d: ["a", "b", "c", "d"] };
  it.each(Object.entries(ancestorsOf))("run to %s runs only it and its ancestors", async (to, expected) => {
    const r = await run(diamond(), { to });
    expect(r.result.nodes.map((n) => n.id)).toEqual(expected);
    expect(Object.keys(r.probe.calls).sort()).toEqual(expected);
  });

  const downstream: Record<string, string[]> = { a: ["a", "b", "c", "d"], b: ["b", "d"], c: ["c", "d"], d: ["d"] };
  it.each(Object.entries(downstream))("run from %s re-runs it and its descendants, upstream from cache", async (from, rerun) => {
    const cache = new MemoryCache();
    await run(diamond(), { cache });
    const r = await run(diamond(), { cache, from });
    const misses = r.result.nodes
      .filter((n) => n.cache === "miss")
      .map((n) => n.id)
      .sort();
    expect(misses).toEqual(rerun);
    expect(r.result.nodes.filter((n) => n.cache === "hit").every((n) => !rerun.includes(n.id))).toBe(true);
    expect(out(r, "d")).toBe(112);
  });

  it("run from a node computes missing upstream when nothing is cached", async () => {
    const r = await run(chain(), { cache: new MemoryCache(), from: "b" });
    expect(r.result.status).toBe("ok");
    expect(out(r, "c")).toBe(111);
  });

  it("run one node re-runs just it, reusing its inputs and leaving descendants", async () => {
    const cache = new MemoryCache();
    await run(chain(), { cache });
    const r = await run(chain(), { cache, only: "b" });
    expect(r.result.nodes.map((n) => [n.id, n.cache])).toEqual([
      ["a", "hit"],
      ["b", "miss"],
    ]);
    expect(r.probe.calls).toEqual({ b: 1 });
  });

  it("from and to together select the span between them", async () => {
    const r = await run(chain(), { cache: new MemoryCache(), from: "b", to: "b" });
    expect(r.result.nodes.map((n) => n.id)).toEqual(["a", "b"]);
  });

  it("rejects to/from/only naming unknown nodes, and from after to", () => {
    const g = loadGraph(chain(), testRegistry());
    expect(() => startRun(g, { to: "nope" })).toThrow(RunRequestError);
    expect(() => startRun(g, { only: "nope" })).toThrow('run only "nope": no node "nope" in graph');
    expect(() => startRun(g, { from: "c", to: "a" })).toThrow('run from "c" to "a": "a" is not downstream of "c"');
  });
});

describe("overrides", () => {
  it("replaces an intermediate value and re-runs downstream with it", async () => {
    const cache = new MemoryCache();
    const first = await run(chain(), { cache });
    const r = await run(chain(), { cache, overrides: { b: { out: 50 } } });
    expect(out(r, "b")).toBe(50);
    expect(out(r, "c")).toBe(150);
    expect(r.byId.b!.overridden).toEqual(["out"]);
    expect(r.byId.a!.cache).toBe("hit");
    expect(r.byId.c!.cache).toBe("miss");
    expect(r.byId.c!.cacheKey).not.toBe(first.byId.c!.cacheKey);
    const end = eventsOf(r.events, "node-end").find((e) => e.nodeId === "b")!;
    expect(end.overridden).toEqual(["out"]);
  });

  it("checks an override against the port type", () => {
    const g = loadGraph(chain(), testRegistry());
    expect(() => startRun(g, { overrides: { b: { out: "fifty" } } })).toThrow(/override b\.out is not Number/);
    expect(() => startRun(g, { overrides: { b: { nope: 1 } } })).toThrow(/has no output "nope"/);
    expect(() => startRun(g, { overrides: { zz: { out: 1 } } })).toThrow(/unknown node "zz"/);
  });
});

describe("errors", () => {
  const branches = () =>
    doc({ a: ["test.const", { value: 1 }], bad: ["test.fail", { message: "model server down" }], after: ["test.add"], good: ["test.sleep", { ms: 30, value: 2 }], good2: ["test.add"] }, [
      "a.out->bad.in",
      "bad.out->after.a",
      "a.out->good.in",
      "good.out->good2.a",
    ]);

  it("a failing node stops its descendants, not the independent branch", async () => {
    const r = await run(branches());
    expect(r.result.status).toBe("error");
    expect(r.byId.bad!.status).toBe("error");
    expect(r.byId.after).toMatchObject({ status: "skipped", upstream: "bad" });
    expect(r.byId.good2).toMatchObject({ status: "done", outputs: { out: 3 } });
    expect(r.probe.calls.after).toBeUndefined();
    const skipped = eventsOf(r.events, "node-skipped");
    expect(skipped).toEqual([expect.objectContaining({ nodeId: "after", reason: "upstream-failed", upstream: "bad" })]);
  });

  it("reports the node id and the cause", async () => {
    const r = await run(branches());
    const err = eventsOf(r.events, "node-error")[0]!;
    expect(err.nodeId).toBe("bad");
    expect(err.error).toMatchObject({ name: "Error", message: "model server down", cause: "the root cause" });
    const end = eventsOf(r.events, "run-end")[0]!;
    expect(end.nodes.find((n) => n.id === "bad")!.status).toBe("error");
  });

  it("rejects outputs of the wrong type, missing outputs and unknown outputs, naming node and port", async () => {
    for (const [mode, msg] of [
      ["wrong-type", /node "x" \(test.bad-output\) output "out" is not Number/],
      ["missing", /returned no value for output "out"/],
      ["extra", /returned "surprise", which is not one of its outputs/],
    ] as const) {
      const r = await run(doc({ x: ["test.bad-output", { mode }] }));
      expect(r.byId.x!.status).toBe("error");
      expect(r.byId.x!.error!.name).toBe(NodeOutputError.name);
      expect(r.byId.x!.error!.message).toMatch(msg);
    }
  });

  it("checks values arriving through Any against the receiving port", async () => {
    const r = await run(doc({ any: ["test.any", { value: "text" }], add: ["test.add"] }, ["any.out->add.a"]));
    expect(r.byId.add!.error!.message).toMatch(/input "a" of node "add" \(from any.out\) is not Number/);
    const ok = await run(doc({ any: ["test.any", { value: 4 }], add: ["test.add"] }, ["any.out->add.a"]));
    expect(out(ok, "add")).toBe(4);
  });

  it("refuses a run whose graph input is missing or of the wrong type", () => {
    const d = doc({ q: ["input.question"], t: ["test.question-text"] }, ["q.question->t.question"], { question: { type: "Question" } });
    const g = loadGraph(d, testRegistry());
    expect(() => startRun(g, {})).toThrow(/graph input "question" \(read by node "q"\) was not given/);
    expect(() => startRun(g, { inputs: { question: { id: "1" } } })).toThrow(/graph input "question" is not Question/);
  });
});

describe("stepping, breakpoints and abort", () => {
  async function drive(document: unknown, options: Parameters<typeof startRun>[1], onPause: (h: ReturnType<typeof startRun>, nodeId: string) => void) {
    const graph = loadGraph(document, testRegistry());
    const probe = makeProbe();
    const h = startRun(graph, { ...options, services: { probe } });
    const paused: string[] = [];
    for await (const e of h.events) {
      if (e.type === "node-paused") {
        paused.push(e.nodeId);
        expect(h.pausedAt).toBe(e.nodeId);
        onPause(h, e.nodeId);
      }
    }
    return { result: await h.result, paused, probe };
  }

  it("step mode pauses before every node", async () => {
    const { result, paused } = await drive(chain(), { step: true }, (h) => h.step());
    expect(paused).toEqual(["a", "b", "c"]);
    expect(result.status).toBe("ok");
  });

  it("nothing runs while paused", async () => {
    const graph = loadGraph(chain(), testRegistry());
    const probe = makeProbe();
    const h = startRun(graph, { step: true, services: { probe } });
    for await (const e of h.events) if (e.type === "node-paused") break;
    await new Promise((r) => setTimeout(r, 30));
    expect(h.pausedAt).toBe("a");
    expect(probe.calls).toEqual({});
    h.continue();
    expect((await h.result).status).toBe("ok");
  });

  it("breakpoints pause only there; continue runs to the end", async () => {
    const { result, paused, probe } = await drive(diamond(), { breakpoints: ["c"] }, (h) => h.continue());
    expect(paused).toEqual(["c"]);
    expect(result.status).toBe("ok");
    expect(Object.keys(probe.calls).sort()).toEqual(["a", "b", "c", "d"]);
  });

  it("continue from step mode runs on to the next breakpoint", async () => {
    const { paused } = await drive(chain(), { step: true, breakpoints: ["c"] }, (h, id) => (id === "a" ? h.continue() : h.step()));
    expect(paused).toEqual(["a", "c"]);
  });

  it("pause() turns a running graph into step mode", async () => {
    const d = doc({ a: ["test.sleep", { ms: 30, value: 1 }], b: ["test.add"], c: ["test.add"] }, ["a.out->b.a", "b.out->c.a"]);
    const graph = loadGraph(d, testRegistry());
    const h = startRun(graph, { services: { probe: makeProbe() } });
    const paused: string[] = [];
    for await (const e of h.events) {
      if (e.type === "node-start" && e.nodeId === "a") h.pause();
      if (e.type === "node-paused") {
        paused.push(e.nodeId);
        h.continue();
      }
    }
    expect(paused).toEqual(["b"]);
  });

  it("abort while paused ends the run as aborted, the rest skipped", async () => {
    const { result, probe } = await drive(chain(), { breakpoints: ["b"] }, (h) => h.abort());
    expect(result.status).toBe("aborted");
    expect(result.nodes.map((n) => n.status)).toEqual(["done", "skipped", "skipped"]);
    expect(probe.calls).toEqual({ a: 1 });
  });

  it("abort mid-node signals the node and keeps finished work", async () => {
    const d = doc({ fast: ["test.const", { value: 1 }], slow: ["test.sleep", { ms: 10_000 }], after: ["test.add"] }, ["fast.out->slow.in", "slow.out->after.a"]);
    const controller = new AbortController();
    const graph = loadGraph(d, testRegistry());
    const probe = makeProbe();
    const h = startRun(graph, { signal: controller.signal, services: { probe } });
    for await (const e of h.events) if (e.type === "node-start" && e.nodeId === "slow") setTimeout(() => controller.abort(), 20);
    const result = await h.result;
    // The sleeping node was told: its 10-second wait ended with the abort and it left (it would still be inside otherwise).
    expect(probe.calls).toEqual({ fast: 1, slow: 1 });
    expect(probe.active).toBe(0);
    expect(result.status).toBe("aborted");
    expect(result.nodes.map((n) => [n.id, n.status])).toEqual([
      ["fast", "done"],
      ["slow", "aborted"],
      ["after", "skipped"],
    ]);
    expect(result.nodes[1]!.error!.name).toBe("AbortError");
  });

  it("a node started as the run is aborted fails on its own: nothing is left unhandled", async () => {
    // A node whose work fails a moment later (a model call cut off by the abort).
    const cut = defineNode({
      type: "test.cut",
      version: 1,
      title: "Cut off",
      family: "test",
      description: "Fails after a moment",
      inputs: {},
      outputs: { out: { type: "Number" } },
      params: z.object({}),
      async run() {
        await new Promise((r) => setTimeout(r, 20));
        throw new Error("request was aborted");
      },
    });
    // The abort comes while the run looks the node up in its cache, just before the node starts.
    let abort = () => undefined as void;
    const cache = {
      async get() {
        abort();
        return undefined;
      },
      async set() {},
    };
    const h = startRun(loadGraph(doc({ s: ["test.cut"] }), testRegistry().register(cut)), { services: { probe: makeProbe() }, cache });
    abort = () => h.abort();
    expect((await h.result).status).toBe("aborted");
    // An unhandled rejection fails this file.
    await new Promise((r) => setTimeout(r, 60));
  });

  it("an already-aborted signal runs nothing", async () => {
    const r = await run(chain(), { signal: AbortSignal.abort() });
    expect(r.result.status).toBe("aborted");
    expect(r.probe.calls).toEqual({});
  });
});

describe("events and spans", () => {
  it("yields typed events in order, replayed for late readers", async () => {
    const graph = loadGraph(chain(), testRegistry());
    const h = startRun(graph);
    await h.result;
    const types: string[] = [];
    for await (const e of h.events) types.push(e.type);
    expect(types[0]).toBe("run-start");
    expect(types.at(-1)).toBe("run-end");
    expect(types.filter((t) => t === "node-end")).toHaveLength(3);
    expect(types.indexOf("node-start")).toBeLessThan(types.indexOf("node-end"));
  });

  it("records iterations as nested child spans, with progress and logs", async () => {
    const r = await run(doc({ it: ["test.spans", { iterations: 2 }] }));
    expect(out(r, "it")).toBe(30);
    const starts = eventsOf(r.events, "span-start");
    expect(starts.map((s) => s.name)).toEqual(["iteration 1", "retrieve", "edit", "iteration 2", "retrieve", "edit"]);
    const [it1, ret1, edit1] = starts;
    expect(it1!.parentId).toBeUndefined();
    expect(ret1!.parentId).toBe(it1!.spanId);
    expect(edit1!.parentId).toBe(it1!.spanId);
    const ends = eventsOf(r.events, "span-end");
    expect(ends.find((e) => e.spanId === ret1!.spanId)!.data).toEqual({ hits: 10 });
    expect(ends.find((e) => e.spanId === it1!.spanId)!.data).toEqual({ k: 1 });
    expect(eventsOf(r.events, "node-progress").map((p) => [p.done, p.total])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(eventsOf(r.events, "node-log")[0]).toMatchObject({ level: "info", message: "done iterating", data: { total: 30 } });
  });
});

describe("recording", () => {
  it("a recorder that fails stops the run and the result says why", async () => {
    const recorder = {
      record(e: { type: string; nodeId?: string }) {
        if (e.type === "node-end" && e.nodeId === "a") throw new Error("disk full");
      },
    };
    const r = await run(chain(), { recorder });
    expect(r.result.status).toBe("error");
    expect(r.result.error!.message).toBe("disk full");
    expect(r.probe.calls.c).toBeUndefined();
  });
});
