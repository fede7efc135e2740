import { readFileSync } from "node:fs";
import {
  loadGraph,
  questionRuns,
  startRun,
  type CompiledGraph,
  type GraphDoc,
  type NodeRegistry,
  type QuestionRun,
  type QuestionsGiven,
  type RunHandle,
  type RunOptions,
  type Services,
} from "@citeflow/core";
import { findGraph } from "@citeflow/nodes";
import { RunStore } from "@citeflow/runstore";

/** A graph from a document, a file, or a shipped template's name (`findGraph`: an existing file wins). */
export function loadGraphFrom(source: string | GraphDoc, registry: NodeRegistry): CompiledGraph {
  if (typeof source !== "string") return loadGraph(JSON.stringify(source), registry, { source: `graph "${source.name}"` });
  const { path } = findGraph(source);
  return loadGraph(readFileSync(path, "utf8"), registry, { source: path });
}

/** What a caller may ask of a run beyond its graph and inputs (partial runs, stepping, overrides, …). */
export type RunRequest = Omit<RunOptions, "services" | "cache" | "recorder" | "runId" | "inputs">;

/**
 * Where runs happen: a node registry, the services nodes use, and the run store every run is
 * recorded in. The CLI, the kernel (and so the editor) and notebooks each start their runs through
 * one, so that a graph is named, questions become inputs, services reach nodes and a trace is kept
 * the same way from each.
 */
export class Session {
  readonly store: RunStore;

  constructor(
    readonly registry: NodeRegistry,
    readonly services: Services,
    runs: string | RunStore,
  ) {
    this.store = typeof runs === "string" ? new RunStore(runs) : runs;
  }

  /** A graph from a document, a file, or a shipped template's name (`findGraph`: an existing file wins). */
  graph(source: string | GraphDoc): CompiledGraph {
    return loadGraphFrom(source, this.registry);
  }

  /** The runs a question or a question set makes (`questionRuns`): one per question for a Question input, one on the set for a Question[] input. */
  questionRuns(graph: CompiledGraph, given: QuestionsGiven): QuestionRun[] {
    return questionRuns(graph.doc, given);
  }

  /**
   * Start a run with these services, recorded in the store. Results are reused from the store's
   * cache; `reuse: false` records the run without serving anything from the cache, for evaluation
   * and search, which measure what the pipeline does now.
   */
  start(graph: CompiledGraph, inputs: Record<string, unknown>, request: RunRequest & { reuse?: boolean } = {}): RunHandle {
    const { reuse = true, ...rest } = request;
    const recording = this.store.runOptions();
    return startRun(graph, { ...rest, inputs, services: this.services, runId: recording.runId, recorder: recording.recorder, ...(reuse ? { cache: recording.cache } : {}) });
  }
}
