/** A comm as the kernel side sees it: send to the front end, close. */
export interface Comm {
  readonly id: string;
  readonly target: string;
  send(data: unknown): void;
  close(data?: unknown): void;
}

/** What a comm target does with the messages of one comm. */
export interface CommHandler {
  onMessage(data: unknown): void | Promise<void>;
  onClose?(data: unknown): void;
  /**
   * A message that may be handled while a cell runs, out of the shell's order: one that only steers
   * work already under way (the editor's Stop), so that it does not wait behind a busy cell.
   */
  urgent?(data: unknown): boolean;
}

export type CommTarget = (comm: Comm, openData: unknown) => CommHandler;

/** Comms by id, and the targets that may be opened (comm_open / comm_msg / comm_close / comm_info). */
export class CommManager {
  readonly #targets = new Map<string, CommTarget>();
  readonly #open = new Map<string, { comm: Comm; handler: CommHandler }>();

  register(target: string, factory: CommTarget): void {
    this.#targets.set(target, factory);
  }

  /** Returns false when no such target is registered (the caller closes the comm). */
  open(comm: Comm, data: unknown): boolean {
    const factory = this.#targets.get(comm.target);
    if (!factory) return false;
    this.#open.set(comm.id, { comm, handler: factory(comm, data) });
    return true;
  }

  async message(id: string, data: unknown): Promise<boolean> {
    const c = this.#open.get(id);
    if (!c) return false;
    await c.handler.onMessage(data);
    return true;
  }

  /** Whether a comm's message may be handled while a cell runs (its handler says). */
  urgent(id: string, data: unknown): boolean {
    return this.#open.get(id)?.handler.urgent?.(data) ?? false;
  }

  close(id: string, data: unknown): void {
    const c = this.#open.get(id);
    this.#open.delete(id);
    c?.handler.onClose?.(data);
  }

  forget(id: string): void {
    this.#open.delete(id);
  }

  info(target?: string): Record<string, { target_name: string }> {
    const out: Record<string, { target_name: string }> = {};
    for (const [id, { comm }] of this.#open) if (target === undefined || comm.target === target) out[id] = { target_name: comm.target };
    return out;
  }
}
