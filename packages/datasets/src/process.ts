import { createHash } from "node:crypto";
import { normalise, type Row } from "./formats.js";

/** A digest to remember a text by: a set of them stays small however long the texts are. */
const digest = (text: string) => createHash("sha256").update(text).digest("base64");

/**
 * Drops exact duplicates (identical row data) and near duplicates (identical after normalising
 * case, punctuation and spacing of the row's text); keeps the first of each. It remembers a digest
 * of each row it kept, so rows can come a run at a time.
 */
export class Deduper {
  private readonly exactSeen = new Set<string>();
  private readonly nearSeen = new Set<string>();
  exact = 0;
  near = 0;

  /** Whether the row is new; counts it as a duplicate when it is not. */
  keep(r: Row): boolean {
    const e = digest(JSON.stringify(r.data));
    if (this.exactSeen.has(e)) {
      this.exact++;
      return false;
    }
    this.exactSeen.add(e);
    const n = digest(normalise(r.dedupText));
    if (this.nearSeen.has(n)) {
      this.near++;
      return false;
    }
    this.nearSeen.add(n);
    return true;
  }
}

/** Deduper over a whole list. */
export function dedupe(rows: Row[]): { rows: Row[]; exact: number; near: number } {
  const d = new Deduper();
  const out = rows.filter((r) => d.keep(r));
  return { rows: out, exact: d.exact, near: d.near };
}

/**
 * Deterministic train/validation split: a row goes to train when the hash of (seed, its key) falls
 * below `ratio`. Rows of one question share a key, so a question never sits on both sides.
 */
export function splitOf(r: Row, ratio: number, seed: number): "train" | "validation" {
  const h = createHash("sha256").update(`${seed}\0${r.key}`).digest().readUInt32BE(0) / 2 ** 32;
  return h < ratio ? "train" : "validation";
}

/** The split ratio checked: a fraction in (0, 1]. */
export function checkRatio(ratio: number): void {
  if (!(ratio > 0 && ratio <= 1)) throw new Error(`--split ${ratio}: give a fraction in (0, 1]`);
}

/** splitOf over a whole list. */
export function split(rows: Row[], ratio: number, seed: number): { train: Row[]; validation: Row[] } {
  checkRatio(ratio);
  const out = { train: [] as Row[], validation: [] as Row[] };
  for (const r of rows) out[splitOf(r, ratio, seed)].push(r);
  return out;
}
