import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";

/** Jupyter messaging protocol version this kernel speaks. */
export const PROTOCOL_VERSION = "5.3";
const DELIM = "<IDS|MSG>";

export interface Header {
  msg_id: string;
  msg_type: string;
  session: string;
  username: string;
  date: string;
  version: string;
}

export interface Message<C = Record<string, unknown>> {
  /** ZeroMQ routing identities (ROUTER sockets), sent back with the reply. */
  identities: Buffer[];
  header: Header;
  parent_header: Partial<Header>;
  metadata: Record<string, unknown>;
  content: C;
  buffers: Buffer[];
}

export class WireError extends Error {
  override name = "WireError";
}

/** Signs and checks messages with the connection file's key (HMAC-SHA256; empty key: unsigned). */
export class Signer {
  constructor(
    private readonly key: string,
    private readonly scheme = "hmac-sha256",
  ) {
    if (key && scheme !== "hmac-sha256") throw new WireError(`signature scheme "${scheme}" is not supported (use hmac-sha256)`);
  }

  sign(parts: Buffer[]): string {
    if (!this.key) return "";
    const h = createHmac("sha256", this.key);
    for (const p of parts) h.update(p);
    return h.digest("hex");
  }

  verify(signature: string, parts: Buffer[]): boolean {
    if (!this.key) return true;
    const expected = Buffer.from(this.sign(parts));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

/** Frames received on a socket → a message; throws WireError on anything malformed or badly signed. */
export function decode(frames: Buffer[], signer: Signer): Message {
  const at = frames.findIndex((f) => f.toString() === DELIM);
  if (at < 0) throw new WireError("no <IDS|MSG> delimiter");
  if (frames.length < at + 6) throw new WireError(`${frames.length - at - 1} frames after the delimiter, need 5`);
  const [sig, header, parent, metadata, content] = frames.slice(at + 1, at + 6) as [Buffer, Buffer, Buffer, Buffer, Buffer];
  if (!signer.verify(sig.toString(), [header, parent, metadata, content])) throw new WireError("bad message signature");
  const parse = (b: Buffer, what: string) => {
    try {
      return JSON.parse(b.toString("utf8")) as Record<string, unknown>;
    } catch (e) {
      throw new WireError(`${what} is not JSON: ${(e as Error).message}`);
    }
  };
  return {
    identities: frames.slice(0, at),
    header: parse(header, "header") as unknown as Header,
    parent_header: parse(parent, "parent_header"),
    metadata: parse(metadata, "metadata"),
    content: parse(content, "content"),
    buffers: frames.slice(at + 6),
  };
}

/** A message → frames, signed. */
export function encode(msg: Omit<Message, "buffers"> & { buffers?: Buffer[] }, signer: Signer): Buffer[] {
  const parts = [msg.header, msg.parent_header, msg.metadata, msg.content].map((p) => Buffer.from(JSON.stringify(p), "utf8"));
  return [...msg.identities, Buffer.from(DELIM), Buffer.from(signer.sign(parts)), ...parts, ...(msg.buffers ?? [])];
}

export function header(msgType: string, session: string): Header {
  return { msg_id: randomUUID(), msg_type: msgType, session, username: "kernel", date: new Date().toISOString(), version: PROTOCOL_VERSION };
}
