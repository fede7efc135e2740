import { createHash } from "node:crypto";
import type { QdrantClient } from "@qdrant/js-client-rest";
import { boundedQdrantClient } from "./qdrant-client.js";
import { parsePassageId, type Passage } from "@citeflow/core";
import { indexText } from "./chunkers.js";
import type { CorpusDocument } from "./document.js";
import { bm25DocumentVector, bm25QueryVector, termCount } from "./sparse.js";
import { checkCompatible, checkDimensions, ingestBatches, sampleOf, type IngestOptions, type IngestResult, type PassageStore, type SampleOptions, type ScoredId, type StoreMeta } from "./store.js";

/** The point holding the store's meta: no vectors, so no search ever returns it. */
const META_ID = "00000000-0000-0000-0000-000000000000";
/** Payload indexes a new collection gets: by document (re-ingest, deletes), first passages (samples), and the metadata filters of samples. */
const PAYLOAD_INDEXES: Array<[string, "integer" | "keyword"]> = [
  ["chunk", "integer"],
  ["doc_id", "keyword"],
  ["metadata.year", "integer"],
  ["metadata.citationCount", "integer"],
];
const DENSE = "dense";
const SPARSE = "bm25";

export interface QdrantStoreOptions {
  /** Server URL, e.g. http://localhost:6333. */
  url: string;
  collection: string;
  apiKey?: string;
  /** Per-request timeout, the reply's body included (default 30 s). */
  timeoutMs?: number;
  /** The most bytes a reply may have (default QDRANT_REPLY_BYTES, 64 MiB). */
  replyBytes?: number;
  /** How a new collection is spread over a cluster; unset: from the cluster's size (clusterDefaults). */
  cluster?: ClusterSettings;
}

/** A collection's sharding, set when it is created: $QDRANT_SHARDS, $QDRANT_REPLICATION, $QDRANT_WRITE_CONSISTENCY. */
export interface ClusterSettings {
  shards?: number;
  replication?: number;
  writeConsistency?: number;
}

/**
 * Settings for a new collection on a server with `peers` peers (1 when it runs alone): a shard on
 * each peer, and from three peers on two copies of each shard written when one copy has it, so
 * that losing any one peer loses no shard for searches or writes. What the user set wins.
 */
export function clusterDefaults(peers: number, given: ClusterSettings = {}): Required<ClusterSettings> {
  const replication = given.replication ?? (peers >= 3 ? 2 : 1);
  return { shards: given.shards ?? Math.max(1, peers), replication, writeConsistency: given.writeConsistency ?? 1 };
}

interface Payload {
  pid: string;
  doc_id: string;
  chunk: number;
  title: string;
  text: string;
  /** How many terms the passage's index text has (its BM25 length). */
  terms: number;
  metadata: Passage["metadata"];
}

/**
 * The corpus statistics BM25's length normalisation needs, kept in the store's meta: the passages'
 * terms in all, and the average length the stored sparse vectors were weighted with.
 */
type LexicalStats = NonNullable<StoreMeta["lexical"]>;

/** The average length the sparse vectors of a collection made before Citeflow kept its statistics were weighted with. */
const LEGACY_AVG_LENGTH = 256;

/** How far the real average length may drift from the one the vectors were weighted with before they are weighted again. */
export const REWEIGH_DRIFT = 0.01;

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
export function parseQdrantSpec(spec: string, env: Record<string, string | undefined>): QdrantStoreOptions {
  const rest = spec.replace(/^qdrant:/, "");
  const m = SPEC_WITH_URL.exec(rest);
  const url = m ? m[1]! : env.QDRANT_URL;
  const collection = m ? m[2]! : rest;
  if (!url) throw new Error(`store "${spec}": no Qdrant server: set $QDRANT_URL or write qdrant:http://host:6333/collections/<name>`);
  if (!/^[A-Za-z0-9_.-]+$/.test(collection)) throw new Error(`store "${spec}": "${collection}" is not a Qdrant collection name`);
  const cluster: ClusterSettings = {};
  for (const [key, name] of [
    ["shards", "QDRANT_SHARDS"],
    ["replication", "QDRANT_REPLICATION"],
    ["writeConsistency", "QDRANT_WRITE_CONSISTENCY"],
  ] as const) {
    const raw = env[name];
    if (raw === undefined || raw === "") continue;
    if (!/^[1-9]\d*$/.test(raw.trim())) throw new Error(`$${name}=${JSON.stringify(raw)}: give a whole number from 1`);
    cluster[key] = Number(raw);
  }
  return { url, collection, ...(env.QDRANT_API_KEY ? { apiKey: env.QDRANT_API_KEY } : {}), ...(Object.keys(cluster).length ? { cluster } : {}) };
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
    const client = boundedQdrantClient({ url: o.url, ...(o.apiKey ? { apiKey: o.apiKey } : {}), timeoutMs: o.timeoutMs ?? 30_000, ...(o.replyBytes ? { replyBytes: o.replyBytes } : {}) });
    try {
      await client.collectionExists(o.collection);
    } catch (e) {
      throw new Error(`Qdrant at ${o.url}${oversized(e) ? "" : " is not answering"}: ${message(e)}`, { cause: e });
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
    const [point] = await this.#read("its meta", async () => pointsOf(await this.client.retrieve(this.o.collection, { ids: [META_ID], with_payload: true, with_vector: false }), "a read of its meta"));
    return point?.payload?.citeflowStore ? (point.payload as unknown as StoreMeta) : undefined;
  }

  async count(): Promise<number> {
    if (!(await this.#exists())) return 0;
    return (await this.client.count(this.o.collection, { exact: true, filter: { must_not: [{ has_id: [META_ID] }] } })).count;
  }

  /** Peers in the server's cluster (1 when it runs alone). */
  async #peers(): Promise<number> {
    const c = (await this.client.api().clusterStatus({})).data.result as { status?: string; peers?: Record<string, unknown> } | undefined;
    return c?.status === "enabled" ? Math.max(1, Object.keys(c.peers ?? {}).length) : 1;
  }

  async #create(dimensions: number): Promise<void> {
    const c = clusterDefaults(await this.#peers(), this.o.cluster);
    await this.client.createCollection(this.o.collection, {
      vectors: { [DENSE]: { size: dimensions, distance: "Cosine" } },
      sparse_vectors: { [SPARSE]: { modifier: "idf" } },
      shard_number: c.shards,
      replication_factor: c.replication,
      write_consistency_factor: c.writeConsistency,
    });
    for (const [field, schema] of PAYLOAD_INDEXES) await this.client.createPayloadIndex(this.o.collection, { field_name: field, field_schema: schema, wait: true });
  }

  async ingest(docs: AsyncIterable<CorpusDocument> | Iterable<CorpusDocument>, o: IngestOptions): Promise<IngestResult> {
    const before = await this.meta();
    checkCompatible(this.location, before, o);
    let exists = await this.#exists();
    // As in the LanceDB store: the meta goes in before the first batch, so a resume with another
    // embedder or chunker is refused instead of mixed.
    let announced = !!before;
    // BM25's length normalisation: every batch is weighted with the average length the stored
    // vectors have (a new collection: its first batch's own, kept in the meta at once so that a
    // resumed ingest uses it too), and all are weighted again at the end when the corpus's real
    // average has drifted further than REWEIGH_DRIFT from it.
    let weightedWith = before?.lexical?.weightedWith ?? (before ? LEGACY_AVG_LENGTH : undefined);
    const { dimensions: embedded, ...result } = await ingestBatches(docs, o, {
      known: async (batch) =>
        exists
          ? new Set((await this.client.retrieve(this.o.collection, { ids: batch.map((p) => pointId(p.id)), with_payload: ["pid"], with_vector: false })).map((p) => String(p.payload!.pid)))
          : new Set(),
      write: async (batch, vectors) => {
        const terms = batch.map((p) => termCount(indexText(p)));
        weightedWith ??= Math.max(1, terms.reduce((a, b) => a + b, 0) / batch.length);
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
            lexical: { passages: 0, terms: 0, weightedWith },
            incomplete: true,
            updatedAt: new Date().toISOString(),
          });
          announced = true;
        }
        const avgLength = weightedWith;
        await this.client.upsert(this.o.collection, {
          wait: true,
          points: batch.map((p, i) => ({
            id: pointId(p.id),
            vector: { [DENSE]: vectors[i]!, [SPARSE]: bm25DocumentVector(indexText(p), { avgLength }) },
            payload: { pid: p.id, doc_id: parsePassageId(p.id).docId, chunk: parsePassageId(p.id).chunk, title: p.title, text: p.text, terms: terms[i]!, metadata: p.metadata } satisfies Payload,
          })),
        });
      },
    });
    const dimensions = embedded || before?.dimensions || 0;
    if (!exists) throw new Error(`no passages to ingest into ${this.location}`);
    if (result.added === 0 && before && !before.incomplete) return result;
    // A collection made before Citeflow kept these statistics was weighted with other terms too: all is weighted again.
    const lexical = await this.#reweigh(await this.#lexicalStats(weightedWith ?? LEGACY_AVG_LENGTH), !!before && !before.lexical);
    await this.#writeMeta({ citeflowStore: 1, embedder: o.embedder.id, dimensions, chunker: o.chunkerName, passages: await this.count(), lexical, updatedAt: new Date().toISOString() });
    return result;
  }

  /** Pages through the collection's passages (never the meta point), `size` at a time, with the payload fields asked for. */
  async *#pages(withPayload: string[] | true, filter: Record<string, unknown> = { must_not: [{ has_id: [META_ID] }] }, size = 1000) {
    let offset: string | number | undefined | null = undefined;
    do {
      const page: Awaited<ReturnType<QdrantClient["scroll"]>> = await this.client.scroll(this.o.collection, {
        filter,
        limit: size,
        with_payload: withPayload,
        with_vector: false,
        ...(offset !== undefined && offset !== null ? { offset } : {}),
      });
      yield pointsOf(page, "a scroll through its points");
      offset = page.next_page_offset as string | number | null | undefined;
    } while (offset !== undefined && offset !== null);
  }

  /** BM25's statistics as the collection holds them now: every passage's length, summed (counted from its text where a point has none). */
  async #lexicalStats(weightedWith: number): Promise<LexicalStats> {
    const stats = { passages: 0, terms: 0, weightedWith };
    for await (const points of this.#pages(["terms"])) {
      const legacy = points.filter((p) => typeof p.payload?.terms !== "number");
      const texts = legacy.length ? await this.client.retrieve(this.o.collection, { ids: legacy.map((p) => p.id), with_payload: ["title", "text"], with_vector: false }) : [];
      stats.passages += points.length;
      stats.terms += points.reduce((a, p) => a + (typeof p.payload?.terms === "number" ? p.payload.terms : 0), 0);
      stats.terms += texts.reduce((a, p) => a + termCount(indexText(p.payload as unknown as Payload)), 0);
    }
    return stats;
  }

  /**
   * When the corpus's real average length has drifted from the one the sparse vectors were weighted
   * with (or `always`), every passage's sparse vector is weighted again from its stored text
   * (nothing is embedded).
   */
  async #reweigh(stats: LexicalStats, always = false): Promise<LexicalStats> {
    const real = stats.passages ? stats.terms / stats.passages : stats.weightedWith;
    if (!always && Math.abs(real - stats.weightedWith) <= REWEIGH_DRIFT * real) return stats;
    for await (const points of this.#pages(["title", "text"], undefined, 256))
      if (points.length)
        await this.client.updateVectors(this.o.collection, {
          wait: true,
          points: points.map((p) => ({ id: p.id, vector: { [SPARSE]: bm25DocumentVector(indexText(p.payload as unknown as Payload), { avgLength: real }) } })),
        });
    return { ...stats, weightedWith: real };
  }

  async removeDocuments(docIds: string[]): Promise<number> {
    if (docIds.length === 0 || !(await this.#exists())) return 0;
    const filter = { must: [{ key: "doc_id", match: { any: docIds } }] };
    const n = (await this.client.count(this.o.collection, { exact: true, filter })).count;
    if (n === 0) return 0;
    await this.client.delete(this.o.collection, { wait: true, filter });
    const meta = await this.meta();
    if (meta) {
      // The removed passages' lengths leave BM25's statistics with them.
      const lexical = await this.#reweigh(await this.#lexicalStats(meta.lexical?.weightedWith ?? LEGACY_AVG_LENGTH), !meta.lexical);
      await this.#writeMeta({ ...meta, passages: await this.count(), lexical, updatedAt: new Date().toISOString() });
    }
    return n;
  }

  /** A read of the collection, and when it fails, which collection and what was read. */
  async #read<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      throw new Error(`Qdrant collection ${this.location}: reading ${what} failed: ${message(e)}`, { cause: e });
    }
  }

  /** A search, and when it fails, why in words: the shards left with no active copy and the peers that held them. */
  async #search<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      throw new Error(`Qdrant collection ${this.location}: a search failed: ${message(e)}${await this.#lostShards()}`, { cause: e });
    }
  }

  /** What the collection's cluster info says of shards without an active copy ("" when all have one, or when it cannot be read). */
  async #lostShards(): Promise<string> {
    let info: Awaited<ReturnType<QdrantClient["collectionClusterInfo"]>>;
    try {
      info = await this.client.collectionClusterInfo(this.o.collection);
    } catch {
      return "";
    }
    const copies = new Map<number, Array<{ peer: number; state: string }>>();
    const add = (shard: number, peer: number, state: string) => copies.set(shard, [...(copies.get(shard) ?? []), { peer, state }]);
    for (const l of info.local_shards) add(l.shard_id, info.peer_id, l.state);
    for (const r of info.remote_shards) add(r.shard_id, r.peer_id, r.state);
    const lost = [...copies].filter(([, cs]) => !cs.some((c) => c.state === "Active")).sort(([a], [b]) => a - b);
    if (!lost.length) return "";
    const held = lost.map(([shard, cs]) => `shard ${shard} (${cs.map((c) => `peer ${c.peer}: ${c.state}`).join(", ")})`).join("; ");
    const single = lost.every(([, cs]) => cs.length === 1);
    return (
      `. ${lost.length} of ${info.shard_count} shards have no active copy: ${held}. Bring the peer back (its shards recover from it)` +
      (single ? `; a collection made with $QDRANT_REPLICATION=2 or more keeps answering from the other copy when one peer is lost (re-ingest into a new collection to change it)` : "")
    );
  }

  async #writeMeta(meta: StoreMeta): Promise<void> {
    await this.client.upsert(this.o.collection, { wait: true, points: [{ id: META_ID, vector: {}, payload: { ...meta } }] });
  }

  /** BM25 over title + text (the server applies the IDF); the score is kept as `bm25`. */
  async lexical(query: string, k: number): Promise<Passage[]> {
    await this.#need();
    const sparse = bm25QueryVector(query);
    if (sparse.indices.length === 0) return [];
    const res = await this.#search(async () => pointsOf(await this.client.query(this.o.collection, { query: sparse, using: SPARSE, limit: k, with_payload: true }), "a search"));
    return res.map((p) => toPassage(p.payload, { bm25: p.score }, this.location));
  }

  /** Cosine similarity to the query vector, kept as `dense`. */
  async dense(vector: number[], k: number): Promise<Passage[]> {
    await this.#need();
    await this.#checkDimensions(vector);
    const res = await this.#search(async () => pointsOf(await this.client.query(this.o.collection, { query: vector, using: DENSE, limit: k, with_payload: true }), "a search"));
    return res.map((p) => toPassage(p.payload, { dense: p.score }, this.location));
  }

  async lexicalIds(query: string, k: number): Promise<ScoredId[]> {
    await this.#need();
    const sparse = bm25QueryVector(query);
    if (sparse.indices.length === 0) return [];
    const res = await this.#search(async () => pointsOf(await this.client.query(this.o.collection, { query: sparse, using: SPARSE, limit: k, with_payload: ["pid"] }), "a search"));
    return res.map((p) => ({ id: String(p.payload?.pid), score: p.score }));
  }

  async denseIds(vector: number[], k: number): Promise<ScoredId[]> {
    await this.#need();
    await this.#checkDimensions(vector);
    const res = await this.#search(async () => pointsOf(await this.client.query(this.o.collection, { query: vector, using: DENSE, limit: k, with_payload: ["pid"] }), "a search"));
    return res.map((p) => ({ id: String(p.payload?.pid), score: p.score }));
  }

  async passages(hits: Array<Pick<ScoredId, "id">>): Promise<Map<string, Passage>> {
    const out = new Map<string, Passage>();
    if (hits.length === 0) return out;
    await this.#need();
    for (const p of await this.#search(async () =>
      pointsOf(await this.client.retrieve(this.o.collection, { ids: hits.map((h) => pointId(h.id)), with_payload: true, with_vector: false }), "a read of passages"),
    )) {
      const passage = toPassage(p.payload, {}, this.location);
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
    const res = await this.#search(async () => pointsOf(await this.client.query(this.o.collection, { prefetch, query: { fusion: o.fusion }, limit: k, with_payload: true }), "a search"));
    return res.map((p) => toPassage(p.payload, { [o.fusion]: p.score }, this.location));
  }

  async sample(n: number, o: SampleOptions = {}): Promise<Passage[]> {
    await this.#need();
    const first: Passage[] = [];
    // The metadata filters run on the server, over its payload indexes: only the papers that pass come back.
    const range = (key: string, gte?: number, lte?: number) =>
      gte === undefined && lte === undefined ? [] : [{ key, range: { ...(gte !== undefined ? { gte } : {}), ...(lte !== undefined ? { lte } : {}) } }];
    const must = [{ key: "chunk", match: { value: 0 } }, ...range("metadata.year", o.minYear, o.maxYear), ...range("metadata.citationCount", o.minCitations)];
    for await (const points of this.#pages(true, { must })) for (const p of points) first.push(toPassage(p.payload, {}, this.location));
    return sampleOf(first, n, o);
  }
}

/** The points of a reply as far as Citeflow reads them: a list of objects (a reply without one is not Qdrant's). */
function pointsOf<T>(reply: T[] | { points: T[] }, what: string): T[] {
  const list = Array.isArray(reply) ? reply : (reply as { points?: unknown } | null)?.points;
  if (!Array.isArray(list) || list.some((p) => typeof p !== "object" || p === null)) throw new Error(`the server's reply to ${what} is not Qdrant's: no list of points in it`);
  return list as T[];
}

function toPassage(payload: Record<string, unknown> | null | undefined, scores: Record<string, number>, where: string): Passage {
  const p = payload as unknown as Payload;
  if (typeof p?.pid !== "string" || typeof p.text !== "string" || (p.title !== undefined && typeof p.title !== "string"))
    throw new Error(
      `Qdrant collection ${where}: a point without a passage's payload (pid, title and text as citeflow ingest writes them): a collection Citeflow did not make, or a reply that is not Qdrant's`,
    );
  return { id: p.pid, title: p.title, text: p.text, metadata: p.metadata ?? {}, scores };
}

/** Whether a request failed because its reply was over the client's byte limit. */
const oversized = (e: unknown) => (e as { cause?: { code?: string } }).cause?.code === "UND_ERR_RES_EXCEEDED_MAX_SIZE";

/** An error's message, with the server's own words when it sent some (Qdrant's `status.error`) and the cause's. */
function message(e: unknown): string {
  const said = (e as { data?: { status?: { error?: unknown } } }).data?.status?.error;
  if (oversized(e)) return "its reply was larger than Citeflow reads from Qdrant (QDRANT_REPLY_BYTES, 64 MiB by default): cut off";
  const cause = (e as { cause?: { message?: string } }).cause?.message;
  const base = (e as Error).message;
  return `${base}${typeof said === "string" && !base.includes(said) ? ` (${said})` : ""}${cause ? ` (${cause})` : ""}`;
}
