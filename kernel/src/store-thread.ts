/**
 * The worker thread the kernel's file work runs on (store-jobs.ts): listing runs, reading a run and
 * its outputs, diffs, corrections and exports read and write files synchronously, and a PDF page is
 * parsed and rendered, while the kernel's event loop must keep answering the editor and notebook cells.
 */
import { parentPort } from "node:worker_threads";
import { errorInfo } from "@citeflow/core";
import { exportDataset } from "@citeflow/datasets";
import { createServices } from "@citeflow/nodes";
import { renderEvidencePage } from "@citeflow/retrieval";
import { RunStore } from "@citeflow/runstore";
import type { StoreJob } from "./store-jobs.js";

/** One store per folder, opened on first use (opening one sweeps its folders for stale temporary files). */
const stores = new Map<string, RunStore>();
function storeAt(dir: string): RunStore {
  let s = stores.get(dir);
  if (!s) stores.set(dir, (s = new RunStore(dir)));
  return s;
}

async function work(job: StoreJob): Promise<unknown> {
  if (job.kind === "evidencePage") {
    const r = await renderEvidencePage(job.request);
    return { page: r.page, png: Buffer.from(r.png).toString("base64"), width: r.width, height: r.height, boxes: r.boxes };
  }
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

parentPort!.on("message", async ({ id, job }: { id: number; job: StoreJob }) => {
  try {
    parentPort!.postMessage({ id, ok: true, result: await work(job) });
  } catch (e) {
    parentPort!.postMessage({ id, ok: false, error: errorInfo(e) });
  }
});
