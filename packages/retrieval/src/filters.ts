import { parsePassageId, type Passage } from "@citeflow/core";

/** Keep at most `max` passages per paper (docId), in the order given. */
export function perPaper(passages: Passage[], max: number): Passage[] {
  const seen = new Map<string, number>();
  return passages.filter((p) => {
    const doc = parsePassageId(p.id).docId;
    const n = seen.get(doc) ?? 0;
    seen.set(doc, n + 1);
    return n < max;
  });
}

/**
 * OpenScholar's citation boost: adds `weight × citations / max citations in the list` to the
 * `score`, stored as `boosted`, and re-sorts. Passages without a count get no boost.
 */
export function citationBoost(passages: Passage[], score: string, weight: number): Passage[] {
  const max = Math.max(0, ...passages.map((p) => p.metadata.citationCount ?? 0));
  return passages
    .map((p) => {
      const boost = max > 0 ? (weight * (p.metadata.citationCount ?? 0)) / max : 0;
      return { ...p, scores: { ...p.scores, citation_boost: boost, boosted: (p.scores[score] ?? 0) + boost } };
    })
    .sort((a, b) => b.scores.boosted! - a.scores.boosted!);
}

/** Keep passages whose year is within [from, to]; passages without a year are kept only if `keepUndated`. */
export function yearRange(passages: Passage[], from?: number, to?: number, keepUndated = false): Passage[] {
  return passages.filter((p) => {
    const y = p.metadata.year;
    if (y === undefined) return keepUndated;
    return (from === undefined || y >= from) && (to === undefined || y <= to);
  });
}
