import type { GraphDoc } from "./graph.js";
import type { LogLevel } from "./node.js";

export type RunStatus = "ok" | "error" | "aborted";
export type CacheStatus = "hit" | "miss";

export interface ErrorInfo {
  name: string;
  message: string;
  stack?: string;
  cause?: string;
}

interface Base {
  runId: string;
  /** Wall-clock time, ms since the epoch. */
  at: number;
}

/** Which front end started a run: the CLI, the pipeline editor, or a notebook's code. */
export type RunOrigin = "cli" | "editor" | "notebook";
export const RUN_ORIGINS: readonly RunOrigin[] = ["cli", "editor", "notebook"];

export interface RunStartEvent extends Base {
  type: "run-start";
  graph: GraphDoc;
  graphHash: string;
  inputs: Record<string, unknown>;
  /** Nodes this run will execute or take from cache, in topological order. */
  selected: string[];
  options: { to?: string; from?: string; only?: string; force: boolean; overridden: string[]; breakpoints: string[]; step: boolean };
  /** The front end that started it, when it said. */
  origin?: RunOrigin;
}

export interface NodeStartEvent extends Base {
  type: "node-start";
  nodeId: string;
  nodeType: string;
  version: number;
  params: Record<string, unknown>;
  /** Per input port: the hash of the value it received (a list of hashes for `many` ports), or null. */
  inputHashes: Record<string, string | string[] | null>;
  cacheKey: string;
}

export interface NodeProgressEvent extends Base {
  type: "node-progress";
  nodeId: string;
  done: number;
  total?: number;
  message?: string;
}

export interface NodeLogEvent extends Base {
  type: "node-log";
  nodeId: string;
  level: LogLevel;
  message: string;
  data?: unknown;
}

export interface SpanStartEvent extends Base {
  type: "span-start";
  nodeId: string;
  spanId: string;
  parentId?: string;
  name: string;
  attrs?: Record<string, unknown>;
}

export interface SpanEndEvent extends Base {
  type: "span-end";
  nodeId: string;
  spanId: string;
  ms: number;
  status: "ok" | "error";
  error?: ErrorInfo;
  data?: Record<string, unknown>;
}

export interface NodePausedEvent extends Base {
  type: "node-paused";
  nodeId: string;
  reason: "step" | "breakpoint";
}

export interface NodeResumedEvent extends Base {
  type: "node-resumed";
  nodeId: string;
}

export interface NodeEndEvent extends Base {
  type: "node-end";
  nodeId: string;
  cache: CacheStatus;
  ms: number;
  outputs: Record<string, unknown>;
  outputHashes: Record<string, string>;
  /** Output ports whose value was replaced by an override. */
  overridden?: string[];
  /** The outputs in one line (`summary.ts`), for node cards and run displays. */
  summary?: string;
  /** The models that made the outputs (its spans' `model`; for a cached result, those of the run that made it). */
  models?: string[];
  /** What looks wrong in the result (`warnings.ts`): repetition, a token limit hit, no citation, … */
  warnings?: string[];
}

export interface NodeErrorEvent extends Base {
  type: "node-error";
  nodeId: string;
  ms: number;
  error: ErrorInfo;
}

export interface NodeSkippedEvent extends Base {
  type: "node-skipped";
  nodeId: string;
  reason: "upstream-failed" | "aborted";
  /** The failed upstream node, for `upstream-failed`. */
  upstream?: string;
}

export interface NodeSummary {
  id: string;
  status: "done" | "error" | "skipped" | "aborted";
  cache?: CacheStatus;
  ms?: number;
}

export interface RunEndEvent extends Base {
  type: "run-end";
  status: RunStatus;
  ms: number;
  nodes: NodeSummary[];
  error?: ErrorInfo;
}

export type RunEvent =
  | RunStartEvent
  | NodeStartEvent
  | NodeProgressEvent
  | NodeLogEvent
  | SpanStartEvent
  | SpanEndEvent
  | NodePausedEvent
  | NodeResumedEvent
  | NodeEndEvent
  | NodeErrorEvent
  | NodeSkippedEvent
  | RunEndEvent;

export function errorInfo(e: unknown): ErrorInfo {
  if (e instanceof Error) {
    const cause = e.cause === undefined ? undefined : e.cause instanceof Error ? e.cause.message : String(e.cause);
    return { name: e.name, message: e.message, ...(e.stack ? { stack: e.stack } : {}), ...(cause !== undefined ? { cause } : {}) };
  }
  return { name: "Error", message: String(e) };
}
