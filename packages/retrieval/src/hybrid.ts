import type { Passage } from "@citeflow/core";
import { reciprocalRankFusion, weightedFusion } from "./fusion.js";
import type { PassageStore, ScoredId } from "./store.js";

export interface HybridOptions {
  /** Passages returned. */
  k: number;
  /** Taken from each retriever before fusing. */
  candidates: number;
  /** verifai: each list ÷ its top score; minmax: min-max; rrf: reciprocal rank. */
  fusion: "verifai" | "minmax" | "rrf";
  /** Lexical and dense weights (verifai, minmax); default 0.7 / 0.3. */
  weights?: [number, number];
  rrfK?: number;
}

const stub = (r: ScoredId, score: string): Passage => ({ id: r.id, title: "", text: "", metadata: {}, scores: { [score]: r.score } });

/**
 * BM25 + dense on one store, fused, reading text only for the passages that survive: both
 * searches return ids and scores, the fusion ranks the ids, and only the top k are read.
 * Every passage keeps each score it got (`bm25`, `dense`, their `_norm`s, `fused` or `rrf`).
 */
export async function hybridSearch(store: PassageStore, query: string, vector: number[], o: HybridOptions): Promise<Passage[]> {
  const [lexical, dense] = await Promise.all([store.lexicalIds(query, o.candidates), store.denseIds(vector, o.candidates)]);
  const lists = [
    { passages: lexical.map((r) => stub(r, "bm25")), score: "bm25" },
    { passages: dense.map((r) => stub(r, "dense")), score: "dense" },
  ];
  const fused = (o.fusion === "rrf" ? reciprocalRankFusion(lists, o.rrfK) : weightedFusion(lists, o.weights ?? [0.7, 0.3], o.fusion === "verifai" ? "top" : "minmax")).slice(0, o.k);
  const refs = new Map([...lexical, ...dense].map((r) => [r.id, r.ref]));
  const found = await store.passages(fused.map((p) => ({ id: p.id, ref: refs.get(p.id) })));
  return fused.map((p) => {
    const full = found.get(p.id);
    if (!full) throw new Error(`store ${store.location}: passage ${p.id} was found by search but cannot be read`);
    return { ...full, scores: p.scores };
  });
}
