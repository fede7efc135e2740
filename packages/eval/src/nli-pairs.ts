import { scoreClassification, type ClassificationScores } from "./classification.js";

const LABELS = ["SUPPORT", "NO_EVIDENCE", "CONTRADICT"] as const;
type Label = (typeof LABELS)[number];

/** One scored pair: its gold label, the model's probabilities, and the set it came from. */
export interface ScoredPair {
  gold: Label;
  probabilities: Record<Label, number>;
  source?: string;
}

export interface NliPairScores extends ClassificationScores {
  /** On the SUPPORT and CONTRADICT rows only: right when the larger of P(SUPPORT) and P(CONTRADICT) is the gold one (undefined without such rows). */
  support_vs_contradict?: number;
  /** How many rows that is. */
  support_vs_contradict_rows: number;
  pairs: number;
}

/** The label with the highest probability (ties: the first in SUPPORT, NO_EVIDENCE, CONTRADICT). */
export const argmaxLabel = (p: Record<Label, number>): Label => LABELS.reduce((best, l) => (p[l] > p[best] ? l : best), LABELS[0]);

/** Per row: 3-way right or wrong, and (SUPPORT/CONTRADICT rows only) whether the two-way call is right. */
export function pairOutcomes(rows: ScoredPair[]): Array<{ correct: number; sc?: number }> {
  return rows.map((r) => ({
    correct: argmaxLabel(r.probabilities) === r.gold ? 1 : 0,
    ...(r.gold === "NO_EVIDENCE" ? {} : { sc: (r.probabilities.SUPPORT >= r.probabilities.CONTRADICT ? "SUPPORT" : "CONTRADICT") === r.gold ? 1 : 0 }),
  }));
}

/**
 * Pair-level NLI figures: 3-way accuracy, macro-F1, SUPPORT vs CONTRADICT, the confusion matrix.
 * Macro-F1 averages over the labels the gold rows use (a set without NO_EVIDENCE rows, such as
 * NLI4CT, is scored over its two; a NO_EVIDENCE prediction there is still an error).
 */
export function scoreNliPairs(rows: ScoredPair[]): NliPairScores {
  const pairs = rows.map((r) => ({ gold: r.gold, predicted: argmaxLabel(r.probabilities) }));
  const base = scoreClassification(pairs, [...LABELS]);
  const used = LABELS.filter((l) => rows.some((r) => r.gold === l));
  const f1 = (l: Label) => {
    const tp = base.confusion[l]![l]!;
    const fp = pairs.filter((p) => p.predicted === l && p.gold !== l).length;
    const fn = pairs.filter((p) => p.gold === l && p.predicted !== l).length;
    return tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn);
  };
  base.macro_f1 = used.length ? used.reduce((s, l) => s + f1(l), 0) / used.length : 0;
  const sc = pairOutcomes(rows).flatMap((o) => (o.sc === undefined ? [] : [o.sc]));
  return { ...base, pairs: rows.length, support_vs_contradict_rows: sc.length, ...(sc.length ? { support_vs_contradict: sc.reduce((a, b) => a + b, 0) / sc.length } : {}) };
}

/** The same figures for each source the rows name (rows without one under "-"). */
export function scoreNliBySource(rows: ScoredPair[]): Record<string, NliPairScores> {
  const by = new Map<string, ScoredPair[]>();
  for (const r of rows) by.set(r.source ?? "-", [...(by.get(r.source ?? "-") ?? []), r]);
  return Object.fromEntries([...by].sort(([a], [b]) => a.localeCompare(b)).map(([s, rs]) => [s, scoreNliPairs(rs)]));
}
