// The physical limit the in-process model's generation is measured against: every generated token
// reads the weights once, so tokens/s ≤ memory bandwidth / model bytes. Bandwidth: the best of five
// 512 MiB copies (each byte counted once, though a copy reads and writes it), measured in the run.
export function copyBandwidth() {
  const a = Buffer.alloc(512 * 1024 * 1024, 1);
  const b = Buffer.alloc(a.length);
  let best = 0;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    a.copy(b);
    best = Math.max(best, a.length / ((performance.now() - t) / 1000));
  }
  return best;
}
