import type { EdgeRef, GraphDoc, GraphEdge, GraphInputSpec, GraphNode, Problem } from "./graph.js";
import { canConnect, isValidPortType, substitute, unfedInputs, type Bindings, type PortSpec } from "./ports.js";
import type { Catalogue } from "./registry.js";
import { isObject } from "./shapes.js";

/**
 * The graph rules, once, for every front end (browser-safe: no Node imports, no registry). The
 * document's shape needs nothing; the wiring needs each node type's ports, from the kernel's
 * registry (validate.ts) or from the catalogue the editor has (checkGraph).
 */

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

type Obj = Record<string, unknown>;

/** Collects problems; every check adds to it rather than stopping at the first. */
export class Problems {
  readonly list: Problem[] = [];
  error(path: string, message: string, nodeId?: string, field?: string): void {
    this.list.push({ severity: "error", path, message, ...(nodeId !== undefined ? { nodeId } : {}), ...(field ? { field } : {}) });
  }
  warn(path: string, message: string, nodeId: string, field: string): void {
    this.list.push({ severity: "warning", path, message, nodeId, field });
  }
  get hasErrors(): boolean {
    return this.list.some((p) => p.severity === "error");
  }
}

/** A node whose shape is right: its place in the document, and the document's node as written. */
export interface ShapedNode {
  index: number;
  path: string;
  id: string;
  type: string;
  /** Absent in the file: the type's current version. */
  version?: number;
  params: Obj;
  ui?: { x: number; y: number };
}

/** A document whose shape was read: what the wiring and the node types are checked on. */
export interface DocShape {
  raw: Obj;
  inputs: Record<string, GraphInputSpec>;
  nodes: ShapedNode[];
  /** Every id the document declares, shaped or not: an edge to a node with its own errors is not reported again as dangling. */
  declaredIds: Set<unknown>;
  rawEdges: unknown[];
}

/** Size, JSON, forbidden keys, depth, top-level fields, graph inputs, and each node's fields. */
export function readShape(input: unknown, options: LoadOptions, p: Problems): DocShape | undefined {
  const raw = parseDocument(input, options, p);
  if (raw === undefined) return undefined;
  for (const key of Object.keys(raw)) if (!TOP_KEYS.includes(key)) p.error(key, `unknown top-level field "${key}"`);
  if (raw.citeflow !== 1) p.error("citeflow", `"citeflow" must be 1 (the graph format version), got ${JSON.stringify(raw.citeflow)}`);
  if (typeof raw.name !== "string" || raw.name.trim() === "") p.error("name", `"name" must be a non-empty string`);
  if (raw.description !== undefined && typeof raw.description !== "string") p.error("description", `"description" must be a string`);
  const inputs = readInputs(raw.inputs, p);
  if (!Array.isArray(raw.nodes)) p.error("nodes", `"nodes" must be an array`);
  if (!Array.isArray(raw.edges)) p.error("edges", `"edges" must be an array`);
  if (!Array.isArray(raw.nodes) || !Array.isArray(raw.edges)) return undefined;
  const nodes: ShapedNode[] = [];
  const seen = new Set<string>();
  raw.nodes.forEach((n, index) => {
    const path = `nodes[${index}]`;
    if (!isObject(n)) return p.error(path, "a node is an object with id, type, version, params");
    const id = n.id;
    if (typeof id !== "string" || !NODE_ID.test(id)) return p.error(`${path}.id`, `node id ${JSON.stringify(id)} must start with a letter or _ and hold only letters, digits, _ and - (≤ 64)`);
    if (seen.has(id)) return p.error(`${path}.id`, `duplicate node id`, id, "id");
    seen.add(id);
    for (const key of Object.keys(n)) if (!NODE_KEYS.includes(key)) p.error(`${path}.${key}`, `unknown field "${key}"`, id, key);
    if (typeof n.type !== "string") return p.error(`${path}.type`, `"type" must be a string`, id, "type");
    if (n.version !== undefined && (!Number.isInteger(n.version) || (n.version as number) < 1)) return p.error(`${path}.version`, `"version" must be an integer ≥ 1`, id, "version");
    const ui = n.ui !== undefined && isObject(n.ui) && isFiniteNumber(n.ui.x) && isFiniteNumber(n.ui.y) && Object.keys(n.ui).length === 2;
    if (n.ui !== undefined && !ui) p.error(`${path}.ui`, `"ui" must be { "x": number, "y": number }`, id, "ui");
    const params = n.params ?? {};
    if (!isObject(params)) return p.error(`${path}.params`, `"params" must be an object`, id, "params");
    nodes.push({ index, path, id, type: n.type, ...(n.version !== undefined ? { version: n.version as number } : {}), params, ...(ui ? { ui: n.ui as { x: number; y: number } } : {}) });
  });
  return { raw, inputs, nodes, declaredIds: new Set(raw.nodes.map((n) => (isObject(n) ? n.id : undefined))), rawEdges: raw.edges };
}

/** A node to wire: its id and, when its type is known, its ports. */
export interface WiredNodeIn {
  id: string;
  type: string;
  inputs?: Record<string, PortSpec>;
  outputs?: Record<string, PortSpec>;
}

/** How the nodes connect, and their port types with generic types bound. */
export interface Wiring {
  edges: Array<{ edge: GraphEdge; index: number }>;
  /** Topological order, ties broken by document order. */
  order: string[];
  incoming: Map<string, Record<string, EdgeRef[]>>;
  children: Map<string, string[]>;
  parents: Map<string, string[]>;
  inputTypes: Map<string, Record<string, string>>;
  outputTypes: Map<string, Record<string, string>>;
}

/**
 * The edges: their shape, both ends on nodes of the graph and on ports those nodes have, no
 * duplicates, one edge into an input unless it takes many, no cycle, every required input fed, and
 * types that connect (checked in topological order, so generic outputs are bound before they are
 * used). Ports are checked only where the node's type is known. Undefined when there is a cycle.
 */
export function wire(nodesInOrder: WiredNodeIn[], rawEdges: unknown[], declaredIds: Set<unknown>, p: Problems): Wiring | undefined {
  const nodes = new Map(nodesInOrder.map((n) => [n.id, n]));
  const incoming = new Map(nodesInOrder.map((n) => [n.id, {} as Record<string, EdgeRef[]>]));
  const children = new Map(nodesInOrder.map((n) => [n.id, [] as string[]]));
  const parents = new Map(nodesInOrder.map((n) => [n.id, [] as string[]]));
  const edges: Wiring["edges"] = [];
  const seen = new Set<string>();
  // Inputs fed by a node declared but not checked (its params or type refused): fed all the same, never "not connected".
  const fedByUnchecked = new Set<string>();
  rawEdges.forEach((e, index) => {
    const path = `edges[${index}]`;
    if (!isObject(e) || typeof e.from !== "string" || typeof e.to !== "string") return p.error(path, `an edge is { "from": "node.port", "to": "node.port" }`);
    for (const key of Object.keys(e)) if (key !== "from" && key !== "to") p.error(`${path}.${key}`, `unknown field "${key}"`);
    const from = splitRef(e.from);
    const to = splitRef(e.to);
    if (!from) return p.error(`${path}.from`, `"${e.from}" is not "nodeId.port"`);
    if (!to) return p.error(`${path}.to`, `"${e.to}" is not "nodeId.port"`);
    const src = nodes.get(from.node);
    const dst = nodes.get(to.node);
    if (!src) {
      if (!declaredIds.has(from.node)) return p.error(`${path}.from`, `edge from unknown node "${from.node}" (dangling edge)`, from.node, "id");
      if (dst) fedByUnchecked.add(`${dst.id}.${to.port}`);
      return;
    }
    if (!dst) return declaredIds.has(to.node) ? undefined : p.error(`${path}.to`, `edge to unknown node "${to.node}" (dangling edge)`, to.node, "id");
    if (src.outputs && !Object.hasOwn(src.outputs, from.port))
      return p.error(`${path}.from`, `${src.type} has no output "${from.port}" (outputs: ${Object.keys(src.outputs).join(", ") || "none"})`, src.id, `outputs.${from.port}`);
    if (dst.inputs && !Object.hasOwn(dst.inputs, to.port))
      return p.error(`${path}.to`, `${dst.type} has no input "${to.port}" (inputs: ${Object.keys(dst.inputs).join(", ") || "none"})`, dst.id, `inputs.${to.port}`);
    const key = `${e.from}->${e.to}`;
    if (seen.has(key)) return p.error(path, `duplicate edge ${e.from} → ${e.to}`, dst.id, `inputs.${to.port}`);
    seen.add(key);
    const refs = (incoming.get(dst.id)![to.port] ??= []);
    if (refs.length > 0 && dst.inputs && !dst.inputs[to.port]!.many)
      return p.error(`${path}.to`, `input "${to.port}" takes one edge; it already has one from ${refs[0]!.node}.${refs[0]!.port}`, dst.id, `inputs.${to.port}`);
    refs.push(from);
    if (!children.get(src.id)!.includes(dst.id)) children.get(src.id)!.push(dst.id);
    if (!parents.get(dst.id)!.includes(src.id)) parents.get(dst.id)!.push(src.id);
    edges.push({ edge: { from: e.from, to: e.to }, index });
  });
  const order = topoOrder(
    nodesInOrder.map((n) => n.id),
    children,
    parents,
  );
  if (order.length < nodes.size) {
    const cycle = findCycle([...nodes.keys()], parents, new Set(order));
    p.error("edges", `cycle: ${cycle.join(" → ")}`, cycle[0], "edges");
    return undefined;
  }
  const inputTypes = new Map<string, Record<string, string>>();
  const outputTypes = new Map<string, Record<string, string>>();
  for (const id of order) {
    const node = nodes.get(id)!;
    if (!node.inputs || !node.outputs) continue;
    const fed = incoming.get(id)!;
    const bindings: Bindings = {};
    for (const port of unfedInputs(node.inputs, (port) => (fed[port]?.length ?? 0) > 0 || fedByUnchecked.has(`${id}.${port}`)))
      p.error("nodes", `required input "${port}" (${node.inputs[port]!.type}) is not connected`, id, `inputs.${port}`);
    for (const [port, spec] of Object.entries(node.inputs))
      for (const ref of fed[port] ?? []) {
        const srcType = outputTypes.get(ref.node)?.[ref.port];
        if (srcType === undefined) continue; // a source of unknown type
        const c = canConnect(srcType, spec.type, bindings);
        if (c.ok) {
          if (c.bind) bindings[c.bind[0]] = c.bind[1];
          continue;
        }
        const edge = edges.find((e) => e.edge.from === `${ref.node}.${ref.port}` && e.edge.to === `${id}.${port}`)!;
        p.error(`edges[${edge.index}]`, `type mismatch: ${ref.node}.${ref.port} (${srcType}) → ${id}.${port}: ${c.reason}`, id, `inputs.${port}`);
      }
    inputTypes.set(
      id,
      mapValues(node.inputs, (s) => substitute(s.type, bindings)),
    );
    outputTypes.set(
      id,
      mapValues(node.outputs, (s) => substitute(s.type, bindings)),
    );
  }
  return { edges, order, incoming, children, parents, inputTypes, outputTypes };
}

/**
 * The editor's check of a graph document: its shape and wiring, and with the kernel's catalogue
 * its node types, versions and ports (params are the kernel's to check, with each node's schema).
 * `doc` is set when there are no errors; a node without a version keeps none (the type's current).
 */
export function checkGraph(input: unknown, o: LoadOptions & { catalogue?: Catalogue } = {}): { doc?: GraphDoc; problems: Problem[] } {
  const p = new Problems();
  const shape = readShape(input, o, p);
  if (!shape) return { problems: p.list };
  const types = o.catalogue && new Map(o.catalogue.nodes.map((n) => [n.type, n]));
  const known = shape.nodes.filter((n) => {
    const spec = types?.get(n.type);
    if (types && !spec) return void p.error(`${n.path}.type`, `unknown node type "${n.type}"`, n.id, "type");
    if (spec && n.version !== undefined && n.version > spec.version)
      return void p.error(`${n.path}.version`, `saved with ${n.type} v${n.version}, but this Citeflow has v${spec.version}: upgrade Citeflow`, n.id, "version");
    return true;
  });
  wire(
    known.map((n) => ({ id: n.id, type: n.type, ...(types ? { inputs: types.get(n.type)!.inputs, outputs: types.get(n.type)!.outputs } : {}) })),
    shape.rawEdges,
    shape.declaredIds,
    p,
  );
  if (p.hasErrors) return { problems: p.list };
  const doc: GraphDoc = {
    citeflow: 1,
    name: shape.raw.name as string,
    ...(typeof shape.raw.description === "string" ? { description: shape.raw.description } : {}),
    inputs: shape.inputs,
    nodes: shape.nodes.map((n) => toGraphNode(n)),
    edges: (shape.rawEdges as GraphEdge[]).map((e) => ({ from: e.from, to: e.to })),
  };
  return { doc, problems: p.list };
}

/** A shaped node as the document holds it. */
export function toGraphNode(n: ShapedNode, version = n.version): GraphNode {
  return { id: n.id, type: n.type, ...(version !== undefined ? { version } : {}), params: n.params, ...(n.ui ? { ui: n.ui } : {}) };
}

/** Size, JSON syntax, forbidden keys and depth. Returns the document object, or undefined. */
function parseDocument(input: unknown, options: LoadOptions, p: Problems): Obj | undefined {
  let raw = input;
  if (typeof input === "string") {
    const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    const bytes = new TextEncoder().encode(input).length;
    if (bytes > maxBytes) return void p.error("", `document is ${bytes} bytes, over the ${maxBytes}-byte limit`);
    try {
      raw = JSON.parse(input);
    } catch (e) {
      return void p.error("", `not valid JSON: ${(e as Error).message}`);
    }
  }
  if (!checkStructure(raw, options.maxDepth ?? 64, p)) return undefined;
  if (!isObject(raw)) return void p.error("", "a graph document is a JSON object");
  return raw;
}

function readInputs(value: unknown, p: Problems): Record<string, GraphInputSpec> {
  const inputs: Record<string, GraphInputSpec> = {};
  if (value === undefined) return inputs;
  if (!isObject(value)) {
    p.error("inputs", `"inputs" must be an object of name → { type }`);
    return inputs;
  }
  for (const [name, spec] of Object.entries(value)) {
    const path = `inputs.${name}`;
    if (!NODE_ID.test(name)) p.error(path, `graph input name "${name}" must be letters, digits, _ or -`);
    else if (!isObject(spec) || typeof spec.type !== "string") p.error(path, `graph input "${name}" needs a "type"`);
    else if (!isValidPortType(spec.type) || /^[A-Z](\[\])?$/.test(spec.type)) p.error(`${path}.type`, `unknown value type "${spec.type}"`);
    else if (Object.keys(spec).some((k) => k !== "type" && k !== "description")) p.error(path, `graph input "${name}" has fields other than type and description`);
    else inputs[name] = { type: spec.type, ...(typeof spec.description === "string" ? { description: spec.description } : {}) };
  }
  return inputs;
}

/** Kahn's algorithm; among nodes that become ready together, document order wins. */
function topoOrder(ids: string[], children: Map<string, string[]>, parents: Map<string, string[]>): string[] {
  const position = new Map(ids.map((id, i) => [id, i]));
  const indeg = new Map(ids.map((id) => [id, parents.get(id)!.length]));
  const order: string[] = [];
  const ready = ids.filter((id) => indeg.get(id) === 0);
  while (ready.length) {
    const id = ready.shift()!;
    order.push(id);
    for (const c of children.get(id)!) {
      const d = indeg.get(c)! - 1;
      indeg.set(c, d);
      if (d === 0) ready.push(c);
    }
    ready.sort((a, b) => position.get(a)! - position.get(b)!);
  }
  return order;
}

function findCycle(ids: string[], parents: Map<string, string[]>, acyclic: Set<string>): string[] {
  const start = ids.find((id) => !acyclic.has(id))!;
  const path: string[] = [];
  const onPath = new Map<string, number>();
  let cur = start;
  // Every node left after Kahn's algorithm has a parent that is also left: walk parents until one repeats.
  while (!onPath.has(cur)) {
    onPath.set(cur, path.length);
    path.push(cur);
    cur = parents.get(cur)!.find((x) => !acyclic.has(x))!;
  }
  // The walk went against the edges; reverse it to read in edge direction, and close the loop.
  const cycle = path.slice(onPath.get(cur)!).reverse();
  return [...cycle, cycle[0]!];
}

/** `node.port` split at its first dot; undefined when either side is empty. */
export function splitRef(ref: string): EdgeRef | undefined {
  const dot = ref.indexOf(".");
  if (dot <= 0 || dot === ref.length - 1) return undefined;
  return { node: ref.slice(0, dot), port: ref.slice(dot + 1) };
}

/** Rejects prototype-polluting keys and excessive nesting anywhere in the document. */
function checkStructure(value: unknown, maxDepth: number, p: Problems): boolean {
  const stack: Array<[unknown, string, number]> = [[value, "", 0]];
  let ok = true;
  while (stack.length) {
    const [v, path, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > maxDepth) {
      p.error(path, `nested deeper than ${maxDepth} levels`);
      return false;
    }
    if (Array.isArray(v)) v.forEach((x, i) => stack.push([x, `${path}[${i}]`, depth + 1]));
    else
      for (const k of Object.keys(v)) {
        const at = path ? `${path}.${k}` : k;
        if (FORBIDDEN_KEYS.has(k)) {
          p.error(at, `the key "${k}" is not allowed in a graph document`);
          ok = false;
        } else stack.push([(v as Obj)[k], at, depth + 1]);
      }
  }
  return ok;
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}

function mapValues<T, U>(obj: Record<string, T>, f: (v: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, f(v)]));
}
