/** Reading a `*.citeflow.json` file into the editor, by core's graph rules: every shipped graph reads; a broken one names each problem and where. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createRegistry } from "@citeflow/nodes";
import { checkConnection, saveGraph, splitRef } from "../../extension/lib/model.js";
import { parseGraph } from "../../extension/lib/parse.js";

const NODES = fileURLToPath(new URL("../../packages/nodes/", import.meta.url));
const shipped = ["templates", "graphs"].flatMap((dir) =>
  readdirSync(join(NODES, dir))
    .filter((f) => f.endsWith(".citeflow.json"))
    .map((f) => join(NODES, dir, f)),
);

const problems = (doc: unknown) => {
  try {
    parseGraph(typeof doc === "string" ? doc : JSON.stringify(doc), "p.citeflow.json");
  } catch (e) {
    return (e as Error).message.split("\n");
  }
  throw new Error("expected the graph to be refused");
};

const node = (id: string, more: object = {}) => ({ id, type: "list.select", version: 1, params: {}, ui: { x: 0, y: 0 }, ...more });

describe("parseGraph", () => {
  it("reads every graph that ships, as written", () => {
    expect(shipped.length).toBeGreaterThanOrEqual(5);
    for (const f of shipped) {
      const text = readFileSync(f, "utf8");
      const doc = parseGraph(text, f);
      expect(doc.nodes).toEqual(JSON.parse(text).nodes);
      expect(doc.edges).toEqual(JSON.parse(text).edges);
    }
  });

  it("keeps a node's missing version missing (the type's current one, as the kernel reads it) and fills its params", () => {
    const doc = parseGraph(JSON.stringify({ citeflow: 1, name: "n", nodes: [{ id: "a", type: "list.select" }], edges: [] }), "p");
    expect(doc.nodes[0]).toEqual({ id: "a", type: "list.select", params: {} });
    expect(saveGraph(doc)).not.toContain('"version"');
  });

  it("names the file and the JSON error for text that is not JSON", () => {
    expect(problems('{ "citeflow": 1, "nodes": [], }')).toEqual(["p.citeflow.json: 1 problem", expect.stringMatching(/^document: not valid JSON: .+$/)]);
    expect(problems({ nodes: [] })[1]).toBe('citeflow: "citeflow" must be 1 (the graph format version), got undefined');
  });

  it("lists every problem with its place in the document, as the kernel does: a name, no unknown fields, no cycle", () => {
    const lines = problems({
      citeflow: 1,
      name: "n",
      nodes: [node("a"), node("a"), { type: "list.select" }, node("b", { ui: { x: "1", y: 0 }, params: [] }), 7],
      edges: [{ from: "a.items", to: "b.items" }, { from: "a", to: "ghost.items" }, "a.items"],
    });
    expect(lines).toEqual([
      "p.citeflow.json: 7 problems",
      "nodes[1].id: duplicate node id",
      "nodes[2].id: node id undefined must start with a letter or _ and hold only letters, digits, _ and - (≤ 64)",
      'nodes[3].ui: "ui" must be { "x": number, "y": number }',
      'nodes[3].params: "params" must be an object',
      "nodes[4]: a node is an object with id, type, version, params",
      'edges[1].from: "a" is not "nodeId.port"',
      'edges[2]: an edge is { "from": "node.port", "to": "node.port" }',
    ]);
    expect(problems({ citeflow: 1, nodes: [], edges: [] })).toEqual(["p.citeflow.json: 1 problem", 'name: "name" must be a non-empty string']);
    expect(problems({ citeflow: 1, name: "n", nodes: [node("a", { colour: "red" })], edges: [], extra: 1 }).slice(1)).toEqual([
      'extra: unknown top-level field "extra"',
      'nodes[0].colour: unknown field "colour"',
    ]);
    expect(
      problems({
        citeflow: 1,
        name: "n",
        nodes: [node("a"), node("b")],
        edges: [
          { from: "a.items", to: "b.items" },
          { from: "b.items", to: "a.items" },
        ],
      }).slice(1),
    ).toEqual(["edges: cycle: b → a → b"]);
  });

  it("lists the first 8 problems and counts the rest", () => {
    const lines = problems({ citeflow: 1, name: "n", nodes: Array.from({ length: 11 }, () => ({ id: "", type: "t" })), edges: [] });
    expect(lines[0]).toBe("p.citeflow.json: 11 problems");
    expect(lines).toHaveLength(1 + 8 + 1);
    expect(lines.at(-1)).toBe("… and 3 more");
  });

  it("wants lists of nodes and edges", () => {
    expect(problems({ citeflow: 1, name: "n", nodes: {}, edges: null }).slice(1)).toEqual(['nodes: "nodes" must be an array', 'edges: "edges" must be an array']);
  });
});

describe("checkConnection: core's rules on the document with the edge added", () => {
  const catalogue = createRegistry().catalogue();
  const doc = parseGraph(readFileSync(join(NODES, "templates", "verifai.citeflow.json"), "utf8"), "verifai");
  const edge = doc.edges[0]!;
  const without = { ...doc, edges: doc.edges.slice(1) };

  it("allows an edge the kernel would load, though the graph being drawn still lacks others", () => {
    expect(checkConnection(without, catalogue, edge.from, edge.to)).toEqual({ ok: true });
  });

  it("refuses what the kernel would refuse, with its reason", () => {
    const reason = (from: string, to: string) => {
      const c = checkConnection(doc, catalogue, from, to);
      return c.ok ? "ok" : c.reason;
    };
    expect(reason(edge.from, edge.to)).toMatch(/^(duplicate edge|input ".+" takes one edge)/);
    const [a, b] = [splitRef(edge.from).node, splitRef(edge.to).node];
    expect(reason(`${b}.nothing`, edge.to)).toMatch(/has no output "nothing"/);
    expect(reason(edge.from, `${a}.nothing`)).toMatch(/has no input "nothing"/);
    // Two list.select nodes in a row: the way back is a cycle, a node into itself too, and a Question is no list.
    const chain = parseGraph(
      JSON.stringify({
        citeflow: 1,
        name: "chain",
        inputs: { question: { type: "Question" } },
        nodes: [node("q", { type: "input.question", params: {} }), node("s1"), node("s2")],
        edges: [{ from: "s1.items", to: "s2.items" }],
      }),
      "chain",
    );
    const chained = (from: string, to: string) => {
      const c = checkConnection(chain, catalogue, from, to);
      return c.ok ? "ok" : c.reason;
    };
    expect(chained("s2.items", "s1.items")).toBe("cycle: s2 → s1 → s2");
    expect(chained("s1.items", "s1.items")).toBe("cycle: s1 → s1");
    expect(chained("q.question", "s1.items")).toMatch(/^type mismatch: q\.question \(Question\) → s1\.items/);
    expect(chained("s1.items", "s2.items")).toMatch(/^(duplicate edge|input "items" takes one edge)/);
  });
});
