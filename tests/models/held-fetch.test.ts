/** A 429 from a served model holds every request to that server for its Retry-After, not only the one told. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { heldFetch, retryAfterMs } from "@citeflow/models";

afterEach(() => void vi.useRealTimers());

describe("requests to a server that said 429", () => {
  it("wait, from every client of that server, until its Retry-After has passed; other servers do not", async () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    const inner = (async (input: string) => {
      calls.push(input);
      return input === "first" ? new Response("", { status: 429, headers: { "retry-after-ms": "500" } }) : new Response("{}", { status: 200 });
    }) as unknown as typeof fetch;
    const server = "http://127.0.0.1:9/held-a/v1";
    expect((await heldFetch(server, inner)("first")).status).toBe(429);
    const same = heldFetch(server, inner)("same client");
    const another = heldFetch(server, inner)("another client");
    const elsewhere = heldFetch("http://127.0.0.1:9/held-b/v1", inner)("another server");
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
