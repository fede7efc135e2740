import { errorInfo, generatedTokens, mapInOrder, SetTally, type CompiledGraph, type QuestionRun, type RunHandle, type SetProgressView } from "@citeflow/core";
import type { RunRequest, Session } from "@citeflow/host";
import { randomUUID } from "node:crypto";

/** What a set does with each of its runs as it starts: stream its events, keep its id while it runs. */
export type FollowRun = (run: RunHandle) => Promise<void>;

interface LiveSet {
  aborted: boolean;
  inFlight: Set<RunHandle>;
}

/**
 * The editor's question sets: the graph once per question, `parallel` runs at once (core's
 * mapInOrder, as `citeflow run --questions` and notebooks' `runQuestions` run them), each run
 * recorded on its own; the set's progress (core's SetTally, worded as the CLI words it) goes out
 * when a run starts and when one ends.
 */
export class QuestionSets {
  readonly #live = new Map<string, LiveSet>();

  constructor(
    private readonly send: (progress: SetProgressView) => void,
    private readonly follow: FollowRun,
  ) {}

  start(session: Session, graph: CompiledGraph, runs: QuestionRun[], parallel: number, request: RunRequest): { setId: string; total: number; parallel: number } {
    const setId = randomUUID();
    const set: LiveSet = { aborted: false, inFlight: new Set() };
    this.#live.set(setId, set);
    const tally = new SetTally(runs.length);
    const runIds: Array<string | null> = runs.map(() => null);
    const progress = (status: SetProgressView["status"], error?: string) =>
      this.send({ setId, total: tally.total, done: tally.done, inFlight: tally.inFlight, failed: tally.failed, text: tally.text(), runIds: [...runIds], status, ...(error ? { error } : {}) });
    const one = async ({ inputs }: QuestionRun, i: number) => {
      if (set.aborted) throw new Error("aborted");
      const run = session.start(graph, inputs, request);
      runIds[i] = run.runId;
      set.inFlight.add(run);
      tally.started();
      progress("running");
      try {
        await this.follow(run);
        const result = await run.result.catch(() => undefined);
        tally.finished(result?.status === "ok", generatedTokens(run.events.items));
      } finally {
        set.inFlight.delete(run);
      }
      progress("running");
    };
    void mapInOrder(runs, parallel, one)
      .then(
        () => progress(set.aborted ? "aborted" : "ok"),
        (e: unknown) => progress(set.aborted ? "aborted" : "error", set.aborted ? undefined : errorInfo(e).message),
      )
      .finally(() => this.#live.delete(setId));
    return { setId, total: runs.length, parallel };
  }

  /** No run of the set starts after this; those in flight are aborted (each recorded as aborted, its finished nodes kept). */
  abort(setId: string): boolean {
    const set = this.#live.get(setId);
    if (!set) return false;
    set.aborted = true;
    for (const run of set.inFlight) run.abort(new Error("aborted"));
    return true;
  }

  /** Every set stops (the comm closed). */
  abortAll(): void {
    for (const id of [...this.#live.keys()]) this.abort(id);
  }
}
