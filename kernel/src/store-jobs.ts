import { Worker } from "node:worker_threads";
import type { ErrorInfo } from "@citeflow/core";
import type { ExportOptions } from "@citeflow/datasets";
import type { ServicesConfig } from "@citeflow/nodes";
import type { EvidencePageRequest } from "@citeflow/retrieval";
import type { Correction } from "@citeflow/runstore";

/** The kernel's file work, done on its file thread (store-thread.ts). */
export type StoreJob =
  | { kind: "runs"; runs: string }
  | { kind: "record"; runs: string; runId: string }
  | { kind: "output"; runs: string; runId: string; nodeId: string; port?: string | undefined }
  | { kind: "correct"; runs: string; runId: string; correction: Correction }
  | { kind: "diff"; runs: string; a: string; b: string }
  | { kind: "export"; options: Omit<ExportOptions, "services"> & { config: ServicesConfig } }
  | { kind: "evidencePage"; request: EvidencePageRequest };

type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: ErrorInfo };

/**
 * One worker thread for the kernel's file work (the run store's, exports, PDF pages), started on first use. It never keeps
 * the kernel alive; if it dies, what it was doing fails with the reason and the next job starts
 * another.
 */
export class StoreThread {
  #worker: Worker | undefined;
  #next = 0;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  run<T>(job: StoreJob): Promise<T> {
    const worker = this.#start();
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ id, job });
    });
  }

  /** Stop the thread; jobs in progress fail. */
  async close(): Promise<void> {
    await this.#worker?.terminate();
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL("./store-thread.js", import.meta.url));
    worker.unref();
    worker.on("message", (r: Reply) => {
      const p = this.#pending.get(r.id);
      this.#pending.delete(r.id);
      if (!p) return;
      if (r.ok) p.resolve(r.result);
      else p.reject(Object.assign(new Error(r.error.message), { name: r.error.name }));
    });
    const fail = (e: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const p of this.#pending.values()) p.reject(e);
      this.#pending.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the kernel's file thread stopped (exit code ${code})`)));
    this.#worker = worker;
    return worker;
  }
}
