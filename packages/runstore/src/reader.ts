import { READ_WHOLE_BYTES, readRegularFile } from "./fsutil.js";
import { RUN_ORIGINS, skippedStatus, type ErrorInfo, type GraphDoc, type LogLevel, type RunEvent, type RunOrigin } from "@citeflow/core";

export type StoredRunStatus = "ok" | "error" | "aborted" | "incomplete";
export type StoredNodeStatus = "running" | "paused" | "done" | "error" | "skipped" | "aborted";

export interface SpanRecord {
  id: string;
  name: string;
  parentId?: string;
  attrs?: Record<string, unknown>;
  status: "running" | "ok" | "error";
  ms?: number;
  error?: ErrorInfo;
  data?: unknown;
  children: SpanRecord[];
}

export interface NodeRecord {
  id: string;
  type: string;
  version: number;
  params: Record<string, unknown>;
  inputHashes: Record<string, string | string[] | null>;
  cacheKey: string;
  status: StoredNodeStatus;
  cache?: "hit" | "miss";
  ms?: number;
  outputHashes?: Record<string, string>;
  overridden?: string[];
  /** The outputs in one line, as the node-end event gave it. */
  summary?: string;
  /** The models that made the outputs, as the node-end event gave them. */
  models?: string[];
  /** What looked wrong in the result, as the node-end event gave it. */
  warnings?: string[];
  error?: ErrorInfo;
  skipReason?: string;
  spans: SpanRecord[];
  logs: Array<{ level: LogLevel; message: string; at: number; data?: unknown }>;
  progress?: { done: number; total?: number; message?: string };
}

export interface RunRecord {
  runId: string;
  graph: GraphDoc;
  graphHash: string;
  inputHashes: Record<string, string>;
  selected: string[];
  options: Extract<RunEvent, { type: "run-start" }>["options"];
  /** The front end that started it (a value other than core's RUN_ORIGINS is not read). */
  origin?: RunOrigin;
  startedAt: number;
  endedAt?: number;
  /** "incomplete" when the run never wrote its end (the process died or is still running). */
  status: StoredRunStatus;
  ms?: number;
  error?: ErrorInfo;
  /** Nodes in the order they started. */
  nodes: NodeRecord[];
  /** Lines that could not be read (e.g. a line cut short by a crash), with their numbers. */
  problems: string[];
}

/** Rebuild a run from its JSONL file. Tolerates a torn last line. */
export function readRunFile(path: string): RunRecord {
  const text = readRegularFile(path, READ_WHOLE_BYTES, "a run's record");
  const lines = text.split("\n");
  const problems: string[] = [];
  let run: RunRecord | undefined;
  const nodes = new Map<string, NodeRecord>();
  const spans = new Map<string, SpanRecord>();
  const add = (rec: NodeRecord) => {
    nodes.set(rec.id, rec);
    run!.nodes.push(rec);
    return rec;
  };
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a line of the run's log, checked field by field below
    let e: any;
    try {
      e = JSON.parse(line);
    } catch {
      problems.push(`${path}:${i + 1}: unreadable line${i === lines.length - 1 ? " (cut short, probably by a crash)" : ""}`);
      return;
    }
    if (e.type === "run-start") {
      // A run is started once: a second start was written by something else, and is not read as this run.
      if (run) {
        problems.push(`${path}:${i + 1}: a second run-start (the file was changed after the run wrote it): not read`);
        return;
      }
      run = {
        runId: e.runId,
        graph: e.graph,
        graphHash: e.graphHash,
        inputHashes: e.inputHashes ?? {},
        selected: e.selected ?? [],
        options: e.options,
        ...(RUN_ORIGINS.includes(e.origin as RunOrigin) ? { origin: e.origin } : {}),
        startedAt: e.at,
        status: "incomplete",
        nodes: [],
        problems,
      };
      return;
    }
    if (!run) {
      problems.push(`${path}:${i + 1}: event before run-start`);
      return;
    }
    const node = e.nodeId !== undefined ? nodes.get(e.nodeId) : undefined;
    switch (e.type as RunEvent["type"]) {
      case "node-start":
        // A node paused before it started already has a record: fill it in.
        Object.assign(node ?? add(placeholder(e.nodeId, "running")), { type: e.nodeType, version: e.version, params: e.params, inputHashes: e.inputHashes, cacheKey: e.cacheKey, status: "running" });
        break;
      case "node-paused":
        if (!node) add(placeholder(e.nodeId, "paused"));
        break;
      case "node-end":
        if (node)
          Object.assign(node, {
            status: "done",
            cache: e.cache,
            ms: e.ms,
            outputHashes: e.outputHashes,
            ...(e.summary ? { summary: e.summary } : {}),
            ...(e.models ? { models: e.models } : {}),
            ...(e.warnings ? { warnings: e.warnings } : {}),
            ...(e.overridden ? { overridden: e.overridden } : {}),
          });
        break;
      case "node-error":
        // A node can fail before it starts (its fingerprint threw): it still gets a record.
        Object.assign(node ?? add(placeholder(e.nodeId, "error")), { status: e.error?.name === "AbortError" ? "aborted" : "error", ms: e.ms, error: e.error });
        break;
      case "node-skipped": {
        const rec = node ?? add(placeholder(e.nodeId, "skipped"));
        rec.status = skippedStatus(e.reason);
        rec.skipReason = e.reason === "upstream-failed" ? `upstream node "${e.upstream}" failed` : "run aborted";
        break;
      }
      case "node-log":
        node?.logs.push({ level: e.level, message: e.message, at: e.at, ...(e.data !== undefined ? { data: e.data } : {}) });
        break;
      case "node-progress":
        if (node) node.progress = { done: e.done, ...(e.total !== undefined ? { total: e.total } : {}), ...(e.message !== undefined ? { message: e.message } : {}) };
        break;
      case "span-start": {
        const span: SpanRecord = { id: e.spanId, name: e.name, status: "running", children: [], ...(e.parentId ? { parentId: e.parentId } : {}), ...(e.attrs ? { attrs: e.attrs } : {}) };
        spans.set(e.spanId, span);
        const parent = e.parentId ? spans.get(e.parentId) : undefined;
        if (parent) parent.children.push(span);
        else node?.spans.push(span);
        break;
      }
      case "span-end": {
        const span = spans.get(e.spanId);
        if (span) Object.assign(span, { status: e.status, ms: e.ms, ...(e.error ? { error: e.error } : {}), ...(e.data !== undefined ? { data: e.data } : {}) });
        break;
      }
      case "run-end":
        Object.assign(run, { status: e.status, ms: e.ms, endedAt: e.at, ...(e.error ? { error: e.error } : {}) });
        break;
    }
  });
  if (!run) throw new Error(`${path}: no run-start line; this is not a Citeflow run file`);
  // A line that cannot be read lost an event: the record is not whole, whatever its last line says.
  if (problems.length && run.status === "ok") run.status = "incomplete";
  return run;
}

/** A node seen before (or without) its start: paused, or skipped without running. */
function placeholder(id: string, status: StoredNodeStatus): NodeRecord {
  return { id, type: "", version: 0, params: {}, inputHashes: {}, cacheKey: "", status, spans: [], logs: [] };
}
