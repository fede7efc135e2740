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
