/**
 * Work on a list with at most `limit` items in flight, handing results back in the list's order:
 * a question set sent to a served model keeps it busy, and what the user reads (lines, rows,
 * outputs) comes out exactly as a one-at-a-time run would give it.
 */
export async function mapInOrder<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
  /** Called once per item, in the items' order, as soon as it and every item before it are done. */
  emit?: (result: R, index: number) => void,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`at most ${limit} at once: give a whole number of 1 or more`);
  const results: R[] = new Array(items.length);
  const done: boolean[] = new Array(items.length).fill(false);
  let next = 0;
  let emitted = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const i = next++;
      try {
        results[i] = await work(items[i]!, i);
      } catch (error) {
        // The first failure stops new work; what is in flight finishes.
        failure ??= { error };
        return;
      }
      done[i] = true;
      for (; emitted < items.length && done[emitted]; emitted++) emit?.(results[emitted]!, emitted);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}

/** A question set's progress, counted and worded once for every front end (the CLI's line, a notebook's display). */
export class SetTally {
  done = 0;
  failed = 0;
  inFlight = 0;
  /** Tokens the language models generated for the finished questions. */
  generated = 0;
  readonly #start: number;
  constructor(
    readonly total: number,
    now = Date.now(),
  ) {
    this.#start = now;
  }

  started(): void {
    this.inFlight++;
  }

  /** A question ended, ok or not, after its model calls generated `tokens` (generatedTokens reads them from its events). */
  finished(ok: boolean, tokens = 0): void {
    this.inFlight--;
    this.done++;
    this.generated += tokens;
    if (!ok) this.failed++;
  }

  /** The set in words: done of total, in flight, failed, questions a minute, generated tokens a second and the time left. */
  text(now = Date.now()): string {
    const minutes = (now - this.#start) / 60_000;
    const pace = minutes > 0 ? this.done / minutes : 0;
    const tokens = minutes > 0 && this.generated > 0 ? ` · ${(this.generated / (minutes * 60)).toFixed(1)} tokens/s` : "";
    const left = pace > 0 ? ((this.total - this.done) / pace) * 60_000 : undefined;
    const rest = left !== undefined && this.done < this.total ? ` · ${left < 90_000 ? `${Math.round(left / 1000)} s` : `${Math.round(left / 60_000)} min`} left` : "";
    return `questions ${this.done}/${this.total} · ${this.inFlight} in flight · ${this.failed} failed · ${pace.toFixed(1)} a minute${tokens}${rest}`;
  }
}
