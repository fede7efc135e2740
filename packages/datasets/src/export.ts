import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Services } from "@citeflow/core";
import { readQrels } from "@citeflow/eval";
import { AtomicFile, Redactor, removeStaleTemps, RunStore, secretsFromEnv, writeFileAtomic, type CorrectionProblem } from "@citeflow/runstore";
import { datasetCard, RowTally, splitWarnings } from "./card.js";
import { toParquet } from "./parquet.js";
import { forEachRunExamples, type AnswerExample } from "./examples.js";
import { readGoldLabels } from "./gold.js";
import { FORMATS, isTrivialPair, rowsFor, type Format, type Row } from "./formats.js";
import { checkRatio, Deduper, splitOf } from "./process.js";

export interface ExportOptions {
  runs: string;
  /** Where `file:` prompts are read from, to show each example the messages its generator was sent. */
  services: Pick<Services, "prompt">;
  format: Format;
  out: string;
  /** Fraction for train (default 0.9); 1 writes train only. */
  split?: number;
  seed?: number;
  /** Keep the `metadata` back-links (default true). */
  metadata?: boolean;
  /** Only these runs (default: every run in the store). */
  runIds?: string[];
  /** Keep only answers whose judge.rubric scores reach these (answers without scores are dropped). */
  rubric?: { organisation: number; factuality: number };
  /** BEIR qrels (query-id, corpus-id, score) for rerank formats: judged by question id. */
  qrels?: string;
  /** A labelled corpus: SciFact-style claims (rationales, labels) and their corpus; runs whose question id is a claim id get its gold NLI pairs, gold answers and the claim's truth for verify.llm (sft). */
  labels?: { claims: string; corpus: string };
  /** Also write `<split>.parquet` next to each JSONL file. */
  parquet?: boolean;
  /** Shown in the card's "Reproduce" section. */
  command?: string;
}

export interface ExportResult {
  files: Record<string, number>;
  runs: number;
  /** Runs left out, each with why: unfinished, or unreadable (a missing, changed or garbled blob). */
  skippedRuns: string[];
  /** Lines of corrections files that are not corrections, left out (file, line, why). */
  correctionProblems: CorrectionProblem[];
  /** exact and near duplicates; trivial: NLI rows whose premise is the hypothesis (a quote checked against itself teaches nothing). */
  removed: { exact: number; near: number; trivial: number };
  /** Answers the rubric thresholds dropped. */
  rubricDropped?: number;
  /** What is wrong with the export as made (an empty split), also in its card. */
  warnings: string[];
}

function line(r: Row, metadata: boolean, redactor: Redactor): string {
  const obj = metadata ? { ...r.data, metadata: r.provenance } : r.data;
  return redactor.redact(JSON.stringify(obj));
}

/**
 * Export one format from a run store: `<out>/train.jsonl`, `validation.jsonl`, and `README.md` (the
 * card). Runs are read one at a time and their rows written as they come, so memory does not grow
 * with the store (`--parquet` reads each split back whole to write its columns). Each file appears
 * whole when the export finishes, or not at all.
 */
export function exportDataset(o: ExportOptions): ExportResult {
  if (!FORMATS.includes(o.format)) throw new Error(`unknown format "${o.format}" (formats: ${FORMATS.join(", ")})`);
  const ratio = o.split ?? 0.9;
  checkRatio(ratio);
  const seed = o.seed ?? 0;
  const metadata = o.metadata ?? true;
  const store = new RunStore(o.runs);
  const qrels = o.qrels ? readQrels(o.qrels) : undefined;
  const gold = o.labels ? readGoldLabels(o.labels.claims, o.labels.corpus) : undefined;
  const passes = (a: AnswerExample) => !o.rubric || (!!a.rubric && a.rubric.organisation >= o.rubric.organisation && a.rubric.factuality >= o.rubric.factuality);
  const names = ratio < 1 ? ["train", "validation"] : ["train"];
  mkdirSync(o.out, { recursive: true });
  removeStaleTemps(o.out); // what an export killed part-way left
  // One redactor for every row and the card (the run store's rules: secrets by value and by shape).
  const redactor = new Redactor(secretsFromEnv());
  const tally = new RowTally(names);
  const deduper = new Deduper();
  let kept = 0;
  let rubricDropped = 0;
  let trivial = 0;
  const out = new Map<string, AtomicFile>();
  let ex: ReturnType<typeof forEachRunExamples>;
  try {
    for (const n of names) out.set(n, new AtomicFile(join(o.out, `${n}.jsonl`), o.out));
    ex = forEachRunExamples(
      store,
      o.services,
      (run) => {
        const answers = run.answers.filter(passes);
        kept += answers.length;
        rubricDropped += run.answers.length - answers.length;
        // Loop traces of a run whose answer the rubric dropped go too.
        const loop = answers.length < run.answers.length ? [] : run.loop;
        for (const r of rowsFor(o.format, answers, run.nli, loop, run.relevance, run.calls)) {
          if (isTrivialPair(r)) {
            trivial++;
            continue;
          }
          if (!deduper.keep(r)) continue;
          const name = splitOf(r, ratio, seed); // always "train" at ratio 1
          out.get(name)!.write(line(r, metadata, redactor) + "\n");
          tally.add(name, r);
        }
      },
      o.runIds,
      qrels,
      gold,
    );
    for (const f of out.values()) f.commit();
  } catch (e) {
    for (const f of out.values()) f.abort();
    throw e;
  }
  const files: Record<string, number> = {};
  for (const name of names) {
    const rows = tally.splits.get(name)!.rows;
    files[`${name}.jsonl`] = rows;
    if (o.parquet) {
      // The same (scrubbed) rows, read back; an empty split has no columns to write.
      const lines = readFileSync(join(o.out, `${name}.jsonl`), "utf8")
        .split("\n")
        .filter(Boolean);
      if (lines.length) writeFileAtomic(join(o.out, `${name}.parquet`), toParquet(lines.map((l) => JSON.parse(l) as Record<string, unknown>)));
      files[`${name}.parquet`] = rows;
    }
  }
  const removed = { exact: deduper.exact, near: deduper.near, trivial };
  const command =
    o.command ??
    `citeflow export --runs ${o.runs} --format ${o.format} --out ${o.out} --split ${ratio} --seed ${seed}${o.qrels ? ` --qrels ${o.qrels}` : ""}${o.labels ? ` --labels ${o.labels.claims} --corpus ${o.labels.corpus}` : ""}${o.rubric ? ` --min-organisation ${o.rubric.organisation} --min-factuality ${o.rubric.factuality}` : ""}${metadata ? "" : " --no-metadata"}${o.parquet ? " --parquet" : ""}`;
  writeFileAtomic(
    join(o.out, "README.md"),
    redactor.redact(
      datasetCard({
        format: o.format,
        rows: tally,
        loopsFromCache: ex.loopsFromCache,
        ...(o.rubric ? { rubric: { ...o.rubric, dropped: rubricDropped, kept } } : {}),
        runs: ex.runs,
        skippedRuns: ex.skipped,
        correctionProblems: ex.correctionProblems,
        removed,
        split: ratio,
        seed,
        metadata,
        command,
      }),
    ),
    o.out,
  );
  return { files, runs: ex.runs, skippedRuns: ex.skipped, correctionProblems: ex.correctionProblems, removed, warnings: splitWarnings(tally, ratio, seed), ...(o.rubric ? { rubricDropped } : {}) };
}
