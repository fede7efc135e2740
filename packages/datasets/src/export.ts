import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Services } from "@citeflow/core";
import { readQrels } from "@citeflow/eval";
import { Redactor, RunStore, secretsFromEnv, writeFileAtomic, type CorrectionProblem } from "@citeflow/runstore";
import { datasetCard } from "./card.js";
import { toParquet } from "./parquet.js";
import { collectExamples } from "./examples.js";
import { readGoldLabels } from "./gold.js";
import { FORMATS, rowsFor, type Format, type Row } from "./formats.js";
import { dedupe, split } from "./process.js";

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
  removed: { exact: number; near: number };
  /** Answers the rubric thresholds dropped. */
  rubricDropped?: number;
}

function line(r: Row, metadata: boolean, redactor: Redactor): string {
  const obj = metadata ? { ...r.data, metadata: r.provenance } : r.data;
  return redactor.redact(JSON.stringify(obj));
}

/** Export one format from a run store: `<out>/train.jsonl`, `validation.jsonl`, and `README.md` (the card). */
export function exportDataset(o: ExportOptions): ExportResult {
  if (!FORMATS.includes(o.format)) throw new Error(`unknown format "${o.format}" (formats: ${FORMATS.join(", ")})`);
  const ratio = o.split ?? 0.9;
  const seed = o.seed ?? 0;
  const metadata = o.metadata ?? true;
  const store = new RunStore(o.runs);
  const ex = collectExamples(store, o.services, o.runIds, o.qrels ? readQrels(o.qrels) : undefined, o.labels ? readGoldLabels(o.labels.claims, o.labels.corpus) : undefined);
  const passes = (a: (typeof ex.answers)[number]) => !o.rubric || (!!a.rubric && a.rubric.organisation >= o.rubric.organisation && a.rubric.factuality >= o.rubric.factuality);
  const answers = ex.answers.filter(passes);
  const rubricDropped = ex.answers.length - answers.length;
  // Loop traces of runs whose answer the rubric dropped go too.
  const droppedRuns = new Set(ex.answers.filter((a) => !passes(a)).map((a) => a.provenance.runId));
  const loop = ex.loop.filter((l) => !droppedRuns.has(l.provenance.runId));
  const { rows, exact, near } = dedupe(rowsFor(o.format, answers, ex.nli, loop, ex.relevance, ex.calls));
  const parts = split(rows, ratio, seed);
  const splits: Record<string, Row[]> = ratio < 1 ? { train: parts.train, validation: parts.validation } : { train: parts.train };
  mkdirSync(o.out, { recursive: true });
  // One redactor for every row and the card (the run store's rules: secrets by value and by shape).
  const redactor = new Redactor(secretsFromEnv());
  const files: Record<string, number> = {};
  for (const [name, list] of Object.entries(splits)) {
    const lines = list.map((r) => line(r, metadata, redactor));
    writeFileAtomic(join(o.out, `${name}.jsonl`), lines.map((l) => l + "\n").join(""), o.out);
    files[`${name}.jsonl`] = list.length;
    if (o.parquet) {
      // The same (scrubbed) rows; an empty split has no columns to write.
      if (lines.length) writeFileAtomic(join(o.out, `${name}.parquet`), toParquet(lines.map((l) => JSON.parse(l) as Record<string, unknown>)));
      files[`${name}.parquet`] = lines.length;
    }
  }
  const command =
    o.command ??
    `citeflow export --runs ${o.runs} --format ${o.format} --out ${o.out} --split ${ratio} --seed ${seed}${o.qrels ? ` --qrels ${o.qrels}` : ""}${o.labels ? ` --labels ${o.labels.claims} --corpus ${o.labels.corpus}` : ""}${o.rubric ? ` --min-organisation ${o.rubric.organisation} --min-factuality ${o.rubric.factuality}` : ""}${metadata ? "" : " --no-metadata"}${o.parquet ? " --parquet" : ""}`;
  writeFileAtomic(
    join(o.out, "README.md"),
    redactor.redact(
      datasetCard({
        format: o.format,
        splits,
        loopsFromCache: ex.loopsFromCache,
        ...(o.rubric ? { rubric: { ...o.rubric, dropped: rubricDropped, kept: answers.length } } : {}),
        runs: ex.runs,
        skippedRuns: ex.skipped,
        correctionProblems: ex.correctionProblems,
        removed: { exact, near },
        split: ratio,
        seed,
        metadata,
        command,
      }),
    ),
    o.out,
  );
  return { files, runs: ex.runs, skippedRuns: ex.skipped, correctionProblems: ex.correctionProblems, removed: { exact, near }, ...(o.rubric ? { rubricDropped } : {}) };
}
