import { contentTokens } from "@citeflow/core";

/** A sparse vector as Qdrant takes it: unique indices, one value each. */
export interface SparseVector {
  indices: number[];
  values: number[];
}

/** FNV-1a, 32 bits: a term's index in the sparse vocabulary (no vocabulary file to keep in sync). */
export function termIndex(term: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) {
    h ^= term.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function counts(text: string): Map<number, number> {
  const tf = new Map<number, number>();
  for (const t of contentTokens(text)) {
    const i = termIndex(t);
    tf.set(i, (tf.get(i) ?? 0) + 1);
  }
  return tf;
}

export interface Bm25Params {
  k1?: number;
  b?: number;
  /** Average document length in tokens, for length normalisation. */
  avgLength?: number;
}

/**
 * A document's BM25 term weights without the IDF: tf·(k1+1) / (tf + k1·(1 − b + b·len/avgLength)).
 * The store multiplies in the IDF at query time (Qdrant's `modifier: "idf"`), so a query vector
 * of ones scores a document by BM25.
 */
export function bm25DocumentVector(text: string, p: Bm25Params = {}): SparseVector {
  const k1 = p.k1 ?? 1.2;
  const b = p.b ?? 0.75;
  const avg = p.avgLength ?? 256;
  const tf = counts(text);
  let length = 0;
  for (const n of tf.values()) length += n;
  const norm = k1 * (1 - b + (b * length) / avg);
  const indices = [...tf.keys()].sort((x, y) => x - y);
  return { indices, values: indices.map((i) => (tf.get(i)! * (k1 + 1)) / (tf.get(i)! + norm)) };
}

/** A query's terms, each weighted 1 (repeats count once, as in BM25). */
export function bm25QueryVector(text: string): SparseVector {
  const indices = [...counts(text).keys()].sort((x, y) => x - y);
  return { indices, values: indices.map(() => 1) };
}
