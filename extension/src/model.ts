/**
 * Editing a graph document: pure functions from one `GraphDoc` to the next. The canvas, the
 * commands and undo/redo all go through these, so every change is a whole new document.
 */
import dagre from "@dagrejs/dagre";
import { checkGraph, saveGraph, splitRef as coreSplitRef, type Catalogue, type CatalogueNode, type GraphDoc, type GraphEdge, type GraphNode } from "@citeflow/core/browser";

export { saveGraph };

export function emptyGraph(name: string): GraphDoc {
  return {
    citeflow: 1,
    name,
    inputs: { question: { type: "Question", description: "A question or claim" } },
    nodes: [{ id: "question", type: "input.question", version: 1, params: {}, ui: { x: 0, y: 100 } }],
    edges: [],
  };
}

/** `node.port` as core splits it (a document the editor holds has read, so its refs are whole). */
export function splitRef(ref: string): { node: string; port: string } {
  return coreSplitRef(ref) ?? { node: ref, port: "" };
}

const byType = new WeakMap<Catalogue, Map<string, CatalogueNode>>();

export function nodeSpec(catalogue: Catalogue | undefined, type: string): CatalogueNode | undefined {
  if (!catalogue) return undefined;
  let types = byType.get(catalogue);
  if (!types) byType.set(catalogue, (types = new Map(catalogue.nodes.map((n) => [n.type, n]))));
  return types.get(type);
}

/** A fresh id from the node type: `retrieve.hybrid` → `hybrid`, `hybrid_2`, … */
export function freshId(doc: GraphDoc, type: string): string {
  const base = (type.split(".").pop() ?? "node").replace(/[^A-Za-z0-9_]/g, "_");
  const taken = new Set(doc.nodes.map((n) => n.id));
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}_${i}`)) return `${base}_${i}`;
}

export function addNode(doc: GraphDoc, spec: CatalogueNode, at: { x: number; y: number }): { doc: GraphDoc; id: string } {
  const id = freshId(doc, spec.type);
  const node: GraphNode = { id, type: spec.type, version: spec.version, params: {}, ui: { x: Math.round(at.x), y: Math.round(at.y) } };
  return { doc: { ...doc, nodes: [...doc.nodes, node] }, id };
}

export function removeNodes(doc: GraphDoc, ids: Set<string>): GraphDoc {
  return {
    ...doc,
    nodes: doc.nodes.filter((n) => !ids.has(n.id)),
    edges: doc.edges.filter((e) => !ids.has(splitRef(e.from).node) && !ids.has(splitRef(e.to).node)),
  };
}

export function removeEdges(doc: GraphDoc, edges: ReadonlySet<string>): GraphDoc {
  return { ...doc, edges: doc.edges.filter((e) => !edges.has(edgeId(e))) };
}

/** A graph name as a file-name stem: lower case, runs of other characters as "-" ("pipeline" if nothing is left). */
export function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "pipeline"
  );
}

export function edgeId(e: GraphEdge): string {
  return `${e.from}->${e.to}`;
}

export function moveNode(doc: GraphDoc, id: string, to: { x: number; y: number }): GraphDoc {
  return moveNodes(doc, new Map([[id, to]]));
}

/** Moves several nodes at once (positions rounded to whole pixels, as the file stores them). */
export function moveNodes(doc: GraphDoc, to: ReadonlyMap<string, { x: number; y: number }>): GraphDoc {
  return {
    ...doc,
    nodes: doc.nodes.map((n) => {
      const p = to.get(n.id);
      return p ? { ...n, ui: { x: Math.round(p.x), y: Math.round(p.y) } } : n;
    }),
  };
}

/** Sets one param; `undefined` removes it (the node's default applies again). */
export function setParam(doc: GraphDoc, id: string, key: string, value: unknown): GraphDoc {
  return {
    ...doc,
    nodes: doc.nodes.map((n) => {
      if (n.id !== id) return n;
      const params = { ...n.params };
      if (value === undefined) delete params[key];
      else params[key] = value;
      return { ...n, params };
    }),
  };
}

export type Check = { ok: true } | { ok: false; reason: string };

/**
 * May `from` (`node.port` of an output) connect to `to` (`node.port` of an input)? Core's graph
 * rules decide, on the document with the edge added: what they find on that edge (its ports, one
 * edge into an input, a duplicate, the types) or a cycle it makes is the reason; what the rest of
 * a graph being drawn still lacks (unfed inputs) is not.
 */
export function checkConnection(doc: GraphDoc, catalogue: Catalogue, from: string, to: string): Check {
  const at = `edges[${doc.edges.length}]`;
  const { problems } = checkGraph({ ...doc, edges: [...doc.edges, { from, to }] }, { catalogue });
  const found = problems.find((p) => p.severity === "error" && (p.path === at || p.path.startsWith(`${at}.`) || (p.path === "edges" && p.message.startsWith("cycle"))));
  return found ? { ok: false, reason: found.message } : { ok: true };
}

export function connect(doc: GraphDoc, catalogue: Catalogue, from: string, to: string): GraphDoc {
  const c = checkConnection(doc, catalogue, from, to);
  if (!c.ok) throw new Error(`cannot connect ${from} → ${to}: ${c.reason}`);
  return { ...doc, edges: [...doc.edges, { from, to }] };
}

/** Copies nodes (and the edges among them) with fresh ids, offset so the copies are visible. */
export function pasteNodes(doc: GraphDoc, nodes: GraphNode[], edges: GraphEdge[], offset = 40): { doc: GraphDoc; ids: string[] } {
  let next = doc;
  const rename = new Map<string, string>();
  for (const n of nodes) {
    const id = freshId(next, n.type);
    rename.set(n.id, id);
    const ui = n.ui ? { x: n.ui.x + offset, y: n.ui.y + offset } : { x: offset, y: offset };
    next = { ...next, nodes: [...next.nodes, { ...n, id, params: structuredClone(n.params), ui }] };
  }
  const kept = edges.flatMap((e) => {
    const f = splitRef(e.from);
    const t = splitRef(e.to);
    const nf = rename.get(f.node);
    const nt = rename.get(t.node);
    return nf && nt ? [{ from: `${nf}.${f.port}`, to: `${nt}.${t.port}` }] : [];
  });
  return { doc: { ...next, edges: [...next.edges, ...kept] }, ids: [...rename.values()] };
}

/** Layers per row of a wrapped layout: three 200-px layers and their gaps fit the canvas of a 1600-px window at a readable zoom. Nodes are laid out 130 px tall, the height of one that has run (summary, models, warnings). */
export const LAYERS_PER_ROW = 3;
const LAYER_GAP = 70;
const NODE_GAP = 30;
const ROW_GAP = 70;

/**
 * A layered layout (dagre's ranks and its order within each rank, left to right) set on a grid and
 * wrapped like text: each layer is a column with its nodes stacked in dagre's order, and every
 * LAYERS_PER_ROW layers start a new row below. An eight-step pipeline opens whole at a zoom where
 * it reads, instead of as one long row.
 */
export function autoLayout(doc: GraphDoc, size = { width: 200, height: 130 }, perRow = LAYERS_PER_ROW): GraphDoc {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "LR", nodesep: NODE_GAP, ranksep: LAYER_GAP });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of doc.nodes) g.setNode(n.id, { ...size });
  for (const e of doc.edges) g.setEdge(splitRef(e.from).node, splitRef(e.to).node);
  dagre.layout(g);
  const xs = [...new Set(doc.nodes.map((n) => g.node(n.id).x))].sort((a, b) => a - b);
  const layers = xs.map((x) =>
    doc.nodes
      .filter((n) => g.node(n.id).x === x)
      .sort((a, b) => g.node(a.id).y - g.node(b.id).y)
      .map((n) => n.id),
  );
  const ui = new Map<string, { x: number; y: number }>();
  let top = 0;
  for (let r = 0; r * perRow < layers.length; r++) {
    const row = layers.slice(r * perRow, (r + 1) * perRow);
    row.forEach((ids, col) => ids.forEach((id, k) => ui.set(id, { x: col * (size.width + LAYER_GAP), y: top + k * (size.height + NODE_GAP) })));
    top += Math.max(...row.map((ids) => ids.length)) * (size.height + NODE_GAP) - NODE_GAP + ROW_GAP;
  }
  return { ...doc, nodes: doc.nodes.map((n) => ({ ...n, ui: ui.get(n.id)! })) };
}

/** Port colours by value type: lists share their element's hue. */
const HUES: Record<string, number> = { Question: 200, Query: 180, Passage: 30, Answer: 130, Feedback: 280, Claim: 330, Verdict: 0, DatasetRow: 60, Text: 90, Number: 160, Boolean: 240, Any: -1 };

export function portColor(type: string): string {
  const base = type.replace(/\[\]$/, "");
  const hue = HUES[base] ?? (/^[A-Z]$/.test(base) ? -1 : [...base].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 360, 7));
  if (hue < 0) return "var(--jp-ui-font-color2)";
  return `hsl(${hue} 65% ${type.endsWith("[]") ? 40 : 50}%)`;
}
