/**
 * The one rule for keys, over every client a graph can point somewhere: a key goes only to the
 * endpoint the user configured it for. A server the graph names is refused before any request
 * unless the user consented, and even then gets no key. `validate` (graphReach) lists it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { configFromEnv, describeChat, graphReach } from "@citeflow/nodes";
import { HttpClient } from "@citeflow/retrieval";
import { RunStore } from "@citeflow/runstore";
import { doc, envServices, run, tempDir } from "../helpers.js";
import { completion, json, loopback, type Loopback } from "../models/loopback.js";
import { restoreEnvAfterEach } from "../scifact.js";

const KEYS = {
  OPENAI_API_KEY: "sk-chat-key-5e1f0a",
  QDRANT_API_KEY: "qdrant-key-77c2d9",
  S2_API_KEY: "s2-key-0b3e8c",
  CORE_API_KEY: "core-key-91ad44",
  NCBI_API_KEY: "ncbi-key-3f5a07",
  CITEFLOW_ENCODER_API_KEY: "tei-key-6a0c3e",
};
restoreEnvAfterEach("OPENAI_BASE_URL", "OPENAI_CUSTOM_HEADERS", "QDRANT_URL", "CITEFLOW_ALLOWED_ENDPOINTS", "CITEFLOW_CHAT_MODEL", "CITEFLOW_NLI_MODEL", ...Object.keys(KEYS));

interface Client {
  client: string;
  /** The variable that configures this client's server, when the user can name one. */
  urlVar?: string;
  /** What that variable holds for a server at `url` (default: the URL). */
  urlValue?: (url: string) => string;
  key: keyof typeof KEYS;
  /** Where the key would travel in a request. */
  sent: (r: Loopback["requests"][number]) => string | undefined;
  /** A graph whose node reaches `url` (empty: the configured server). */
  graph: (url: string) => unknown;
  /** The node param that names the server. */
  param: string;
}

const question = { q: ["input.question"] as [string] };
const filesUnder = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? filesUnder(join(dir, n)) : [join(dir, n)]));
const qInputs = { question: { type: "Question" } };
const search = (type: string, key: Client["key"], sent: Client["sent"]): Client => ({
  client: type,
  key,
  sent,
  param: "baseUrl",
  graph: (url) => doc({ ...question, s: [type, { baseUrl: url, retries: 0 }] }, ["q.question->s.question"], qInputs),
});
const CLIENTS: Client[] = [
  {
    client: "chat (generate.answer)",
    urlVar: "OPENAI_BASE_URL",
    key: "OPENAI_API_KEY",
    sent: (r) => r.headers.authorization?.replace(/^Bearer /, ""),
    param: "baseUrl",
    graph: (url) =>
      doc(
        { ...question, p: ["test.passages", { ids: ["d#0"], score: "bm25" }], g: ["generate.answer", { generator: "llm", model: "m", baseUrl: url, retries: 0 }] },
        ["q.question->g.question", "p.passages->g.passages"],
        qInputs,
      ),
  },
  {
    client: "Qdrant store (retrieve.lexical)",
    urlVar: "QDRANT_URL",
    key: "QDRANT_API_KEY",
    sent: (r) => r.headers["api-key"] as string | undefined,
    param: "store",
    graph: (url) => doc({ ...question, r: ["retrieve.lexical", { store: url ? `qdrant:${url}/collections/c` : "qdrant:c", k: 3 }] }, ["q.question->r.question"], qInputs),
  },
  {
    client: "served NLI model (verify.nli, tei:)",
    urlVar: "CITEFLOW_NLI_MODEL",
    urlValue: (url) => `tei:${url}`,
    key: "CITEFLOW_ENCODER_API_KEY",
    sent: (r) => r.headers.authorization?.replace(/^Bearer /, ""),
    param: "model",
    graph: (url) =>
      doc(
        {
          c: ["test.any", { value: [{ id: "c1", text: "Aspirin lowers stroke.", passageIds: ["d#0"] }] }],
          p: ["test.passages", { ids: ["d#0"], score: "bm25" }],
          v: ["verify.nli", url ? { model: `tei:${url}` } : {}],
        },
        ["c.out->v.claims", "p.passages->v.passages"],
      ),
  },
  search("search.semantic-scholar", "S2_API_KEY", (r) => r.headers["x-api-key"] as string | undefined),
  search("search.core", "CORE_API_KEY", (r) => r.headers.authorization?.replace(/^Bearer /, "")),
  search("search.pubmed", "NCBI_API_KEY", (r) => new URL(r.path, "http://x").searchParams.get("api_key") ?? undefined),
];

// Every server answers what it can: a chat completion, an error otherwise (only the requests matter here).
const answer = () => loopback((req, res) => (req.path.endsWith("/chat/completions") ? json(res, 200, completion("An answer [1].")) : json(res, 500, { error: "loopback" })));

describe("a key goes only to the endpoint the user configured it for", () => {
  const servers: Loopback[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });
  const serve = async () => {
    const s = await answer();
    servers.push(s);
    return s;
  };
  const inputs = { question: { id: "q", text: "aspirin and stroke" } };

  it.each(CLIENTS)("$client: the configured server gets the key; a server the graph names is refused, and with consent gets none", async (c) => {
    Object.assign(process.env, KEYS);
    delete process.env.CITEFLOW_ALLOWED_ENDPOINTS;
    for (const v of ["OPENAI_BASE_URL", "QDRANT_URL", "CITEFLOW_NLI_MODEL"]) delete process.env[v];
    const configured = await serve();
    const named = await serve();
    if (c.urlVar) {
      // The user's own server: the key goes there.
      process.env[c.urlVar] = c.urlValue ? c.urlValue(configured.url) : configured.url;
      await run(c.graph(""), { inputs });
      expect(configured.requests.length, "a request to the configured server").toBeGreaterThan(0);
      expect(configured.requests.every((r) => c.sent(r) === KEYS[c.key])).toBe(true);
    }
    // A server only the graph names: listed by validate, refused before any request.
    expect(graphReach(Object.values((c.graph(named.url) as { nodes: Array<{ id: string; params: Record<string, unknown> }> }).nodes), envServices())).toContainEqual(
      expect.objectContaining({ param: c.param, kind: "endpoint", target: named.url, allowed: false }),
    );
    const refused = await run(c.graph(named.url), { inputs });
    expect(JSON.stringify(refused.result.nodes.map((n) => n.error?.message ?? ""))).toContain(`names the server ${named.url}, which you have not configured`);
    expect(named.requests).toHaveLength(0);
    // With the user's consent the request goes, without the key.
    process.env.CITEFLOW_ALLOWED_ENDPOINTS = named.url;
    await run(c.graph(named.url), { inputs });
    expect(named.requests.length, "a request to the consented server").toBeGreaterThan(0);
    for (const r of named.requests) {
      expect(c.sent(r) ?? "", `${c.client}: ${r.path}`).not.toBe(KEYS[c.key]);
      expect(JSON.stringify(r.headers) + r.path).not.toMatch(new RegExp(Object.values(KEYS).join("|")));
    }
  });
});

describe("$OPENAI_CUSTOM_HEADERS go only to the configured server", () => {
  const TOKEN = "gw-token-5b2e9c71a0d4f6e8";
  const chatGraph = (url: string) =>
    doc(
      { ...question, p: ["test.passages", { ids: ["d#0"], score: "bm25" }], g: ["generate.answer", { generator: "llm", model: "m", baseUrl: url, retries: 0 }] },
      ["q.question->g.question", "p.passages->g.passages"],
      qInputs,
    );

  it("the configured server gets them; a consented server the graph names gets none (the SDK would send them anywhere); the run store holds none", async () => {
    const configured = await answer();
    const named = await answer();
    try {
      process.env.OPENAI_BASE_URL = configured.url;
      process.env.OPENAI_CUSTOM_HEADERS = `X-Gateway-Token: ${TOKEN}\nX-Team: citeflow`;
      process.env.CITEFLOW_ALLOWED_ENDPOINTS = named.url;
      const dir = tempDir();
      const store = new RunStore(dir);
      await run(chatGraph(""), { ...store.runOptions(), inputs: { question: { id: "q", text: "aspirin" } } });
      expect(configured.requests.length).toBeGreaterThan(0);
      for (const r of configured.requests) expect([r.headers["x-gateway-token"], r.headers["x-team"]]).toEqual([TOKEN, "citeflow"]);
      await run(chatGraph(named.url), { ...store.runOptions(), inputs: { question: { id: "q", text: "aspirin" } } });
      expect(named.requests.length).toBeGreaterThan(0);
      for (const r of named.requests) expect([r.headers["x-gateway-token"], r.headers["x-team"]]).toEqual([undefined, undefined]);
      expect(
        filesUnder(dir)
          .map((f) => readFileSync(f, "utf8"))
          .join("\n"),
      ).not.toContain(TOKEN);
    } finally {
      await configured.close();
      await named.close();
    }
  });

  it("a line that is not `Name: value` is refused by its number, never its text", () => {
    expect(() => configFromEnv({ OPENAI_CUSTOM_HEADERS: `X-Team: citeflow\n${TOKEN}` })).toThrow(/^\$OPENAI_CUSTOM_HEADERS: line 2 is not "Name: value"$/);
  });
});

describe("a password in a server's URL is never shown or stored", () => {
  it("the search and library clients' errors name the server without its user name and password", async () => {
    const server = await answer();
    try {
      const at = new URL(server.url);
      const url = `${at.protocol}//reader:pw-in-url-8e2f1a@${at.host}/items?api_key=k-4d2a`;
      const err = await new HttpClient({ service: "Zotero", retries: 0, backoffMs: 1, secretParams: ["api_key"] }).get(url).catch((e: Error) => e);
      expect(String(err)).toContain(`Zotero (${server.url}/items?api_key=%5Bredacted%5D)`);
      expect(String(err)).not.toMatch(/pw-in-url|k-4d2a/);
    } finally {
      await server.close();
    }
  });

  it("OPENAI_BASE_URL with user:password: the model line, the cache key, the run's records and its errors carry the URL without them", async () => {
    const server = await answer();
    try {
      const secret = "pw-in-url-4c1d9e";
      const at = new URL(server.url);
      process.env.OPENAI_BASE_URL = `${at.protocol}//reader:${secret}@${at.host}/v1`;
      process.env.OPENAI_API_KEY = KEYS.OPENAI_API_KEY;
      process.env.CITEFLOW_CHAT_MODEL = "m";
      const services = envServices();
      const choice = services.chatChoice({ model: "", baseUrl: "" }, "generate.answer");
      expect(describeChat(choice)).toBe(`chat model m at ${server.url}/v1`);
      expect(JSON.stringify(services.chatIdentity({ model: "", baseUrl: "" }, "generate.answer"))).not.toContain(secret);
      const dir = tempDir();
      const store = new RunStore(dir);
      const g = doc(
        { ...question, p: ["test.passages", { ids: ["d#0"], score: "bm25" }], g: ["generate.answer", { generator: "llm", retries: 0 }] },
        ["q.question->g.question", "p.passages->g.passages"],
        qInputs,
      );
      const r = await run(g, { ...store.runOptions(), inputs: { question: { id: "q", text: "aspirin" } } });
      const written = filesUnder(dir).map((f) => readFileSync(f, "utf8"));
      expect(written.length).toBeGreaterThan(0);
      expect(written.join("\n") + JSON.stringify(r.result) + JSON.stringify(r.events)).not.toContain(secret);
    } finally {
      await server.close();
    }
  });
});
