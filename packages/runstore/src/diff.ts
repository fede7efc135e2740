import type { NodeRecord, RunRecord } from "./reader.js";

export interface ParamChange {
  path: string;
  a: unknown;
  b: unknown;
}

export interface NodeDiff {
  id: string;
  /** added/removed: the node ran in only one of the runs. */
  change: "same" | "changed" | "added" | "removed";
  type?: string;
  params: ParamChange[];
  /** Input ports whose value differs. */
  inputs: string[];
  /** Output ports whose value differs. */
  outputs: string[];
  a?: { status: string; cache?: string; ms?: number };
  b?: { status: string; cache?: string; ms?: number };
  /** b.ms − a.ms when both ran. */
  msDelta?: number;
}

/** A run-level number (citation F1, hallucinated citations, total ms) in each run. */
export interface MetricChange {
  name: string;
  a?: number;
  b?: number;
}

export interface RunDiff {
  a: string;
  b: string;
  /** Present when the diff came from a RunStore (it reads the metric outputs). */
  metrics?: MetricChange[];
  sameGraph: boolean;
  /** Graph inputs whose value differs. */
  inputs: string[];
  nodes: NodeDiff[];
}

/** Per node: changed params (as dotted paths), changed inputs and outputs (by hash), timing. */
export function diffRuns(a: RunRecord, b: RunRecord): RunDiff {
  const byId = (r: RunRecord) => new Map(r.nodes.map((n) => [n.id, n]));
  const na = byId(a);
  const nb = byId(b);
  const ids = [...new Set([...a.nodes.map((n) => n.id), ...b.nodes.map((n) => n.id)])];
  const inputs = [...new Set([...Object.keys(a.inputHashes), ...Object.keys(b.inputHashes)])].filter((k) => a.inputHashes[k] !== b.inputHashes[k]);
  return {
    a: a.runId,
    b: b.runId,
    sameGraph: a.graphHash === b.graphHash,
    inputs,
    nodes: ids.map((id) => diffNode(id, na.get(id), nb.get(id))),
  };
}

function diffNode(id: string, a: NodeRecord | undefined, b: NodeRecord | undefined): NodeDiff {
  const timing = (n: NodeRecord) => ({ status: n.status, ...(n.cache ? { cache: n.cache } : {}), ...(n.ms !== undefined ? { ms: n.ms } : {}) });
  if (!a || !b) {
    const n = (a ?? b)!;
    return { id, change: a ? "removed" : "added", type: n.type, params: [], inputs: [], outputs: [], ...(a ? { a: timing(a) } : { b: timing(b!) }) };
  }
  const params = diffValues(a.params, b.params, "");
  const keys = (x?: Record<string, unknown>, y?: Record<string, unknown>) => [...new Set([...Object.keys(x ?? {}), ...Object.keys(y ?? {})])];
  const inputs = keys(a.inputHashes, b.inputHashes).filter((k) => JSON.stringify(a.inputHashes[k]) !== JSON.stringify(b.inputHashes[k]));
  const outputs = keys(a.outputHashes, b.outputHashes).filter((k) => a.outputHashes?.[k] !== b.outputHashes?.[k]);
  const changed = params.length > 0 || inputs.length > 0 || outputs.length > 0 || a.status !== b.status || a.type !== b.type || a.version !== b.version;
  return {
    id,
    change: changed ? "changed" : "same",
    type: b.type,
    params,
    inputs,
    outputs,
    a: timing(a),
    b: timing(b),
    ...(a.ms !== undefined && b.ms !== undefined ? { msDelta: b.ms - a.ms } : {}),
  };
}

function diffValues(a: unknown, b: unknown, path: string): ParamChange[] {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => diffValues(a[k], b[k], path ? `${path}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [{ path: path || "(all)", a, b }];
}
