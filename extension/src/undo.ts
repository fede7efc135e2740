/** The editor's undo history: the documents before and after the one shown, at most `limit` back. */
export class UndoHistory<T> {
  #past: T[] = [];
  #future: T[] = [];

  constructor(private readonly limit = 100) {}

  get canUndo(): boolean {
    return this.#past.length > 0;
  }

  get canRedo(): boolean {
    return this.#future.length > 0;
  }

  /** `current` is about to be replaced by an edit: it becomes the last undo step, and redo is cleared. */
  record(current: T): void {
    this.#past.push(current);
    if (this.#past.length > this.limit) this.#past.shift();
    this.#future = [];
  }

  /** The document before `current` (which redo then returns to). */
  undo(current: T): T | undefined {
    const prev = this.#past.pop();
    if (prev !== undefined) this.#future.push(current);
    return prev;
  }

  /** The document after `current`, undone before. */
  redo(current: T): T | undefined {
    const next = this.#future.pop();
    if (next !== undefined) this.#past.push(current);
    return next;
  }
}
