/**
 * The editor's side of the kernel's `citeflow` comm (kernel/README.md): one request → one reply
 * by id; run events and question sets' progress streamed as they happen.
 */
import type { Kernel, KernelMessage } from "@jupyterlab/services";
import type { ISessionContext } from "@jupyterlab/apputils";
import { Signal, type ISignal } from "@lumino/signaling";
import { COMM_TARGET, COMM_VERSION, type Method, type MethodParams, type MethodResult, type SetProgressView, type StreamedRunEvent } from "@citeflow/core/browser";

/** A request that failed: over the comm (name "CommError"), or in the kernel, under the name the kernel's error had. */
export class CommError extends Error {
  override name = "CommError";
  constructor(message: string, name?: string) {
    super(message);
    if (name) this.name = name;
  }
}

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void; method: string };

export class CiteflowClient {
  readonly #session: ISessionContext;
  #comm: Kernel.IComm | undefined;
  #opening: Promise<Kernel.IComm> | undefined;
  #next = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #events = new Signal<this, { runId: string; event: StreamedRunEvent }>(this);
  readonly #sets = new Signal<this, SetProgressView>(this);

  constructor(session: ISessionContext) {
    this.#session = session;
    session.kernelChanged.connect(() => this.#reset("the kernel changed"));
  }

  get events(): ISignal<this, { runId: string; event: StreamedRunEvent }> {
    return this.#events;
  }

  /** Question sets' progress, as runs of them start and end. */
  get sets(): ISignal<this, SetProgressView> {
    return this.#sets;
  }

  /** One request of the protocol (`CiteflowProtocol` in core): `{id, method, ...params}` out, the reply's result in (rejects on `ok: false`). */
  async request<M extends Method>(method: M, ...[params]: MethodParams<M> extends Record<string, never> ? [] : [MethodParams<M>]): Promise<MethodResult<M>> {
    return this.#send(await this.#open(), method, params);
  }

  #send<M extends Method>(comm: Kernel.IComm, method: M, params: MethodParams<M> | undefined): Promise<MethodResult<M>> {
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
      // The first message: a kernel that speaks another version of the protocol is refused before any request.
      const { version } = await this.#send(comm, "hello", undefined);
      if (version !== COMM_VERSION) {
        comm.close();
        throw new CommError(
          `the kernel speaks version ${version} of the citeflow protocol, this editor version ${COMM_VERSION}: install the same Citeflow version for both (npm run build, then restart JupyterLab and the kernel)`,
        );
      }
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
    if (data.type === "set") {
      this.#sets.emit(data.progress as SetProgressView);
      return;
    }
    if (data.type !== "reply") return;
    const p = this.#pending.get(data.id as number);
    if (!p) return;
    this.#pending.delete(data.id as number);
    if (data.ok) p.resolve(data.result);
    else {
      const err = data.error as { name?: string; message?: string } | undefined;
      p.reject(new CommError(`${p.method}: ${err?.message ?? "failed"}`, err?.name));
    }
  }
}
