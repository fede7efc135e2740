import { sentenceSpans } from "./sentences.js";

/** Lower-cased word tokens without common English stop words. */
const STOP = new Set(
  "a an and are as at be by for from has have in is it its of on or that the this to was were will with which what does do did not no can than then there these those their such into also been being may might".split(
    " ",
  ),
);

export function contentTokens(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+(?:-[a-z0-9]+)*/g) ?? []).filter((t) => !STOP.has(t));
}

/**
 * BM25 scores of `query` against each of `texts`, with statistics taken from `texts` themselves
 * (k1 = 1.2, b = 0.75). Used to pick the sentences most similar to a question or a claim.
 */
export function bm25Scores(query: string, texts: string[]): number[] {
  const docs = texts.map(contentTokens);
  const n = docs.length;
  if (n === 0) return [];
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const avg = docs.reduce((a, d) => a + d.length, 0) / n || 1;
  const q = [...new Set(contentTokens(query))];
  return docs.map((d) => {
    const tf = new Map<string, number>();
    for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
    return q.reduce((acc, t) => {
      const f = tf.get(t) ?? 0;
      if (!f) return acc;
      const idf = Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
      return acc + (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * d.length) / avg));
    }, 0);
  });
}

/**
 * The `n` sentences of `text` most similar to `query` (BM25 among the text's own sentences), in the
 * text's order: adjacent ones joined as they stand, a gap between two marked " … ". The whole text
 * when it has `n` sentences or fewer.
 */
export function closestSentences(text: string, query: string, n: number): string {
  const spans = sentenceSpans(text);
  if (spans.length <= n) return text;
  const sim = bm25Scores(
    query,
    spans.map((s) => text.slice(s.start, s.end)),
  );
  const kept = spans
    .map((_, i) => i)
    .sort((a, b) => sim[b]! - sim[a]! || a - b)
    .slice(0, n)
    .sort((a, b) => a - b);
  let out = "";
  kept.forEach((i, j) => {
    const prev = kept[j - 1];
    if (prev !== undefined) out += prev === i - 1 ? text.slice(spans[prev]!.end, spans[i]!.start) : " … ";
    out += text.slice(spans[i]!.start, spans[i]!.end);
  });
  return out;
}
