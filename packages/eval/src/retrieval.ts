import { readFileSync } from "node:fs";
import { docIdOf } from "@citeflow/core";

/** query id → document id → graded relevance (> 0 is relevant). */
export type Qrels = Map<string, Map<string, number>>;

/** Reads BEIR qrels: TSV `query-id  corpus-id  score`, with a header line. */
export function readQrels(path: string): Qrels {
  const qrels: Qrels = new Map();
  const lines = readFileSync(path, "utf8").split("\n");
  lines.forEach((line, i) => {
    if (line.trim() === "" || (i === 0 && /query/i.test(line))) return;
    const [q, d, s] = line.split("\t");
    const score = Number(s);
    if (!q || !d || !Number.isFinite(score)) throw new Error(`${path}:${i + 1}: expected "query-id<TAB>corpus-id<TAB>score", got "${line}"`);
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, score);
  });
  return qrels;
}

/**
 * nDCG@k as trec_eval / pytrec_eval compute it for BEIR: gain = relevance, discount log2(rank + 1),
 * ideal ranking from every judged relevant document.
 */
export function ndcgAt(ranked: string[], rels: Map<string, number>, k: number): number {
  const dcg = ranked.slice(0, k).reduce((s, d, i) => s + (rels.get(d) ?? 0) / Math.log2(i + 2), 0);
  const ideal = [...rels.values()]
    .filter((r) => r > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  const idcg = ideal.reduce((s, r, i) => s + r / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

/** Share of the relevant documents found in the top k. */
export function recallAt(ranked: string[], rels: Map<string, number>, k: number): number {
  const relevant = [...rels.entries()].filter(([, r]) => r > 0).map(([d]) => d);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((d) => top.has(d)).length / relevant.length;
}

/** 1 / rank of the first relevant document in the top k, else 0. */
export function mrrAt(ranked: string[], rels: Map<string, number>, k: number): number {
  const i = ranked.slice(0, k).findIndex((d) => (rels.get(d) ?? 0) > 0);
  return i < 0 ? 0 : 1 / (i + 1);
}

export interface RetrievalScores {
  "ndcg@10": number;
  "recall@100": number;
  "mrr@10": number;
  queries: number;
}

/** Means over queries of nDCG@10, recall@100 and MRR@10. `runs` maps query id → ranked doc ids. */
export function scoreRetrieval(runs: Map<string, string[]>, qrels: Qrels): RetrievalScores {
  let n = 0;
  const sum = { ndcg: 0, recall: 0, mrr: 0 };
  for (const [q, ranked] of runs) {
    const rels = qrels.get(q);
    if (!rels) continue;
    n++;
    sum.ndcg += ndcgAt(ranked, rels, 10);
    sum.recall += recallAt(ranked, rels, 100);
    sum.mrr += mrrAt(ranked, rels, 10);
  }
  const mean = (x: number) => (n === 0 ? 0 : x / n);
  return { "ndcg@10": mean(sum.ndcg), "recall@100": mean(sum.recall), "mrr@10": mean(sum.mrr), queries: n };
}

/** Passages → documents, in order of first appearance (a paper ranks where its best passage does). */
export function docsInOrder(passageIds: string[]): string[] {
  const seen = new Set<string>();
  for (const id of passageIds) seen.add(docIdOf(id));
  return [...seen];
}
