import { RunStore } from "@citeflow/runstore";
import { UsageError } from "../errors.js";
import { cliServices } from "../services.js";

export interface ExportCommandOptions {
  runs: string;
  format: string;
  out: string;
  split: string;
  seed: string;
  qrels?: string;
  labels?: string;
  corpus?: string;
  parquet: boolean;
  metadata: boolean;
  json: boolean;
  /** Only these runs (ids), else every run in the store. */
  run?: string[];
  /** Only runs of graphs with this name. */
  graphName?: string;
}

/** citeflow export: training data from a run store's runs, with a dataset card; what was left out goes to stderr. */
export async function exportCommand(opts: ExportCommandOptions): Promise<number> {
  const { exportDataset, FORMATS } = await import("@citeflow/datasets");
  const format = FORMATS.find((f) => f === opts.format);
  if (!format) throw new UsageError(`--format ${opts.format}: use one of ${FORMATS.join(", ")}`);
  const ratio = Number(opts.split);
  const seed = Number(opts.seed);
  if (!(ratio > 0 && ratio <= 1)) throw new UsageError(`--split ${opts.split}: give a fraction in (0, 1]`);
  if (!Number.isInteger(seed)) throw new UsageError(`--seed ${opts.seed}: give an integer`);
  if (!opts.labels !== !opts.corpus) throw new UsageError("--labels and --corpus go together: the labelled claims and the corpus their rationales point into");
  const runIds = selectRuns(opts);
  const r = exportDataset({
    runs: opts.runs,
    services: cliServices(),
    format,
    out: opts.out,
    split: ratio,
    seed,
    metadata: opts.metadata,
    parquet: opts.parquet,
    ...(runIds ? { runIds } : {}),
    ...(opts.qrels ? { qrels: opts.qrels } : {}),
    ...(opts.labels && opts.corpus ? { labels: { claims: opts.labels, corpus: opts.corpus } } : {}),
  });
  // What was left out is said on stderr whatever the output format: a skipped run or correction is never silent.
  for (const s of r.skippedRuns) process.stderr.write(`left out run ${s}\n`);
  for (const p of r.correctionProblems) process.stderr.write(`${p.file}:${p.line}: left out: ${p.message}\n`);
  for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
  if (opts.json) process.stdout.write(JSON.stringify(r) + "\n");
  else {
    for (const [f, n] of Object.entries(r.files)) process.stdout.write(`${f}: ${n} rows\n`);
    process.stdout.write(
      `from ${r.runs} runs; removed ${r.removed.exact} exact and ${r.removed.near} near duplicates${r.removed.trivial ? ` and ${r.removed.trivial} pairs whose premise is the hypothesis` : ""}` +
        (r.skippedRuns.length || r.correctionProblems.length ? `; left out ${r.skippedRuns.length} runs and ${r.correctionProblems.length} corrections lines (listed on stderr)` : "") +
        `\ncard: ${opts.out}/README.md\n`,
    );
  }
  return 0;
}

/** The runs `--run` and `--graph-name` select (oldest first, as export reads them), or undefined for every run; an unknown id or a filter that selects nothing is refused. */
function selectRuns(opts: ExportCommandOptions): string[] | undefined {
  if (!opts.run?.length && opts.graphName === undefined) return undefined;
  const listed = new RunStore(opts.runs).listRuns().reverse();
  const known = new Set(listed.map((r) => r.runId));
  const missing = (opts.run ?? []).filter((id) => !known.has(id));
  if (missing.length) throw new UsageError(`--run ${missing.join(", ")}: no such run in ${opts.runs} (see citeflow runs list)`);
  const ids = listed.filter((r) => (!opts.run?.length || opts.run.includes(r.runId)) && (opts.graphName === undefined || r.graph === opts.graphName)).map((r) => r.runId);
  if (!ids.length)
    throw new UsageError(`no run in ${opts.runs} matches${opts.run?.length ? ` --run ${opts.run.join(" ")}` : ""}${opts.graphName !== undefined ? ` --graph-name ${opts.graphName}` : ""}`);
  return ids;
}
