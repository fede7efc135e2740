/**
 * The one fetch under every OpenAI-compatible client (chat, embeddings): per server, one budget
 * that every run of the process shares, so question sets run with `--parallel` slow down together.
 *   - a 429 holds every request to that server for its Retry-After (1 s when it names none, at
 *     most 60 s), not only the one that was told; the SDK then retries that one as usual;
 *   - at most `concurrent` requests in flight to it (a streamed reply holds its place until its
 *     body is read or dropped);
 *   - at most `tokensPerMinute` tokens sent to it in any 60 s, counted from the request: its
 *     characters / 4 plus the completion it allows (`max_tokens`). A request larger than the whole
 *     budget goes alone once the minute is clear.
 * And every reply is bounded: one deadline covers the request and its whole body (a server that
 * sends its headers and then trickles is cut off at the client's timeout), and a body may be at
 * most `replyByteLimit` bytes (from the request: the tokens it allows, the inputs it sends).
 * The limits apply to each server separately; `setServerLimits` (the services' config:
 * $CITEFLOW_SERVER_CONCURRENCY, $CITEFLOW_SERVER_TOKENS_PER_MINUTE) sets them, none by default.
 */

export interface ServerLimits {
  /** Requests in flight to one server at most. */
  concurrent?: number;
  /** Estimated tokens sent to one server in any 60 s at most. */
  tokensPerMinute?: number;
}

interface ServerState {
  /** Until when every request waits (a 429's Retry-After). */
  heldUntil: number;
  inFlight: number;
  /** Requests waiting for a place, first come first served. */
  queue: Array<() => void>;
  /** Tokens sent, with when. */
  sent: Array<{ at: number; tokens: number }>;
}

const MAX_HOLD_MS = 60_000;
const MINUTE = 60_000;
let limits: ServerLimits = {};
const servers = new Map<string, ServerState>();

/** The limits every server gets from now on (each its own budget); `{}` lifts them. */
export function setServerLimits(l: ServerLimits): void {
  for (const [k, v] of Object.entries(l)) if (v !== undefined && !(Number.isInteger(v) && v > 0)) throw new Error(`server limit ${k}: give a whole number above 0, not ${v}`);
  limits = { ...l };
  // Places freed by a higher limit go to those waiting.
  for (const s of servers.values()) wake(s);
}

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

/** What a request allows back: the completion's tokens (`max_tokens`), the inputs to embed or score; undefined when it says neither. */
function asked(body: unknown): { tokens?: number; inputs?: number } {
  if (typeof body !== "string") return {};
  try {
    const parsed = JSON.parse(body) as { max_tokens?: unknown; max_completion_tokens?: unknown; input?: unknown };
    const n = Number(parsed.max_completion_tokens ?? parsed.max_tokens ?? 0);
    return { ...(Number.isFinite(n) && n > 0 ? { tokens: n } : {}), ...(Array.isArray(parsed.input) ? { inputs: parsed.input.length } : {}) };
  } catch {
    return {};
  }
}

/**
 * The most bytes a reply to this request may have: 1 MiB, plus 4 KiB for each token it allows (a
 * streamed token is a ~300-byte event) or 256 KiB for each input it sends (an embedding of 4,096
 * numbers is ~80 KB of JSON); 64 MiB for a request that says neither.
 */
export function replyByteLimit(body: unknown): number {
  const { tokens, inputs } = asked(body);
  if (tokens === undefined && inputs === undefined) return 64 * 2 ** 20;
  return 2 ** 20 + (tokens ?? 0) * 4096 + (inputs ?? 0) * 256 * 1024;
}

/** A request's estimated tokens: its body's characters / 4, plus the completion it allows. */
export function requestTokens(body: unknown): number {
  if (typeof body !== "string") return 0;
  return Math.ceil(body.length / 4) + (asked(body).tokens ?? 0);
}

function state(server: string): ServerState {
  let s = servers.get(server);
  if (!s) servers.set(server, (s = { heldUntil: 0, inFlight: 0, queue: [], sent: [] }));
  return s;
}

function wake(s: ServerState): void {
  while (s.queue.length && (limits.concurrent === undefined || s.inFlight < limits.concurrent)) {
    s.inFlight++;
    s.queue.shift()!();
  }
}

const sleep = (ms: number, signal: AbortSignal | null | undefined) => new Promise<void>((resolve) => setTimeout(resolve, ms)).then(() => signal?.throwIfAborted());

/** Waits out a 429 hold and the token budget; returns when `tokens` may be sent now (and counts them). */
async function budget(s: ServerState, tokens: number, signal: AbortSignal | null | undefined): Promise<void> {
  for (;;) {
    const now = Date.now();
    if (s.heldUntil > now) {
      await sleep(s.heldUntil - now, signal);
      continue;
    }
    s.sent = s.sent.filter((x) => x.at > now - MINUTE);
    const used = s.sent.reduce((sum, x) => sum + x.tokens, 0);
    if (limits.tokensPerMinute === undefined || used + tokens <= limits.tokensPerMinute || s.sent.length === 0) {
      s.sent.push({ at: now, tokens });
      return;
    }
    // Until the oldest request of the minute leaves it.
    await sleep(s.sent[0]!.at + MINUTE - now, signal);
  }
}

/** A place among the server's requests in flight; the returned function gives it back (once). */
async function place(s: ServerState, signal: AbortSignal | null | undefined): Promise<() => void> {
  if (limits.concurrent === undefined || s.inFlight < limits.concurrent) s.inFlight++;
  else
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener("abort", drop);
        resolve();
      };
      const drop = () => {
        s.queue.splice(s.queue.indexOf(go), 1);
        reject(signal!.reason);
      };
      s.queue.push(go);
      signal?.addEventListener("abort", drop, { once: true });
    });
  let given = false;
  return () => {
    if (given) return;
    given = true;
    s.inFlight--;
    wake(s);
  };
}

/** The body passed through, giving the place back when it is read to the end, fails or is dropped; past `maxBytes` it fails, naming the server. */
function releasing(res: Response, release: () => void, server: string, maxBytes: number, deadline?: { signal: AbortSignal; ms: number }): Response {
  if (!res.body) {
    release();
    return res;
  }
  const reader = res.body.getReader();
  let bytes = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          release();
          c.close();
          return;
        }
        bytes += value.byteLength;
        if (bytes > maxBytes) {
          void reader.cancel().catch(() => undefined);
          throw new Error(`the server at ${server} sent more than ${maxBytes} bytes in one reply (more than the request allows): cut off`);
        }
        c.enqueue(value);
      } catch (e) {
        release();
        c.error(deadline?.signal.aborted ? new Error(`the server at ${server} sent no complete reply within ${deadline.ms} ms (its body included): cut off`) : e);
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * fetch for every client of one server, under that server's shared budget (above). `deadlineMs`:
 * the whole request, its body read to the end included, is aborted after it (the SDK's own
 * timeout stops at the headers).
 */
export function serverFetch(server: string, inner: typeof fetch = fetch, deadlineMs?: number): typeof fetch {
  return async (input, init) => {
    const s = state(server);
    const deadline = deadlineMs === undefined ? undefined : AbortSignal.timeout(deadlineMs);
    const signal = deadline && init?.signal ? AbortSignal.any([init.signal, deadline]) : (deadline ?? init?.signal);
    const release = await place(s, signal);
    let res: Response;
    try {
      await budget(s, requestTokens(init?.body), signal);
      res = await inner(input, { ...init, ...(signal ? { signal } : {}) });
    } catch (e) {
      release();
      throw e;
    }
    if (res.status === 429) s.heldUntil = Math.max(s.heldUntil, Date.now() + Math.min(retryAfterMs(res.headers) ?? 1000, MAX_HOLD_MS));
    return releasing(res, release, server, replyByteLimit(init?.body), deadline && { signal: deadline, ms: deadlineMs! });
  };
}
