import { afterEach, describe, expect, it } from "vitest";
import { openAIEmbedder } from "@citeflow/models";
import { json, loopback, type Loopback } from "./loopback.js";

const KEY = "sk-loopback-secret-0123456789";
let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const vectors = (input: string[]) => ({
  object: "list",
  model: "emb",
  // Out of order on purpose: the adapter must sort by index.
  data: input.map((t, i) => ({ object: "embedding", index: i, embedding: [t.length, 1, 0] })).reverse(),
  usage: { prompt_tokens: 3, total_tokens: 3 },
});

describe("OpenAI-compatible embeddings", () => {
  it("embeds in batches, in input order, normalised, sending the key only as a header", async () => {
    server = await loopback((req, res) => json(res, 200, vectors(req.body.input)));
    const e = openAIEmbedder({ model: "emb", baseURL: `${server.url}/v1`, apiKey: KEY, batchSize: 2 });
    const out = await e.embed(["a", "bbb", "cc"]);
    expect(server.requests.map((r) => r.body.input)).toEqual([["a", "bbb"], ["cc"]]);
    expect(server.requests[0]!.path).toBe("/v1/embeddings");
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(out.map((v) => v[0]! / v[1]!)).toEqual([1, 3, 2].map((x) => expect.closeTo(x, 6)));
    expect(Math.hypot(...out[1]!)).toBeCloseTo(1, 6);
  });

  it("reads nothing from the environment: $OPENAI_BASE_URL, $OPENAI_API_KEY and $OPENAI_ORG_ID reach no server; a key given goes to the server given", async () => {
    server = await loopback((req, res) => json(res, 200, vectors(req.body.input)));
    const other = await loopback((req, res) => json(res, 200, vectors(req.body.input)));
    const saved = { url: process.env.OPENAI_BASE_URL, key: process.env.OPENAI_API_KEY, org: process.env.OPENAI_ORG_ID };
    process.env.OPENAI_BASE_URL = `${server.url}/v1`;
    process.env.OPENAI_API_KEY = KEY;
    process.env.OPENAI_ORG_ID = "org-secret";
    try {
      await openAIEmbedder({ model: "emb", baseURL: `${other.url}/v1` }).embed(["a"]);
      await openAIEmbedder({ model: "emb", baseURL: `${other.url}/v1`, apiKey: "given" }).embed(["a"]);
      expect(server.requests).toHaveLength(0);
      expect(other.requests).toHaveLength(2);
      for (const r of other.requests) expect(JSON.stringify(r.headers)).not.toMatch(new RegExp(`${KEY}|org-secret`));
      expect(other.requests.map((r) => r.headers.authorization)).toEqual(["Bearer no-key", "Bearer given"]);
    } finally {
      for (const [k, v] of [
        ["OPENAI_BASE_URL", saved.url],
        ["OPENAI_API_KEY", saved.key],
        ["OPENAI_ORG_ID", saved.org],
      ] as const)
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      await other.close();
    }
  });

  it("retries 429 and 500 with backoff, then succeeds", async () => {
    server = await loopback((req, res) => {
      if (req.n === 0) return json(res, 429, { error: { message: "slow down" } }, { "retry-after-ms": "10" });
      if (req.n === 1) return json(res, 500, { error: { message: "oops" } }, { "retry-after-ms": "10" });
      json(res, 200, vectors(req.body.input));
    });
    const e = openAIEmbedder({ model: "emb", baseURL: server.url, apiKey: KEY });
    expect(await e.embed(["x"])).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
  });

  it("gives up after the retries, naming the server, never the key", async () => {
    server = await loopback((_req, res) => json(res, 503, { error: { message: "overloaded" } }, { "retry-after-ms": "5" }));
    const e = openAIEmbedder({ model: "emb", baseURL: server.url, apiKey: KEY, maxRetries: 2 });
    const err = await e.embed(["x"]).catch((x: Error) => x);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(new RegExp(`embeddings from emb at ${server.url}.* failed: 503`));
    expect((err as Error).message).not.toContain(KEY);
    expect(server.requests).toHaveLength(3);
  });

  it("rejects malformed bodies", async () => {
    server = await loopback((req, res) => (req.n === 0 ? json(res, 200, { data: [{ index: 0, embedding: ["NaN?"] }] }) : json(res, 200, "{not json")));
    const e = openAIEmbedder({ model: "emb", baseURL: server.url, apiKey: KEY, maxRetries: 0 });
    await expect(e.embed(["x"])).rejects.toThrow(/malformed response/);
    await expect(e.embed(["x"])).rejects.toThrow(/embeddings from emb/);
  });

  it("times out", async () => {
    server = await loopback(() => undefined); // never answers
    const e = openAIEmbedder({ model: "emb", baseURL: server.url, apiKey: KEY, timeoutMs: 100, maxRetries: 0 });
    await expect(e.embed(["x"])).rejects.toThrow(/timed out|timeout/i);
  });
});
