/**
 * The `citeflow` comm between the editor and the kernel (kernel/README.md): each method's
 * parameters and result, in one map. The kernel's handler table and the editor's client are both
 * typed against it; the kernel still checks every parameter it receives, since a message is input.
 * Results are the parts of the run store's records the editor reads.
 */
import type { Catalogue } from "./registry.js";
import type { GraphDoc } from "./graph.js";
import type { QuestionsGiven } from "./inputs.js";
import type { Reach } from "./views.js";
import type { RunOptions } from "./run-types.js";

/** A run the editor asks for: the engine's run options that travel over the comm, and its question. */
export interface RunRequest extends QuestionsGiven, Pick<RunOptions, "to" | "from" | "only" | "force" | "overrides" | "breakpoints" | "step" | "concurrency"> {
  /** A graph document, a template name or a file. */
  graph: GraphDoc | string;
  /** The folder of the file a graph document was read from (an absolute path): its relative `file:` prompts are read there, as `citeflow run` and notebooks read them. */
  folder?: string;
  /** Inputs given directly; with `question`/`questions` the kernel makes them (`questionRuns`). */
  inputs?: Record<string, unknown>;
  /** Servers the graph names that the user agreed to (the editor's dialog): allowed for the kernel's life, and the run starts. */
  allowEndpoints?: string[];
}

/**
 * A run started, or, when the graph names servers the user has not configured or allowed, nothing
 * started and the servers to ask about: the same request with `allowEndpoints` starts it.
 */
export type RunReply = { runId: string; selected: string[] } | { needsConsent: Reach[] };

/** A question set the editor asks for: the graph once per question, `parallel` runs at once, each its own recorded run. */
export interface SetRequest extends Pick<RunRequest, "graph" | "folder" | "allowEndpoints" | "to" | "force" | "overrides"> {
  /** One question or claim a run (a `Question[]` input takes them all in one run). */
  questions: string[];
  /** Runs at once; default as `citeflow run --questions` decides: 1 for an in-process model, more when every model is served. */
  parallel?: number;
}

/** A set started (its progress follows as `{type: "set", progress}` messages), or the servers to ask about first, as for `run`. */
export type SetReply = { setId: string; total: number; parallel: number } | { needsConsent: Reach[] };

/** A question set's progress, sent when a run of it starts and when one ends. */
export interface SetProgressView {
  setId: string;
  total: number;
  done: number;
  inFlight: number;
  failed: number;
  /** The set in words, as the CLI and notebooks print it (core's SetTally). */
  text: string;
  /** Each question's run id, in the questions' order (null: not started). */
  runIds: Array<string | null>;
  status: "running" | "ok" | "aborted" | "error";
  /** Why the set stopped, when a run could not start. */
  error?: string;
}

export interface RunListingView {
  runId: string;
  graph: string;
  status: string;
  startedAt: number;
  ms?: number;
  question?: string;
  /** What the run was: "run", "run to papers", "run from top · edited: top", … */
  kind?: string;
  /** The front end that started it: "cli", "editor", "notebook"; unset for runs recorded before it was kept. */
  origin?: string;
}

export interface SpanView {
  name: string;
  status: string;
  ms?: number;
  error?: { message: string };
  data?: unknown;
  children: SpanView[];
}

export interface NodeRecordView {
  id: string;
  status: string;
  cache?: "hit" | "miss";
  ms?: number;
  summary?: string;
  /** The models that made its outputs. */
  models?: string[];
  /** What looks wrong in its result. */
  warnings?: string[];
  /** The params the node ran with (the graph's may have changed since). */
  params?: Record<string, unknown>;
  error?: { message: string };
  spans: SpanView[];
}

export interface RunRecordView {
  runId: string;
  status: string;
  ms?: number;
  nodes: NodeRecordView[];
  corrections: CorrectionView[];
}

export type CorrectionInput =
  | { kind: "verdict"; nodeId: string; claimId: string; passageId?: string; label: "SUPPORT" | "CONTRADICT" | "NO_EVIDENCE" | "NO_REFERENCE"; note?: string }
  | { kind: "answer"; nodeId: string; text: string; note?: string }
  | { kind: "relevance"; nodeId: string; passageId: string; relevant: boolean; note?: string };

export type CorrectionView = CorrectionInput & { id: string; runId: string; at: number };

export interface RunDiffView {
  a: string;
  b: string;
  sameGraph: boolean;
  inputs: string[];
  nodes: Array<{
    id: string;
    change: string;
    params: Array<{ path: string; a?: unknown; b?: unknown }>;
    inputs: string[];
    /** The output ports whose values differ between the runs. */
    outputs: string[];
    a?: { status: string; ms?: number };
    b?: { status: string; ms?: number };
    msDelta?: number;
  }>;
  metrics?: Array<{ name: string; a?: number; b?: number }>;
}

export interface PageImage {
  page: number;
  /** PNG, base64. */
  png: string;
  width: number;
  height: number;
  /** The marked boxes in the image's pixels: [x, y, width, height]. */
  boxes: Array<[number, number, number, number]>;
}

export interface ExportRequest {
  format: string;
  /** Folder, relative to the kernel's working directory. */
  out: string;
  runIds?: string[];
  split?: number;
  seed?: number;
  metadata?: boolean;
  parquet?: boolean;
}

export interface ExportReply {
  out: string;
  files: Record<string, number>;
  runs: number;
  skippedRuns: string[];
  removed: { exact: number; near: number };
}

/** A trained model's card: where it is, its first paragraph, and its table rows [what, value]. */
export interface ModelCardView {
  path: string;
  summary: string;
  facts: Array<[string, string]>;
}

type RunId = { runId: string };

/** The comm target the kernel registers and the editor opens. */
export const COMM_TARGET = "citeflow";
/** The version of the messages below; the editor refuses a kernel that speaks another (kernel/README.md). */
export const COMM_VERSION = 3;

/** Method → [parameters, result]. */
export interface CiteflowProtocol {
  hello: [Record<string, never>, { version: number; runStore: string; templates: string[]; exportFormats: readonly string[] }];
  catalogue: [Record<string, never>, Catalogue];
  reach: [{ graph: GraphDoc | string }, Reach[]];
  run: [RunRequest, RunReply];
  /** A question set: one run a question, `parallel` at once. */
  runSet: [SetRequest, SetReply];
  /** Stops a set: no run of it starts after this, and those in flight are aborted. */
  abortSet: [{ setId: string }, null];
  step: [RunId, { pausedAt: string | null }];
  continue: [RunId, null];
  pause: [RunId, null];
  abort: [RunId, null];
  breakpoints: [RunId & { nodes: string[] }, null];
  runs: [{ graphName?: string }, RunListingView[]];
  record: [RunId, RunRecordView];
  /** A node's stored outputs, port → value; with `port`, that port's value alone. */
  output: [RunId & { nodeId: string; port?: string }, unknown];
  correct: [RunId & { correction: CorrectionInput }, CorrectionView];
  diff: [{ a: string; b: string }, RunDiffView];
  evidencePage: [{ path: string; start: number; end: number; sha256?: string }, PageImage];
  export: [ExportRequest, ExportReply];
  /** The card of a model a node names (its base, data, command, commit, held-out scores), or null for a model without one. */
  modelCard: [{ model: string }, ModelCardView | null];
}

export type Method = keyof CiteflowProtocol;
export type MethodParams<M extends Method> = CiteflowProtocol[M][0];
export type MethodResult<M extends Method> = CiteflowProtocol[M][1];
