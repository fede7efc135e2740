import * as zmq from "zeromq";
import { decode, encode, Signer, type Message } from "./wire.js";

/** The connection file Jupyter hands a kernel. */
export interface ConnectionInfo {
  transport: string;
  ip: string;
  key: string;
  signature_scheme: string;
  shell_port: number;
  control_port: number;
  stdin_port: number;
  iopub_port: number;
  hb_port: number;
}

type Outgoing = Omit<Message, "buffers"> & { buffers?: Buffer[] };

/** One socket's sends, in order (a zeromq socket takes one send at a time). */
class SendQueue {
  #chain: Promise<void> = Promise.resolve();
  constructor(private readonly socket: zmq.Writable) {}
  send(frames: Buffer[]): Promise<void> {
    this.#chain = this.#chain.then(
      () => this.socket.send(frames),
      () => this.socket.send(frames),
    );
    return this.#chain;
  }
}

/**
 * The five Jupyter channels on ZeroMQ: shell and control (ROUTER), stdin (ROUTER), iopub (PUB)
 * and heartbeat (REP, echoed).
 */
export class Channels {
  readonly signer: Signer;
  readonly shell = new zmq.Router();
  readonly control = new zmq.Router();
  readonly stdin = new zmq.Router();
  readonly iopub = new zmq.Publisher();
  readonly hb = new zmq.Reply();
  readonly #queues = new Map<zmq.Writable, SendQueue>();
  #closed = false;

  constructor(readonly info: ConnectionInfo) {
    this.signer = new Signer(info.key, info.signature_scheme);
    for (const s of [this.shell, this.control, this.stdin, this.iopub]) s.linger = 0;
    this.hb.linger = 0;
  }

  async bind(): Promise<void> {
    const at = (port: number) => `${this.info.transport}://${this.info.ip}${this.info.transport === "ipc" ? "-" : ":"}${port}`;
    await Promise.all([
      this.shell.bind(at(this.info.shell_port)),
      this.control.bind(at(this.info.control_port)),
      this.stdin.bind(at(this.info.stdin_port)),
      this.iopub.bind(at(this.info.iopub_port)),
      this.hb.bind(at(this.info.hb_port)),
    ]);
    void this.#heartbeat();
  }

  send(socket: zmq.Writable, msg: Outgoing): Promise<void> {
    if (this.#closed) return Promise.resolve();
    let q = this.#queues.get(socket);
    if (!q) this.#queues.set(socket, (q = new SendQueue(socket)));
    return q.send(encode(msg, this.signer)).catch(() => undefined);
  }

  /** Messages arriving on a ROUTER socket; malformed or badly signed ones go to `onBad` and are dropped. */
  async *receive(socket: zmq.Router, onBad: (e: Error) => void): AsyncGenerator<Message> {
    try {
      for await (const frames of socket) {
        try {
          yield decode(frames, this.signer);
        } catch (e) {
          onBad(e as Error);
        }
      }
    } catch (e) {
      if (!this.#closed) throw e;
    }
  }

  async #heartbeat() {
    try {
      for await (const frames of this.hb) await this.hb.send(frames);
    } catch {
      // closed
    }
  }

  close(): void {
    this.#closed = true;
    for (const s of [this.shell, this.control, this.stdin, this.iopub, this.hb]) s.close();
  }
}
