import { exportDataset, trainModel, type ExportResult, type Format, type TrainOptions, type TrainResult } from "@citeflow/datasets";
import { defaultRunsDir } from "./run.js";
import { services } from "./services.js";

/**
 * Training data from this kernel's run store (`citeflow export`): `labels` adds the gold NLI pairs
 * of a labelled corpus (SciFact-style claims and their corpus), `qrels` judges retrieved passages
 * for the reranker formats. Writes `<out>/train.jsonl`, `validation.jsonl` and the dataset card.
 */
export function exportRuns(format: Format, out: string, o: { runs?: string; split?: number; seed?: number; labels?: { claims: string; corpus: string }; qrels?: string } = {}): ExportResult {
  return exportDataset({
    runs: o.runs ?? defaultRunsDir(),
    services: services(),
    format,
    out,
    split: o.split ?? 1,
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.labels ? { labels: o.labels } : {}),
    ...(o.qrels ? { qrels: o.qrels } : {}),
  });
}

/**
 * `citeflow train` from a notebook: a cross-encoder (NLI or reranker) from an export folder, in
 * the training environment (made on first use). Progress goes to the cell's stderr.
 */
export function train(task: TrainOptions["task"], o: Omit<TrainOptions, "task" | "env">): Promise<TrainResult> {
  return trainModel({ ...o, task, env: process.env });
}
