import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QdrantClient } from "@qdrant/js-client-rest";
import { bm25Scores, contentTokens } from "@citeflow/core";
import { loadEmbedder } from "@citeflow/models";
import { bm25DocumentVector, bm25QueryVector, openScholarChunker, parseQdrantSpec, pointId, QdrantStore, termIndex, type CorpusDocument } from "@citeflow/retrieval";
import { DATA, firstSciFactDocs, MODELS } from "../scifact.js";

const QDRANT_URL = process.env.QDRANT_URL;
const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));

describe("Qdrant store: what needs no server", () => {
  it("sparse vectors: BM25 term weights by hand, the IDF left to the server", () => {
    // "dose dose trial" has 3 content tokens; with avgLength 3 the length norm is k1·1 = 1.2.
    const v = bm25DocumentVector("Dose dose trial", { avgLength: 3 });
    const at = (t: string) => v.values[v.indices.indexOf(termIndex(t))];
    expect(at("dose")).toBeCloseTo((2 * 2.2) / (2 + 1.2), 12);
    expect(at("trial")).toBeCloseTo((1 * 2.2) / (1 + 1.2), 12);
    expect(v.indices).toEqual([...v.indices].sort((a, b) => a - b));
    // Query: each distinct term once, weight 1; stop words dropped.
    expect(bm25QueryVector("the dose of the dose")).toEqual({ indices: [termIndex("dose")], values: [1] });
    // Σ idf·weight over query terms is BM25 as our in-memory scorer computes it.
    const texts = ["aspirin lowers stroke risk in trials", "statins lower cholesterol", "aspirin and statins in stroke prevention trials"];
    const n = texts.length;
    const df = (t: string) => texts.filter((x) => contentTokens(x).includes(t)).length;
    const avg = texts.reduce((a, x) => a + contentTokens(x).length, 0) / n;
    const query = "aspirin stroke";
    const viaSparse = texts.map((x) => {
      const d = bm25DocumentVector(x, { avgLength: avg });
      return bm25QueryVector(query).indices.reduce((s, i) => {
        const term = contentTokens(query).find((t) => termIndex(t) === i)!;
        const idf = Math.log(1 + (n - df(term) + 0.5) / (df(term) + 0.5));
        const j = d.indices.indexOf(i);
        return s + (j < 0 ? 0 : idf * d.values[j]!);
      }, 0);
    });
    bm25Scores(query, texts).forEach((s, i) => expect(viaSparse[i]).toBeCloseTo(s, 9));
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
