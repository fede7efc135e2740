/** A paired comparison of two systems scored on the same items: B − A, and its 95 % bootstrap interval. */
export interface PairedDifference {
  a: number;
  b: number;
  difference: number;
  low: number;
  high: number;
  items: number;
  resamples: number;
}

/** mulberry32: a small seeded generator, so the same scores give the same interval. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/**
 * Per-item scores of A and B (the same items, in the same order) → the mean of each, B − A, and
 * the percentile bootstrap interval of B − A over items resampled with replacement.
 */
export function pairedBootstrap(a: number[], b: number[], o: { resamples?: number; seed?: number; level?: number } = {}): PairedDifference {
  if (a.length !== b.length || a.length === 0) throw new Error(`paired bootstrap: ${a.length} and ${b.length} scores; give the same non-empty items for both`);
  const resamples = o.resamples ?? 2000;
  const level = o.level ?? 0.95;
  const rnd = random(o.seed ?? 0);
  const n = a.length;
  const diffs: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) {
      const j = Math.floor(rnd() * n);
      s += b[j]! - a[j]!;
    }
    diffs.push(s / n);
  }
  diffs.sort((x, y) => x - y);
  const at = (q: number) => diffs[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))]!;
  return { a: mean(a), b: mean(b), difference: mean(b) - mean(a), low: at((1 - level) / 2), high: at(1 - (1 - level) / 2), items: n, resamples };
}
