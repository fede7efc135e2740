import { splitSentences } from "@citeflow/core";

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

const STOP = new Set("a an and are as at be by for from has have in is it its of on or that the this to was were will with which what does do did not no can than then there these those their such into also been being may might".split(" "));
const tokens = (s: string) => (s.toLowerCase().match(/[a-z0-9]+(?:-[a-z0-9]+)*/g) ?? []).filter((t) => !STOP.has(t));

export function extractiveAnswer(question: string, passages: Array<{ text: string }>, o: ExtractiveOptions = {}): string {
  const base = o.base ?? 1;
  const sents = passages.flatMap((p, pi) => splitSentences(p.text).map((text, si) => ({ text, pi, si, toks: tokens(text) })));
  if (sents.length === 0) return "The given passages do not answer this question.";
  const df = new Map<string, number>();
  for (const s of sents) for (const t of new Set(s.toks)) df.set(t, (df.get(t) ?? 0) + 1);
  const avg = sents.reduce((a, s) => a + s.toks.length, 0) / sents.length || 1;
  const q = [...new Set(tokens(question))];
  const k1 = 1.2;
  const b = 0.75;
  const scored = sents.map((s) => {
    const tf = new Map<string, number>();
    for (const t of s.toks) tf.set(t, (tf.get(t) ?? 0) + 1);
    const score = q.reduce((acc, t) => {
      const f = tf.get(t) ?? 0;
      if (!f) return acc;
      const idf = Math.log(1 + (sents.length - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
      return acc + (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * s.toks.length) / avg));
    }, 0);
    return { ...s, score };
  });
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
