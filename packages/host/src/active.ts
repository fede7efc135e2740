import type { RunHandle } from "@citeflow/core";

/** The runs in progress in this process, whichever front end started them, by run id. */
const active = new Map<string, RunHandle>();

/** Keep a run among the runs in progress until it ends. */
export function track(handle: RunHandle): void {
  active.set(handle.runId, handle);
  const done = () => active.delete(handle.runId);
  handle.result.then(done, done);
}

/** A run in progress, by id. */
export function activeRun(runId: string): RunHandle | undefined {
  return active.get(runId);
}

/** Abort every run in progress (the kernel does on an interrupt). Returns how many. */
export function abortActiveRuns(reason = "interrupted"): number {
  const n = active.size;
  for (const h of active.values()) h.abort(new Error(reason));
  return n;
}
