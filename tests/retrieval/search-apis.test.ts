import { afterEach, describe, expect, it, vi } from "vitest";
import { Arxiv, CoreApi, HttpClient, PubMed, SearchApiError, SemanticScholar } from "@citeflow/retrieval";
import { RunStore } from "@citeflow/runstore";
import { json, loopback, type Loopback } from "../models/loopback.js";
import { doc, run, tempDir } from "../helpers.js";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const fast = { backoffMs: 5, requestsPerSecond: 1000 };

const s2Body = {
  total: 3,
  offset: 0,
  data: [
    { paperId: "aaa", title: "Low cited", abstract: "About aspirin.", year: 2019, citationCount: 3, url: "https://example.org/aaa" },
    { paperId: "bbb", title: "Highly cited", abstract: "Aspirin and stroke.", year: 2015, citationCount: 900, url: null },
    { paperId: "ccc", title: "No abstract", abstract: null, year: 2020, citationCount: 50 },
  ],
};

describe("HTTP client for search APIs", () => {
  it("retries 429 (honouring Retry-After) and 500, then succeeds", async () => {
    server = await loopback((req, res) =>
      req.n === 0 ? json(res, 429, { message: "Too Many Requests" }, { "retry-after": "0" }) : req.n === 1 ? json(res, 500, "boom") : json(res, 200, { ok: true }),
    );
    const c = new HttpClient({ service: "Test", ...fast });
    expect(await c.getJson(`${server.url}/x`)).toEqual({ ok: true });
    expect(server.requests).toHaveLength(3);
  });

  it("gives up after its retries with the service, URL and status", async () => {
    server = await loopback((_req, res) => json(res, 503, { message: "overloaded" }));
    const c = new HttpClient({ service: "Test", retries: 2, ...fast });
    await expect(c.get(`${server.url}/x?q=1`)).rejects.toThrow(new RegExp(`Test \\(${server.url}/x\\?q=1\\): HTTP 503 .*gave up after 3 attempts`));
    expect(server.requests).toHaveLength(3);
  });

  it("does not retry a client error", async () => {
    server = await loopback((_req, res) => json(res, 400, { message: "bad query" }));
    const c = new HttpClient({ service: "Test", ...fast });
    const err = await c.get(`${server.url}/x`).catch((e) => e);
    expect(err).toBeInstanceOf(SearchApiError);
    expect((err as SearchApiError).status).toBe(400);
    expect(server.requests).toHaveLength(1);
  });

  it("times out each attempt", async () => {
    server = await loopback(() => undefined);
    const c = new HttpClient({ service: "Test", timeoutMs: 50, retries: 1, ...fast });
    await expect(c.get(`${server.url}/x`)).rejects.toThrow(/timed out after 50 ms \(gave up after 2 attempts\)/);
  });

  it("bounds each answer's body: one that trickles past the timeout, or runs past maxBytes (an endless attachment), fails by URL", async () => {
    const timers: NodeJS.Timeout[] = [];
    server = await loopback((req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const t = setInterval(() => res.write(req.path === "/slow" ? "." : Buffer.alloc(64 * 1024)), req.path === "/slow" ? 200 : 1);
      timers.push(t);
      res.on("close", () => clearInterval(t));
    });
    try {
      const c = new HttpClient({ service: "Test", timeoutMs: 300, retries: 0, maxBytes: 2 ** 20, ...fast });
      await expect(c.get(`${server.url}/slow`)).rejects.toThrow(`Test (${server.url}/slow): timed out after 300 ms while reading the answer`);
      await expect(c.get(`${server.url}/endless`)).rejects.toThrow(`Test (${server.url}/endless): the answer is more than the ${2 ** 20} bytes allowed: cut off`);
    } finally {
      timers.forEach(clearInterval);
    }
  });

  it("rejects malformed JSON", async () => {
    server = await loopback((_req, res) => res.end("{not json"));
    const c = new HttpClient({ service: "Test", ...fast });
    await expect(c.getJson(`${server.url}/x`)).rejects.toThrow(/malformed JSON response/);
  });

  it("waits as it must, on a clock of its own: N a second, a 429's Retry-After, a server's Backoff", async () => {
    // When each request leaves (its fetch call), by a fake clock: the waits are the client's own, to the millisecond.
    vi.useFakeTimers();
    const left: Array<[string, number]> = [];
    const replies: Record<string, Array<() => Response>> = {
      "/limited": [() => new Response("slow down", { status: 429, headers: { "retry-after": "1" } }), () => new Response("{}")],
      "/backoff": [() => new Response("{}", { headers: { backoff: "2" } })],
    };
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      const path = new URL(String(input)).pathname;
      left.push([path, Date.now()]);
      return replies[path]?.shift()?.() ?? new Response("{}");
    });
    try {
      const t0 = Date.now();
      const at = (path: string) => left.filter(([p]) => p === path).map(([, t]) => t - t0);
      const c = new HttpClient({ service: "Test", requestsPerSecond: 20, backoffMs: 5 });
      const all = Promise.all(["a", "b", "c"].map((p) => c.get(`http://search.test/${p}`)));
      await vi.advanceTimersByTimeAsync(200);
      await all;
      // 20 a second: 50 ms apart, the first at once.
      expect([...at("/a"), ...at("/b"), ...at("/c")]).toEqual([0, 50, 100]);
      const slow = new HttpClient({ service: "Test", requestsPerSecond: 1000, backoffMs: 5 });
      const limited = slow.get("http://search.test/limited");
      await vi.advanceTimersByTimeAsync(1500);
      await limited;
      const [first, retry] = at("/limited");
      expect(retry! - first!).toBe(1000);
      // A server's Backoff holds the client's next request, whichever it is.
      await slow.get("http://search.test/backoff");
      const next = slow.get("http://search.test/after");
      await vi.advanceTimersByTimeAsync(2500);
      await next;
      expect(at("/after")[0]! - at("/backoff")[0]!).toBe(2000);
    } finally {
      vi.useRealTimers();
      vi.restoreAllMocks();
    }
  });
});

describe("search API clients against loopback servers speaking their formats", () => {
  it("Semantic Scholar: abstracts only, citation floor, most cited first, key as header", async () => {
    server = await loopback((_req, res) => json(res, 200, s2Body));
    const s2 = new SemanticScholar({ baseUrl: server.url, apiKey: "s2-key-123456", ...fast });
    const ps = await s2.search("aspirin stroke", { limit: 5, minCitations: 1, sortByCitations: true });
    expect(ps.map((p) => p.id)).toEqual(["s2:bbb#0", "s2:aaa#0"]);
    expect(ps[0]).toMatchObject({ title: "Highly cited", text: "Aspirin and stroke.", metadata: { source: "semantic-scholar", year: 2015, citationCount: 900 }, scores: { search: 1 } });
    const req = server.requests[0]!;
    expect(req.path).toMatch(/^\/graph\/v1\/paper\/search\?query=aspirin\+stroke&limit=10&fields=title%2Cabstract%2Cyear%2CcitationCount%2Curl$/);
    expect(req.headers["x-api-key"]).toBe("s2-key-123456");
    expect((await s2.search("x", { limit: 5, minCitations: 100 })).map((p) => p.id)).toEqual(["s2:bbb#0"]);
  });

  it("Semantic Scholar: a body of the wrong shape is an error", async () => {
    server = await loopback((_req, res) => json(res, 200, { data: "nope" }));
    await expect(new SemanticScholar({ baseUrl: server.url, ...fast }).search("x", { limit: 1 })).rejects.toThrow(/unexpected response shape/);
  });

  it("CORE: v3 works search with a bearer key", async () => {
    server = await loopback((_req, res) =>
      json(res, 200, {
        totalHits: 2,
        limit: 2,
        offset: 0,
        results: [
          { id: 42, title: "Open paper", abstract: "An abstract.", yearPublished: 2021, doi: "10.1/x" },
          { id: 43, title: "No abstract" },
        ],
      }),
    );
    const ps = await new CoreApi({ baseUrl: server.url, apiKey: "core-key-123456", ...fast }).search("open access", { limit: 2 });
    expect(ps).toEqual([{ id: "core:42#0", title: "Open paper", text: "An abstract.", metadata: { source: "core", year: 2021, url: "https://doi.org/10.1/x" }, scores: { search: 1 } }]);
    expect(server.requests[0]!.path).toBe("/v3/search/works?q=open+access&limit=2");
    expect(server.requests[0]!.headers.authorization).toBe("Bearer core-key-123456");
  });

  it("PubMed: esearch then efetch, structured abstracts, relevance order kept, key redacted in errors", async () => {
    const efetch = `<?xml version="1.0" ?>
<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2024//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_240101.dtd">
<PubmedArticleSet>
 <PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">222</PMID><Article PubModel="Print">
  <Journal><JournalIssue CitedMedium="Internet"><PubDate><Year>2018</Year><Month>Mar</Month></PubDate></JournalIssue></Journal>
  <ArticleTitle>Aspirin for <i>primary</i> prevention.</ArticleTitle>
  <Abstract><AbstractText Label="BACKGROUND" NlmCategory="BACKGROUND">Aspirin is used.</AbstractText><AbstractText Label="RESULTS">Stroke fell.</AbstractText></Abstract>
 </Article></MedlineCitation></PubmedArticle>
 <PubmedArticle><MedlineCitation><PMID Version="1">111</PMID><Article><Journal><JournalIssue><PubDate><Year>2020</Year></PubDate></JournalIssue></Journal>
  <ArticleTitle>Plain abstract</ArticleTitle><Abstract><AbstractText>One paragraph.</AbstractText></Abstract></Article></MedlineCitation></PubmedArticle>
</PubmedArticleSet>`;
    server = await loopback((req, res) => {
      if (req.path.startsWith("/esearch.fcgi")) return json(res, 200, { header: { type: "esearch" }, esearchresult: { count: "2", retmax: "2", idlist: ["111", "222"] } });
      res.writeHead(200, { "content-type": "text/xml" });
      res.end(efetch);
    });
    const pm = new PubMed({ baseUrl: server.url, apiKey: "ncbi-key-123456", ...fast });
    const ps = await pm.search("aspirin", { limit: 2 });
    expect(ps.map((p) => p.id)).toEqual(["pubmed:111#0", "pubmed:222#0"]);
    expect(ps[1]).toMatchObject({
      title: expect.stringContaining("Aspirin for"),
      text: "BACKGROUND: Aspirin is used. RESULTS: Stroke fell.",
      metadata: { source: "pubmed", year: 2018 },
      scores: { search: 0.5 },
    });
    expect(server.requests[1]!.path).toBe("/efetch.fcgi?db=pubmed&id=111%2C222&retmode=xml&api_key=ncbi-key-123456");
    await server.close();
    server = await loopback((_req, res) => json(res, 500, "down"));
    const err = await new PubMed({ baseUrl: server.url, apiKey: "ncbi-key-123456", retries: 0, ...fast }).search("x", { limit: 1 }).catch((e) => e as Error);
    expect(err.message).toContain("api_key=%5Bredacted%5D");
    expect(err.message).not.toContain("ncbi-key-123456");
  });

  it("arXiv: Atom entries become passages", async () => {
    const atom = `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <title type="html">ArXiv Query: search_query=all:retrieval</title>
  <entry>
    <id>http://arxiv.org/abs/2401.01234v2</id>
    <published>2024-01-03T18:00:00Z</published>
    <title>Retrieval-Augmented
      Generation for Science</title>
    <summary>  We study retrieval.
    It helps.  </summary>
    <author><name>A. Author</name></author>
    <link href="http://arxiv.org/abs/2401.01234v2" rel="alternate" type="text/html"/>
  </entry>
</feed>`;
    server = await loopback((_req, res) => {
      res.writeHead(200, { "content-type": "application/atom+xml" });
      res.end(atom);
    });
    const ps = await new Arxiv({ baseUrl: server.url, ...fast }).search("retrieval", { limit: 3 });
    expect(ps).toEqual([
      {
        id: "arxiv:2401.01234v2#0",
        title: "Retrieval-Augmented Generation for Science",
        text: "We study retrieval. It helps.",
        metadata: { source: "arxiv", url: "http://arxiv.org/abs/2401.01234v2", year: 2024 },
        scores: { search: 1 },
      },
    ]);
    expect(server.requests[0]!.path).toBe("/api/query?search_query=all%3Aretrieval&start=0&max_results=3");
  });
});

describe("search nodes", () => {
  it("search.semantic-scholar runs in a graph; its key comes from the environment, never goes to a mirror the graph names, and is never stored", async () => {
    server = await loopback((_req, res) => json(res, 200, s2Body));
    const saved = { k: process.env.S2_API_KEY, a: process.env.CITEFLOW_ALLOWED_ENDPOINTS };
    process.env.S2_API_KEY = "s2-secret-key-987654321";
    delete process.env.CITEFLOW_ALLOWED_ENDPOINTS;
    try {
      const dir = tempDir();
      const store = new RunStore(dir);
      const d = doc({ q: ["input.question"], s: ["search.semantic-scholar", { baseUrl: server.url, limit: 2, minCitations: 5 }] }, ["q.question->s.question"], { question: { type: "Question" } });
      const inputs = { question: { id: "q", text: "aspirin" } };
      // A mirror named by the graph alone is refused before any request.
      const refused = await run(d, { inputs });
      expect(refused.byId.s!.error!.message).toContain(`params.baseUrl names the server ${server.url}, which you have not configured`);
      expect(server.requests).toHaveLength(0);
      process.env.CITEFLOW_ALLOWED_ENDPOINTS = server.url;
      const r = await run(d, { ...store.runOptions(), inputs });
      expect(r.byId.s!.status).toBe("done");
      expect((r.byId.s!.outputs!.passages as Array<{ id: string }>).map((p) => p.id)).toEqual(["s2:bbb#0"]);
      // Consent lets the request go, never the key: it is for Semantic Scholar's own API.
      expect(server.requests[0]!.headers["x-api-key"]).toBeUndefined();
      const files: string[] = [];
      const walk = (p: string) => readdirSync(p, { withFileTypes: true }).forEach((e) => (e.isDirectory() ? walk(join(p, e.name)) : files.push(readFileSync(join(p, e.name), "utf8"))));
      walk(dir);
      expect(files.join("\n")).not.toContain("s2-secret-key-987654321");
    } finally {
      for (const [k, v] of [
        ["S2_API_KEY", saved.k],
        ["CITEFLOW_ALLOWED_ENDPOINTS", saved.a],
      ] as const)
        v === undefined ? delete process.env[k] : (process.env[k] = v);
    }
  });
});
