import { generatedTokens, mapInOrder, SetTally, type CompiledGraph, type QuestionRun, type RunHandle } from "@citeflow/core";
import type { RunRequest, Session } from "./session.js";

export interface QuestionSetOptions<R> {
  /** Questions at once. */
  parallel: number;
  /** What every run asks beyond its inputs (partial runs, overrides, …), as `Session.start` takes it. */
  request?: RunRequest & { reuse?: boolean };
  /** Each run as it starts: follow its events, show it. What it resolves with is that question's result. */
  follow: (run: RunHandle, index: number) => Promise<R>;
  /** Each question's result, in the questions' order, as soon as it and every one before it are done. */
  inOrder?: (result: R, index: number) => void;
  /** After a run starts and after one ends: the set so far (its tally, its runs' ids). */
  progress?: (set: QuestionSet<R>) => void;
}

/**
 * A question set: the graph once per question, `parallel` runs at once, each started by the session (so recorded,
 * cached and among the runs in progress) and counted in one tally (core's SetTally: done, in flight, failed,
 * tokens). The one question-set loop of every front end: `citeflow run --questions`, notebooks' `runQuestions`,
 * the editor's sets. A run that ends in error counts as failed and the set goes on; one that cannot start, or an
 * abort, stops the set (`results` rejects) after the runs in flight end.
 */
export class QuestionSet<R> {
  readonly tally: SetTally;
  /** Each question's run id, once its run has started. */
  readonly runIds: Array<string | null>;
  /** Each question's result (what `follow` gave), in the questions' order. */
  readonly results: Promise<R[]>;
  #aborted = false;
  readonly #inFlight = new Set<RunHandle>();

  constructor(session: Session, graph: CompiledGraph, runs: QuestionRun[], o: QuestionSetOptions<R>) {
    this.tally = new SetTally(runs.length);
    this.runIds = runs.map(() => null);
    const one = async ({ inputs }: QuestionRun, i: number): Promise<R> => {
      if (this.#aborted) throw new Error("aborted");
      const run = session.start(graph, inputs, o.request);
      this.runIds[i] = run.runId;
      this.#inFlight.add(run);
      this.tally.started();
      o.progress?.(this);
      try {
        const result = await o.follow(run, i);
        const ended = await run.result.catch(() => undefined);
        this.tally.finished(ended?.status === "ok", generatedTokens(run.events.items));
        return result;
      } finally {
        this.#inFlight.delete(run);
        o.progress?.(this);
      }
    };
    this.results = mapInOrder(runs, o.parallel, one, o.inOrder);
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  /** No run of the set starts after this; those in flight are aborted (each recorded as aborted, its finished nodes kept). */
  abort(reason: Error = new Error("aborted")): void {
    this.#aborted = true;
    for (const run of this.#inFlight) run.abort(reason);
  }
}
