export interface ClassificationScores {
  accuracy: number;
  macro_f1: number;
  /** gold label → predicted label → count */
  confusion: Record<string, Record<string, number>>;
  claims: number;
}

/** Accuracy, macro-F1 over `labels` (a label never predicted nor gold counts as F1 0), and the confusion matrix. */
export function scoreClassification(pairs: Array<{ gold: string; predicted: string }>, labels: string[]): ClassificationScores {
  const confusion = Object.fromEntries(labels.map((g) => [g, Object.fromEntries(labels.map((p) => [p, 0]))])) as Record<string, Record<string, number>>;
  for (const { gold, predicted } of pairs) {
    if (!confusion[gold]) throw new Error(`gold label "${gold}" is not one of ${labels.join(", ")}`);
    confusion[gold]![predicted] = (confusion[gold]![predicted] ?? 0) + 1;
  }
  const correct = labels.reduce((s, l) => s + confusion[l]![l]!, 0);
  const f1s = labels.map((l) => {
    const tp = confusion[l]![l]!;
    const fp = labels.reduce((s, g) => s + (g === l ? 0 : (confusion[g]![l] ?? 0)), 0);
    const fn = labels.reduce((s, p) => s + (p === l ? 0 : (confusion[l]![p] ?? 0)), 0);
    return tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn);
  });
  return { accuracy: pairs.length ? correct / pairs.length : 0, macro_f1: f1s.reduce((a, b) => a + b, 0) / labels.length, confusion, claims: pairs.length };
}

/**
 * The threshold on a score that classifies these items best (accuracy: positive when the score is
 * above it), and that accuracy. Among equally good cuts, the midpoint of the widest gap between
 * neighbouring scores, so it does not sit on an item. Choose it on items you do not report on.
 */
export function bestThreshold(items: Array<{ score: number; positive: boolean }>): { threshold: number; accuracy: number } {
  if (items.length === 0) throw new Error("no scored items to choose a threshold from");
  const s = [...items].sort((a, b) => a.score - b.score);
  // Cut i: items [0, i) negative, [i, n) positive.
  let correct = s.filter((x) => x.positive).length;
  let best = { correct, i: 0, gap: -1 };
  for (let i = 0; i <= s.length; i++) {
    if (i > 0) correct += s[i - 1]!.positive ? -1 : 1;
    if (i > 0 && i < s.length && s[i]!.score === s[i - 1]!.score) continue;
    const gap = i === 0 || i === s.length ? 0 : s[i]!.score - s[i - 1]!.score;
    if (correct > best.correct || (correct === best.correct && gap > best.gap)) best = { correct, i, gap };
  }
  const at = best.i === 0 ? s[0]!.score - 1 : best.i === s.length ? s[s.length - 1]!.score : (s[best.i - 1]!.score + s[best.i]!.score) / 2;
  return { threshold: at, accuracy: best.correct / s.length };
}

/**
 * The area under the ROC curve: the chance that a positive item scores above a negative one (a tie
 * counts half). It measures the ranking alone, whatever threshold is chosen. Undefined unless both
 * kinds are there.
 */
export function rocAuc(items: Array<{ score: number; positive: boolean }>): number | undefined {
  const pos = items.filter((x) => x.positive).map((x) => x.score);
  const neg = items.filter((x) => !x.positive).map((x) => x.score);
  if (pos.length === 0 || neg.length === 0) return undefined;
  let wins = 0;
  for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return wins / (pos.length * neg.length);
}
