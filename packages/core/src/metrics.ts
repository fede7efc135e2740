/**
 * A run's numbers, one rule for every front end (the CLI's run summary, `citeflow diff`, notebooks):
 * each numeric field of a node's `metrics` output (eval.citations: `<node>.f1`, …) and the
 * hallucinated markers of each node's `answer` output (`<node>.hallucinatedCitations`), in node
 * order. By port name, not type: judge.pairwise's `preferred` and `rejected` are answers too, but
 * not the run's.
 */
export function runMetrics(nodes: Iterable<{ id: string; output: (port: string) => unknown }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const n of nodes) {
    const m = n.output("metrics");
    if (typeof m === "object" && m !== null) for (const [k, v] of Object.entries(m)) if (typeof v === "number") out[`${n.id}.${k}`] = v;
    const invalid = (n.output("answer") as { invalidCitations?: unknown } | null | undefined)?.invalidCitations;
    if (Array.isArray(invalid)) out[`${n.id}.hallucinatedCitations`] = invalid.length;
  }
  return out;
}
