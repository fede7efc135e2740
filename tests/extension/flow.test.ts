/** The document → React Flow mapping the canvas syncs into React Flow's store on every change. */
import type { GraphDoc } from "@citeflow/core";
import { createRegistry } from "@citeflow/nodes";
import { describe, expect, it } from "vitest";
import { toEdges, toFlow, type FlowSource } from "../../extension/lib/flow.js";
import { autoLayout, moveNode } from "../../extension/lib/model.js";

const catalogue = createRegistry().catalogue();
const doc: GraphDoc = {
  citeflow: 1,
  name: "two",
  inputs: {},
  nodes: [
    { id: "a", type: "list.select", version: 1, params: { limit: 5 }, ui: { x: 0, y: 0 } },
    { id: "b", type: "list.select", version: 1, params: { limit: 5 }, ui: { x: 240, y: 0 } },
  ],
  edges: [{ from: "a.items", to: "b.items" }],
} as GraphDoc;
const source = (over: Partial<FlowSource> = {}): FlowSource => ({ doc, catalogue, run: undefined, breakpoints: new Set(), selection: new Set(), onPort: () => {}, ...over });

describe("document → React Flow nodes and edges", () => {
  it("maps nodes with their positions and specs, and edges with their handles", () => {
    const nodes = toFlow(source());
    expect(nodes.map((n) => [n.id, n.position, n.data.spec?.type])).toEqual([
      ["a", { x: 0, y: 0 }, "list.select"],
      ["b", { x: 240, y: 0 }, "list.select"],
    ]);
    expect(toEdges(source())).toMatchObject([{ id: "a.items->b.items", source: "a", sourceHandle: "items", target: "b", targetHandle: "items" }]);
  });

  it("marks a required input that no edge feeds, and unmarks it once an edge does", () => {
    expect(toFlow(source()).map((n) => [n.id, n.data.unfed])).toEqual([
      ["a", "items"],
      ["b", ""],
    ]);
    const prev = toFlow(source());
    const fed = toFlow(source({ doc: { ...doc, edges: [] } }), prev);
    expect(fed.map((n) => n.data.unfed)).toEqual(["items", "items"]);
    expect(fed[0]).toBe(prev[0]);
    expect(fed[1]).not.toBe(prev[1]);
  });

  it("counts the corrections the run shown has on each node", () => {
    const run = { runId: "r", status: "ok" as const, nodes: {}, selected: [], corrections: [{ id: "1", runId: "r", at: 0, kind: "answer" as const, nodeId: "b", text: "fixed" }] };
    expect(toFlow(source({ run })).map((n) => n.data.corrected)).toEqual([0, 1]);
  });

  it("keeps the list, and every object, when nothing changed", () => {
    const nodes = toFlow(source());
    const edges = toEdges(source());
    expect(toFlow(source(), nodes)).toBe(nodes);
    expect(toEdges(source(), edges)).toBe(edges);
  });

  it("replaces only what changed, keeping React Flow's measured size", () => {
    const nodes = toFlow(source()).map((n) => ({ ...n, measured: { width: 180, height: 60 } }));
    const moved = moveNode(doc, "b", { x: 300, y: 40 });
    const next = toFlow(source({ doc: moved }), nodes);
    expect(next[0]).toBe(nodes[0]);
    expect(next[1]).not.toBe(nodes[1]);
    expect(next[1]!.position).toEqual({ x: 300, y: 40 });
    expect(next[1]!.measured).toEqual({ width: 180, height: 60 });
  });

  it("a badge arriving mid-drag keeps the node where React Flow has it", () => {
    const nodes = toFlow(source());
    const dragged = nodes.map((n) => (n.id === "a" ? { ...n, position: { x: 55, y: 66 } } : n));
    const next = toFlow(source({ run: { nodes: { a: { status: "running" } } } as FlowSource["run"] }), dragged);
    expect(next[0]!.data.badge).toEqual({ status: "running" });
    expect(next[0]!.position).toEqual({ x: 55, y: 66 });
  });

  it("follows the selection and drops removed edges", () => {
    const nodes = toFlow(source());
    const next = toFlow(source({ selection: new Set(["b"]) }), nodes);
    expect(next.map((n) => n.selected)).toEqual([false, true]);
    expect(next[0]).toBe(nodes[0]);
    expect(toEdges(source({ doc: { ...doc, edges: [] } }), toEdges(source()))).toEqual([]);
  });
});

describe("auto-layout", () => {
  const chain = (n: number, extra: GraphDoc["edges"] = []): GraphDoc =>
    ({
      citeflow: 1,
      name: "chain",
      inputs: {},
      nodes: Array.from({ length: n }, (_, i) => ({ id: `n${i}`, type: "list.select", version: 1, params: {} })),
      edges: [...Array.from({ length: n - 1 }, (_, i) => ({ from: `n${i}.items`, to: `n${i + 1}.items` })), ...extra],
    }) as GraphDoc;
  const at = (d: GraphDoc) => Object.fromEntries(d.nodes.map((n) => [n.id, [n.ui!.x, n.ui!.y]]));

  it("wraps a long chain into rows of three layers, like text", () => {
    const laid = at(autoLayout(chain(8)));
    expect(laid).toEqual({ n0: [0, 0], n1: [270, 0], n2: [540, 0], n3: [0, 200], n4: [270, 200], n5: [540, 200], n6: [0, 400], n7: [270, 400] });
  });

  it("stacks the nodes of one layer in a column, and the next row starts below the tallest column", () => {
    // n1 and n2 both follow n0: one layer of two.
    const d = {
      ...chain(2),
      nodes: [...chain(2).nodes, { id: "n2", type: "list.select", version: 1, params: {} }],
      edges: [
        { from: "n0.items", to: "n1.items" },
        { from: "n0.items", to: "n2.items" },
      ],
    } as GraphDoc;
    const laid = at(autoLayout(d));
    expect(laid.n0).toEqual([0, 0]);
    expect([laid.n1![0], laid.n2![0]]).toEqual([270, 270]);
    expect(Math.abs(laid.n1![1]! - laid.n2![1]!)).toBe(160);
    expect(at(autoLayout({ ...d, nodes: [], edges: [] }))).toEqual({});
  });
});
