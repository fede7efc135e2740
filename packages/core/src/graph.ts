import type { AnyNodeDefinition } from "./node.js";

/** A `*.citeflow.json` document. Data only: loading one never runs code from it. */
export interface GraphDoc {
  citeflow: 1;
  name: string;
  description?: string;
  inputs: Record<string, GraphInputSpec>;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export interface GraphInputSpec {
  type: string;
  description?: string;
}

export interface GraphNode {
  id: string;
  type: string;
  /** The node type's version the graph was saved with; absent: the current one (a loaded graph always has it). */
  version?: number;
  params: Record<string, unknown>;
  ui?: { x: number; y: number };
}

export interface GraphEdge {
  /** `nodeId.port` */
  from: string;
  to: string;
}

export interface Problem {
  severity: "error" | "warning";
  /** JSON path in the document, e.g. `nodes[2].params.k`. */
  path: string;
  nodeId?: string;
  field?: string;
  message: string;
}

export function formatProblem(p: Problem): string {
  const where = p.nodeId !== undefined ? `node "${p.nodeId}"${p.field ? ` ${p.field}` : ""}` : p.path || "document";
  return `${p.severity}: ${where}: ${p.message}`;
}

export class GraphValidationError extends Error {
  constructor(
    readonly problems: Problem[],
    readonly source?: string,
  ) {
    const errors = problems.filter((p) => p.severity === "error");
    super(`${source ? source + ": " : ""}invalid graph (${errors.length} problem${errors.length === 1 ? "" : "s"})\n` + errors.map((p) => "  " + formatProblem(p)).join("\n"));
    this.name = "GraphValidationError";
  }
}

export interface EdgeRef {
  node: string;
  port: string;
}

export interface CompiledNode {
  id: string;
  def: AnyNodeDefinition;
  /** Params after defaults were applied. */
  params: Record<string, unknown>;
  inputTypes: Record<string, string>;
  outputTypes: Record<string, string>;
  /** Per input port, the edges feeding it in document order. */
  incoming: Record<string, EdgeRef[]>;
  /** Downstream node ids (deduplicated). */
  children: string[];
  /** Upstream node ids (deduplicated). */
  parents: string[];
  graphInput?: string;
}

export interface CompiledGraph {
  doc: GraphDoc;
  /** The folder of the file it was read from, when it was: its relative `file:` prompts are read there, from every front end. */
  folder?: string;
  nodes: Map<string, CompiledNode>;
  /** Topological order, ties broken by document order. */
  order: string[];
  warnings: Problem[];
}

/** Serialise with a stable key order and two-space indent so diffs show exactly what changed. */
export function saveGraph(doc: GraphDoc): string {
  const out = {
    citeflow: 1,
    name: doc.name,
    ...(doc.description !== undefined ? { description: doc.description } : {}),
    inputs: Object.fromEntries(
      Object.keys(doc.inputs)
        .sort()
        .map((k) => {
          const s = doc.inputs[k]!;
          return [k, { type: s.type, ...(s.description !== undefined ? { description: s.description } : {}) }];
        }),
    ),
    nodes: doc.nodes.map((n) => ({
      id: n.id,
      type: n.type,
      version: n.version,
      params: sortKeysDeep(n.params),
      ...(n.ui ? { ui: { x: n.ui.x, y: n.ui.y } } : {}),
    })),
    edges: doc.edges.map((e) => ({ from: e.from, to: e.to })),
  };
  return JSON.stringify(out, null, 2) + "\n";
}

/** Nodes reachable upstream of `id` (not including it). */
export function ancestors(graph: CompiledGraph, id: string): Set<string> {
  return reach(graph, id, (n) => n.parents);
}

/** Nodes reachable downstream of `id` (not including it). */
export function descendants(graph: CompiledGraph, id: string): Set<string> {
  return reach(graph, id, (n) => n.children);
}

function reach(graph: CompiledGraph, id: string, next: (n: CompiledNode) => string[]): Set<string> {
  const out = new Set<string>();
  const stack = [...next(graph.nodes.get(id)!)];
  while (stack.length) {
    const cur = stack.pop()!;
    if (out.has(cur)) continue;
    out.add(cur);
    stack.push(...next(graph.nodes.get(cur)!));
  }
  return out;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the same value with its keys sorted: its type is the caller's
export function sortKeysDeep(value: unknown): any {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (typeof value !== "object" || value === null) return value;
  const obj = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(obj)
      .sort()
      .map((k) => [k, sortKeysDeep(obj[k])]),
  );
}
