import { pairedBootstrap, pairOutcomes, scoreNliBySource, scoreNliPairs, type NliPairScores, type ScoredPair } from "@citeflow/eval";
import { describeModel } from "@citeflow/models";
import { FailureError } from "../errors.js";
import type { CiteflowServices } from "@citeflow/nodes";
import { cliServices } from "../services.js";
import { table } from "../table.js";

export interface EvalNliOptions {
  pairs: string;
  model?: string;
  modelsDir?: string;
  /** Two NLI models on the same pairs: each one's figures, B − A and its bootstrap interval. */
  compare?: string[];
  limit?: number;
  json?: boolean;
}

/** The labelled pairs of a file (export --format nli or datasets import rows), each a problem named by file and line when it cannot be read. */
async function readPairs(file: string, limit?: number) {
  const { CLAIM_SETS } = await import("@citeflow/datasets");
  let r;
  try {
    r = await CLAIM_SETS.pairs!.read(file);
  } catch (e) {
    throw new FailureError((e as Error).message);
  }
  if (r.pairs.length === 0)
    throw new FailureError(
      `${file}: no labelled pair in it${
        r.problems.length
          ? ` (${r.problems
              .slice(0, 3)
              .map((p) => `${p.where}: ${p.problem}`)
              .join("; ")})`
          : ""
      }`,
    );
  for (const p of r.problems.slice(0, 10)) process.stderr.write(`refused: ${p.where}: ${p.problem}\n`);
  if (r.problems.length > 10) process.stderr.write(`… and ${r.problems.length - 10} more refused rows\n`);
  return limit !== undefined ? r.pairs.slice(0, limit) : r.pairs;
}

/** Every pair through one NLI model, as the product loads it (transformers.js, the same file and dtype). */
async function scorePairs(
  services: CiteflowServices,
  pairs: Awaited<ReturnType<typeof readPairs>>,
  model: string,
  modelsDir?: string,
): Promise<{ rows: ScoredPair[]; pairsPerSecond: number; id: string }> {
  const id = services.modelId("nli", model);
  let nli;
  try {
    nli = await services.nli({ id, modelsDir: modelsDir ?? "", dtype: "fp32" });
  } catch (e) {
    throw new FailureError(`NLI model ${id}: ${(e as Error).message}`);
  }
  const t0 = performance.now();
  const probs = await nli.classify(pairs.map((p) => ({ premise: p.premise, hypothesis: p.hypothesis })));
  const seconds = (performance.now() - t0) / 1000;
  return { rows: pairs.map((p, i) => ({ gold: p.label, probabilities: probs[i]!, ...(p.source ? { source: p.source } : {}) })), pairsPerSecond: pairs.length / seconds, id };
}

const f = (x: number | undefined) => (x === undefined ? "–" : x.toFixed(3));

function scoreLines(name: string, s: NliPairScores, bySource: Record<string, NliPairScores>): string {
  const labels = Object.keys(s.confusion);
  return (
    `${name} on ${s.pairs} pairs: accuracy ${f(s.accuracy)} · macro-F1 ${f(s.macro_f1)} · SUPPORT vs CONTRADICT ${f(s.support_vs_contradict)} (${s.support_vs_contradict_rows} rows)\n` +
    table(
      ["gold \\ predicted", ...labels],
      labels.map((g) => [g, ...labels.map((p) => String(s.confusion[g]![p]))]),
    ) +
    (Object.keys(bySource).length > 1 || !bySource["-"]
      ? table(
          ["source", "pairs", "accuracy", "macro-F1", "SUPPORT vs CONTRADICT"],
          Object.entries(bySource).map(([src, x]) => [src, String(x.pairs), f(x.accuracy), f(x.macro_f1), f(x.support_vs_contradict)]),
        )
      : "")
  );
}

/**
 * citeflow eval nli: an NLI model on labelled pairs, pair by pair: 3-way accuracy, macro-F1, SUPPORT vs
 * CONTRADICT, the confusion matrix and each source's figures; with --compare, B − A with 95 % paired
 * bootstrap intervals.
 */
export async function evalNliCommand(o: EvalNliOptions): Promise<number> {
  const pairs = await readPairs(o.pairs, o.limit);
  const services = cliServices({ modelsDir: o.modelsDir });
  const dirs = services.config.modelsDirs;
  if (o.compare) {
    // One after the other: each model's pairs/s is measured with the cores to itself.
    const a = await scorePairs(services, pairs, o.compare[0]!, o.modelsDir);
    const b = await scorePairs(services, pairs, o.compare[1]!, o.modelsDir);
    const [oa, ob] = [pairOutcomes(a!.rows), pairOutcomes(b!.rows)];
    const acc = pairedBootstrap(
      oa.map((x) => x.correct),
      ob.map((x) => x.correct),
    );
    const scIdx = oa.flatMap((x, i) => (x.sc === undefined ? [] : [i]));
    const sc = scIdx.length
      ? pairedBootstrap(
          scIdx.map((i) => oa[i]!.sc!),
          scIdx.map((i) => ob[i]!.sc!),
        )
      : undefined;
    const side = (x: typeof a) => ({ name: x!.id, scores: scoreNliPairs(x!.rows), by_source: scoreNliBySource(x!.rows), pairs_per_second: x!.pairsPerSecond });
    if (o.json)
      process.stdout.write(
        JSON.stringify({
          a: side(a),
          b: side(b),
          accuracy: { difference: acc.difference, interval95: [acc.low, acc.high] },
          ...(sc ? { support_vs_contradict: { difference: sc.difference, interval95: [sc.low, sc.high], rows: sc.items } } : {}),
          resamples: acc.resamples,
        }) + "\n",
      );
    else {
      const d = (x: typeof acc) => `${x.difference >= 0 ? "+" : ""}${x.difference.toFixed(3)} (95 % paired bootstrap interval ${x.low.toFixed(3)} to ${x.high.toFixed(3)})`;
      process.stdout.write(
        `A ${describeModel(a!.id, dirs)}\n` +
          scoreLines("A", side(a).scores, side(a).by_source) +
          `B ${describeModel(b!.id, dirs)}\n` +
          scoreLines("B", side(b).scores, side(b).by_source) +
          `B − A: accuracy ${d(acc)}${sc ? `; SUPPORT vs CONTRADICT ${d(sc)}` : ""}; ${acc.resamples} resamples\n`,
      );
    }
    return 0;
  }
  const r = await scorePairs(services, pairs, o.model ?? "", o.modelsDir);
  const scores = scoreNliPairs(r.rows);
  const bySource = scoreNliBySource(r.rows);
  if (o.json) process.stdout.write(JSON.stringify({ model: r.id, ...scores, by_source: bySource, pairs_per_second: r.pairsPerSecond }) + "\n");
  else process.stdout.write(`${describeModel(r.id, dirs)}\n` + scoreLines(r.id, scores, bySource) + `${r.pairsPerSecond.toFixed(1)} pairs/s\n`);
  return 0;
}
