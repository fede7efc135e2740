/** Reading a `*.citeflow.json` file into the editor: every shipped graph reads; a broken one names each problem and where. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
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

  it("fills a node's missing version and params", () => {
    const doc = parseGraph(JSON.stringify({ citeflow: 1, nodes: [{ id: "a", type: "list.select" }], edges: [] }), "p");
    expect(doc.nodes[0]).toEqual({ id: "a", type: "list.select", version: 1, params: {} });
    expect(doc.name).toBe("untitled");
  });

  it("names the file and the JSON error for text that is not JSON", () => {
    const [line] = problems('{ "citeflow": 1, "nodes": [], }');
    expect(line).toMatch(/^p\.citeflow\.json: not JSON \(.+\)$/);
    expect(problems({ nodes: [] })[0]).toBe('p.citeflow.json: not a Citeflow graph (no "citeflow": 1 at the top)');
  });

  it("lists every problem with its place in the document", () => {
    const lines = problems({
      citeflow: 1,
      nodes: [node("a"), node("a"), { type: "list.select" }, node("b", { ui: { x: "1", y: 0 }, params: [] }), 7],
      edges: [{ from: "a.items", to: "b.items" }, { from: "a", to: "ghost.items" }, "a.items"],
    });
    expect(lines).toEqual([
      "p.citeflow.json: 8 problems",
      'nodes[1].id: "a" is also the id of nodes[0]',
      "nodes[2].id: must be a non-empty string",
      "nodes[3].params: must be an object",
      "nodes[3].ui: must be { x: number, y: number }",
      "nodes[4]: must be an object",
      'edges[1].from: must be "node.port", not "a"',
      'edges[1].to: no node "ghost" in this graph',
      "edges[2]: must be an object",
    ]);
  });

  it("lists the first 8 problems and counts the rest", () => {
    const lines = problems({ citeflow: 1, nodes: Array.from({ length: 11 }, () => ({ id: "", type: "t" })), edges: [] });
    expect(lines[0]).toBe("p.citeflow.json: 11 problems");
    expect(lines).toHaveLength(1 + 8 + 1);
    expect(lines.at(-1)).toBe("… and 3 more");
  });

  it("wants lists of nodes and edges", () => {
    expect(problems({ citeflow: 1, nodes: {}, edges: null }).slice(1)).toEqual(["nodes: must be a list", "edges: must be a list"]);
  });
});
