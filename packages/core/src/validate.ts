import { z } from "zod";
import { GraphValidationError, type CompiledGraph, type CompiledNode, type EdgeRef, type GraphDoc, type GraphEdge, type GraphInputSpec, type GraphNode, type Problem } from "./graph.js";
import { canConnect, isValidPortType, substitute, unfedInputs, type Bindings } from "./ports.js";
import type { NodeRegistry } from "./registry.js";

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
class Problems {
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

/** Parse, validate against the registry and compile. Throws GraphValidationError listing every problem. */
export function loadGraph(input: string | unknown, registry: NodeRegistry, options: LoadOptions = {}): CompiledGraph {
  const { graph, problems } = validateGraph(input, registry, options);
  if (!graph) throw new GraphValidationError(problems, options.source);
  return graph;
}

/** Like loadGraph, but returns the problems instead of throwing. `graph` is set when there are no errors. */
export function validateGraph(input: string | unknown, registry: NodeRegistry, options: LoadOptions = {}): { graph?: CompiledGraph; problems: Problem[] } {
  const p = new Problems();
  const done = () => ({ problems: p.list });
  const raw = parseDocument(input, options, p);
  if (raw === undefined) return done();

  checkTopLevel(raw, p);
  const inputs = readInputs(raw.inputs, p);
  if (!Array.isArray(raw.nodes)) p.error("nodes", `"nodes" must be an array`);
  if (!Array.isArray(raw.edges)) p.error("edges", `"edges" must be an array`);
  if (!Array.isArray(raw.nodes) || !Array.isArray(raw.edges)) return done();

  const { nodes, docNodes } = compileNodes(raw.nodes, inputs, registry, p);
  const docEdges = compileEdges(raw.edges, nodes, new Set(raw.nodes.map((n) => (isObject(n) ? n.id : undefined))), p);
  const order = topoOrder(
    docNodes.map((n) => n.id),
    nodes,
  );
  if (order.length < nodes.size) {
    const cycle = findCycle(nodes, new Set(order));
    p.error("edges", `cycle: ${cycle.join(" → ")}`, cycle[0], "edges");
    return done();
  }
  bindTypes(order, nodes, docEdges, p);
  if (p.hasErrors) return done();

  const doc: GraphDoc = {
    citeflow: 1,
    name: raw.name as string,
    ...(typeof raw.description === "string" ? { description: raw.description } : {}),
    inputs,
    nodes: docNodes,
    edges: docEdges.map((e) => e.edge),
  };
  return { graph: { doc, nodes, order, warnings: p.list.filter((x) => x.severity === "warning") }, problems: p.list };
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

function checkTopLevel(raw: Obj, p: Problems) {
  for (const key of Object.keys(raw)) if (!TOP_KEYS.includes(key)) p.error(key, `unknown top-level field "${key}"`);
  if (raw.citeflow !== 1) p.error("citeflow", `"citeflow" must be 1 (the graph format version), got ${JSON.stringify(raw.citeflow)}`);
  if (typeof raw.name !== "string" || raw.name.trim() === "") p.error("name", `"name" must be a non-empty string`);
  if (raw.description !== undefined && typeof raw.description !== "string") p.error("description", `"description" must be a string`);
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

/** Ids, types, versions, params and graph inputs of each node. Nodes with errors are left out. */
function compileNodes(rawNodes: unknown[], inputs: Record<string, GraphInputSpec>, registry: NodeRegistry, p: Problems) {
  const nodes = new Map<string, CompiledNode>();
  const docNodes: GraphNode[] = [];
  const seen = new Set<string>();
  rawNodes.forEach((n, i) => {
    const path = `nodes[${i}]`;
    if (!isObject(n)) return p.error(path, "a node is an object with id, type, version, params");
    const id = n.id;
    if (typeof id !== "string" || !NODE_ID.test(id)) return p.error(`${path}.id`, `node id ${JSON.stringify(id)} must start with a letter or _ and hold only letters, digits, _ and - (≤ 64)`);
    if (seen.has(id)) return p.error(`${path}.id`, `duplicate node id`, id, "id");
    seen.add(id);
    for (const key of Object.keys(n)) if (!NODE_KEYS.includes(key)) p.error(`${path}.${key}`, `unknown field "${key}"`, id, key);
    if (typeof n.type !== "string") return p.error(`${path}.type`, `"type" must be a string`, id, "type");
    const def = registry.get(n.type);
    if (!def) return p.error(`${path}.type`, `unknown node type "${n.type}"`, id, "type");

    let version = def.version;
    if (n.version !== undefined) {
      if (!Number.isInteger(n.version) || (n.version as number) < 1) return p.error(`${path}.version`, `"version" must be an integer ≥ 1`, id, "version");
      version = n.version as number;
      if (version > def.version) return p.error(`${path}.version`, `saved with ${n.type} v${version}, but this Citeflow has v${def.version}: upgrade Citeflow`, id, "version");
      if (version < def.version) p.warn(`${path}.version`, `saved with ${n.type} v${version}; now v${def.version}: its results will be recomputed`, id, "version");
    }
    if (n.ui !== undefined && !(isObject(n.ui) && isFiniteNumber(n.ui.x) && isFiniteNumber(n.ui.y) && Object.keys(n.ui).length === 2))
      p.error(`${path}.ui`, `"ui" must be { "x": number, "y": number }`, id, "ui");

    const rawParams = n.params ?? {};
    if (!isObject(rawParams)) return p.error(`${path}.params`, `"params" must be an object`, id, "params");
    const parsed = z.strictObject(def.params.shape).safeParse(rawParams);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        if (issue.code === "unrecognized_keys")
          for (const k of issue.keys)
            p.error(
              `${path}.params.${k}`,
              k === "apiKeyEnv"
                ? `"apiKeyEnv" is not a param any more: a graph file cannot choose which secret is sent; keys come from your environment ($OPENAI_API_KEY for $OPENAI_BASE_URL)`
                : `unknown param "${k}" for ${def.type}`,
              id,
              `params.${k}`,
            );
        else {
          const field = ["params", ...issue.path.map(String)].join(".");
          p.error(`${path}.${field}`, issue.message, id, field);
        }
      }
      return;
    }
    // The strict shape check names unknown keys; the node's own schema adds its cross-field rules.
    const refined = def.params.safeParse(rawParams);
    if (!refined.success) {
      for (const issue of refined.error.issues) {
        const field = ["params", ...issue.path.map(String)].join(".");
        p.error(`${path}.${field}`, issue.message, id, field);
      }
      return;
    }
    const params = refined.data as Obj;

    let graphInput: string | undefined;
    if (def.graphInput) {
      graphInput = def.graphInput(params);
      const spec = Object.hasOwn(inputs, graphInput) ? inputs[graphInput] : undefined;
      const out = Object.values(def.outputs)[0]?.type ?? "Any";
      if (!spec) p.error(`${path}.params`, `reads graph input "${graphInput}", which the graph's "inputs" does not declare`, id, "params");
      else if (!canConnect(spec.type, out).ok) p.error(`${path}.params`, `graph input "${graphInput}" is ${spec.type}, but ${def.type} gives ${out}`, id, "params");
    }
    docNodes.push({ id, type: def.type, version, params: rawParams, ...(n.ui !== undefined ? { ui: n.ui as { x: number; y: number } } : {}) });
    nodes.set(id, {
      id,
      def,
      params,
      inputTypes: mapValues(def.inputs, (s) => s.type),
      outputTypes: mapValues(def.outputs, (s) => s.type),
      incoming: {},
      children: [],
      parents: [],
      ...(graphInput !== undefined ? { graphInput } : {}),
    });
  });
  return { nodes, docNodes };
}

interface CheckedEdge {
  edge: GraphEdge;
  index: number;
}

/** Endpoints exist, ports exist, no duplicates, fan-in only into `many` ports. Wires up the nodes. */
function compileEdges(rawEdges: unknown[], nodes: Map<string, CompiledNode>, declaredIds: Set<unknown>, p: Problems): CheckedEdge[] {
  const out: CheckedEdge[] = [];
  const seen = new Set<string>();
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
    // A node that exists but had its own errors is not reported again as dangling.
    if (!src) return declaredIds.has(from.node) ? undefined : p.error(`${path}.from`, `edge from unknown node "${from.node}" (dangling edge)`, from.node, "id");
    if (!dst) return declaredIds.has(to.node) ? undefined : p.error(`${path}.to`, `edge to unknown node "${to.node}" (dangling edge)`, to.node, "id");
    if (!Object.hasOwn(src.def.outputs, from.port))
      return p.error(`${path}.from`, `${src.def.type} has no output "${from.port}" (outputs: ${Object.keys(src.def.outputs).join(", ") || "none"})`, src.id, `outputs.${from.port}`);
    if (!Object.hasOwn(dst.def.inputs, to.port))
      return p.error(`${path}.to`, `${dst.def.type} has no input "${to.port}" (inputs: ${Object.keys(dst.def.inputs).join(", ") || "none"})`, dst.id, `inputs.${to.port}`);
    const key = `${e.from}->${e.to}`;
    if (seen.has(key)) return p.error(path, `duplicate edge ${e.from} → ${e.to}`, dst.id, `inputs.${to.port}`);
    seen.add(key);
    const refs = (dst.incoming[to.port] ??= []);
    if (refs.length > 0 && !dst.def.inputs[to.port]!.many)
      return p.error(`${path}.to`, `input "${to.port}" takes one edge; it already has one from ${refs[0]!.node}.${refs[0]!.port}`, dst.id, `inputs.${to.port}`);
    refs.push(from);
    if (!src.children.includes(dst.id)) src.children.push(dst.id);
    if (!dst.parents.includes(src.id)) dst.parents.push(src.id);
    out.push({ edge: { from: e.from, to: e.to }, index });
  });
  return out;
}

/** Check edge types in topological order, so generic outputs are bound before they are used. */
function bindTypes(order: string[], nodes: Map<string, CompiledNode>, edges: CheckedEdge[], p: Problems) {
  for (const id of order) {
    const node = nodes.get(id)!;
    const bindings: Bindings = {};
    for (const port of unfedInputs(node.def.inputs, (port) => (node.incoming[port]?.length ?? 0) > 0))
      p.error("nodes", `required input "${port}" (${node.def.inputs[port]!.type}) is not connected`, id, `inputs.${port}`);
    for (const [port, spec] of Object.entries(node.def.inputs)) {
      const refs = node.incoming[port] ?? [];
      for (const ref of refs) {
        const srcType = nodes.get(ref.node)!.outputTypes[ref.port]!;
        const c = canConnect(srcType, spec.type, bindings);
        if (c.ok) {
          if (c.bind) bindings[c.bind[0]] = c.bind[1];
          continue;
        }
        const edge = edges.find((e) => e.edge.from === `${ref.node}.${ref.port}` && e.edge.to === `${id}.${port}`)!;
        p.error(`edges[${edge.index}]`, `type mismatch: ${ref.node}.${ref.port} (${srcType}) → ${id}.${port}: ${c.reason}`, id, `inputs.${port}`);
      }
    }
    node.inputTypes = mapValues(node.def.inputs, (s) => substitute(s.type, bindings));
    node.outputTypes = mapValues(node.def.outputs, (s) => substitute(s.type, bindings));
  }
}

/** Kahn's algorithm; among nodes that become ready together, document order wins. */
function topoOrder(ids: string[], nodes: Map<string, CompiledNode>): string[] {
  const position = new Map(ids.map((id, i) => [id, i]));
  const indeg = new Map(ids.map((id) => [id, nodes.get(id)!.parents.length]));
  const order: string[] = [];
  const ready = ids.filter((id) => indeg.get(id) === 0);
  while (ready.length) {
    const id = ready.shift()!;
    order.push(id);
    for (const c of nodes.get(id)!.children) {
      const d = indeg.get(c)! - 1;
      indeg.set(c, d);
      if (d === 0) ready.push(c);
    }
    ready.sort((a, b) => position.get(a)! - position.get(b)!);
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
    cur = nodes.get(cur)!.parents.find((x) => !acyclic.has(x))!;
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

function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}

function mapValues<T, U>(obj: Record<string, T>, f: (v: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, f(v)]));
}
