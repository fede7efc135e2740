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
