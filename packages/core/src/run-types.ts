/** What a run is asked for and what it returns, and the errors it raises. */
import type { CacheStore } from "./cache.js";
import type { Services } from "./node.js";
import type { CacheStatus, ErrorInfo, NodeSummary, RunEvent, RunOrigin, RunStatus } from "./events.js";

export interface RunOptions {
  /** The front end starting the run, recorded with it (the Runs list filters by it). */
  origin?: RunOrigin;
  /** Values for the graph's declared inputs, by name. */
  inputs?: Record<string, unknown>;
  runId?: string;
  /** Where results are reused from and written to. Without one nothing is reused. */
  cache?: CacheStore;
  /** Receives every event in order, before the run moves on (the run store). */
  recorder?: { record(event: RunEvent): void | Promise<void> };
  /** What nodes use (`ctx.services`): models, stores, prompts, servers. Without it, a node that asks for one fails naming what it asked for. */
  services?: Services;
  /** How many nodes may run at once (default 4). */
  concurrency?: number;
  /** Run only this node and what it needs. */
  to?: string;
  /** Re-run this node and everything downstream of it; upstream comes from cache where possible. */
  from?: string;
  /** Re-run just this node; its inputs come from cache where possible. */
  only?: string;
  /** Ignore the cache for every node (results are still written). */
  force?: boolean;
  /** Replace output values: nodeId → port → value. Downstream sees the new value. */
  overrides?: Record<string, Record<string, unknown>>;
  /** Pause before these nodes. */
  breakpoints?: string[];
  /** Pause before every node. */
  step?: boolean;
  signal?: AbortSignal;
}

export interface NodeResult {
  id: string;
  status: NodeSummary["status"];
  cache?: CacheStatus;
  ms?: number;
  cacheKey?: string;
  outputs?: Record<string, unknown>;
  outputHashes?: Record<string, string>;
  overridden?: string[];
  error?: ErrorInfo;
  upstream?: string;
}

export interface RunResult {
  runId: string;
  status: RunStatus;
  ms: number;
  /** Results of the selected nodes, in topological order. */
  nodes: NodeResult[];
  error?: ErrorInfo;
}

/** A problem with the run request itself (unknown node, missing input): nothing was run. */
export class RunRequestError extends Error {
  override name = "RunRequestError";
}

/** A node returned something its output ports do not allow. */
export class NodeOutputError extends Error {
  override name = "NodeOutputError";
}

export class AbortError extends Error {
  override name = "AbortError";
}

export function newRunId(now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `${stamp}-${Math.random().toString(16).slice(2, 8).padEnd(6, "0")}`;
}
