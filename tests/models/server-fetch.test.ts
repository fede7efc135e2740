/**
 * One budget per server for every client of the process (serverFetch): a 429 holds every request to
 * that server for its Retry-After; a concurrency limit and a tokens-per-minute limit are shared.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { openAIChat, replyByteLimit, requestTokens, retryAfterMs, serverFetch, setServerLimits } from "@citeflow/models";
import { configFromEnv, createRegistry } from "@citeflow/nodes";
import { completion, loopback } from "./loopback.js";

afterEach(() => {
  vi.useRealTimers();
  setServerLimits({});
});

/** A server whose replies the test releases one by one; records what reached it, in order. */
function gated() {
  const reached: string[] = [];
  const open: Array<() => void> = [];
  const inner = (async (input: string) => {
    reached.push(input);
    await new Promise<void>((r) => open.push(r));
    return new Response(`reply to ${input}`, { status: 200 });
  }) as unknown as typeof fetch;
  return { reached, inner, release: () => open.shift()!() };
}
const tick = () => new Promise((r) => setTimeout(r, 5));

describe("requests to a server that said 429", () => {
  it("wait, from every client of that server, until its Retry-After has passed; other servers do not", async () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    const inner = (async (input: string) => {
      calls.push(input);
      return input === "first" ? new Response("", { status: 429, headers: { "retry-after-ms": "500" } }) : new Response("{}", { status: 200 });
    }) as unknown as typeof fetch;
    const server = "http://127.0.0.1:9/held-a/v1";
    expect((await serverFetch(server, inner)("first")).status).toBe(429);
    const same = serverFetch(server, inner)("same client");
    const another = serverFetch(server, inner)("another client");
    const elsewhere = serverFetch("http://127.0.0.1:9/held-b/v1", inner)("another server");
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual(["first", "another server"]);
    await vi.advanceTimersByTimeAsync(490);
    expect(calls).toEqual(["first", "another server"]);
    await vi.advanceTimersByTimeAsync(20);
    expect((await same).status).toBe(200);
    expect((await another).status).toBe(200);
    expect((await elsewhere).status).toBe(200);
    expect(calls.slice(2).sort()).toEqual(["another client", "same client"]);
  });

  it("read Retry-After in milliseconds, seconds or as a date, and hold 1 s when it says nothing", () => {
    const now = Date.parse("2026-11-27T10:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250" }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ "retry-after": "Fri, 27 Nov 2026 10:00:03 GMT" }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });
});

describe("a server's shared limits", () => {
  it("at most `concurrent` requests in flight, from every client; a reply's place is given back when its body is read", async () => {
    setServerLimits({ concurrent: 2 });
    const server = "http://127.0.0.1:9/limit-a/v1";
    const g = gated();
    const replies = ["a", "b", "c", "d"].map((x) => serverFetch(server, g.inner)(x));
    const other = serverFetch("http://127.0.0.1:9/limit-b/v1", g.inner)("elsewhere");
    await tick();
    expect(g.reached).toEqual(["a", "b", "elsewhere"]);
    g.release(); // a's headers: its body is not read yet, so c still waits
    const a = await replies[0]!;
    await tick();
    expect(g.reached).toEqual(["a", "b", "elsewhere"]);
    expect(await a.text()).toBe("reply to a");
    await tick();
    expect(g.reached).toEqual(["a", "b", "elsewhere", "c"]);
    // A body dropped unread gives its place back too.
    g.release();
    await (await replies[1]!).body!.cancel();
    await tick();
    expect(g.reached).toEqual(["a", "b", "elsewhere", "c", "d"]);
    g.release();
    g.release();
    g.release();
    expect(await Promise.all([replies[2]!, replies[3]!, other].map(async (r) => (await r).text()))).toEqual(["reply to c", "reply to d", "reply to elsewhere"]);
  });

  it("a request waiting for a place that is aborted leaves the queue without taking one", async () => {
    setServerLimits({ concurrent: 1 });
    const server = "http://127.0.0.1:9/limit-c/v1";
    const g = gated();
    const first = serverFetch(server, g.inner)("first");
    const stop = new AbortController();
    const dropped = serverFetch(server, g.inner)("dropped", { signal: stop.signal });
    const third = serverFetch(server, g.inner)("third");
    await tick();
    stop.abort(new Error("stopped"));
    await expect(dropped).rejects.toThrow("stopped");
    g.release();
    expect(await (await first).text()).toBe("reply to first");
    await tick();
    expect(g.reached).toEqual(["first", "third"]);
    g.release();
    expect(await (await third).text()).toBe("reply to third");
  });

  it("at most `tokensPerMinute` estimated tokens in any 60 s: the next request waits for the oldest to leave the minute", async () => {
    vi.useFakeTimers();
    setServerLimits({ tokensPerMinute: 100 });
    const server = "http://127.0.0.1:9/limit-d/v1";
    const sent: number[] = [];
    const inner = (async () => {
      sent.push(Date.now());
      return new Response("{}", { status: 200 });
    }) as unknown as typeof fetch;
    // 200 characters (50 tokens) allowing 20 more: 70 tokens a request.
    const body = JSON.stringify({ max_tokens: 20, messages: [{ role: "user", content: "x".repeat(200 - 61) }] });
    expect(requestTokens(body)).toBe(70);
    const start = Date.now();
    const replies = [serverFetch(server, inner)("1", { method: "POST", body }), serverFetch(server, inner)("2", { method: "POST", body })];
    await vi.advanceTimersByTimeAsync(59_000);
    expect(sent.map((t) => t - start)).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent.map((t) => t - start)).toEqual([0, 60_000]);
    await Promise.all(replies);
  });

  it("come from the environment at the edge, each refused by name when it is not a whole number above 0", () => {
    expect(configFromEnv({ CITEFLOW_SERVER_CONCURRENCY: "8", CITEFLOW_SERVER_TOKENS_PER_MINUTE: "200000" }).serverLimits).toEqual({ concurrent: 8, tokensPerMinute: 200000 });
    expect(configFromEnv({}).serverLimits).toEqual({ concurrent: undefined, tokensPerMinute: undefined });
    expect(() => configFromEnv({ CITEFLOW_SERVER_CONCURRENCY: "0" })).toThrow('$CITEFLOW_SERVER_CONCURRENCY: give a whole number above 0, not "0"');
    expect(() => configFromEnv({ CITEFLOW_SERVER_TOKENS_PER_MINUTE: "lots" })).toThrow("$CITEFLOW_SERVER_TOKENS_PER_MINUTE");
    // The in-process model's settings follow the same rule: a typo is an error, not the default.
    expect(configFromEnv({ CITEFLOW_LLM_SEQUENCES: "4", CITEFLOW_LLM_CONTEXT: "4096" }).chat).toMatchObject({ sequences: 4, contextSize: 4096 });
    expect(() => configFromEnv({ CITEFLOW_LLM_SEQUENCES: "four" })).toThrow('$CITEFLOW_LLM_SEQUENCES: give a whole number above 0, not "four"');
    expect(() => configFromEnv({ CITEFLOW_LLM_CONTEXT: "8k" })).toThrow('$CITEFLOW_LLM_CONTEXT: give a whole number above 0, not "8k"');
    expect(() => setServerLimits({ concurrent: 1.5 })).toThrow("server limit concurrent: give a whole number above 0, not 1.5");
  });
});

describe("every reply from a served model is bounded", () => {
  it("in time: a server that sends its headers and then one byte a second is cut off at the client's timeout, the body included", async () => {
    let timer: NodeJS.Timeout | undefined;
    const server = await loopback((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("{");
      timer = setInterval(() => res.write(" "), 1000);
      res.on("close", () => clearInterval(timer));
    });
    try {
      const chat = openAIChat({ model: "m", baseURL: `${server.url}/v1`, apiKey: "k", timeoutMs: 1500, maxRetries: 0 });
      await expect(chat.chat([{ role: "user", content: "hi" }], { maxTokens: 8 })).rejects.toThrow(`the server at ${server.url}/v1 sent no complete reply within 1500 ms (its body included)`);
    } finally {
      clearInterval(timer);
      await server.close();
    }
  }, 30_000);

  it("in size: a reply past what the request allows (1 MiB + 4 KiB a token) fails, naming the server", async () => {
    const server = await loopback((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(completion("x".repeat(3 * 2 ** 20))));
    });
    try {
      const f = serverFetch(server.url, fetch, 10_000);
      const body = JSON.stringify({ model: "m", messages: [], max_tokens: 16 });
      expect(replyByteLimit(body)).toBe(2 ** 20 + 16 * 4096);
      const res = await f(`${server.url}/v1/chat/completions`, { method: "POST", body });
      await expect(res.text()).rejects.toThrow(`the server at ${server.url} sent more than ${2 ** 20 + 16 * 4096} bytes in one reply`);
      // Embeddings: 256 KiB an input; a request that says neither: 64 MiB.
      expect(replyByteLimit(JSON.stringify({ input: ["a", "b"] }))).toBe(2 ** 20 + 2 * 256 * 1024);
      expect(replyByteLimit("not json")).toBe(64 * 2 ** 20);
    } finally {
      await server.close();
    }
  });

  it("graph params that would hang a run are refused by validate: a rate of 1e-6 a second, a timeout of 1e8 ms, 1,000 retries", () => {
    const registry = createRegistry();
    for (const [type, params, field] of [
      ["search.semantic-scholar", { requestsPerSecond: 1e-6 }, "requestsPerSecond"],
      ["search.semantic-scholar", { timeoutMs: 1e8 }, "timeoutMs"],
      ["generate.answer", { timeoutMs: 1e8 }, "timeoutMs"],
      ["generate.answer", { retries: 1000 }, "retries"],
      ["generate.answer", { maxTokens: 1e7 }, "maxTokens"],
    ] as const) {
      const schema = registry.get(type)!.params;
      const r = schema.safeParse(params);
      expect(r.success, `${type} ${field}`).toBe(false);
      expect(r.error!.issues[0]!.path).toEqual([field]);
    }
  });
});
