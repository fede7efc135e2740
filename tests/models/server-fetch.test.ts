/**
 * One budget per server for every client of the process (serverFetch): a 429 holds every request to
 * that server for its Retry-After; a concurrency limit and a tokens-per-minute limit are shared.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { requestTokens, retryAfterMs, serverFetch, setServerLimits } from "@citeflow/models";
import { configFromEnv } from "@citeflow/nodes";

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
