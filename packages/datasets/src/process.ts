import { createHash } from "node:crypto";
import type { Row } from "./formats.js";

/** Text compared for near-duplicates: lower case, letters and digits only, single spaces. */
export function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * Drops exact duplicates (identical row data) and near duplicates (identical after normalising
 * case, punctuation and spacing of the row's text); keeps the first of each.
 */
export function dedupe(rows: Row[]): { rows: Row[]; exact: number; near: number } {
  const seenExact = new Set<string>();
  const seenNear = new Set<string>();
  const out: Row[] = [];
  let exact = 0;
  let near = 0;
  for (const r of rows) {
    const e = JSON.stringify(r.data);
    if (seenExact.has(e)) {
      exact++;
      continue;
    }
    seenExact.add(e);
    const n = normalise(r.dedupText);
    if (seenNear.has(n)) {
      near++;
      continue;
    }
    seenNear.add(n);
    out.push(r);
  }
  return { rows: out, exact, near };
}

/**
 * Deterministic train/validation split: a row goes to train when the hash of (seed, its key) falls
 * below `ratio`. Rows of one question share a key, so a question never sits on both sides.
 */
export function split(rows: Row[], ratio: number, seed: number): { train: Row[]; validation: Row[] } {
  if (!(ratio > 0 && ratio <= 1)) throw new Error(`--split ${ratio}: give a fraction in (0, 1]`);
  const train: Row[] = [];
  const validation: Row[] = [];
  for (const r of rows) {
    const h = createHash("sha256").update(`${seed}\0${r.key}`).digest().readUInt32BE(0) / 2 ** 32;
    (h < ratio ? train : validation).push(r);
  }
  return { train, validation };
}
