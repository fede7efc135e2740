import { ftsTokens } from "./fts-tokens.js";

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

/** Term index → how often the term occurs, over the terms the embedded store's full-text index makes (fts-tokens.ts). */
function counts(text: string): Map<number, number> {
  const tf = new Map<number, number>();
  for (const t of ftsTokens(text)) {
    const i = termIndex(t);
    tf.set(i, (tf.get(i) ?? 0) + 1);
  }
  return tf;
}

export interface Bm25Params {
  k1?: number;
  b?: number;
  /** The corpus's average passage length in terms, for length normalisation. */
  avgLength: number;
}

/** How many terms a passage's index text has: its length, for BM25. */
export const termCount = (text: string): number => ftsTokens(text).length;

/**
 * A document's BM25 term weights without the IDF: tf·(k1+1) / (tf + k1·(1 − b + b·len/avgLength)).
 * The store multiplies in the IDF at query time (Qdrant's `modifier: "idf"`), so a query vector
 * of ones scores a document by BM25.
 */
export function bm25DocumentVector(text: string, p: Bm25Params): SparseVector {
  const k1 = p.k1 ?? 1.2;
  const b = p.b ?? 0.75;
  const avg = p.avgLength;
  const tf = counts(text);
  let length = 0;
  for (const n of tf.values()) length += n;
  const norm = k1 * (1 - b + (b * length) / avg);
  const indices = [...tf.keys()].sort((x, y) => x - y);
  return { indices, values: indices.map((i) => (tf.get(i)! * (k1 + 1)) / (tf.get(i)! + norm)) };
}

/** A query's terms, each weighted by how often the query says it (as the embedded store scores a repeated term). */
export function bm25QueryVector(text: string): SparseVector {
  const tf = counts(text);
  const indices = [...tf.keys()].sort((x, y) => x - y);
  return { indices, values: indices.map((i) => tf.get(i)!) };
}
