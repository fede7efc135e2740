// arXivBot's sufficiency check measured against gold retrieval (bench/llm.mjs): "sufficient" should mean a paper
// SciFact gives as the claim's evidence is among the three passages it read.

/** What a check scored in a run: Gemma's log P(enough) − log P(not), or the reranker's best score. */
export function checkScore(events) {
  const d = events.find((e) => e.type === "span-end" && e.nodeId === "enough" && e.data && ("choiceLogprobs" in e.data || "scores" in e.data))?.data;
  return d?.choiceLogprobs ? d.choiceLogprobs[0] - d.choiceLogprobs[1] : d?.scores ? Math.max(-Infinity, ...d.scores) : undefined;
}

export const SUFFICIENCY_COLUMNS = ["check", "agreement", "said sufficient", "gold paper read", "its score ranks read above missed", "best cut here (dev only)"];

/**
 * One check's row from its claims ({ sufficient, goldRead, score }): agreement with gold retrieval, and how
 * well its scores rank, whatever the cut: the chance that a claim whose gold paper was read scores above one
 * whose was not (0.5: no better than chance). `dev`: also the cut that agrees best on these claims ("enough"
 * from it up), printed on the dev split, where it is chosen.
 */
export function sufficiencyRow(label, seen, dev) {
  const n = seen.length;
  const count = (f) => seen.filter(f).length;
  const scored = seen.every((x) => x.score !== undefined);
  const read = seen.filter((x) => x.goldRead);
  const missed = seen.filter((x) => !x.goldRead);
  const ranks =
    scored && read.length && missed.length
      ? read.reduce((a, x) => a + missed.reduce((b, y) => b + (x.score > y.score ? 1 : x.score === y.score ? 0.5 : 0), 0), 0) / (read.length * missed.length)
      : undefined;
  const agreeAt = (t) => count((x) => x.score >= t === x.goldRead);
  const chosen = scored && dev ? [-Infinity, ...seen.map((x) => x.score), Infinity].reduce((b, t) => (agreeAt(t) > agreeAt(b) ? t : b)) : undefined;
  return [
    label,
    (count((x) => x.sufficient === x.goldRead) / n).toFixed(3),
    `${count((x) => x.sufficient)}/${n}`,
    `${read.length}/${n}`,
    ranks !== undefined ? ranks.toFixed(3) : "–",
    chosen !== undefined ? `${chosen.toFixed(3)} (agreement ${(agreeAt(chosen) / n).toFixed(3)})` : "–",
  ];
}
