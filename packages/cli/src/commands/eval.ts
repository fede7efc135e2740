import type { NodeRegistry } from "@citeflow/core";
import { docsInOrder, readQrels, scoreRetrieval } from "@citeflow/eval";
import { FailureError } from "../errors.js";
import { readQuestions } from "../questions.js";
import { retrievalGraph, retrieve } from "../retrieval-graph.js";

export interface EvalRetrievalOptions {
  store: string;
  queries: string;
  qrels: string;
  mode: "lexical" | "dense" | "hybrid";
  rerank?: string;
  modelsDir?: string;
  limit?: number;
  json?: boolean;
}

/** Runs every judged query through the retrieval graph and scores the document rankings. */
export async function evalRetrievalCommand(o: EvalRetrievalOptions, registry: NodeRegistry): Promise<number> {
  const qrels = readQrels(o.qrels);
  const questions = readQuestions(o.queries).filter((q) => qrels.has(q.id));
  if (questions.length === 0) throw new FailureError(`no query in ${o.queries} has a judgement in ${o.qrels}`);
  const todo = o.limit !== undefined ? questions.slice(0, o.limit) : questions;
  const g = retrievalGraph({ mode: o.mode, store: o.store, k: 100, ...(o.modelsDir ? { modelsDir: o.modelsDir } : {}), ...(o.rerank ? { rerank: o.rerank } : {}) }, registry);
  const runs = new Map<string, string[]>();
  const t0 = performance.now();
  for (const [i, q] of todo.entries()) {
    runs.set(q.id, docsInOrder((await retrieve(g, q)).map((p) => p.id)));
    if (!o.json && process.stderr.isTTY) process.stderr.write(`\r\x1b[2Keval: ${i + 1}/${todo.length} queries`);
  }
  if (!o.json && process.stderr.isTTY) process.stderr.write("\n");
  const scores = scoreRetrieval(runs, qrels);
  const ms = (performance.now() - t0) / todo.length;
  if (o.json) process.stdout.write(JSON.stringify(scores) + "\n");
  else
    process.stdout.write(
      `${o.mode}${o.rerank ? ` + rerank ${o.rerank}` : ""} on ${scores.queries} queries: ` +
        `nDCG@10 ${scores["ndcg@10"].toFixed(3)} · recall@100 ${scores["recall@100"].toFixed(3)} · MRR@10 ${scores["mrr@10"].toFixed(3)} · ${ms.toFixed(1)} ms/query\n`,
    );
  return 0;
}
