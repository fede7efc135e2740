import { startRun, type CompiledGraph, type NodeRegistry, type RunHandle, type RunOptions, type RunOrigin } from "@citeflow/core";
import type { CiteflowServices } from "@citeflow/nodes";
import { RunStore } from "@citeflow/runstore";
import { track } from "./active.js";

/** What a caller may ask of a run beyond its graph and inputs (partial runs, stepping, overrides, …). */
export type RunRequest = Omit<RunOptions, "services" | "cache" | "recorder" | "runId" | "inputs">;

/**
 * Where runs happen: a node registry, the services nodes use, and the run store every run is
 * recorded in. The CLI, the kernel (and so the editor) and notebooks each start their runs through
 * one, so that services reach nodes, a graph's folder is where its prompts are read, a trace is
 * kept, and the run is among the runs in progress, the same way from each. Graphs are opened by
 * `openGraph` and questions become inputs by core's `questionRuns`, in every front end.
 */
export class Session {
  readonly store: RunStore;

  constructor(
    readonly registry: NodeRegistry,
    /** Citeflow's services (models, stores, prompts, servers), typed: front ends read their config without a cast. */
    readonly services: CiteflowServices,
    runs: string | RunStore,
    /** The front end whose runs these are, recorded with each (the Runs list filters by it). */
    readonly origin?: RunOrigin,
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
    const handle = startRun(graph, {
      ...(this.origin ? { origin: this.origin } : {}),
      ...rest,
      inputs,
      services: this.servicesFor(graph),
      runId: recording.runId,
      recorder: recording.recorder,
      ...(reuse ? { cache: recording.cache } : {}),
    });
    track(handle);
    return handle;
  }

  /** A graph read from a file reads its relative `file:` prompts in that file's folder, whoever runs it. */
  private servicesFor(graph: CompiledGraph): CiteflowServices {
    const s = this.services;
    return graph.folder && s.config.graphDir !== graph.folder ? s.with({ graphDir: graph.folder }) : s;
  }
}
