/**
 * The worker thread the kernel's run-store file work runs on (store-jobs.ts): listing runs, reading
 * a run and its outputs, diffs, corrections and exports read and write files synchronously, and the
 * kernel's event loop must keep answering the editor and notebook cells meanwhile.
 */
import { parentPort } from "node:worker_threads";
import { errorInfo } from "@citeflow/core";
import { exportDataset } from "@citeflow/datasets";
import { createServices } from "@citeflow/nodes";
import { RunStore } from "@citeflow/runstore";
import type { StoreJob } from "./store-jobs.js";

/** One store per folder, opened on first use (opening one sweeps its folders for stale temporary files). */
const stores = new Map<string, RunStore>();
function storeAt(dir: string): RunStore {
  let s = stores.get(dir);
  if (!s) stores.set(dir, (s = new RunStore(dir)));
  return s;
}

function work(job: StoreJob): unknown {
  if (job.kind === "export") {
    const { config, ...options } = job.options;
    return exportDataset({ ...options, services: createServices(config) });
  }
  const store = storeAt(job.runs);
  switch (job.kind) {
    case "runs":
      return store.listRuns();
    case "record":
      return { ...store.readRunInline(job.runId), corrections: store.corrections(job.runId) };
    case "output":
      return store.nodeOutput(job.runId, job.nodeId, job.port);
    case "correct":
      return store.correct(job.runId, job.correction);
    case "diff":
      return store.diff(job.a, job.b);
  }
}

parentPort!.on("message", ({ id, job }: { id: number; job: StoreJob }) => {
  try {
    parentPort!.postMessage({ id, ok: true, result: work(job) });
  } catch (e) {
    parentPort!.postMessage({ id, ok: false, error: errorInfo(e) });
  }
});
