import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { randomUUID } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QdrantClient } from "@qdrant/js-client-rest";
import { loadEmbedder } from "@citeflow/models";
import {
  bm25DocumentVector,
  bm25QueryVector,
  ftsTokens,
  LanceStore,
  openScholarChunker,
  parseQdrantSpec,
  pointId,
  QdrantStore,
  QDRANT_REPLY_BYTES,
  boundedQdrantClient,
  REWEIGH_DRIFT,
  indexText,
  termCount,
  termIndex,
  type CorpusDocument,
} from "@citeflow/retrieval";
import { fakeQdrant, type FakeQdrant } from "./qdrant-loopback.js";
import { DATA, firstSciFactDocs, MODELS } from "../scifact.js";

const QDRANT_URL = process.env.QDRANT_URL;
const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));

describe("Qdrant store: what needs no server", () => {
  it("terms as the embedded store's full-text index makes them: letters and digits, long tokens dropped, stemmed, stop words dropped, accents folded", () => {
    expect(ftsTokens("The runners were running quickly in Zürich; it does not matter (n = 205, 31%).")).toEqual(["runner", "run", "quick", "zurich", "doe", "matter", "n", "205", "31"]);
    expect(ftsTokens(`hyper-tension ${"x".repeat(39)} ${"y".repeat(40)}`)).toEqual(["hyper", "tension", "x".repeat(39)]);
  });

  it("sparse vectors: BM25 term weights by hand, the IDF left to the server", () => {
    // "Dose dose trial" has 3 terms; with avgLength 3 the length norm is k1·1 = 1.2.
    const v = bm25DocumentVector("Dose dose trial", { avgLength: 3 });
    const at = (t: string) => v.values[v.indices.indexOf(termIndex(t))];
    expect(at("dose")).toBeCloseTo((2 * 2.2) / (2 + 1.2), 12);
    expect(at("trial")).toBeCloseTo((1 * 2.2) / (1 + 1.2), 12);
    expect(v.indices).toEqual([...v.indices].sort((a, b) => a - b));
    // Query: each term weighted by how often the query says it; stop words dropped.
    expect(bm25QueryVector("the dose of the dose")).toEqual({ indices: [termIndex("dose")], values: [2] });
  });

  it("point ids are UUIDs derived from passage ids; store specs name a server and collection", () => {
    expect(pointId("scifact:4983#0")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(pointId("scifact:4983#0")).toBe(pointId("scifact:4983#0"));
    expect(pointId("scifact:4983#1")).not.toBe(pointId("scifact:4983#0"));
    expect(parseQdrantSpec("qdrant:scifact", { QDRANT_URL: "http://q:6333", QDRANT_API_KEY: "k" })).toEqual({ url: "http://q:6333", collection: "scifact", apiKey: "k" });
    expect(parseQdrantSpec("qdrant:https://q.example:6333/collections/sf", {})).toEqual({ url: "https://q.example:6333", collection: "sf" });
    expect(() => parseQdrantSpec("qdrant:scifact", {})).toThrow(/set \$QDRANT_URL/);
    expect(() => parseQdrantSpec("qdrant:a/b", { QDRANT_URL: "http://q" })).toThrow(/not a Qdrant collection name/);
  });

  it("a server that is not there: a clear error naming it, from the store and from citeflow ingest", async () => {
    const port = await new Promise<number>((r) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const { port } = s.address() as { port: number };
        s.close(() => r(port));
      });
    });
    await expect(QdrantStore.open({ url: `http://127.0.0.1:${port}`, collection: "c", timeoutMs: 2000 })).rejects.toThrow(`Qdrant at http://127.0.0.1:${port} is not answering`);
    const child = spawn(process.execPath, [bin, "ingest", join(DATA, "scifact", "corpus.jsonl"), "--store", "qdrant:c", "--embedder", "static-use-en", "--models-dir", MODELS, "--limit", "5"], {
      env: { ...process.env, QDRANT_URL: `http://127.0.0.1:${port}` },
    });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    expect(await new Promise((r) => child.on("exit", r))).not.toBe(0);
    expect(err).toContain(`Qdrant at http://127.0.0.1:${port} is not answering`);
  });
});

describe("Qdrant client bounds", () => {
  it("a server that sends its headers and then trickles its body is cut off at the store's timeout, body included", async () => {
    const server = createHttpServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"result":');
      const t = setInterval(() => res.write(" "), 100);
      res.on("close", () => clearInterval(t));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as { port: number };
    // Cut off by the timeout (the test's own time limit would end it otherwise: the body never ends).
    await expect(QdrantStore.open({ url: `http://127.0.0.1:${port}`, collection: "c", timeoutMs: 1000 })).rejects.toThrow(`Qdrant at http://127.0.0.1:${port} is not answering`);
    server.closeAllConnections();
    server.close();
  });
});

describe("Qdrant client bounds: size", () => {
  it("a reply larger than the limit is cut off with the limit named, not buffered; one under it reads as usual", async () => {
    let sent = 0;
    const server = createHttpServer((req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      if (req.url?.includes("/exists")) {
        // An endless body: 1 MiB pieces for as long as the client reads.
        res.write('{"result":{"exists":true},"pad":"');
        const piece = "x".repeat(2 ** 20);
        const more = () => {
          while (sent < 512 * 2 ** 20 && res.write(piece)) sent += piece.length;
          if (sent < 512 * 2 ** 20) res.once("drain", more);
          else res.end('"}');
        };
        more();
      } else res.end(JSON.stringify({ result: { status: "green", points_count: 0, config: {} }, status: "ok", time: 0 }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as { port: number };
    const client = boundedQdrantClient({ url: `http://127.0.0.1:${port}`, timeoutMs: 60_000, replyBytes: 4 * 2 ** 20 });
    const e = await client.collectionExists("c").then(
      () => undefined,
      (err: unknown) => err as Error & { cause?: { code?: string } },
    );
    expect(e?.cause?.code).toBe("UND_ERR_RES_EXCEEDED_MAX_SIZE");
    // Cut off near the limit: the server got to send a few MiB more than it (socket buffers), not its 512.
    expect(sent).toBeLessThan(64 * 2 ** 20);
    // The store says which server and why.
    await expect(QdrantStore.open({ url: `http://127.0.0.1:${port}`, collection: "c", timeoutMs: 60_000, replyBytes: 4 * 2 ** 20 })).rejects.toThrow(
      `Qdrant at http://127.0.0.1:${port}: its reply was larger than Citeflow reads from Qdrant (QDRANT_REPLY_BYTES, 64 MiB by default): cut off`,
    );
    expect(QDRANT_REPLY_BYTES).toBe(64 * 2 ** 20);
    server.closeAllConnections();
    server.close();
  });
});

describe("Qdrant replies that are not Qdrant's", () => {
  it("a reply without a list of points, or points without a passage's payload, is named with the collection and what was read", async () => {
    let reply: unknown = 5;
    const server = createHttpServer((req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const answer = req.url?.includes("/exists") ? { exists: true } : reply;
      req.resume().on("end", () => res.end(JSON.stringify({ result: answer, status: "ok", time: 0 })));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as { port: number };
    const store = await QdrantStore.open({ url: `http://127.0.0.1:${port}`, collection: "c", timeoutMs: 5000 });
    const where = `Qdrant collection http://127.0.0.1:${port}/collections/c`;
    await expect(store.meta()).rejects.toThrow(`${where}: reading its meta failed: the server's reply to a read of its meta is not Qdrant's: no list of points in it`);
    reply = [{ id: 1, payload: { pid: 7 } }];
    await expect(store.passages([{ id: "a#0" }])).rejects.toThrow(`${where}: a point without a passage's payload (pid, title and text as citeflow ingest writes them)`);
    server.close();
  });
});

describe("Qdrant store against a loopback Qdrant (its REST shapes, in memory)", () => {
  let server: FakeQdrant;
  let docs: CorpusDocument[];
  const chunker = openScholarChunker();
  beforeAll(async () => {
    server = await fakeQdrant();
    docs = await firstSciFactDocs(70);
  });
  afterAll(() => server.close());
  const embedder = () => loadEmbedder("static-use-en", { modelsDirs: [MODELS] });

  it("lexical search scores as the embedded store's BM25, term for term: the corpus's real average length, weighted again when it drifts", async () => {
    const lance = await LanceStore.open(mkdtempSync(join(tmpdir(), "citeflow-lance-vs-qdrant-")));
    const e = await embedder();
    await lance.ingest(docs.slice(0, 60), { chunker, chunkerName: "openscholar-256", embedder: e });
    const q = await QdrantStore.open({ url: server.url, collection: "same-bm25" });
    // Small batches: the first batch's average length is not the corpus's, so the vectors are weighted again at the end.
    await q.ingest(docs.slice(0, 60), { chunker, chunkerName: "openscholar-256", embedder: e, batchSize: 8 });
    const passages = docs.slice(0, 60).flatMap((d) => chunker(d));
    const terms = passages.reduce((a, p) => a + termCount(indexText(p)), 0);
    expect((await q.meta())!.lexical).toEqual({ passages: passages.length, terms, weightedWith: terms / passages.length });
    expect(server.requests.some((r) => r.path.startsWith("/collections/same-bm25/points/vectors"))).toBe(true);
    const claims = readFileSync(join(DATA, "scifact", "claims_train.jsonl"), "utf8")
      .trim()
      .split("\n")
      .slice(0, 25)
      .map((l) => JSON.parse(l).claim as string);
    let compared = 0;
    for (const claim of [...claims, docs[3]!.title, "1-1% of the the cells"]) {
      const [a, b] = [await lance.lexical(claim, 10), await q.lexical(claim, 10)];
      expect(
        b.map((p) => p.id),
        claim,
      ).toEqual(a.map((p) => p.id));
      b.forEach((p, i) => expect(Math.abs(p.scores.bm25! - a[i]!.scores.bm25!) / a[i]!.scores.bm25!, claim).toBeLessThan(1e-5));
      compared += a.length;
    }
    expect(compared).toBeGreaterThan(100);

    // A few more documents move the average by less than REWEIGH_DRIFT: counted, not weighted again.
    const before = server.requests.length;
    await q.ingest(docs.slice(0, 62), { chunker, chunkerName: "openscholar-256", embedder: e, batchSize: 8 });
    const more = docs.slice(0, 62).flatMap((d) => chunker(d));
    const moreTerms = more.reduce((a, p) => a + termCount(indexText(p)), 0);
    const lexical = (await q.meta())!.lexical!;
    expect([lexical.passages, lexical.terms]).toEqual([more.length, moreTerms]);
    expect(Math.abs(moreTerms / more.length - lexical.weightedWith) / (moreTerms / more.length)).toBeLessThanOrEqual(REWEIGH_DRIFT);
    expect(server.requests.slice(before).some((r) => r.path.includes("/points/vectors"))).toBe(lexical.weightedWith !== terms / passages.length);
    // Removing documents takes their lengths out.
    await q.removeDocuments([docs[60]!.docId, docs[61]!.docId]);
    expect((await q.meta())!.lexical).toMatchObject({ passages: passages.length, terms });
  }, 120_000);

  it("a collection made before Citeflow kept BM25's statistics is counted from its texts and weighted again whole at its next ingest", async () => {
    const e = await embedder();
    const q = await QdrantStore.open({ url: server.url, collection: "legacy" });
    await q.ingest(docs.slice(0, 20), { chunker, chunkerName: "openscholar-256", embedder: e });
    // What an older Citeflow left: no statistics in the meta, no lengths on the points, vectors of other terms.
    const points = [...server.collections.get("legacy")!.points.values()];
    for (const p of points) {
      if ("citeflowStore" in p.payload) delete p.payload.lexical;
      else {
        delete p.payload.terms;
        p.vector.bm25 = { indices: [1], values: [1] };
      }
    }
    await q.ingest(docs.slice(0, 21), { chunker, chunkerName: "openscholar-256", embedder: e });
    const passages = docs.slice(0, 21).flatMap((d) => chunker(d));
    const terms = passages.reduce((a, p) => a + termCount(indexText(p)), 0);
    expect((await q.meta())!.lexical).toEqual({ passages: passages.length, terms, weightedWith: terms / passages.length });
    for (const p of server.collections.get("legacy")!.points.values())
      if (!("citeflowStore" in p.payload)) expect(p.vector.bm25).toEqual(bm25DocumentVector(indexText(p.payload as { title: string; text: string }), { avgLength: terms / passages.length }));
  });

  it("a new collection is spread by the cluster's size: a shard a peer, and from three peers two copies of each; the environment's settings win, bad ones are refused by name", async () => {
    const e = await embedder();
    const created = async (collection: string, peers: number, env: Record<string, string> = {}) => {
      server.peers = peers;
      const store = await QdrantStore.open(parseQdrantSpec(`qdrant:${collection}`, { QDRANT_URL: server.url, ...env }));
      await store.ingest(docs.slice(0, 2), { chunker, chunkerName: "openscholar-256", embedder: e });
      const c = server.collections.get(collection)!.config;
      return [c.shard_number, c.replication_factor, c.write_consistency_factor];
    };
    expect(await created("alone", 1)).toEqual([1, 1, 1]);
    expect(await created("three", 3)).toEqual([3, 2, 1]);
    expect(await created("five", 5)).toEqual([5, 2, 1]);
    expect(await created("set", 3, { QDRANT_SHARDS: "6", QDRANT_REPLICATION: "3", QDRANT_WRITE_CONSISTENCY: "2" })).toEqual([6, 3, 2]);
    expect(() => parseQdrantSpec("qdrant:x", { QDRANT_URL: server.url, QDRANT_REPLICATION: "two" })).toThrow('$QDRANT_REPLICATION="two": give a whole number from 1');
    expect(() => parseQdrantSpec("qdrant:x", { QDRANT_URL: server.url, QDRANT_SHARDS: "0" })).toThrow("$QDRANT_SHARDS");
    server.peers = 1;
  }, 60_000);

  it("samples filter by year and citations on the server, over the payload indexes a new collection gets", async () => {
    const dated = docs.slice(0, 12).map((d, i) => ({ ...d, metadata: { ...d.metadata, ...(i % 4 === 3 ? {} : { year: 2000 + i }), citationCount: i * 10 } }));
    const store = await QdrantStore.open({ url: server.url, collection: "sampled" });
    await store.ingest(dated, { chunker, chunkerName: "openscholar-256", embedder: await embedder() });
    expect(Object.fromEntries(server.collections.get("sampled")!.indexes)).toEqual({ chunk: "integer", doc_id: "keyword", "metadata.year": "integer", "metadata.citationCount": "integer" });
    server.requests.length = 0;
    const sample = await store.sample(20, { seed: 3, minYear: 2002, maxYear: 2009, minCitations: 40 });
    // Years 2004..2009 with a year (every 4th paper has none) and 40 citations or more: papers 4, 5, 6, 8, 9.
    expect(sample.map((p) => p.metadata.year).sort()).toEqual([2004, 2005, 2006, 2008, 2009]);
    const scroll = server.requests.find((r) => r.path.endsWith("/points/scroll"))!.body as { filter: { must: unknown[] } };
    expect(scroll.filter.must).toEqual([
      { key: "chunk", match: { value: 0 } },
      { key: "metadata.year", range: { gte: 2002, lte: 2009 } },
      { key: "metadata.citationCount", range: { gte: 40 } },
    ]);
  });

  it("a search that fails because a peer is down says which shards have no active copy, on which peers, and what to do", async () => {
    const store = await QdrantStore.open({ url: server.url, collection: "same-bm25" });
    server.failSearches = "Service internal error: No active replica for shard 1";
    server.shards = {
      peer_id: 1,
      shard_count: 3,
      local_shards: [{ shard_id: 0, state: "Active" }],
      remote_shards: [
        { shard_id: 1, peer_id: 2, state: "Dead" },
        { shard_id: 2, peer_id: 3, state: "Active" },
      ],
    };
    try {
      const err = await store.lexical("aspirin", 5).then(
        () => undefined,
        (e: Error) => e.message,
      );
      expect(err).toContain(`Qdrant collection ${server.url}/collections/same-bm25: a search failed`);
      expect(err).toContain("No active replica for shard 1");
      expect(err).toContain("1 of 3 shards have no active copy: shard 1 (peer 2: Dead). Bring the peer back");
      expect(err).toContain("$QDRANT_REPLICATION=2");
      // With a second copy on another peer the hint about replication is not given.
      server.shards.remote_shards.push({ shard_id: 1, peer_id: 3, state: "Dead" });
      const err2 = await store.lexical("aspirin", 5).then(
        () => undefined,
        (e: Error) => e.message,
      );
      expect(err2).toContain("shard 1 (peer 2: Dead, peer 3: Dead)");
      expect(err2).not.toContain("QDRANT_REPLICATION");
    } finally {
      server.failSearches = undefined;
      server.shards = undefined;
    }
    expect((await store.lexical(docs[3]!.title, 5))[0]!.id.startsWith(`${docs[3]!.docId}#`)).toBe(true);
  });
});

if (!QDRANT_URL) console.warn("\n⚠ SKIPPED: the Qdrant store suite against a real server (tests/retrieval/qdrant.test.ts). Set QDRANT_URL=http://host:6333 to run it.\n");

describe.skipIf(!QDRANT_URL)(`Qdrant store against a real server (QDRANT_URL=${QDRANT_URL ?? "unset: SKIPPED"})`, () => {
  const collection = `citeflow_test_${randomUUID().slice(0, 8)}`;
  let docs: CorpusDocument[];
  let store: QdrantStore;
  const chunker = openScholarChunker();
  beforeAll(async () => {
    docs = await firstSciFactDocs(120);
    store = await QdrantStore.open({ url: QDRANT_URL!, collection });
  });
  afterAll(async () => {
    await new QdrantClient({ url: QDRANT_URL!, checkCompatibility: false }).deleteCollection(collection).catch(() => undefined);
  });

  it("ingests in batches, resumes without duplicates or re-embedding, and records its meta", async () => {
    const embedder = await loadEmbedder("static-use-en", { modelsDirs: [MODELS] });
    let embedded = 0;
    const counting = { id: embedder.id, embed: async (t: string[]) => ((embedded += t.length), embedder.embed(t)) };
    const first = await store.ingest(docs.slice(0, 50), { chunker, chunkerName: "openscholar-256", embedder: counting, batchSize: 16 });
    expect(first.added).toBe(first.passages);
    embedded = 0;
    const all = await store.ingest(docs, { chunker, chunkerName: "openscholar-256", embedder: counting, batchSize: 16 });
    expect(all.skipped).toBe(first.passages);
    expect(embedded).toBe(all.added);
    const passages = docs.flatMap((d) => chunker(d)).length;
    expect(await store.count()).toBe(passages);
    expect(await store.meta()).toMatchObject({ embedder: "static-use-en", chunker: "openscholar-256", passages, dimensions: 256 });
    await expect(store.ingest(docs, { chunker, chunkerName: "verifai-512", embedder })).rejects.toThrow(/would mix them/);
  }, 120_000);

  it("lexical, dense and server-fused search find a paper by its title, with their scores", async () => {
    const embedder = await loadEmbedder("static-use-en", { modelsDirs: [MODELS] });
    const target = docs[17]!;
    const [vector] = await embedder.embed([target.title]);
    const lexical = await store.lexical(target.title, 5);
    expect(lexical[0]!.id.startsWith(`${target.docId}#`)).toBe(true);
    expect(lexical[0]!.scores.bm25).toBeGreaterThan(0);
    expect(lexical[0]!.title).toBe(target.title);
    const dense = await store.dense(vector!, 5);
    expect(dense.map((p) => p.id.split("#")[0])).toContain(target.docId);
    expect(dense[0]!.scores.dense).toBeGreaterThan(0);
    for (const fusion of ["rrf", "dbsf"] as const) {
      const fused = await store.fused(target.title, vector!, 5, { fusion, candidates: 50 });
      expect(fused[0]!.id.startsWith(`${target.docId}#`)).toBe(true);
      expect(fused[0]!.scores[fusion]).toBeGreaterThan(0);
    }
    await expect(store.dense([1, 2, 3], 5)).rejects.toThrow(/3 dimensions; store .* holds 256/);
    const sample = await store.sample(10, { seed: 1 });
    expect(sample).toHaveLength(10);
    expect(await store.sample(10, { seed: 1 })).toEqual(sample);
  });
});
