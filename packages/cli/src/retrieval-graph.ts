import { loadGraph, type CompiledGraph, type NodeRegistry, type Passage } from "@citeflow/core";
import type { Session } from "@citeflow/host";
import { FailureError } from "./errors.js";

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

/** One question through a retrieval graph: the run is recorded in the session's store (`citeflow runs`), never served from its cache. */
export async function retrieve(session: Session, g: { graph: CompiledGraph; last: string }, question: { id: string; text: string }): Promise<Passage[]> {
  const result = await session.start(g.graph, { question }, { reuse: false }).result;
  const failed = result.nodes.find((n) => n.status === "error");
  if (failed) throw new FailureError(`${failed.id}: ${failed.error!.message}`);
  return result.nodes.find((n) => n.id === g.last)!.outputs!.passages as Passage[];
}
