/**
 * The payload of a Citeflow display (`application/vnd.citeflow.run+json`): one view, `kind` says
 * which. Types only (and the MIME type), so the kernel that writes a view and the notebook renderer
 * that reads it share one definition; kernel/README.md documents the schema.
 */
import type { GraphDoc } from "./graph.js";
import type { NodeProgress, NodeStatus } from "./progress.js";
import type { Answer, Claim, Passage, Verdict } from "./values.js";

/** The MIME type of every Citeflow display; `kind` says which view it holds. */
export const CITEFLOW_MIME = "application/vnd.citeflow.run+json";
/** Version of the payload schema (kernel/README.md documents it). */
export const VIEW_VERSION = 1;

/** A node's status in a run view: the one vocabulary (`progress.ts`). */
export type NodeState = NodeStatus;

/** A node in a run view: its id and type, and where it is in the run (`NodeProgress`). */
export interface RunNodeView extends NodeProgress {
  id: string;
  type: string;
}

export interface RunView {
  version: 1;
  kind: "run";
  runId: string;
  status: "running" | "paused" | "ok" | "error" | "aborted" | "incomplete";
  graph: GraphDoc;
  question?: string;
  ms?: number;
  error?: string;
  /** Where the run is stored, for "open in pipeline editor". */
  runStore: string;
  nodes: RunNodeView[];
  /** Output values by node and port, for the nodes that finished (left out past a size limit). */
  outputs?: Record<string, Record<string, unknown>>;
  /** Passage texts in this view are cut to this many characters (`preview.ts`). */
  preview?: number;
}

export interface PassagesView {
  version: 1;
  kind: "passages";
  query?: string;
  passages: Passage[];
  preview?: number;
}

export interface AnswerView {
  version: 1;
  kind: "answer";
  answer: Answer;
  passages?: Passage[];
  preview?: number;
}

export interface VerdictsView {
  version: 1;
  kind: "verdicts";
  claims: Claim[];
  verdicts: Verdict[];
  /** The cited passages, so each evidence sentence is shown marked inside its passage. */
  passages?: Passage[];
}

export type CiteflowView = RunView | PassagesView | AnswerView | VerdictsView;

/** One place a graph reaches outside the process: a server, a models folder or a file it names in a param (the kernel's "reach"). */
export interface Reach {
  node: string;
  param: string;
  /** A server and a models folder need the user's consent; a file must be inside the prompt folders. */
  kind: "endpoint" | "models" | "file";
  target: string;
  /** Allowed as things stand: a configured or consented server or models folder, a file inside the prompt folders. */
  allowed: boolean;
  /** Why not, when not allowed. */
  why?: string;
}
