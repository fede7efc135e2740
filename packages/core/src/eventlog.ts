/** An append-only buffer that any number of async iterators read from the start. */
export class EventLog<T> implements AsyncIterable<T> {
  readonly items: T[] = [];
  #closed = false;
  #waiters: Array<() => void> = [];

  push(item: T): void {
    if (this.#closed) throw new Error("event log is closed");
    this.items.push(item);
    this.#wake();
  }

  close(): void {
    this.#closed = true;
    this.#wake();
  }

  #wake() {
    const w = this.#waiters;
    this.#waiters = [];
    for (const f of w) f();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let i = 0;
    for (;;) {
      while (i < this.items.length) yield this.items[i++]!;
      if (this.#closed) return;
      await new Promise<void>((r) => this.#waiters.push(r));
    }
  }
}
