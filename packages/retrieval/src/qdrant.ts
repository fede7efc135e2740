import { createHash } from "node:crypto";
import { QdrantClient } from "@qdrant/js-client-rest";
import { parsePassageId, type Passage } from "@citeflow/core";
import { indexText } from "./chunkers.js";
import type { CorpusDocument } from "./document.js";
import { bm25DocumentVector, bm25QueryVector, type Bm25Params } from "./sparse.js";
import { checkCompatible, checkDimensions, ingestBatches, sampleOf, type IngestOptions, type IngestResult, type PassageStore, type SampleOptions, type ScoredId, type StoreMeta } from "./store.js";

/** The point holding the store's meta: no vectors, so no search ever returns it. */
const META_ID = "00000000-0000-0000-0000-000000000000";
const DENSE = "dense";
const SPARSE = "bm25";

export interface QdrantStoreOptions {
  /** Server URL, e.g. http://localhost:6333. */
  url: string;
  collection: string;
  apiKey?: string;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** BM25 parameters of the sparse vectors, fixed when the collection is created (avgLength default 256 tokens). */
  bm25?: Bm25Params;
}

interface Payload {
  pid: string;
  doc_id: string;
  chunk: number;
  title: string;
  text: string;
  metadata: Passage["metadata"];
}

/** Qdrant point ids are UUIDs or integers: a passage's point id is a UUID made from its id. */
export function pointId(passageId: string): string {
  const h = createHash("sha256").update(passageId).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const SPEC_WITH_URL = /^(https?:\/\/.+?)\/collections\/([^/]+)\/?$/;

/** The server a `qdrant:<url>/collections/<collection>` spec names itself; undefined for `qdrant:<collection>` (on $QDRANT_URL). */
export function qdrantSpecUrl(spec: string): string | undefined {
  return SPEC_WITH_URL.exec(spec.replace(/^qdrant:/, ""))?.[1];
}

/** Where a `qdrant:` store spec points: `qdrant:<collection>` on $QDRANT_URL, or `qdrant:<url>/collections/<collection>`. */
export function parseQdrantSpec(spec: string, env: Record<string, string | undefined> = process.env): QdrantStoreOptions {
  const rest = spec.replace(/^qdrant:/, "");
  const m = SPEC_WITH_URL.exec(rest);
  const url = m ? m[1]! : env.QDRANT_URL;
  const collection = m ? m[2]! : rest;
  if (!url) throw new Error(`store "${spec}": no Qdrant server: set $QDRANT_URL or write qdrant:http://host:6333/collections/<name>`);
  if (!/^[A-Za-z0-9_.-]+$/.test(collection)) throw new Error(`store "${spec}": "${collection}" is not a Qdrant collection name`);
  return { url, collection, ...(env.QDRANT_API_KEY ? { apiKey: env.QDRANT_API_KEY } : {}) };
}

/**
 * The same store on a Qdrant server: a named dense vector (cosine) and a sparse BM25-style vector
 * per passage, the IDF applied by the server (`modifier: "idf"`), and server-side fusion (RRF or
 * DBSF) over both. Ingest is batched, idempotent and resumable as LanceStore's: point ids derive
 * from passage ids, passages already there are not embedded again, every batch waits for the write.
 */
export class QdrantStore implements PassageStore {
  private constructor(
    private readonly client: QdrantClient,
    private readonly o: QdrantStoreOptions,
  ) {}

  static async open(o: QdrantStoreOptions): Promise<QdrantStore> {
    const client = new QdrantClient({ url: o.url, ...(o.apiKey ? { apiKey: o.apiKey } : {}), timeout: o.timeoutMs ?? 30_000, checkCompatibility: false });
    try {
      await client.collectionExists(o.collection);
    } catch (e) {
      throw new Error(`Qdrant at ${o.url} is not answering: ${message(e)}`, { cause: e });
    }
    return new QdrantStore(client, o);
  }

  get location(): string {
    return `${this.o.url.replace(/\/$/, "")}/collections/${this.o.collection}`;
  }

  async #exists(): Promise<boolean> {
    return (await this.client.collectionExists(this.o.collection)).exists;
  }

  async #need(): Promise<void> {
    if (!(await this.#exists())) throw new Error(`Qdrant collection ${this.location} does not exist: ingest a corpus first (citeflow ingest … --store qdrant:${this.o.collection})`);
  }

  /** A collection's vector size is fixed when it is created: its meta is read once for searches. */
  #dimensionsMeta: StoreMeta | undefined;
  async #checkDimensions(vector: number[]): Promise<void> {
    this.#dimensionsMeta ??= await this.meta();
    checkDimensions(this.location, this.#dimensionsMeta, vector);
  }

  async meta(): Promise<StoreMeta | undefined> {
    if (!(await this.#exists())) return undefined;
    const [point] = await this.client.retrieve(this.o.collection, { ids: [META_ID], with_payload: true, with_vector: false });
    return point?.payload?.citeflowStore ? (point.payload as unknown as StoreMeta) : undefined;
  }

  async count(): Promise<number> {
    if (!(await this.#exists())) return 0;
    return (await this.client.count(this.o.collection, { exact: true, filter: { must_not: [{ has_id: [META_ID] }] } })).count;
  }

  async #create(dimensions: number): Promise<void> {
    await this.client.createCollection(this.o.collection, {
      vectors: { [DENSE]: { size: dimensions, distance: "Cosine" } },
      sparse_vectors: { [SPARSE]: { modifier: "idf" } },
    });
    await this.client.createPayloadIndex(this.o.collection, { field_name: "chunk", field_schema: "integer", wait: true });
    await this.client.createPayloadIndex(this.o.collection, { field_name: "doc_id", field_schema: "keyword", wait: true });
  }

  async ingest(docs: AsyncIterable<CorpusDocument> | Iterable<CorpusDocument>, o: IngestOptions): Promise<IngestResult> {
    const before = await this.meta();
    checkCompatible(this.location, before, o);
    let exists = await this.#exists();
    // As in the LanceDB store: the meta goes in before the first batch, so a resume with another
    // embedder or chunker is refused instead of mixed.
    let announced = !!before;
    const { dimensions: embedded, ...result } = await ingestBatches(docs, o, {
      known: async (batch) =>
        exists
          ? new Set((await this.client.retrieve(this.o.collection, { ids: batch.map((p) => pointId(p.id)), with_payload: ["pid"], with_vector: false })).map((p) => String(p.payload!.pid)))
          : new Set(),
      write: async (batch, vectors) => {
        if (!exists) {
          await this.#create(vectors[0]!.length);
          exists = true;
        }
        if (!announced) {
          await this.#writeMeta({
            citeflowStore: 1,
            embedder: o.embedder.id,
            dimensions: vectors[0]!.length,
            chunker: o.chunkerName,
            passages: await this.count(),
            incomplete: true,
            updatedAt: new Date().toISOString(),
          });
          announced = true;
        }
        await this.client.upsert(this.o.collection, {
          wait: true,
          points: batch.map((p, i) => ({
            id: pointId(p.id),
            vector: { [DENSE]: vectors[i]!, [SPARSE]: bm25DocumentVector(indexText(p), this.o.bm25) },
            payload: { pid: p.id, doc_id: parsePassageId(p.id).docId, chunk: parsePassageId(p.id).chunk, title: p.title, text: p.text, metadata: p.metadata } satisfies Payload,
          })),
        });
      },
    });
    const dimensions = embedded || before?.dimensions || 0;
    if (!exists) throw new Error(`no passages to ingest into ${this.location}`);
    if (result.added === 0 && before && !before.incomplete) return result;
    await this.#writeMeta({ citeflowStore: 1, embedder: o.embedder.id, dimensions, chunker: o.chunkerName, passages: await this.count(), updatedAt: new Date().toISOString() });
    return result;
  }

  async removeDocuments(docIds: string[]): Promise<number> {
    if (docIds.length === 0 || !(await this.#exists())) return 0;
    const filter = { must: [{ key: "doc_id", match: { any: docIds } }] };
    const n = (await this.client.count(this.o.collection, { exact: true, filter })).count;
    if (n === 0) return 0;
    await this.client.delete(this.o.collection, { wait: true, filter });
    const meta = await this.meta();
    if (meta) await this.#writeMeta({ ...meta, passages: await this.count(), updatedAt: new Date().toISOString() });
    return n;
  }

  async #writeMeta(meta: StoreMeta): Promise<void> {
    await this.client.upsert(this.o.collection, { wait: true, points: [{ id: META_ID, vector: {}, payload: { ...meta } }] });
  }

  /** BM25 over title + text (the server applies the IDF); the score is kept as `bm25`. */
  async lexical(query: string, k: number): Promise<Passage[]> {
    await this.#need();
    const sparse = bm25QueryVector(query);
    if (sparse.indices.length === 0) return [];
    const res = await this.client.query(this.o.collection, { query: sparse, using: SPARSE, limit: k, with_payload: true });
    return res.points.map((p) => toPassage(p.payload, { bm25: p.score }));
  }

  /** Cosine similarity to the query vector, kept as `dense`. */
  async dense(vector: number[], k: number): Promise<Passage[]> {
    await this.#need();
    await this.#checkDimensions(vector);
    const res = await this.client.query(this.o.collection, { query: vector, using: DENSE, limit: k, with_payload: true });
    return res.points.map((p) => toPassage(p.payload, { dense: p.score }));
  }

  async lexicalIds(query: string, k: number): Promise<ScoredId[]> {
    await this.#need();
    const sparse = bm25QueryVector(query);
    if (sparse.indices.length === 0) return [];
    const res = await this.client.query(this.o.collection, { query: sparse, using: SPARSE, limit: k, with_payload: ["pid"] });
    return res.points.map((p) => ({ id: String(p.payload!.pid), score: p.score }));
  }

  async denseIds(vector: number[], k: number): Promise<ScoredId[]> {
    await this.#need();
    await this.#checkDimensions(vector);
    const res = await this.client.query(this.o.collection, { query: vector, using: DENSE, limit: k, with_payload: ["pid"] });
    return res.points.map((p) => ({ id: String(p.payload!.pid), score: p.score }));
  }

  async passages(hits: Array<Pick<ScoredId, "id">>): Promise<Map<string, Passage>> {
    const out = new Map<string, Passage>();
    if (hits.length === 0) return out;
    await this.#need();
    for (const p of await this.client.retrieve(this.o.collection, { ids: hits.map((h) => pointId(h.id)), with_payload: true, with_vector: false })) {
      const passage = toPassage(p.payload, {});
      out.set(passage.id, passage);
    }
    return out;
  }

  /**
   * Hybrid search fused by the server: `candidates` from each of BM25 and dense, then RRF or DBSF
   * (distribution-based score fusion). The fused score is kept as `rrf` or `dbsf`.
   */
  async fused(query: string, vector: number[], k: number, o: { fusion: "rrf" | "dbsf"; candidates: number }): Promise<Passage[]> {
    await this.#need();
    await this.#checkDimensions(vector);
    const sparse = bm25QueryVector(query);
    const prefetch = [{ query: vector, using: DENSE, limit: o.candidates }, ...(sparse.indices.length ? [{ query: sparse, using: SPARSE, limit: o.candidates }] : [])];
    const res = await this.client.query(this.o.collection, { prefetch, query: { fusion: o.fusion }, limit: k, with_payload: true });
    return res.points.map((p) => toPassage(p.payload, { [o.fusion]: p.score }));
  }

  async sample(n: number, o: SampleOptions = {}): Promise<Passage[]> {
    await this.#need();
    const first: Passage[] = [];
    let offset: string | number | undefined | null = undefined;
    do {
      const page: Awaited<ReturnType<QdrantClient["scroll"]>> = await this.client.scroll(this.o.collection, {
        filter: { must: [{ key: "chunk", match: { value: 0 } }] },
        limit: 1000,
        with_payload: true,
        with_vector: false,
        ...(offset !== undefined && offset !== null ? { offset } : {}),
      });
      for (const p of page.points) first.push(toPassage(p.payload, {}));
      offset = page.next_page_offset as string | number | null | undefined;
    } while (offset !== undefined && offset !== null);
    return sampleOf(first, n, o);
  }
}

function toPassage(payload: Record<string, unknown> | null | undefined, scores: Record<string, number>): Passage {
  const p = payload as unknown as Payload;
  return { id: p.pid, title: p.title, text: p.text, metadata: p.metadata ?? {}, scores };
}

function message(e: unknown): string {
  const cause = (e as { cause?: { message?: string } }).cause?.message;
  return `${(e as Error).message}${cause ? ` (${cause})` : ""}`;
}
