import { QdrantClient } from "@qdrant/js-client-rest";
import { Agent } from "undici";

/**
 * The most bytes one Qdrant reply may have. A search's reply is its top passages with their text
 * (a few KiB each); a batch upsert's is a status line. A server that sends more is cut off, the
 * request failing with this limit named, instead of buffering whatever it sends.
 */
export const QDRANT_REPLY_BYTES = 64 * 2 ** 20;

/** What the SDK calls each REST endpoint through: a function of (payload, request init). */
type Endpoints = Record<string | symbol, unknown>;

/**
 * A Qdrant client whose every reply is bounded in time (the SDK's timeout covers the body) and in
 * size. The SDK builds its own HTTP agent and gives no option for a reply's size, but each of its
 * endpoint calls takes a request init that overrides its defaults: every call gets an agent that
 * refuses a body over `replyBytes`. If the SDK stops calling its endpoints that way, this refuses
 * to make a client rather than make an unbounded one (tests/retrieval/qdrant.test.ts sends one).
 */
export function boundedQdrantClient(o: { url: string; apiKey?: string; timeoutMs: number; replyBytes?: number }): QdrantClient {
  const client = new QdrantClient({ url: o.url, ...(o.apiKey ? { apiKey: o.apiKey } : {}), timeout: o.timeoutMs, checkCompatibility: false });
  const agent = new Agent({ maxResponseSize: o.replyBytes ?? QDRANT_REPLY_BYTES, connections: 25, keepAliveTimeout: 10_000 });
  const holder = client as unknown as { _openApiClient?: Endpoints };
  const endpoints = holder._openApiClient;
  if (!endpoints || typeof endpoints !== "object" || typeof endpoints.searchPoints !== "function")
    throw new Error("@qdrant/js-client-rest no longer exposes its endpoints as Citeflow bounds them: refusing to talk to Qdrant with replies unbounded (pin the SDK's version)");
  const wrapped = new Map<string | symbol, unknown>();
  holder._openApiClient = new Proxy(endpoints, {
    get(target, key) {
      const f = target[key];
      if (typeof f !== "function") return f;
      if (!wrapped.has(key))
        wrapped.set(
          key,
          Object.assign((payload: unknown, init?: Record<string, unknown>) => (f as (p: unknown, i: unknown) => unknown).call(target, payload, { ...init, dispatcher: agent }), f),
        );
      return wrapped.get(key);
    },
  });
  return client;
}
