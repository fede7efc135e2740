import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkGraph, GraphValidationError, loadGraph, saveGraph, validateGraph, type Problem } from "@citeflow/core";
import { doc, testRegistry } from "../helpers.js";

const registry = testRegistry();
const valid = () =>
  doc(
    { q: ["input.question"], t: ["test.question-text"], p: ["test.passages", { ids: ["1#0", "2#0"] }], p2: ["test.passages"], m: ["list.merge"], s: ["list.select", { limit: 1 }] },
    ["q.question->t.question", "p.passages->m.lists", "p2.passages->m.lists", "m.items->s.items"],
    { question: { type: "Question" } },
  );
const errorsOf = (input: unknown): Problem[] => validateGraph(input, registry).problems.filter((p) => p.severity === "error");
function expectProblem(input: unknown, match: Partial<Problem> & { message: RegExp }) {
  const errors = errorsOf(input);
  const { message, ...rest } = match;
  expect(errors).toContainEqual(expect.objectContaining({ ...rest, message: expect.stringMatching(message) }));
  expect(() => loadGraph(input, registry)).toThrow(GraphValidationError);
}

describe("graph loading", () => {
  it("loads a valid graph, binding generic types", () => {
    const g = loadGraph(valid(), registry);
    expect(g.order).toEqual(["q", "t", "p", "p2", "m", "s"]);
    expect(g.nodes.get("m")!.outputTypes.items).toBe("Passage[]");
    expect(g.nodes.get("s")!.outputTypes.items).toBe("Passage[]");
    expect(g.nodes.get("s")!.params).toMatchObject({ limit: 1, offset: 0, order: "desc", where: [] });
  });

  it("rejects an unknown node type", () => {
    const d = valid();
    d.nodes[1].type = "retrieve.telepathy";
    expectProblem(d, { nodeId: "t", field: "type", message: /unknown node type "retrieve.telepathy"/ });
  });

  it("rejects unknown params, naming node and field", () => {
    const d = valid();
    d.nodes[2].params.topk = 5;
    expectProblem(d, { nodeId: "p", field: "params.topk", message: /unknown param "topk"/ });
  });

  it("rejects params of the wrong type", () => {
    const d = valid();
    d.nodes[5].params.limit = "ten";
    expectProblem(d, { nodeId: "s", field: "params.limit", message: /number/ });
  });

  it("rejects a bad template at load time", () => {
    const d = doc({ t: ["text.template", { template: "{{#each passages}}{{text}}" }] });
    expectProblem(d, { nodeId: "t", field: "params.template", message: /never closed/ });
  });

  it("rejects cycles, naming the nodes in it", () => {
    const d = doc({ a: ["test.add"], b: ["test.add"], c: ["test.add"] }, ["a.out->b.a", "b.out->c.a", "c.out->a.a"]);
    const errors = errorsOf(d);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/^cycle: (a → b → c → a|b → c → a → b|c → a → b → c)$/);
  });

  it("rejects a self loop", () => {
    expectProblem(doc({ a: ["test.add"] }, ["a.out->a.a"]), { message: /cycle: a → a/ });
  });

  it("rejects dangling edges in either direction", () => {
    const d = valid();
    d.edges.push({ from: "ghost.out", to: "s.items" });
    expectProblem(d, { nodeId: "ghost", path: "edges[4].from", message: /unknown node "ghost" \(dangling edge\)/ });
    const e = valid();
    e.edges.push({ from: "q.question", to: "nowhere.in" });
    expectProblem(e, { nodeId: "nowhere", message: /dangling edge/ });
  });

  it("rejects edges to unknown ports", () => {
    const d = valid();
    d.edges[0].to = "t.prompt";
    expectProblem(d, { nodeId: "t", field: "inputs.prompt", message: /has no input "prompt" \(inputs: question\)/ });
    const e = valid();
    e.edges[0].from = "q.answer";
    expectProblem(e, { nodeId: "q", message: /has no output "answer"/ });
  });

  it("rejects type-mismatched edges", () => {
    const d = doc({ p: ["test.passages"], t: ["test.question-text"] }, ["p.passages->t.question"]);
    expectProblem(d, { nodeId: "t", field: "inputs.question", message: /type mismatch: p.passages \(Passage\[\]\) → t.question/ });
  });

  it("rejects mixing list types into one generic merge", () => {
    const d = doc({ p: ["test.passages"], q: ["input.questions"], m: ["list.merge"] }, ["p.passages->m.lists", "q.questions->m.lists"], { questions: { type: "Question[]" } });
    expectProblem(d, { nodeId: "m", message: /Question\[\] cannot flow into Passage\[\]/ });
  });

  it("rejects a bound generic output feeding the wrong type downstream", () => {
    const d = doc({ p: ["test.passages"], s: ["list.select"], t: ["test.question-text"] }, ["p.passages->s.items", "s.items->t.question"]);
    expectProblem(d, { nodeId: "t", message: /Passage\[\] cannot flow into Question/ });
  });

  it("rejects duplicate node ids and duplicate edges", () => {
    const d = valid();
    d.nodes.push({ ...d.nodes[0] });
    expectProblem(d, { nodeId: "q", field: "id", message: /duplicate node id/ });
    const e = valid();
    e.edges.push({ ...e.edges[1] });
    expectProblem(e, { message: /duplicate edge p.passages → m.lists/ });
  });

  it("rejects two edges into a single-value input", () => {
    const d = doc({ a: ["test.const"], b: ["test.const"], c: ["test.add"] }, ["a.out->c.a", "b.out->c.a"]);
    expectProblem(d, { nodeId: "c", field: "inputs.a", message: /takes one edge; it already has one from a.out/ });
  });

  it("a node refused for a param still feeds its edges: no false 'not connected' downstream", () => {
    const d = doc({ p: ["test.passages"], s: ["list.select", { limit: -3 }], s2: ["list.select"] }, ["p.passages->s.items", "s.items->s2.items"]);
    const errors = errorsOf(d);
    expect(errors).toContainEqual(expect.objectContaining({ nodeId: "s", field: "params.limit" }));
    expect(errors.filter((e) => /not connected/.test(e.message))).toEqual([]);
  });

  it("rejects an unconnected required input", () => {
    expectProblem(doc({ c: ["test.add"] }), { nodeId: "c", field: "inputs.a", message: /required input "a" \(Number\) is not connected/ });
  });

  it.each(["__proto__", "constructor", "prototype"])("rejects the key %s anywhere", (key) => {
    const text = JSON.stringify(valid()).replace('"limit":1', `"limit":1,"${key}":{"polluted":true}`);
    expectProblem(text, { path: `nodes[5].params.${key}`, message: new RegExp(`the key "${key}" is not allowed`) });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("rejects oversized documents before parsing them", () => {
    const text = JSON.stringify({ ...valid(), description: "x".repeat(2000) });
    expect(() => loadGraph(text, registry, { maxBytes: 1000 })).toThrow(/bytes, over the 1000-byte limit/);
  });

  it("rejects documents nested too deeply", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    const d = valid();
    d.nodes[0].params.name = deep;
    expect(errorsOf(d)[0]!.message).toMatch(/nested deeper than 64 levels/);
  });

  it("rejects text that is not JSON, and non-objects", () => {
    expect(errorsOf("{ nodes: [")[0]!.message).toMatch(/not valid JSON/);
    expect(errorsOf("[]")[0]!.message).toMatch(/JSON object/);
    expect(errorsOf(null)[0]!.message).toMatch(/JSON object/);
  });

  it("rejects a wrong format version, unknown top-level fields and bad node fields", () => {
    const d = { ...valid(), citeflow: 2, extra: true };
    d.nodes[0].ui = { x: "left", y: 0 };
    d.nodes[1].script = "alert(1)";
    const msgs = errorsOf(d).map((p) => p.message);
    expect(msgs).toEqual(expect.arrayContaining([expect.stringMatching(/"citeflow" must be 1/), 'unknown top-level field "extra"', expect.stringMatching(/"ui" must be/), 'unknown field "script"']));
  });

  it("rejects bad node ids", () => {
    const d = valid();
    d.nodes[0].id = "has space";
    expectProblem(d, { path: "nodes[0].id", message: /must start with a letter/ });
  });

  it("rejects a graph-input node whose input is not declared", () => {
    const d = valid();
    d.inputs = {};
    expectProblem(d, { nodeId: "q", field: "params", message: /reads graph input "question", which the graph's "inputs" does not declare/ });
    const e = valid();
    e.inputs = { question: { type: "Passage[]" } };
    expectProblem(e, { nodeId: "q", message: /graph input "question" is Passage\[\]/ });
  });

  it("rejects a version newer than the node's, and warns for an older one", () => {
    const d = valid();
    d.nodes[1].version = 9;
    expectProblem(d, { nodeId: "t", field: "version", message: /saved with test.question-text v9, but this Citeflow has v1/ });
    const reg2 = testRegistry({ addVersion: 2 });
    const old = doc({ a: ["test.const"], b: ["test.add"] }, ["a.out->b.a"]);
    const g = loadGraph(old, reg2);
    expect(g.warnings).toEqual([expect.objectContaining({ nodeId: "b", field: "version", severity: "warning" })]);
  });

  it("collects every problem, not just the first", () => {
    const d = valid();
    d.nodes[1].type = "nope.nope";
    d.nodes[2].params.bogus = 1;
    d.edges.push({ from: "zz.a", to: "s.items" });
    expect(errorsOf(d).length).toBeGreaterThanOrEqual(3);
  });

  it("error messages name the node and field", () => {
    const d = valid();
    d.nodes[2].params.topk = 5;
    try {
      loadGraph(d, registry, { source: "g.citeflow.json" });
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).toContain("g.citeflow.json: invalid graph (1 problem)");
      expect((e as Error).message).toContain('error: node "p" params.topk: unknown param "topk" for test.passages');
    }
  });
});

describe("checkGraph: the same rules without a registry (the editor's check)", () => {
  const catalogue = registry.catalogue();
  const messages = (input: unknown, withCatalogue = true) => checkGraph(input, withCatalogue ? { catalogue } : {}).problems.map((p) => `${p.path}: ${p.message}`);

  it("passes what the kernel loads, and keeps a node's missing version missing", () => {
    const d = valid();
    expect(checkGraph(d, { catalogue }).problems).toEqual([]);
    delete (d.nodes[0] as { version?: number }).version;
    expect(checkGraph(d, { catalogue }).doc!.nodes[0]).not.toHaveProperty("version");
    expect(loadGraph(d, registry).doc.nodes[0]!.version).toBe(registry.get(d.nodes[0].type)!.version);
  });

  it("finds what the kernel finds in the shape and the wiring, and with the catalogue the types, versions and ports", () => {
    const d = valid();
    d.nodes[1].type = "retrieve.telepathy";
    d.nodes[5].version = 99;
    d.edges.push({ from: "p.passages", to: "m.nope" }, { from: "m.items", to: "q.question" });
    const withTypes = messages(d);
    expect(withTypes).toEqual(
      expect.arrayContaining([
        'nodes[1].type: unknown node type "retrieve.telepathy"',
        "nodes[5].version: saved with list.select v99, but this Citeflow has v" + registry.get("list.select")!.version + ": upgrade Citeflow",
        'edges[4].to: list.merge has no input "nope" (inputs: lists)',
      ]),
    );
    // The kernel's check reports the same places.
    const kernel = validateGraph(d, registry).problems.map((p) => `${p.path}: ${p.message}`);
    for (const m of withTypes) expect(kernel).toContain(m);
    // Without the catalogue, only what needs no node types.
    expect(messages({ ...d, nodes: [...d.nodes, d.nodes[0]] }, false)).toEqual(["nodes[6].id: duplicate node id"]);
  });
});

describe("graph saving", () => {
  it("writes a stable key order, two-space indent, and round-trips", () => {
    const g = loadGraph(valid(), registry);
    const text = saveGraph(g.doc);
    expect(text.startsWith('{\n  "citeflow": 1,\n  "name": "test graph",\n  "inputs"')).toBe(true);
    const again = saveGraph(loadGraph(text, registry).doc);
    expect(again).toBe(text);
  });

  it("orders keys the same whatever order the document had", () => {
    const g1 = loadGraph(doc({ s: ["list.select", { limit: 2, offset: 1 }], p: ["test.passages"] }, ["p.passages->s.items"]), registry);
    const shuffled = JSON.parse(
      JSON.stringify({
        edges: [{ to: "s.items", from: "p.passages" }],
        nodes: [
          { params: { offset: 1, limit: 2 }, version: 1, type: "list.select", id: "s" },
          { type: "test.passages", id: "p", version: 1, params: {} },
        ],
        inputs: {},
        name: "test graph",
        citeflow: 1,
      }),
    );
    expect(saveGraph(loadGraph(shuffled, registry).doc)).toBe(saveGraph(g1.doc));
  });
});

describe("loader fuzz", () => {
  const check = (input: unknown) => {
    try {
      loadGraph(input, registry);
    } catch (e) {
      if (!(e instanceof GraphValidationError)) throw new Error(`threw ${(e as Error).name}: ${(e as Error).message}`, { cause: e });
    }
  };

  it("random JSON values only ever give validation errors", () => {
    fc.assert(fc.property(fc.jsonValue(), check), { numRuns: 500 });
    fc.assert(fc.property(fc.string(), check), { numRuns: 300 });
  });

  it("mutated valid documents only ever give validation errors", () => {
    const base = valid();
    // A mutation: pick a path into the document and replace, delete or duplicate what is there.
    const mutation = fc.tuple(fc.nat(), fc.constantFrom("replace", "delete", "add-key", "swap-type"), fc.jsonValue(), fc.string());
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (muts) => {
        const d = structuredClone(base);
        for (const [pick, op, value, key] of muts) mutate(d, pick, op, value, key);
        check(d);
        check(JSON.stringify(d));
      }),
      { numRuns: 600 },
    );
  });
});

function mutate(root: any, pick: number, op: string, value: unknown, key: string) {
  const slots: Array<[any, string | number]> = [];
  const walk = (v: any) => {
    if (v && typeof v === "object")
      for (const k of Object.keys(v)) {
        slots.push([v, Array.isArray(v) ? Number(k) : k]);
        walk(v[k]);
      }
  };
  walk(root);
  const [parent, k] = slots[pick % slots.length]!;
  if (op === "replace") parent[k] = value;
  else if (op === "delete") Array.isArray(parent) ? parent.splice(k as number, 1) : delete parent[k];
  else if (op === "add-key" && !Array.isArray(parent)) Object.defineProperty(parent, key || "__proto__", { value, enumerable: true, configurable: true, writable: true });
  else if (op === "swap-type") parent[k] = typeof parent[k] === "string" ? 42 : String(parent[k]);
}
