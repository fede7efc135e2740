import { z } from "zod";
import { isValidPortType, type InputsOf, type OutputsOf, type PortSpec } from "./ports.js";

export type LogLevel = "debug" | "info" | "warn" | "error";

/**
 * What the host hands every node: models, stores, prompts, the servers the user configured. Core
 * knows no models or stores, so it declares this open; a node package states what its nodes use by
 * merging members into it (`declare module "@citeflow/core" { interface Services { … } }`), as
 * @citeflow/nodes does in `nodes/src/shared/services.ts`. Hosts build one at their edge, from the
 * environment and settings read once there, and pass it as the run's `services`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Services {}

/** The services of a run started without any: whatever a node asks for fails, naming it. */
export const noServices: Services = new Proxy(
  {},
  {
    get(_target, name) {
      if (typeof name === "symbol" || name === "then" || name === "toJSON") return undefined;
      throw new Error(`this run was started without services and a node asked for "${name}": the host passes them when it starts a run (createServices in @citeflow/nodes)`);
    },
  },
);

/** What a node sees while it runs. Everything external (models, stores) comes through `services`. */
export interface NodeContext {
  readonly runId: string;
  readonly nodeId: string;
  readonly signal: AbortSignal;
  /** What the host configured: model adapters, stores, prompts, servers. */
  readonly services: Services;
  /** The graph-level input this node declared with `graphInput`, if any. */
  readonly graphInput: unknown;
  log(level: LogLevel, message: string, data?: unknown): void;
  progress(done: number, total?: number, message?: string): void;
  /**
   * Record a sub-step (a model call, a feedback iteration). Spans nest: a span opened inside
   * another becomes its child. `data` is kept in the trace; return values are not.
   */
  span<T>(name: string, fn: (span: SpanHandle) => Promise<T>, attrs?: Record<string, unknown>): Promise<T>;
}

export interface SpanHandle {
  readonly id: string;
  /** Attach data to the span (prompt, response, usage, …); it is written to the trace on end. */
  set(key: string, value: unknown): void;
}

export type PortMap = Record<string, PortSpec>;

/**
 * A node type. Its `run` is typed by its declarations: `inputs: { passages: { type: "Passage[]" } }`
 * gives `run` a `Passage[]`, and what it returns is checked against `outputs` at compile time.
 */
export interface NodeDefinition<P extends z.ZodObject = z.ZodObject, I extends PortMap = PortMap, O extends PortMap = PortMap> {
  /** Stable id, e.g. `rerank.cross-encoder`. */
  type: string;
  /** Bump when behaviour changes: old cache entries then stop matching. */
  version: number;
  title: string;
  family: string;
  description: string;
  inputs: I;
  outputs: O;
  /** Params with defaults; `.describe()` on each field is its documentation. */
  params: P;
  /** Names the graph input (declared in the graph's `inputs`) this node reads, from its params. */
  graphInput?: (params: z.infer<P>) => string;
  /**
   * Extra state the result depends on beyond params and inputs (e.g. a store's version), folded
   * into the cache key so a re-built index misses instead of serving stale results. Models are named
   * here as the services resolve them (the configured default for an empty param), never by raw
   * environment.
   */
  fingerprint?: (params: z.infer<P>, services: Services) => unknown | Promise<unknown>;
  /** False for nodes whose result must never be reused (default true). */
  cacheable?: boolean;
  run(inputs: InputsOf<I>, params: z.infer<P>, ctx: NodeContext): Promise<OutputsOf<O>>;
}

export type AnyNodeDefinition = NodeDefinition<z.ZodObject>;

const TYPE_ID = /^[a-z][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+$/;
const PORT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Declare a node type. Checks the declaration itself so a bad node fails at import, not mid-run. */
export function defineNode<P extends z.ZodObject, const I extends PortMap, const O extends PortMap>(def: NodeDefinition<P, I, O>): NodeDefinition<P, I, O> {
  const where = `node type "${def.type}"`;
  if (!TYPE_ID.test(def.type)) throw new Error(`${where}: type ids are dotted lower-case, e.g. "retrieve.dense"`);
  if (!Number.isInteger(def.version) || def.version < 1) throw new Error(`${where}: version must be an integer ≥ 1`);
  for (const [side, ports] of [
    ["input", def.inputs],
    ["output", def.outputs],
  ] as const) {
    for (const [name, spec] of Object.entries(ports)) {
      if (!PORT_NAME.test(name)) throw new Error(`${where}: ${side} port "${name}" is not a valid name`);
      if (!isValidPortType(spec.type)) throw new Error(`${where}: ${side} port "${name}" has unknown type "${spec.type}"`);
    }
  }
  for (const name of Object.keys(def.outputs)) {
    if (def.outputs[name]!.many || def.outputs[name]!.optional) {
      throw new Error(`${where}: output port "${name}": "many" and "optional" apply to inputs only`);
    }
  }
  if (!(def.params instanceof z.ZodObject)) throw new Error(`${where}: params must be a z.object made with the same zod (v4) as @citeflow/core — is a second copy of zod installed?`);
  return def;
}
