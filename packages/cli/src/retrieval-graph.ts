import { loadGraph, newRunId, startRun, type CompiledGraph, type NodeRegistry, type Passage, type Services } from "@citeflow/core";
import type { RunStore } from "@citeflow/runstore";
import { FailureError } from "./errors.js";

/**
 * A run recorded in the run store (its trace, readable with `citeflow runs`) but not served from
 * its cache: evaluation and search measure what the pipeline does now.
 */
export function traced(runs: RunStore | undefined): { runId?: string; recorder?: ReturnType<RunStore["recorder"]> } {
  if (!runs) return {};
  const runId = newRunId();
  return { runId, recorder: runs.recorder(runId) };
}

export interface RetrievalGraphOptions {
  mode: "lexical" | "dense" | "hybrid";
  store: string;
  k: number;
  modelsDir?: string;
  rerank?: string;
}

/** question → retrieve.<mode> [→ rerank.cross-encoder]: the graph behind `search` and `eval retrieval`. */
export function retrievalGraph(o: RetrievalGraphOptions, registry: NodeRegistry): { graph: CompiledGraph; last: string } {
  const modelsDir = o.modelsDir ? { modelsDir: o.modelsDir } : {};
  const nodes = [
    { id: "question", type: "input.question", version: 1, params: {} },
    { id: "retrieve", type: `retrieve.${o.mode}`, version: 1, params: { store: o.store, k: o.rerank ? Math.max(100, o.k) : o.k, ...(o.mode === "lexical" ? {} : modelsDir) } },
  ];
  const edges = [{ from: "question.question", to: "retrieve.question" }];
  if (o.rerank) {
    nodes.push({ id: "rerank", type: "rerank.cross-encoder", version: 1, params: { model: o.rerank, ...modelsDir } });
    edges.push({ from: "question.question", to: "rerank.question" }, { from: "retrieve.passages", to: "rerank.passages" });
  }
  const doc = { citeflow: 1, name: `search (${o.mode}${o.rerank ? " + rerank" : ""})`, inputs: { question: { type: "Question" } }, nodes, edges };
  return { graph: loadGraph(doc, registry), last: o.rerank ? "rerank" : "retrieve" };
}

export async function retrieve(g: { graph: CompiledGraph; last: string }, question: { id: string; text: string }, services: Services, runs?: RunStore): Promise<Passage[]> {
  const result = await startRun(g.graph, { inputs: { question }, services, ...traced(runs) }).result;
  const failed = result.nodes.find((n) => n.status === "error");
  if (failed) throw new FailureError(`${failed.id}: ${failed.error!.message}`);
  return result.nodes.find((n) => n.id === g.last)!.outputs!.passages as Passage[];
}
