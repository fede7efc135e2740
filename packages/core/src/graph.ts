import { z } from "zod";
import type { AnyNodeDefinition } from "./node.js";
import { canConnect, isValidPortType, substitute, type Bindings } from "./ports.js";
import type { NodeRegistry } from "./registry.js";

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
  version: number;
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
    super(
      `${source ? source + ": " : ""}invalid graph (${errors.length} problem${errors.length === 1 ? "" : "s"})\n` +
        errors.map((p) => "  " + formatProblem(p)).join("\n"),
    );
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
  nodes: Map<string, CompiledNode>;
  /** Topological order, ties broken by document order. */
  order: string[];
  warnings: Problem[];
}

export interface LoadOptions {
  /** Largest document accepted, in bytes of UTF-8 (default 5 MiB). */
  maxBytes?: number;
  /** Deepest nesting of objects and arrays accepted (default 64). */
  maxDepth?: number;
  /** Name used in error messages (file path). */
  source?: string;
}

export const NODE_ID = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);
const TOP_KEYS = ["citeflow", "name", "description", "inputs", "nodes", "edges"];
const NODE_KEYS = ["id", "type", "version", "params", "ui"];

/** Parse, validate against the registry and compile. Throws GraphValidationError listing every problem. */
export function loadGraph(input: string | unknown, registry: NodeRegistry, options: LoadOptions = {}): CompiledGraph {
  const { graph, problems } = validateGraph(input, registry, options);
  if (!graph) throw new GraphValidationError(problems, options.source);
  return graph;
}

/** Like loadGraph, but returns the problems instead of throwing. `graph` is set when there are no errors. */
export function validateGraph(
  input: string | unknown,
  registry: NodeRegistry,
  options: LoadOptions = {},
): { graph?: CompiledGraph; problems: Problem[] } {
  const problems: Problem[] = [];
  const error = (path: string, message: string, nodeId?: string, field?: string) =>
    problems.push({ severity: "error", path, message, ...(nodeId !== undefined ? { nodeId } : {}), ...(field ? { field } : {}) });
  const done = () => ({ problems });

  let raw: unknown = input;
  if (typeof input === "string") {
    const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    const bytes = new TextEncoder().encode(input).length;
    if (bytes > maxBytes) {
      error("", `document is ${bytes} bytes, over the ${maxBytes}-byte limit`);
      return done();
    }
    try {
      raw = JSON.parse(input);
    } catch (e) {
      error("", `not valid JSON: ${(e as Error).message}`);
      return done();
    }
  }
  if (!checkStructure(raw, options.maxDepth ?? 64, error)) return done();
  if (!isObject(raw)) {
    error("", "a graph document is a JSON object");
    return done();
  }

  for (const key of Object.keys(raw)) if (!TOP_KEYS.includes(key)) error(key, `unknown top-level field "${key}"`);
  if (raw.citeflow !== 1) error("citeflow", `"citeflow" must be 1 (the graph format version), got ${JSON.stringify(raw.citeflow)}`);
  if (typeof raw.name !== "string" || raw.name.trim() === "") error("name", `"name" must be a non-empty string`);
  if (raw.description !== undefined && typeof raw.description !== "string") error("description", `"description" must be a string`);

  const inputs: Record<string, GraphInputSpec> = {};
  if (raw.inputs !== undefined) {
    if (!isObject(raw.inputs)) error("inputs", `"inputs" must be an object of name → { type }`);
    else
      for (const [name, spec] of Object.entries(raw.inputs)) {
        const path = `inputs.${name}`;
        if (!NODE_ID.test(name)) error(path, `graph input name "${name}" must be letters, digits, _ or -`);
        else if (!isObject(spec) || typeof spec.type !== "string") error(path, `graph input "${name}" needs a "type"`);
        else if (!isValidPortType(spec.type) || /^[A-Z](\[\])?$/.test(spec.type)) error(`${path}.type`, `unknown value type "${spec.type}"`);
        else if (Object.keys(spec).some((k) => k !== "type" && k !== "description")) error(path, `graph input "${name}" has fields other than type and description`);
        else inputs[name] = { type: spec.type, ...(typeof spec.description === "string" ? { description: spec.description } : {}) };
      }
  }

  if (!Array.isArray(raw.nodes)) error("nodes", `"nodes" must be an array`);
  if (!Array.isArray(raw.edges)) error("edges", `"edges" must be an array`);
  if (!Array.isArray(raw.nodes) || !Array.isArray(raw.edges)) return done();

  // Nodes: ids, types, versions, params.
  const nodes = new Map<string, CompiledNode>();
  const docNodes: GraphNode[] = [];
  raw.nodes.forEach((n, i) => {
    const path = `nodes[${i}]`;
    if (!isObject(n)) return error(path, "a node is an object with id, type, version, params");
    const id = n.id;
    if (typeof id !== "string" || !NODE_ID.test(id)) return error(`${path}.id`, `node id ${JSON.stringify(id)} must start with a letter or _ and hold only letters, digits, _ and - (≤ 64)`);
    if (nodes.has(id) || docNodes.some((d) => d.id === id)) return error(`${path}.id`, `duplicate node id`, id, "id");
    for (const key of Object.keys(n)) if (!NODE_KEYS.includes(key)) error(`${path}.${key}`, `unknown field "${key}"`, id, key);
    if (typeof n.type !== "string") return error(`${path}.type`, `"type" must be a string`, id, "type");
    const def = registry.get(n.type);
    if (!def) return error(`${path}.type`, `unknown node type "${n.type}"`, id, "type");
    let version = def.version;
    if (n.version !== undefined) {
      if (!Number.isInteger(n.version) || (n.version as number) < 1) return error(`${path}.version`, `"version" must be an integer ≥ 1`, id, "version");
      version = n.version as number;
      if (version > def.version) return error(`${path}.version`, `saved with ${n.type} v${version}, but this Citeflow has v${def.version}: upgrade Citeflow`, id, "version");
      if (version < def.version)
        problems.push({ severity: "warning", path: `${path}.version`, nodeId: id, field: "version", message: `saved with ${n.type} v${version}; now v${def.version}: its results will be recomputed` });
    }
    if (n.ui !== undefined && !(isObject(n.ui) && isFiniteNumber(n.ui.x) && isFiniteNumber(n.ui.y) && Object.keys(n.ui).length === 2))
      error(`${path}.ui`, `"ui" must be { "x": number, "y": number }`, id, "ui");
    const rawParams = n.params ?? {};
    if (!isObject(rawParams)) return error(`${path}.params`, `"params" must be an object`, id, "params");
    const parsed = z.strictObject(def.params.shape).safeParse(rawParams);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        if (issue.code === "unrecognized_keys")
          for (const k of issue.keys) error(`${path}.params.${k}`, `unknown param "${k}" for ${def.type}`, id, `params.${k}`);
        else {
          const field = ["params", ...issue.path.map(String)].join(".");
          error(`${path}.${field}`, issue.message, id, field);
        }
      }
      return;
    }
    const params = parsed.data as Record<string, unknown>;
    let graphInput: string | undefined;
    if (def.graphInput) {
      graphInput = def.graphInput(params);
      const spec = Object.hasOwn(inputs, graphInput) ? inputs[graphInput] : undefined;
      const out = Object.values(def.outputs)[0]?.type ?? "Any";
      if (!spec) error(`${path}.params`, `reads graph input "${graphInput}", which the graph's "inputs" does not declare`, id, "params");
      else {
        const c = canConnect(spec.type, out);
        if (!c.ok) error(`${path}.params`, `graph input "${graphInput}" is ${spec.type}, but ${def.type} gives ${out}`, id, "params");
      }
    }
    docNodes.push({ id, type: def.type, version, params: rawParams as Record<string, unknown>, ...(n.ui !== undefined ? { ui: n.ui as { x: number; y: number } } : {}) });
    nodes.set(id, {
      id,
      def,
      params,
      inputTypes: mapValues(def.inputs, (p) => p.type),
      outputTypes: mapValues(def.outputs, (p) => p.type),
      incoming: {},
      children: [],
      parents: [],
      ...(graphInput !== undefined ? { graphInput } : {}),
    });
  });

  // Edges: endpoints exist, ports exist, fan-in only into `many` ports.
  const docEdges: GraphEdge[] = [];
  const seen = new Set<string>();
  const edgeIndex = new Map<GraphEdge, number>();
  raw.edges.forEach((e, i) => {
    const path = `edges[${i}]`;
    if (!isObject(e) || typeof e.from !== "string" || typeof e.to !== "string")
      return error(path, `an edge is { "from": "node.port", "to": "node.port" }`);
    for (const key of Object.keys(e)) if (key !== "from" && key !== "to") error(`${path}.${key}`, `unknown field "${key}"`);
    const from = splitRef(e.from);
    const to = splitRef(e.to);
    if (!from) return error(`${path}.from`, `"${e.from}" is not "nodeId.port"`);
    if (!to) return error(`${path}.to`, `"${e.to}" is not "nodeId.port"`);
    const src = nodes.get(from.node);
    const dst = nodes.get(to.node);
    const declared = (id: string) => (raw as { nodes: unknown[] }).nodes.some((n) => isObject(n) && n.id === id);
    if (!src) return declared(from.node) ? undefined : error(`${path}.from`, `edge from unknown node "${from.node}" (dangling edge)`, from.node, "id");
    if (!dst) return declared(to.node) ? undefined : error(`${path}.to`, `edge to unknown node "${to.node}" (dangling edge)`, to.node, "id");
    if (!Object.hasOwn(src.def.outputs, from.port))
      return error(`${path}.from`, `${src.def.type} has no output "${from.port}" (outputs: ${Object.keys(src.def.outputs).join(", ") || "none"})`, src.id, `outputs.${from.port}`);
    if (!Object.hasOwn(dst.def.inputs, to.port))
      return error(`${path}.to`, `${dst.def.type} has no input "${to.port}" (inputs: ${Object.keys(dst.def.inputs).join(", ") || "none"})`, dst.id, `inputs.${to.port}`);
    const key = `${e.from}->${e.to}`;
    if (seen.has(key)) return error(path, `duplicate edge ${e.from} → ${e.to}`, dst.id, `inputs.${to.port}`);
    seen.add(key);
    const list = (dst.incoming[to.port] ??= []);
    if (list.length > 0 && !dst.def.inputs[to.port]!.many)
      return error(`${path}.to`, `input "${to.port}" takes one edge; it already has one from ${list[0]!.node}.${list[0]!.port}`, dst.id, `inputs.${to.port}`);
    list.push(from);
    if (!src.children.includes(dst.id)) src.children.push(dst.id);
    if (!dst.parents.includes(src.id)) dst.parents.push(src.id);
    const edge = { from: e.from, to: e.to };
    edgeIndex.set(edge, i);
    docEdges.push(edge);
  });

  const order = topoOrder(docNodes.map((n) => n.id), nodes);
  if (order.length < nodes.size) {
    const cycle = findCycle(nodes, new Set(order));
    error("edges", `cycle: ${cycle.join(" → ")}`, cycle[0], "edges");
    return done();
  }

  // Types, in topological order so generic outputs are bound before they are used.
  for (const id of order) {
    const node = nodes.get(id)!;
    const bindings: Bindings = {};
    for (const [port, spec] of Object.entries(node.def.inputs)) {
      const refs = node.incoming[port] ?? [];
      if (refs.length === 0 && !spec.optional) error(`nodes`, `required input "${port}" (${spec.type}) is not connected`, id, `inputs.${port}`);
      for (const ref of refs) {
        const srcType = nodes.get(ref.node)!.outputTypes[ref.port]!;
        const c = canConnect(srcType, spec.type, bindings);
        if (!c.ok) {
          const i = docEdges.findIndex((e) => e.from === `${ref.node}.${ref.port}` && e.to === `${id}.${port}`);
          error(`edges[${edgeIndex.get(docEdges[i]!) ?? i}]`, `type mismatch: ${ref.node}.${ref.port} (${srcType}) → ${id}.${port}: ${c.reason}`, id, `inputs.${port}`);
        } else if (c.bind) bindings[c.bind[0]] = c.bind[1];
      }
    }
    node.inputTypes = mapValues(node.def.inputs, (p) => substitute(p.type, bindings));
    node.outputTypes = mapValues(node.def.outputs, (p) => substitute(p.type, bindings));
  }

  if (problems.some((p) => p.severity === "error")) return done();
  const doc: GraphDoc = {
    citeflow: 1,
    name: raw.name as string,
    ...(typeof raw.description === "string" ? { description: raw.description } : {}),
    inputs,
    nodes: docNodes,
    edges: docEdges,
  };
  return { graph: { doc, nodes, order, warnings: problems.filter((p) => p.severity === "warning") }, problems };
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

function topoOrder(ids: string[], nodes: Map<string, CompiledNode>): string[] {
  const indeg = new Map(ids.map((id) => [id, nodes.get(id)!.parents.length]));
  const order: string[] = [];
  const ready = ids.filter((id) => indeg.get(id) === 0);
  while (ready.length) {
    const id = ready.shift()!;
    order.push(id);
    const added: string[] = [];
    for (const c of nodes.get(id)!.children) {
      const d = indeg.get(c)! - 1;
      indeg.set(c, d);
      if (d === 0) added.push(c);
    }
    // Keep document order among nodes that become ready together.
    ready.push(...added);
    ready.sort((a, b) => ids.indexOf(a) - ids.indexOf(b));
  }
  return order;
}

function findCycle(nodes: Map<string, CompiledNode>, acyclic: Set<string>): string[] {
  const start = [...nodes.keys()].find((id) => !acyclic.has(id))!;
  const path: string[] = [];
  const onPath = new Map<string, number>();
  let cur = start;
  // Every node left after Kahn's algorithm has a parent that is also left: walk parents until one repeats.
  while (!onPath.has(cur)) {
    onPath.set(cur, path.length);
    path.push(cur);
    cur = nodes.get(cur)!.parents.find((p) => !acyclic.has(p))!;
  }
  // The walk went against the edges; reverse it to read in edge direction, and close the loop.
  const cycle = path.slice(onPath.get(cur)!).reverse();
  return [...cycle, cycle[0]!];
}

function splitRef(ref: string): EdgeRef | undefined {
  const dot = ref.indexOf(".");
  if (dot <= 0 || dot === ref.length - 1) return undefined;
  return { node: ref.slice(0, dot), port: ref.slice(dot + 1) };
}

/** Rejects prototype-polluting keys and excessive nesting anywhere in the document. */
function checkStructure(value: unknown, maxDepth: number, error: (path: string, message: string) => void): boolean {
  const stack: Array<[unknown, string, number]> = [[value, "", 0]];
  let ok = true;
  while (stack.length) {
    const [v, path, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > maxDepth) {
      error(path, `nested deeper than ${maxDepth} levels`);
      return false;
    }
    if (Array.isArray(v)) v.forEach((x, i) => stack.push([x, `${path}[${i}]`, depth + 1]));
    else
      for (const k of Object.keys(v)) {
        const p = path ? `${path}.${k}` : k;
        if (FORBIDDEN_KEYS.has(k)) {
          error(p, `the key "${k}" is not allowed in a graph document`);
          ok = false;
        } else stack.push([(v as Record<string, unknown>)[k], p, depth + 1]);
      }
  }
  return ok;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}

function mapValues<T, U>(obj: Record<string, T>, f: (v: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, f(v)]));
}

export function sortKeysDeep(value: unknown): any {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (isObject(value))
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeysDeep(value[k])]),
    );
  return value;
}
