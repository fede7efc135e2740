import type { Passage } from "@citeflow/core";

/** One ranked list from one retriever, and the name of the score it ranked by. */
export interface RankedList {
  passages: Passage[];
  score: string;
}

function byId(lists: RankedList[]): Map<string, Passage> {
  const all = new Map<string, Passage>();
  for (const { passages } of lists)
    for (const p of passages) {
      const prev = all.get(p.id);
      all.set(p.id, prev ? { ...prev, scores: { ...p.scores, ...prev.scores } } : { ...p, scores: { ...p.scores } });
    }
  return all;
}

function ranked(all: Map<string, Passage>, key: string): Passage[] {
  return [...all.values()].sort((a, b) => b.scores[key]! - a.scores[key]! || a.id.localeCompare(b.id));
}

/**
 * Verif.ai's hybrid: each list's scores divided by that list's top score, then a weighted sum
 * (default 0.7 lexical + 0.3 dense). A passage missing from a list contributes 0 from it.
 * Every input score is kept; the normalised ones are added as `<score>_norm`, the result as `fused`.
 */
export function weightedFusion(lists: RankedList[], weights: number[], normalise: "top" | "minmax" = "top"): Passage[] {
  if (weights.length !== lists.length) throw new Error(`fusion: ${lists.length} lists but ${weights.length} weights`);
  if (weights.some((w) => w < 0)) throw new Error(`fusion: weights must be ≥ 0, got ${weights.join(", ")}`);
  const total = weights.reduce((a, b) => a + b, 0);
  if (total > 1 + 1e-9) throw new Error(`fusion: weights sum to ${total}, over 1 (${weights.join(" + ")})`);
  const all = byId(lists);
  lists.forEach(({ passages, score }) => {
    const values = passages.map((p) => p.scores[score]);
    if (values.some((v) => v === undefined)) throw new Error(`fusion: a passage in the "${score}" list has no "${score}" score`);
    const top = Math.max(...(values as number[]));
    const bottom = Math.min(...(values as number[]));
    for (const p of passages) {
      const v = p.scores[score]!;
      const norm = normalise === "top" ? (top > 0 ? v / top : 0) : top > bottom ? (v - bottom) / (top - bottom) : 1;
      all.get(p.id)!.scores[`${score}_norm`] = norm;
    }
  });
  for (const p of all.values()) p.scores.fused = lists.reduce((s, { score }, i) => s + weights[i]! * (p.scores[`${score}_norm`] ?? 0), 0);
  return ranked(all, "fused");
}

/** Reciprocal-rank fusion: Σ 1 / (k + rank), rank from 1 (default k = 60). */
export function reciprocalRankFusion(lists: RankedList[], k = 60): Passage[] {
  const all = byId(lists);
  for (const p of all.values()) p.scores.rrf = 0;
  for (const { passages } of lists) passages.forEach((p, i) => (all.get(p.id)!.scores.rrf! += 1 / (k + i + 1)));
  return ranked(all, "rrf");
}
