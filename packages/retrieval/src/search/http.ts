import { withoutCredentials } from "@citeflow/core";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Hosts on this machine. */
const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/**
 * A small HTTP client for search and library APIs: a minimum interval between requests (rate
 * limit), retries with exponential backoff on 429 / 5xx / network errors (honouring Retry-After and
 * a server's Backoff, each at most 60 s), a timeout per attempt that covers the answer's whole body,
 * a most bytes an answer may have, and errors that name the service and URL but never a key.
 */
export interface HttpClientOptions {
  /** Service name for messages, e.g. "Semantic Scholar". */
  service: string;
  /** Most requests per second (default 1). */
  requestsPerSecond?: number;
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /** Base delay for backoff in ms (default 500; doubles each retry). */
  backoffMs?: number;
  /** Per-attempt timeout in ms, the body read to the end included (default 30 000). */
  timeoutMs?: number;
  /** Most bytes an answer's body may have (default 64 MiB): past it the attempt fails, naming the URL. */
  maxBytes?: number;
  /** Headers sent with every request (API keys go here, never into URLs that are logged). */
  headers?: Record<string, string>;
  /** Query parameters to drop from URLs in messages (e.g. "api_key"). */
  secretParams?: string[];
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

export class SearchApiError extends Error {
  override name = "SearchApiError";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The longest a server may make Citeflow wait (Retry-After, Backoff): longer asks are cut to this. */
export const MAX_SERVER_WAIT_MS = 60_000;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

export class HttpClient {
  #next = 0;
  #queue: Promise<void> = Promise.resolve();
  constructor(private readonly o: HttpClientOptions) {}

  /** Wait for this request's slot: requests leave at most `requestsPerSecond` a second. */
  #slot(signal?: AbortSignal): Promise<void> {
    const interval = 1000 / (this.o.requestsPerSecond ?? 1);
    const turn = this.#queue.then(async () => {
      const wait = this.#next - Date.now();
      if (wait > 0) await sleep(wait, signal);
      this.#next = Date.now() + interval;
    });
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  /** An error about a request, naming the service and the URL as `shown` gives it: every client's messages go through here. */
  error(url: string, detail: string, status?: number): SearchApiError {
    return new SearchApiError(`${this.o.service} (${this.shown(url)}): ${detail}`, status);
  }

  /** A request URL as messages may show it: no user name or password, secret query parameters redacted. */
  shown(url: string): string {
    const u = new URL(withoutCredentials(url));
    for (const p of this.o.secretParams ?? []) if (u.searchParams.has(p)) u.searchParams.set(p, "[redacted]");
    return u.toString();
  }

  /** GET a URL; returns the body text of a 2xx answer. */
  async get(url: string, signal?: AbortSignal): Promise<string> {
    return new TextDecoder().decode((await this.request(url, { ...(signal ? { signal } : {}) })).body);
  }

  /**
   * GET with the answer's status and headers: a 2xx, or a 304 to a conditional request. Redirects
   * are followed here, not by fetch, so that the headers (an API key) go only to the first host;
   * a redirect elsewhere (Zotero's file storage) is fetched without them.
   */
  async request(url: string, o: { headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<HttpResponse> {
    const retries = this.o.retries ?? 3;
    const signal = o.signal;
    let last: SearchApiError | undefined;
    for (let attempt = 0; attempt <= retries; attempt++) {
      await this.#slot(signal);
      let res: Response;
      try {
        res = await this.#fetch(url, { ...(this.o.headers ?? {}), ...(o.headers ?? {}) }, signal);
      } catch (e) {
        if (signal?.aborted) throw e;
        if (e instanceof SearchApiError) throw e;
        const timedOut = (e as Error).name === "TimeoutError";
        last = this.error(url, timedOut ? `timed out after ${this.o.timeoutMs ?? 30_000} ms` : `request failed: ${(e as Error).message.split(url).join(this.shown(url))}`);
        await this.#backoff(attempt, undefined, signal);
        continue;
      }
      this.#serverBackoff(res.headers.get("backoff"));
      if (res.ok || res.status === 304) {
        try {
          return { status: res.status, headers: res.headers, body: await this.#body(url, res) };
        } catch (e) {
          if (signal?.aborted || e instanceof SearchApiError) throw e;
          last = this.error(url, `timed out after ${this.o.timeoutMs ?? 30_000} ms while reading the answer`);
          await this.#backoff(attempt, undefined, signal);
          continue;
        }
      }
      const body = new TextDecoder().decode(await this.#body(url, res, 4096, true).catch(() => new Uint8Array())).slice(0, 200);
      last = this.error(url, `HTTP ${res.status}${body ? ` — ${body}` : ""}`, res.status);
      if (res.status !== 429 && res.status < 500) throw last; // a client error will not improve
      if (attempt < retries) await this.#backoff(attempt, res.headers.get("retry-after"), signal);
    }
    throw new SearchApiError(`${last!.message} (gave up after ${retries + 1} attempts)`, last!.status);
  }

  /** An answer's body, read to the end within the attempt's timeout, refused past `max` bytes (`head`: its first `max` bytes instead). */
  async #body(url: string, res: Response, max = this.o.maxBytes ?? 64 * 2 ** 20, head = false): Promise<Uint8Array> {
    if (!res.body) return new Uint8Array();
    const declared = Number(res.headers.get("content-length"));
    if (declared > max && !head) {
      void res.body.cancel().catch(() => undefined);
      throw this.error(url, `the answer is ${declared} bytes, more than the ${max} allowed`);
    }
    const parts: Uint8Array[] = [];
    let bytes = 0;
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > max) {
        void reader.cancel().catch(() => undefined);
        if (head) return Buffer.concat([...parts, value]).subarray(0, max);
        throw this.error(url, `the answer is more than the ${max} bytes allowed: cut off`);
      }
      parts.push(value);
    }
    return Buffer.concat(parts);
  }

  /** One attempt, following up to 5 redirects; headers go along only while the origin stays the same. */
  async #fetch(url: string, headers: Record<string, string>, signal: AbortSignal | undefined): Promise<Response> {
    const timeout = AbortSignal.timeout(this.o.timeoutMs ?? 30_000);
    const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const origin = new URL(url).origin;
    let at = url;
    for (let hop = 0; hop <= 5; hop++) {
      const res = await fetch(at, { headers: new URL(at).origin === origin ? headers : {}, signal: both, redirect: "manual" });
      const next = res.headers.get("location");
      if (res.status < 300 || res.status >= 400 || res.status === 304 || !next) return res;
      at = new URL(next, at).toString();
      // Zotero's local API points to a stored file by a file: URL; only a server on this machine may.
      if (new URL(at).protocol === "file:" && LOOPBACK.test(new URL(url).hostname)) return new Response(new Uint8Array(readFileSync(fileURLToPath(at))));
      if (!/^https?:$/.test(new URL(at).protocol)) throw this.error(url, `redirected to a ${new URL(at).protocol} URL`);
    }
    throw this.error(url, "more than 5 redirects");
  }

  /** A server's "Backoff: <seconds>" on any answer (Zotero's): no request leaves before it has passed. */
  #serverBackoff(value: string | null): void {
    if (value && /^\d+(\.\d+)?$/.test(value)) this.#next = Math.max(this.#next, Date.now() + Math.min(Number(value) * 1000, MAX_SERVER_WAIT_MS));
  }

  async #backoff(attempt: number, retryAfter: string | null | undefined, signal?: AbortSignal) {
    const base = (this.o.backoffMs ?? 500) * 2 ** attempt;
    const fromHeader = retryAfter && /^\d+(\.\d+)?$/.test(retryAfter) ? Math.min(Number(retryAfter) * 1000, MAX_SERVER_WAIT_MS) : undefined;
    // Jitter spreads retries from many clients; the server's Retry-After wins when it is longer.
    await sleep(Math.max(fromHeader ?? 0, base * (0.5 + Math.random() / 2)), signal);
  }

  async getJson(url: string, signal?: AbortSignal): Promise<unknown> {
    const text = await this.get(url, signal);
    try {
      return JSON.parse(text);
    } catch {
      throw this.error(url, `malformed JSON response: ${text.slice(0, 120)}`);
    }
  }
}
