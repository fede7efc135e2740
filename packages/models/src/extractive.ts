import { bm25Scores, splitSentences } from "@citeflow/core";

/**
 * The extractive generator: an honest offline baseline, not a language model. It scores every
 * sentence of the given passages against the question (BM25 over the sentences), keeps the best
 * ones (at most `perPassage` from each passage), and writes them out with the citation markers an
 * LLM would use ([1] for the first passage). Deterministic.
 */
export const EXTRACTIVE_ID = "extractive-baseline";

export interface ExtractiveOptions {
  /** Sentences in the answer (default 3). */
  sentences?: number;
  /** Sentences taken from one passage at most (default 1). */
  perPassage?: number;
  /** Marker numbering: 1 → [1] is the first passage (default), 0 → [0]. */
  base?: 0 | 1;
}

export function extractiveAnswer(question: string, passages: Array<{ text: string }>, o: ExtractiveOptions = {}): string {
  const base = o.base ?? 1;
  const sents = passages.flatMap((p, pi) => splitSentences(p.text).map((text, si) => ({ text, pi, si })));
  if (sents.length === 0) return "The given passages do not answer this question.";
  const scores = bm25Scores(
    question,
    sents.map((x) => x.text),
  );
  const scored = sents.map((x, i) => ({ ...x, score: scores[i]! }));
  const ranked = scored.filter((s) => s.score > 0).sort((x, y) => y.score - x.score || x.pi - y.pi || x.si - y.si);
  const perPassage = new Map<number, number>();
  const picked: typeof ranked = [];
  for (const s of ranked) {
    if (picked.length >= (o.sentences ?? 3)) break;
    const n = perPassage.get(s.pi) ?? 0;
    if (n >= (o.perPassage ?? 1)) continue;
    perPassage.set(s.pi, n + 1);
    picked.push(s);
  }
  if (picked.length === 0) return "The given passages do not answer this question.";
  return picked
    .map((s) => {
      const marker = ` [${s.pi + base}]`;
      const m = /([.!?]+["')\]]*)\s*$/.exec(s.text);
      return m ? s.text.slice(0, m.index) + marker + m[1] : s.text + marker + ".";
    })
    .join(" ");
}
