import { inspect } from "node:util";
import { abortActiveRuns } from "@citeflow/host";
import { richBundle, setDisplaySink, SHOWN_IN, type MimeBundle } from "citeflow";
import type * as zmq from "zeromq";
import type { Channels } from "./channels.js";
import { CommManager, type Comm } from "./comm.js";
import { History } from "./history.js";
import { Runtime } from "./runtime.js";
import { captureStdio } from "./stdio.js";
import { header, PROTOCOL_VERSION, type Message } from "./wire.js";

export const KERNEL_VERSION = "0.1.0";

type Content = Record<string, unknown>;

/** JS strings count UTF-16 units; Jupyter cursor positions count code points. */
function toUnits(code: string, points: number): number {
  let units = 0;
  for (const ch of code) {
    if (points-- <= 0) break;
    units += ch.length;
  }
  return units;
}
function toPoints(code: string, units: number): number {
  return [...code.slice(0, units)].length;
}

/** A value's execute_result bundle: Citeflow's rich view when it has one, always with text/plain. */
export function resultBundle(value: unknown): MimeBundle {
  const rich = richBundle(value);
  const plain = typeof value === "string" ? inspect(value) : inspect(value, { depth: 4, colors: false });
  return { "text/plain": plain, ...rich };
}

/**
 * The Jupyter protocol over the channels: shell requests one at a time in arrival order, control
 * requests at once (interrupt and shutdown get through while a cell runs).
 */
export class Kernel {
  readonly comms = new CommManager();
  readonly history = new History();
  #count = 0;
  #queue: Message[] = [];
  #busy = false;
  /** The request outputs belong to: the running execute_request (or the last one). */
  #parent: Message | undefined;
  /** Display ids shown during the running execute_request. */
  #displaysInCell = new Set<string>();
  #shutdown: ((restart: boolean) => void) | undefined;
  readonly stopped: Promise<boolean>;

  constructor(
    readonly channels: Channels,
    readonly runtime: Runtime,
    readonly session: string,
    private readonly log: (message: string) => void,
  ) {
    this.stopped = new Promise((resolve) => (this.#shutdown = resolve));
    captureStdio((name, text) => this.#parent && this.#iopub("stream", { name, text }, this.#parent));
    setDisplaySink({
      show: (bundle, opts) => {
        if (!this.#parent) return;
        if (opts?.id) this.#displaysInCell.add(opts.id);
        const transient = opts?.id ? { display_id: opts.id } : {};
        this.#iopub(opts?.update ? "update_display_data" : "display_data", { data: bundle, metadata: {}, transient }, this.#parent);
      },
      clear: (wait) => this.#parent && this.#iopub("clear_output", { wait }, this.#parent),
    });
  }

  async start(): Promise<void> {
    this.#iopub("status", { execution_state: "starting" });
    const bad = (where: string) => (e: Error) => this.log(`dropped a message on ${where}: ${e.message}`);
    void (async () => {
      for await (const m of this.channels.receive(this.channels.shell, bad("shell"))) {
        if (this.#busy && this.#urgent(m)) void this.#steer(m);
        else {
          this.#queue.push(m);
          void this.#drain();
        }
      }
    })();
    void (async () => {
      for await (const m of this.channels.receive(this.channels.control, bad("control"))) await this.#control(m);
    })();
  }

  /** SIGINT or interrupt_request: stop the cell and every Citeflow run it started. */
  interrupt(): void {
    const n = abortActiveRuns("interrupted");
    if (n) this.log(`interrupt: aborted ${n} run(s)`);
    this.runtime.interrupt();
  }

  #iopub(msgType: string, content: Content, parent?: Message): void {
    void this.channels.send(this.channels.iopub, {
      identities: [Buffer.from(msgType)],
      header: header(msgType, this.session),
      parent_header: parent?.header ?? {},
      metadata: {},
      content,
    });
  }

  #reply(socket: zmq.Writable, req: Message, msgType: string, content: Content, metadata: Content = {}): Promise<void> {
    return this.channels.send(socket, { identities: req.identities, header: header(msgType, this.session), parent_header: req.header, metadata, content });
  }

  /** A comm message that steers a run (Stop, pause, step) while a cell keeps the shell busy. */
  #urgent(m: Message): boolean {
    const c = m.content as Content;
    return m.header.msg_type === "comm_msg" && this.comms.urgent(String(c.comm_id), c.data);
  }

  /**
   * Handles it now, outside the shell's queue: the running cell keeps its outputs (the parent stays
   * the cell's) and the kernel its busy status (no idle is sent for a message answered mid-cell).
   */
  async #steer(m: Message): Promise<void> {
    const c = m.content as Content;
    try {
      await this.comms.message(String(c.comm_id), c.data);
    } catch (e) {
      this.log(`comm_msg ${String(c.comm_id)}: ${(e as Error).message}`);
    }
  }

  async #drain() {
    if (this.#busy) return;
    this.#busy = true;
    try {
      for (let m = this.#queue.shift(); m; m = this.#queue.shift()) await this.#withStatus(m, () => this.#shell(m!));
    } finally {
      this.#busy = false;
    }
  }

  async #withStatus(m: Message, f: () => Promise<void>) {
    this.#iopub("status", { execution_state: "busy" }, m);
    try {
      await f();
    } catch (e) {
      this.log(`${m.header.msg_type} failed: ${(e as Error).stack ?? e}`);
    } finally {
      this.#iopub("status", { execution_state: "idle" }, m);
    }
  }

  #kernelInfo(): Content {
    return {
      status: "ok",
      protocol_version: PROTOCOL_VERSION,
      implementation: "citeflow",
      implementation_version: KERNEL_VERSION,
      language_info: {
        name: "typescript",
        version: "5.0",
        mimetype: "text/typescript",
        file_extension: ".ts",
        codemirror_mode: { name: "javascript", typescript: true },
        pygments_lexer: "typescript",
      },
      banner: `Citeflow kernel ${KERNEL_VERSION} — TypeScript on Node ${process.version} (tslab executor)`,
      debugger: false,
      help_links: [{ text: "Citeflow kernel", url: "https://github.com/citeflow/citeflow/tree/main/kernel" }],
    };
  }

  async #shell(m: Message): Promise<void> {
    const sock = this.channels.shell;
    const c = m.content;
    switch (m.header.msg_type) {
      case "kernel_info_request":
        return this.#reply(sock, m, "kernel_info_reply", this.#kernelInfo());
      case "execute_request":
        return this.#execute(m);
      case "complete_request": {
        const code = String(c.code ?? "");
        const cursor = toUnits(code, Number(c.cursor_pos ?? code.length));
        const r = this.runtime.complete(code, cursor);
        return this.#reply(sock, m, "complete_reply", { status: "ok", matches: r.matches, cursor_start: toPoints(code, r.start), cursor_end: toPoints(code, r.end), metadata: {} });
      }
      case "inspect_request": {
        const code = String(c.code ?? "");
        const text = this.runtime.inspect(code, toUnits(code, Number(c.cursor_pos ?? code.length)));
        return this.#reply(sock, m, "inspect_reply", { status: "ok", found: text !== undefined, data: text !== undefined ? { "text/plain": text } : {}, metadata: {} });
      }
      case "is_complete_request":
        return this.#reply(sock, m, "is_complete_reply", this.runtime.isComplete(String(c.code ?? "")));
      case "history_request":
        return this.#reply(sock, m, "history_reply", { status: "ok", history: this.history.query(c) });
      case "comm_info_request":
        return this.#reply(sock, m, "comm_info_reply", { status: "ok", comms: this.comms.info(typeof c.target_name === "string" ? c.target_name : undefined) });
      case "comm_open":
        return this.#commOpen(m);
      case "comm_msg":
        this.#parent = m;
        if (!(await this.comms.message(String(c.comm_id), c.data))) this.log(`comm_msg for unknown comm ${String(c.comm_id)}`);
        return;
      case "comm_close":
        return this.comms.close(String(c.comm_id), c.data);
      case "shutdown_request":
        return this.#shutdownRequest(sock, m);
      case "interrupt_request":
        this.interrupt();
        return this.#reply(sock, m, "interrupt_reply", { status: "ok" });
      default:
        this.log(`unsupported shell message ${m.header.msg_type}`);
    }
  }

  async #control(m: Message): Promise<void> {
    const sock = this.channels.control;
    switch (m.header.msg_type) {
      case "interrupt_request":
        this.interrupt();
        return this.#reply(sock, m, "interrupt_reply", { status: "ok" });
      case "shutdown_request":
        return this.#shutdownRequest(sock, m);
      case "kernel_info_request":
        return this.#withStatus(m, () => this.#reply(sock, m, "kernel_info_reply", this.#kernelInfo()));
      default:
        return this.#withStatus(m, () =>
          this.#reply(sock, m, m.header.msg_type.replace(/_request$/, "_reply"), { status: "error", ename: "NotImplemented", evalue: `${m.header.msg_type} is not supported`, traceback: [] }),
        );
    }
  }

  async #shutdownRequest(sock: zmq.Writable, m: Message) {
    const restart = m.content.restart === true;
    this.interrupt();
    await this.#reply(sock, m, "shutdown_reply", { status: "ok", restart });
    this.#iopub("status", { execution_state: "idle" }, m);
    this.#shutdown?.(restart);
  }

  #commOpen(m: Message) {
    const c = m.content;
    const id = String(c.comm_id);
    const target = String(c.target_name);
    const comm: Comm = {
      id,
      target,
      send: (data) => this.#iopub("comm_msg", { comm_id: id, data }, this.#parent ?? m),
      close: (data) => {
        this.comms.forget(id);
        this.#iopub("comm_close", { comm_id: id, data: data ?? {} }, this.#parent ?? m);
      },
    };
    this.#parent = m;
    if (!this.comms.open(comm, c.data)) {
      this.log(`comm_open for unknown target "${target}": closing it`);
      this.#iopub("comm_close", { comm_id: id, data: {} }, m);
    }
  }

  async #execute(m: Message) {
    const c = m.content;
    const code = String(c.code ?? "");
    const silent = c.silent === true;
    const storeHistory = !silent && c.store_history !== false;
    if (storeHistory) this.#count++;
    const count = this.#count;
    this.#parent = m;
    this.#displaysInCell.clear();
    if (!silent) this.#iopub("execute_input", { code, execution_count: count }, m);
    const entry = storeHistory ? this.history.add(count, code) : undefined;
    const help = /^([^\n?]+?)\?$/.exec(code.trim());
    if (help) return this.#help(m, help[1]!.trim(), count);
    const outcome = code.trim() === "" ? ({ status: "ok", hasValue: false } as const) : await this.runtime.execute(code);
    if (outcome.status === "ok") {
      if (outcome.hasValue && outcome.value !== undefined) {
        const data = resultBundle(outcome.value);
        if (entry) entry.output = String(data["text/plain"]);
        // `await run(…)` as the last line: the run's live display in this cell already shows it.
        const shownAbove = this.#displaysInCell.has((outcome.value as { [SHOWN_IN]?: string } | null)?.[SHOWN_IN] ?? "");
        if (!silent && !shownAbove) this.#iopub("execute_result", { execution_count: count, data, metadata: {} }, m);
      }
      return this.#reply(this.channels.shell, m, "execute_reply", { status: "ok", execution_count: count, user_expressions: {}, payload: [] });
    }
    const { ename, evalue, traceback } = outcome;
    // stop_on_error aborts what was queued when the cell failed, never what arrives after the reply.
    const aborted = c.stop_on_error !== false ? await this.#takeQueuedExecutes() : [];
    if (!silent) this.#iopub("error", { ename, evalue, traceback }, m);
    await this.#reply(this.channels.shell, m, "execute_reply", { status: "error", execution_count: count, ename, evalue, traceback }, { status: "error" });
    for (const q of aborted) {
      this.#iopub("status", { execution_state: "busy" }, q);
      await this.#reply(this.channels.shell, q, "execute_reply", { status: "aborted", execution_count: this.#count }, { status: "aborted" });
      this.#iopub("status", { execution_state: "idle" }, q);
    }
  }

  /**
   * Removes the queued execute requests (other requests stay queued). A synchronous cell blocks the
   * receive loop, so first the shell socket delivers what is already waiting (ipykernel flushes too).
   */
  async #takeQueuedExecutes(): Promise<Message[]> {
    for (let tick = 0; tick < 100 && (tick < 2 || this.channels.shell.readable); tick++) await new Promise((r) => setImmediate(r));
    const all = this.#queue.splice(0);
    this.#queue.push(...all.filter((q) => q.header.msg_type !== "execute_request"));
    return all.filter((q) => q.header.msg_type === "execute_request");
  }

  /** `expr?` (as in IPython): the type and docs of `expr`, as a pager payload. */
  #help(m: Message, expr: string, count: number) {
    const text = this.runtime.inspect(expr, expr.length) ?? `no type information for "${expr}"`;
    return this.#reply(this.channels.shell, m, "execute_reply", { status: "ok", execution_count: count, user_expressions: {}, payload: [{ source: "page", data: { "text/plain": text }, start: 0 }] });
  }
}
