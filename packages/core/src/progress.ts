import type { CacheStatus, NodeEndEvent, RunEvent } from "./events.js";

/** A run event as the kernel streams it to the editor: node-end without its outputs (fetched on demand). */
export type StreamedRunEvent = Exclude<RunEvent, NodeEndEvent> | Omit<NodeEndEvent, "outputs">;

/** Where a node is in a run: the one vocabulary of the editor, notebook displays and the run store. */
export type NodeStatus = "queued" | "running" | "paused" | "done" | "error" | "skipped" | "aborted";

export interface NodeProgress {
  status: NodeStatus;
  cache?: CacheStatus;
  ms?: number;
  error?: string;
  /** While it runs: what it has produced so far (a chat model's text as it streams). */
  progress?: string;
  /** Once done: its outputs in one line (`summary.ts`). */
  summary?: string;
  /** Once done: the models that made its outputs. */
  models?: string[];
  /** Once done: what looks wrong in its result. */
  warnings?: string[];
}

export interface RunProgress {
  runId: string;
  status: "running" | "paused" | "ok" | "error" | "aborted";
  nodes: Record<string, NodeProgress>;
  /** The node a paused run waits before. */
  pausedAt?: string;
  ms?: number;
}

/** How a skipped node reads, live and stored alike: "aborted" when its run was aborted, else "skipped" (an upstream node failed). */
export function skippedStatus(reason: "upstream-failed" | "aborted"): "aborted" | "skipped" {
  return reason === "aborted" ? "aborted" : "skipped";
}

const STATUSES: readonly string[] = ["queued", "running", "paused", "done", "error", "skipped", "aborted"] satisfies NodeStatus[];

/**
 * How a stored run's node reads, in every front end (a notebook's stored run, the editor's history):
 * a record is read after the fact, so a node it leaves running or paused was cut off with its run
 * ("aborted"); a status outside the vocabulary (a record is input) reads "skipped".
 */
export function storedNodeStatus(status: string): NodeStatus {
  if (status === "running" || status === "paused") return "aborted";
  return STATUSES.includes(status) ? (status as NodeStatus) : "skipped";
}

/** What a stored run's node record says of its progress, as every front end shows it (its status read by storedNodeStatus). */
export function storedNodeProgress<T extends { status: string; cache?: CacheStatus; ms?: number; summary?: unknown; models?: unknown; warnings?: unknown; error?: { message: string } }>(
  n: T,
): { status: NodeStatus; error?: string } & Partial<Pick<T, "cache" | "ms" | "summary" | "models" | "warnings">> {
  return {
    status: storedNodeStatus(n.status),
    ...(n.cache ? { cache: n.cache } : {}),
    ...(n.ms !== undefined ? { ms: n.ms } : {}),
    ...(n.summary ? { summary: n.summary } : {}),
    ...(n.models ? { models: n.models } : {}),
    ...(n.warnings ? { warnings: n.warnings } : {}),
    ...(n.error ? { error: n.error.message } : {}),
  } as { status: NodeStatus; error?: string } & Partial<Pick<T, "cache" | "ms" | "summary" | "models" | "warnings">>;
}

/** A run that has just started on `selected`: every node queued. */
export function startedRun(runId: string, selected: string[]): RunProgress {
  return { runId, status: "running", nodes: Object.fromEntries(selected.map((id) => [id, { status: "queued" }])) };
}

/**
 * The one fold of run events into where each node is, for every front end (the editor's badges,
 * a notebook's live display). Pure: returns a new progress, or the same object when the event
 * changes nothing it shows. A node resumed after a pause is queued until it starts; a run that ends
 * leaves no node queued or running (aborted, or skipped when the run failed).
 */
export function reduceRunEvent(run: RunProgress, e: StreamedRunEvent): RunProgress {
  const node = (id: string, n: NodeProgress): RunProgress => ({ ...run, nodes: { ...run.nodes, [id]: n } });
  switch (e.type) {
    case "node-start":
      return node(e.nodeId, { status: "running" });
    case "node-progress":
      return e.message === undefined ? run : node(e.nodeId, { status: "running", progress: e.message });
    case "node-paused":
      return { ...node(e.nodeId, { status: "paused" }), status: "paused", pausedAt: e.nodeId };
    case "node-resumed": {
      const { pausedAt: _, ...rest } = node(e.nodeId, { status: "queued" });
      return { ...rest, status: "running" };
    }
    case "node-end":
      return node(e.nodeId, {
        status: "done",
        cache: e.cache,
        ms: e.ms,
        ...(e.summary ? { summary: e.summary } : {}),
        ...(e.models ? { models: e.models } : {}),
        ...(e.warnings ? { warnings: e.warnings } : {}),
      });
    case "node-error":
      return node(e.nodeId, { status: "error", error: e.error.message, ms: e.ms });
    case "node-skipped":
      return node(e.nodeId, { status: skippedStatus(e.reason) });
    case "run-end": {
      const nodes = { ...run.nodes };
      for (const [id, n] of Object.entries(nodes)) if (n.status === "queued" || n.status === "running" || n.status === "paused") nodes[id] = { status: e.status === "aborted" ? "aborted" : "skipped" };
      const { pausedAt: _, ...rest } = run;
      return { ...rest, status: e.status, ms: e.ms, nodes };
    }
    default:
      return run;
  }
}

/** What a run was, in a few words, from its options: "run", "run to papers", "run from top", "node top", "steps", with "edited: answer" when values were overridden. The Runs tab and `citeflow runs` label runs by it. */
export function runKind(o: { to?: string; from?: string; only?: string; step?: boolean; force?: boolean; overridden?: string[] }): string {
  const base = o.only ? `node ${o.only}` : o.from ? `run from ${o.from}` : o.to ? `run to ${o.to}` : "run";
  return [base, o.step ? "steps" : "", o.force ? "forced" : "", o.overridden?.length ? `edited: ${o.overridden.join(", ")}` : ""].filter(Boolean).join(" · ");
}
