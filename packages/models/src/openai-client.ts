import { keyFor, withoutCredentials } from "@citeflow/core";
import OpenAI from "openai";

/**
 * The OpenAI SDK client behind every OpenAI-compatible model (chat, embeddings), so both follow
 * the same rules: the server is `baseURL`, else $OPENAI_BASE_URL; $OPENAI_API_KEY goes only to
 * $OPENAI_BASE_URL (`keyFor`), a key passed in goes where its caller sends it; a server URL that
 * carries a user name and password is refused by name (requests cannot send them in the URL, and
 * the SDK would only say "Connection error"). `shown`: the server as it may be printed.
 */
export function openAIClient(o: { baseURL?: string | undefined; apiKey?: string | undefined; timeoutMs: number; maxRetries: number }): { client: OpenAI; shown: string } {
  const baseURL = o.baseURL ?? process.env.OPENAI_BASE_URL;
  if (baseURL && withoutCredentials(baseURL) !== baseURL)
    throw new Error(
      `the server URL ${withoutCredentials(baseURL)} carries a user name and password, which a request cannot send in its URL: give the URL without them and put the token in $OPENAI_API_KEY (sent as a Bearer token)`,
    );
  const apiKey = o.apiKey ?? keyFor(o.baseURL, process.env.OPENAI_BASE_URL ?? "", process.env.OPENAI_API_KEY) ?? "no-key";
  const client = new OpenAI({ apiKey, ...(baseURL ? { baseURL } : {}), timeout: o.timeoutMs, maxRetries: o.maxRetries, fetch: heldFetch(baseURL ?? "https://api.openai.com/v1") });
  return { client, shown: withoutCredentials(client.baseURL) };
}

/** Per server: until when every request to it waits, since one was told 429 Too Many Requests. */
const holds = new Map<string, number>();
/** The longest hold a server's Retry-After may ask for. */
const MAX_HOLD_MS = 60_000;

/** How long a 429's headers ask to wait: `retry-after-ms`, else `retry-after` in seconds or as a date; undefined when neither says. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get("retry-after-ms"));
  if (ms > 0) return ms;
  const v = headers.get("retry-after")?.trim();
  if (!v) return undefined;
  const seconds = Number(v);
  if (!Number.isNaN(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * fetch for every client of one server: a 429 holds all requests to that server for its
 * Retry-After (1 s when it names none, at most 60 s), not just the one that was told; the SDK then
 * retries that one as usual. Many runs at once (`--parallel`) share one server's budget so: when it
 * says slow down, the whole pool slows down.
 */
export function heldFetch(server: string, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    for (let wait = (holds.get(server) ?? 0) - Date.now(); wait > 0; wait = (holds.get(server) ?? 0) - Date.now()) {
      await new Promise((r) => setTimeout(r, wait));
      init?.signal?.throwIfAborted();
    }
    const res = await inner(input, init);
    if (res.status === 429) holds.set(server, Math.max(holds.get(server) ?? 0, Date.now() + Math.min(retryAfterMs(res.headers) ?? 1000, MAX_HOLD_MS)));
    return res;
  };
}
