import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { loadGraph, MemoryCache, runGraph, type Passage } from "@citeflow/core";
import { loadEmbedder } from "@citeflow/models";
import { hybridSearch, ingestInProgress, LanceStore, openScholarChunker, readBeirCorpus, weightedFusion, type CorpusDocument } from "@citeflow/retrieval";
import { doc, envServices, run, tempDir, testRegistry } from "../helpers.js";
import { restoreEnvAfterEach } from "../scifact.js";

const DATA = process.env.CITEFLOW_DATA;
const MODELS = process.env.CITEFLOW_MODELS;
if (!DATA || !MODELS) throw new Error("CITEFLOW_DATA and CITEFLOW_MODELS must be set (vitest.config.ts defaults them to the repository's data/ and tests/fixtures/models/)");
const corpus = join(DATA, "scifact", "corpus.jsonl");

async function firstDocs(n: number): Promise<CorpusDocument[]> {
  const out: CorpusDocument[] = [];
  for await (const d of readBeirCorpus(corpus)) {
    out.push(d);
    if (out.length === n) break;
  }
  return out;
}

let storeDir: string;
let docs: CorpusDocument[];
beforeAll(async () => {
  storeDir = mkdtempSync(join(tmpdir(), "citeflow-store-"));
  docs = await firstDocs(120);
  const store = await LanceStore.open(storeDir);
  const embedder = await loadEmbedder("static-use-en", { modelsDirs: [MODELS] });
  await store.ingest(docs, { chunker: openScholarChunker(), chunkerName: "openscholar-256", embedder, batchSize: 64 });
}, 120_000);

const q = (text: string) => ({ question: { id: "q", text } });
const graph = (retriever: [string, Record<string, unknown>], extra: Record<string, [string, Record<string, unknown>?]> = {}, edges: string[] = []) =>
  doc({ q: ["input.question"], r: [retriever[0], { store: storeDir, ...retriever[1] }], ...extra }, ["q.question->r.question", ...edges], { question: { type: "Question" } });
const passagesOf = (r: Awaited<ReturnType<typeof run>>, id: string) => {
  expect(r.byId[id]!.status, JSON.stringify(r.byId[id]!.error)).toBe("done");
  return r.byId[id]!.outputs!.passages as Passage[];
};
const docOf = (p: Passage) => p.id.split("#")[0];

describe("retrieval nodes on a LanceDB store of SciFact abstracts", () => {
  restoreEnvAfterEach("CITEFLOW_STORE", "CITEFLOW_RERANK_MODEL", "CITEFLOW_ALLOW_DOWNLOADS", "CITEFLOW_MODELS");
  it("retrieve.lexical finds a paper by the words of its title, scored bm25", async () => {
    const target = docs[7]!;
    const r = await run(graph(["retrieve.lexical", { k: 5 }]), { inputs: q(target.title) });
    const ps = passagesOf(r, "r");
    expect(docOf(ps[0]!)).toBe(target.docId);
    expect(ps).toHaveLength(5);
    expect(ps.every((p, i) => i === 0 || p.scores.bm25! <= ps[i - 1]!.scores.bm25!)).toBe(true);
    expect(ps[0]!.metadata.source).toBe("scifact");
  });

  it("retrieve.dense uses the store's embedder and scores by cosine", async () => {
    const target = docs[3]!;
    const r = await run(graph(["retrieve.dense", { k: 5, modelsDir: MODELS }]), { inputs: q(target.title) });
    const ps = passagesOf(r, "r");
    expect(ps.map(docOf)).toContain(target.docId);
    expect(ps[0]!.scores.dense!).toBeGreaterThan(0);
    expect(ps[0]!.scores.dense!).toBeLessThanOrEqual(1 + 1e-6);
  });

  it("retrieve.hybrid keeps every score and ranks by the Verif.ai fusion", async () => {
    const target = docs[11]!;
    const r = await run(graph(["retrieve.hybrid", { k: 10, candidates: 20, modelsDir: MODELS }]), { inputs: q(target.title) });
    const ps = passagesOf(r, "r");
    expect(docOf(ps[0]!)).toBe(target.docId);
    const top = ps[0]!.scores;
    expect(Object.keys(top)).toEqual(expect.arrayContaining(["bm25", "bm25_norm", "fused"]));
    expect(top.fused).toBeCloseTo(0.7 * (top.bm25_norm ?? 0) + 0.3 * (top.dense_norm ?? 0), 9);
    expect(ps.every((p, i) => i === 0 || p.scores.fused! <= ps[i - 1]!.scores.fused!)).toBe(true);
    const rrf = await run(graph(["retrieve.hybrid", { k: 10, fusion: "rrf", modelsDir: MODELS }]), { inputs: q(target.title) });
    expect(passagesOf(rrf, "r")[0]!.scores.rrf).toBeGreaterThan(0);
  });

  it("hybrid search reads text only for the fused top k, and ranks exactly as fusing the full lists does", async () => {
    const store = await LanceStore.open(storeDir);
    const embedder = await loadEmbedder("static-use-en", { modelsDirs: [MODELS] });
    for (const d of [docs[3]!, docs[40]!, docs[77]!]) {
      const [vector] = await embedder.embed([d.title]);
      const fast = await hybridSearch(store, d.title, vector!, { k: 10, candidates: 50, fusion: "verifai" });
      const [lex, dense] = await Promise.all([store.lexical(d.title, 50), store.dense(vector!, 50)]);
      const full = weightedFusion(
        [
          { passages: lex, score: "bm25" },
          { passages: dense, score: "dense" },
        ],
        [0.7, 0.3],
      ).slice(0, 10);
      expect(fast.map((p) => p.id)).toEqual(full.map((p) => p.id));
      fast.forEach((p, i) => {
        expect(p.text).toBe(full[i]!.text);
        expect(p.title).toBe(full[i]!.title);
        for (const [k, v] of Object.entries(full[i]!.scores)) expect(p.scores[k], k).toBeCloseTo(v, 6);
      });
    }
    expect(await store.passages([{ id: "nope#0" }])).toEqual(new Map());
    // A row id from another version (or another row) never yields the wrong passage.
    const [hit, other] = await store.lexicalIds(docs[3]!.title, 2);
    const read = await store.passages([
      { id: hit!.id, ref: other!.ref },
      { id: other!.id, ref: 1n << 40n },
    ]);
    expect([...read.keys()].sort()).toEqual([hit!.id, other!.id].sort());
    expect(read.get(hit!.id)!.title).toBe(docs[3]!.title);
  });

  it("a vector index probed whole gives the flat scan's results", async () => {
    const indexed = await LanceStore.open(tempDir());
    const embedder = await loadEmbedder("static-use-en", { modelsDirs: [MODELS] });
    await indexed.ingest(docs, { chunker: openScholarChunker(), chunkerName: "openscholar-256", embedder, vectorIndexMinRows: 100 });
    const meta = await indexed.meta();
    expect(meta?.vectorIndex).toEqual({ type: "ivf_flat", partitions: 1, nprobes: 1 });
    const flat = await LanceStore.open(storeDir);
    expect((await flat.meta())?.vectorIndex).toBeUndefined();
    for (const d of [docs[5]!, docs[60]!]) {
      const [vector] = await embedder.embed([d.title]);
      const a = await indexed.denseIds(vector!, 30);
      const b = await flat.denseIds(vector!, 30);
      expect(a.map((h) => h.id)).toEqual(b.map((h) => h.id));
      a.forEach((h, i) => expect(h.score).toBeCloseTo(b[i]!.score, 5));
    }
  });

  it("a store handle sees what another handle ingested once that ingest finishes", async () => {
    const dir = tempDir();
    const embedder = await loadEmbedder("static-use-en", { modelsDirs: [MODELS] });
    const o = { chunker: openScholarChunker(), chunkerName: "openscholar-256", embedder };
    const reader = await LanceStore.open(dir);
    await reader.ingest(docs.slice(0, 30), o);
    const late = docs[50]!;
    expect((await reader.lexicalIds(late.title, 3)).some((h) => h.id.startsWith(`${late.docId}#`))).toBe(false);
    const first = await reader.passages(await reader.lexicalIds(docs[2]!.title, 5));
    await (await LanceStore.open(dir)).ingest(docs.slice(0, 60), o);
    const hits = await reader.lexicalIds(late.title, 3);
    expect(hits[0]!.id.startsWith(`${late.docId}#`)).toBe(true);
    expect((await reader.passages(hits)).get(hits[0]!.id)!.title).toBe(late.title);
    expect(await reader.count()).toBe(docs.slice(0, 60).flatMap((d) => openScholarChunker()(d)).length);
    // Passages read before the other ingest are read again, the same.
    const again = await reader.passages([...first.keys()].map((id) => ({ id })));
    expect([...again.values()]).toEqual([...first.values()]);
  });

  it("server-side fusion asks for a Qdrant store", async () => {
    const r = await run(graph(["retrieve.hybrid", { fusion: "qdrant-rrf", modelsDir: MODELS }]), { inputs: q("aspirin") });
    expect(r.byId.r!.error?.message).toMatch(/fusion "qdrant-rrf" needs a Qdrant store \(qdrant:<collection>\); store .* is LanceDB/);
  });

  it("rejects fusion weights over 1 when the graph loads, naming node and field", () => {
    expect(() => loadGraph(graph(["retrieve.hybrid", { lexicalWeight: 0.8, denseWeight: 0.3 }]), testRegistry())).toThrow(
      /node "r" params.denseWeight: lexicalWeight \+ denseWeight must not exceed 1/,
    );
  });

  it("rerank.cross-encoder adds a rerank score, sorts by it, keeps the others; filter.per-paper caps each paper", async () => {
    const target = docs[20]!;
    const d = graph(["retrieve.lexical", { k: 30 }], { rr: ["rerank.cross-encoder", { model: "pair-rerank-scifact", modelsDir: MODELS, topN: 10 }], pp: ["filter.per-paper", { max: 1 }] }, [
      "q.question->rr.question",
      "r.passages->rr.passages",
      "rr.passages->pp.passages",
    ]);
    const r = await run(d, { inputs: q(target.title) });
    const ranked = passagesOf(r, "rr");
    expect(ranked).toHaveLength(10);
    expect(ranked.every((p) => typeof p.scores.rerank === "number" && typeof p.scores.bm25 === "number")).toBe(true);
    expect(ranked.every((p, i) => i === 0 || p.scores.rerank! <= ranked[i - 1]!.scores.rerank!)).toBe(true);
    const capped = passagesOf(r, "pp");
    expect(new Set(capped.map(docOf)).size).toBe(capped.length);
  });

  it("filter.join-paper gives each paper's retrieved passages as one, in the paper's order, where the paper ranked first", async () => {
    // A paper long enough for two 256-word windows, asked for by words of its second window only.
    const long = docs.find((d) => d.text.split(/\s+/).length > 300 && d.text.split(/\s+/).length <= 512)!;
    const second = long.text.split(/\s+/).slice(260, 300).join(" ");
    const d = graph(["retrieve.lexical", { k: 40 }], { jp: ["filter.join-paper"] }, ["r.passages->jp.passages"]);
    const r = await run(d, { inputs: q(`${long.title} ${second}`) });
    const retrieved = passagesOf(r, "r");
    const joined = passagesOf(r, "jp");
    expect(retrieved.map((p) => p.id).slice(0, 2)).toEqual([`${long.docId}#1`, `${long.docId}#0`]);
    expect(joined[0]).toMatchObject({ id: `${long.docId}#0`, text: long.text.split(/\s+/).join(" "), scores: retrieved[0]!.scores, metadata: { chunks: [0, 1] } });
    expect(joined.map(docOf)).toEqual([...new Set(retrieved.map(docOf))]);
  });

  it("rerank.cross-encoder with no model chosen uses Citeflow's trained reranker, fused with BM25 at the weight it was made with; a named missing model is an error", async () => {
    delete process.env.CITEFLOW_RERANK_MODEL;
    delete process.env.CITEFLOW_ALLOW_DOWNLOADS;
    // The suites' models home is empty: the models Citeflow ships are in the repository's models/.
    process.env.CITEFLOW_MODELS = [process.env.CITEFLOW_MODELS, fileURLToPath(new URL("../../models", import.meta.url))].join(delimiter);
    const edges = ["q.question->rr.question", "r.passages->rr.passages"];
    const target = docs[20]!;
    const d = graph(["retrieve.lexical", { k: 12 }], { rr: ["rerank.cross-encoder", { topN: 5 }] }, edges);
    const r = await run(d, { inputs: q(target.title) });
    const ranked = passagesOf(r, "rr");
    expect(ranked).toHaveLength(5);
    expect(ranked.every((p) => typeof p.scores.rerank === "number" && typeof p.scores.reranked === "number")).toBe(true);
    expect(ranked.every((p, i) => i === 0 || p.scores.reranked! <= ranked[i - 1]!.scores.reranked!)).toBe(true);
    // reranked = 0.5 · bm25 / top bm25 + 0.5 · rerank / top rerank, over the 12 passages given.
    const given = passagesOf(r, "r");
    const top = (k: string, ps: Passage[]) => Math.max(...ps.map((p) => p.scores[k]!));
    const all = r.byId.rr!.outputs!.passages as Passage[];
    expect(all[0]!.scores.reranked).toBeCloseTo(0.5 * (all[0]!.scores.bm25! / top("bm25", given)) + 0.5 * (all[0]!.scores.rerank! / Math.max(...ranked.map((p) => p.scores.rerank!))), 6);
    expect(ranked[0]!.id.split("#")[0]).toBe(target.docId);
    // lexicalWeight 0: the reranker alone.
    const alone = passagesOf(await run(graph(["retrieve.lexical", { k: 12 }], { rr: ["rerank.cross-encoder", { lexicalWeight: 0 }] }, edges), { inputs: q(target.title) }), "rr");
    expect(alone.every((p, i) => i === 0 || p.scores.rerank! <= alone[i - 1]!.scores.rerank!)).toBe(true);
    expect(alone.every((p) => p.scores.reranked === undefined)).toBe(true);
    const named = await run(graph(["retrieve.lexical", { k: 12 }], { rr: ["rerank.cross-encoder", { model: "no-such-reranker" }] }, edges), { inputs: q(target.title) });
    expect(named.byId.rr!.error!.message).toMatch(/model "no-such-reranker" not found/);
  });

  it("results are cached until the store changes", async () => {
    const dir = tempDir();
    const store = await LanceStore.open(dir);
    const embedder = await loadEmbedder("static-use-en", { modelsDirs: [MODELS] });
    const ingest = (d: CorpusDocument[]) => store.ingest(d, { chunker: openScholarChunker(), chunkerName: "openscholar-256", embedder });
    await ingest(docs.slice(0, 10));
    const cache = new MemoryCache();
    const g = doc({ q: ["input.question"], r: ["retrieve.lexical", { store: dir, k: 3 }] }, ["q.question->r.question"], { question: { type: "Question" } });
    const first = await run(g, { cache, inputs: q(docs[15]!.title) });
    expect((await run(g, { cache, inputs: q(docs[15]!.title) })).byId.r!.cache).toBe("hit");
    await ingest(docs.slice(0, 10)); // nothing new: the store is untouched, the cache stays valid
    expect((await run(g, { cache, inputs: q(docs[15]!.title) })).byId.r!.cache).toBe("hit");
    await ingest(docs.slice(10, 20));
    const after = await run(g, { cache, inputs: q(docs[15]!.title) });
    expect(after.byId.r!.cache).toBe("miss");
    expect(docOf(passagesOf(after, "r")[0]!)).toBe(docs[15]!.docId);
    expect(passagesOf(first, "r").map(docOf)).not.toContain(docs[15]!.docId);
  });

  it("a node without a store or query says what to connect or set", async () => {
    const saved = process.env.CITEFLOW_STORE;
    delete process.env.CITEFLOW_STORE;
    try {
      const r = await run(graph(["retrieve.lexical", { store: "" }]), { inputs: q("x") });
      expect(r.byId.r!.error!.message).toMatch(/no store: set the node's "store" param, or the store of the run \(--store, \$CITEFLOW_STORE\)/);
      const missing = await run(graph(["retrieve.lexical", { store: join(tempDir(), "nope") }]), { inputs: q("x") });
      expect(missing.byId.r!.error!.message).toMatch(/does not exist: build it with citeflow ingest/);
    } finally {
      if (saved !== undefined) process.env.CITEFLOW_STORE = saved;
    }
    const noQuery = await run(doc({ r: ["retrieve.lexical", { store: storeDir }] }));
    expect(noQuery.byId.r!.error!.message).toBe("retrieve.lexical: connect a query or a question");
  });

  it("a run started without services fails the node that asks for one, naming it", async () => {
    const r = await runGraph(loadGraph(graph(["retrieve.lexical", { store: storeDir }]), testRegistry()), { inputs: q("x") });
    expect(r.nodes.find((n) => n.id === "r")!.error!.message).toMatch(/started without services and a node asked for "storeIdentity"/);
  });

  it("the store a node names is the run's own: two runs with two services read two stores, whatever the environment says", async () => {
    const other = tempDir();
    const later = (await firstDocs(130)).slice(120);
    const lance = await LanceStore.open(other);
    await lance.ingest(later, { chunker: openScholarChunker(), chunkerName: "openscholar-256", embedder: await loadEmbedder("static-use-en", { modelsDirs: [MODELS] }) });
    process.env.CITEFLOW_STORE = storeDir; // the environment names the first store; the second run's services name the other
    const g = graph(["retrieve.lexical", { k: 3, store: "" }]);
    const [a, b] = await Promise.all([run(g, { inputs: q(later[2]!.title), services: envServices() }), run(g, { inputs: q(later[2]!.title), services: envServices().with({ store: other }) })]);
    expect(passagesOf(b, "r").map(docOf)[0]).toBe(later[2]!.docId);
    expect(passagesOf(a, "r").map(docOf)).not.toContain(later[2]!.docId);
    expect(a.byId.r!.cacheKey).not.toBe(b.byId.r!.cacheKey);
  });
});

describe("a store whose ingest has not finished", () => {
  it("records its progress in the ingest's lock while it runs; a search meanwhile is refused saying how far it is, and after a stop, how to resume", async () => {
    const dir = tempDir("citeflow-unfinished-");
    const embedder = await loadEmbedder("static-use-en", { modelsDirs: [MODELS!] });
    const seen: Array<ReturnType<typeof ingestInProgress>> = [];
    const search = (text: string) =>
      run(doc({ q: ["input.question"], r: ["retrieve.hybrid", { store: dir, k: 3, modelsDir: MODELS! }] }, ["q.question->r.question"], { question: { type: "Question" } }), { inputs: q(text) });
    const refusals: string[] = [];
    await (
      await LanceStore.open(dir)
    ).ingest(docs.slice(0, 40), {
      chunker: openScholarChunker(),
      chunkerName: "openscholar-256",
      embedder,
      batchSize: 16,
      expectedDocuments: 40,
      onProgress: () => {
        seen.push(ingestInProgress(dir));
      },
    });
    expect(seen[0]).toMatchObject({ pid: process.pid, total: 40 });
    expect(seen.map((s) => s!.documents).every((d, i, a) => d! > 0 && (i === 0 || d! >= a[i - 1]!))).toBe(true);
    expect(ingestInProgress(dir)).toBeUndefined(); // finished: the lock is gone
    // The state an ingest leaves while it runs (its meta says incomplete, its lock holds its progress), made by hand.
    const meta = JSON.parse(readFileSync(join(dir, "citeflow-store.json"), "utf8"));
    writeFileSync(join(dir, "citeflow-store.json"), JSON.stringify({ ...meta, incomplete: true }));
    writeFileSync(join(dir, "ingest.lock"), JSON.stringify({ pid: process.pid, startedAt: new Date(Date.now() - 60_000).toISOString(), documents: 12, total: 40 }));
    const during = await search(docs[3]!.title);
    refusals.push(during.byId.r!.error!.message);
    expect(during.byId.r!.status).toBe("error");
    expect(refusals[0]).toContain(`store ${dir} is still being indexed (process ${process.pid}`);
    expect(refusals[0]).toContain("12 of 40 documents (30 %), about 2 min left");
    // Its process gone (the lock left behind by a kill): the store says how to resume.
    const gone = spawnSync("true").pid!;
    writeFileSync(join(dir, "ingest.lock"), JSON.stringify({ pid: gone, startedAt: new Date().toISOString(), documents: 12, total: 40 }));
    const after = await search(docs[3]!.title);
    expect(after.byId.r!.error!.message).toContain("its last ingest stopped before the end. Run the same ingest again (it resumes where it stopped)");
    // Finished again: searched as before.
    writeFileSync(join(dir, "citeflow-store.json"), JSON.stringify(meta));
    expect(passagesOf(await search(docs[3]!.title), "r")).toHaveLength(3);
  }, 60_000);
});
