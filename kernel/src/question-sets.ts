import { errorInfo, type CompiledGraph, type QuestionRun, type RunHandle, type SetProgressView } from "@citeflow/core";
import { QuestionSet, type RunRequest, type Session } from "@citeflow/host";
import { randomUUID } from "node:crypto";

/** What a set does with each of its runs as it starts: stream its events, keep its id while it runs. */
export type FollowRun = (run: RunHandle) => Promise<void>;

/**
 * The editor's question sets: the host's QuestionSet (the one question-set loop, as `citeflow run --questions` and
 * notebooks' `runQuestions` run them), each run recorded on its own; the set's progress (core's SetTally, worded as
 * the CLI words it) goes out when a run starts and when one ends.
 */
export class QuestionSets {
  readonly #live = new Map<string, QuestionSet<void>>();

  constructor(
    private readonly send: (progress: SetProgressView) => void,
    private readonly follow: FollowRun,
  ) {}

  start(session: Session, graph: CompiledGraph, runs: QuestionRun[], parallel: number, request: RunRequest): { setId: string; total: number; parallel: number } {
    const setId = randomUUID();
    const progress = (set: QuestionSet<void>, status: SetProgressView["status"], error?: string) => {
      const t = set.tally;
      this.send({ setId, total: t.total, done: t.done, inFlight: t.inFlight, failed: t.failed, text: t.text(), runIds: [...set.runIds], status, ...(error ? { error } : {}) });
    };
    const set = new QuestionSet(session, graph, runs, { parallel, request, follow: (run) => this.follow(run), progress: (s) => progress(s, "running") });
    this.#live.set(setId, set);
    void set.results
      .then(
        () => progress(set, set.aborted ? "aborted" : "ok"),
        (e: unknown) => progress(set, set.aborted ? "aborted" : "error", set.aborted ? undefined : errorInfo(e).message),
      )
      .finally(() => this.#live.delete(setId));
    return { setId, total: runs.length, parallel };
  }

  /** No run of the set starts after this; those in flight are aborted (each recorded as aborted, its finished nodes kept). */
  abort(setId: string): boolean {
    const set = this.#live.get(setId);
    if (!set) return false;
    set.abort(new Error("aborted"));
    return true;
  }

  /** Every set stops (the comm closed). */
  abortAll(): void {
    for (const id of [...this.#live.keys()]) this.abort(id);
  }
}
