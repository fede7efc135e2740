import { startRun, type CompiledGraph, type NodeRegistry, type RunHandle, type RunOptions, type Services } from "@citeflow/core";
import { RunStore } from "@citeflow/runstore";

/** What a caller may ask of a run beyond its graph and inputs (partial runs, stepping, overrides, …). */
export type RunRequest = Omit<RunOptions, "services" | "cache" | "recorder" | "runId" | "inputs">;

/**
 * Where runs happen: a node registry, the services nodes use, and the run store every run is
 * recorded in. The CLI, the kernel (and so the editor) and notebooks each start their runs through
 * one, so that services reach nodes and a trace is kept the same way from each. Graphs are named
 * by `findGraph` and questions become inputs by `questionRuns`, in every front end.
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
