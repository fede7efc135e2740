/**
 * The editor's side of the kernel's `citeflow` comm (schema v1, kernel/README.md): one request
 * → one reply by id; run events streamed as they happen.
 */
import type { Kernel, KernelMessage } from "@jupyterlab/services";
import type { ISessionContext } from "@jupyterlab/apputils";
import { Signal, type ISignal } from "@lumino/signaling";
import type { Method, MethodParams, MethodResult, StreamedRunEvent } from "@citeflow/core/browser";

export const COMM_TARGET = "citeflow";

export class CommError extends Error {
  override name = "CommError";
}

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void; method: string };

export class CiteflowClient {
  readonly #session: ISessionContext;
  #comm: Kernel.IComm | undefined;
  #opening: Promise<Kernel.IComm> | undefined;
  #next = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #events = new Signal<this, { runId: string; event: StreamedRunEvent }>(this);

  constructor(session: ISessionContext) {
    this.#session = session;
    session.kernelChanged.connect(() => this.#reset("the kernel changed"));
  }

  get events(): ISignal<this, { runId: string; event: StreamedRunEvent }> {
    return this.#events;
  }

  /** Sends `{id, method, ...params}` and resolves with the reply's result (rejects on `ok: false`). */
  /** One request of the protocol (`CiteflowProtocol` in core): its parameters in, its result out. */
  async request<M extends Method>(method: M, ...[params]: MethodParams<M> extends Record<string, never> ? [] : [MethodParams<M>]): Promise<MethodResult<M>> {
    const comm = await this.#open();
    const id = this.#next++;
    return new Promise<MethodResult<M>>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject, method });
      comm.send({ id, method, ...params } as never);
    });
  }

  dispose(): void {
    this.#reset("the editor closed");
    Signal.clearData(this);
  }

  #reset(why: string): void {
    for (const p of this.#pending.values()) p.reject(new CommError(`"${p.method}" got no reply: ${why}`));
    this.#pending.clear();
    if (this.#comm && !this.#comm.isDisposed) {
      try {
        this.#comm.close();
      } catch {
        // the kernel is already gone
      }
    }
    this.#comm = undefined;
    this.#opening = undefined;
  }

  async #open(): Promise<Kernel.IComm> {
    if (this.#comm && !this.#comm.isDisposed) return this.#comm;
    this.#opening ??= (async () => {
      await this.#session.ready;
      const kernel = this.#session.session?.kernel;
      if (!kernel) throw new CommError("no kernel: pick the Citeflow kernel for this pipeline (Kernel › Change Kernel)");
      const comm = kernel.createComm(COMM_TARGET);
      comm.onMsg = (msg: KernelMessage.ICommMsgMsg) => this.#onMessage(msg.content.data as Record<string, unknown>);
      comm.onClose = () => this.#reset("the kernel closed the connection");
      await comm.open({}).done;
      this.#comm = comm;
      return comm;
    })();
    try {
      return await this.#opening;
    } catch (e) {
      this.#opening = undefined;
      throw e;
    }
  }

  #onMessage(data: Record<string, unknown>): void {
    if (data.type === "event") {
      this.#events.emit({ runId: String(data.runId), event: data.event as StreamedRunEvent });
      return;
    }
    if (data.type !== "reply") return;
    const p = this.#pending.get(data.id as number);
    if (!p) return;
    this.#pending.delete(data.id as number);
    if (data.ok) p.resolve(data.result);
    else {
      const err = data.error as { name?: string; message?: string } | undefined;
      p.reject(new CommError(`${p.method}: ${err?.message ?? "failed"}`));
    }
  }
}
