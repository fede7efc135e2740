import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { writeFileAtomic } from "@citeflow/runstore";
import { join, resolve } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { parsePassageId, type Passage } from "@citeflow/core";
import { indexText } from "./chunkers.js";
import { withIngestLock } from "./lock.js";
import type { CorpusDocument } from "./document.js";
import {
  checkCompatible,
  checkDimensions,
  checkExistingDimensions,
  ingestBatches,
  sampleOf,
  type IngestOptions,
  type IngestResult,
  type PassageStore,
  type SampleOptions,
  type ScoredId,
  type StoreMeta,
  type VectorIndex,
} from "./store.js";

const TABLE = "passages";
/** Below this many passages a flat scan is fast enough: no vector index (IngestOptions.vectorIndexMinRows). */
const VECTOR_INDEX_MIN_ROWS = 4096;
/** Up to this many, the vector index is probed whole (exact results). */
const EXACT_MAX_ROWS = 100_000;

interface Row {
  id: string;
  doc_id: string;
  chunk: number;
  title: string;
  text: string;
  search_text: string;
  metadata: string;
  vector: number[];
}

/**
 * The embedded default store: one LanceDB folder per corpus holding title, text, metadata, a
 * vector and a full-text (BM25) index. Ingest is batched, idempotent and resumable: every batch is
 * an atomic write, and passages already present are skipped, so re-running an interrupted ingest
 * finishes it without duplicates or loss.
 */
export class LanceStore implements PassageStore {
  /** The meta this handle's table version matches (read by #fresh, written by ingest). */
  private current: StoreMeta | undefined;

  /** Passages read lately, by id, least recently used first; emptied when the table moves to a new version. */
  private readonly cache = new Map<string, Passage>();

  private constructor(
    readonly dir: string,
    private readonly db: lancedb.Connection,
    private table: lancedb.Table | undefined,
    private readonly cacheSize: number,
  ) {}

  /** `passageCache`: how many passages `passages()` keeps in memory (default 20,000; 0 turns it off). */
  static async open(dir: string, o: { passageCache?: number } = {}): Promise<LanceStore> {
    const abs = resolve(dir);
    mkdirSync(abs, { recursive: true });
    // Reads move to the latest version when the store's meta changes (see #fresh), not on every query.
    const db = await guarded(abs, lancedb.connect(abs));
    const table = (await guarded(abs, db.tableNames())).includes(TABLE) ? await LanceStore.#openTable(abs, db) : undefined;
    return new LanceStore(abs, db, table, o.passageCache ?? 20_000);
  }

  /**
   * The passages table; when it cannot be opened and the store's meta says no batch was ever
   * finished in it (an ingest killed while it wrote its first version: `incomplete`, 0 passages),
   * that unfinished first write is set aside (`passages.lance.unfinished-<time>`, never deleted)
   * and the store starts empty, so the same ingest resumes. Otherwise the error names the store and
   * what to do.
   */
  static async #openTable(dir: string, db: lancedb.Connection): Promise<lancedb.Table | undefined> {
    try {
      return await db.openTable(TABLE);
    } catch (e) {
      const metaPath = join(dir, "citeflow-store.json");
      const meta = existsSync(metaPath) ? (JSON.parse(readFileSync(metaPath, "utf8")) as StoreMeta) : undefined;
      // Citeflow writes the meta before the first batch: without it the folder is not a killed first ingest of Citeflow's.
      if (!(meta?.incomplete && meta.passages === 0)) throw lanceError(dir, e);
      renameSync(join(dir, `${TABLE}.lance`), join(dir, `${TABLE}.lance.unfinished-${Date.now()}`));
      return undefined;
    }
  }

  get location(): string {
    return this.dir;
  }

  get metaPath(): string {
    return join(this.dir, "citeflow-store.json");
  }

  async meta(): Promise<StoreMeta | undefined> {
    return existsSync(this.metaPath) ? (JSON.parse(readFileSync(this.metaPath, "utf8")) as StoreMeta) : undefined;
  }

  async count(): Promise<number> {
    const table = await this.#fresh();
    return table ? table.countRows() : 0;
  }

  async ingest(docs: AsyncIterable<CorpusDocument> | Iterable<CorpusDocument>, o: IngestOptions): Promise<IngestResult> {
    // Its progress goes into its lock, so a search meanwhile can say how far it is.
    return withIngestLock(this.dir, (record) => {
      const onProgress: IngestOptions["onProgress"] = (p) => {
        record({ documents: p.documents, total: o.expectedDocuments });
        o.onProgress?.(p);
      };
      return guarded(this.dir, this.#ingest(docs, { ...o, onProgress }));
    });
  }

  async #ingest(docs: AsyncIterable<CorpusDocument> | Iterable<CorpusDocument>, o: IngestOptions): Promise<IngestResult> {
    const before = await this.meta();
    checkCompatible(this.dir, before, o);
    const existing = new Set<string>();
    await this.#fresh(true);
    if (this.table) for (const r of await this.table.query().select(["id"]).toArray()) existing.add(String(r.id));

    // The store says what it is made of before its first row is written, so a killed ingest
    // resumed with another embedder or chunker is refused, not mixed.
    let announced = !!before;
    const { dimensions: embedded, ...result } = await ingestBatches(docs, o, {
      known: async () => existing,
      write: async (batch, vectors) => {
        if (!announced) {
          if (this.table) checkExistingDimensions(this.dir, await this.table.query().select(["vector"]).limit(1).toArray(), o.embedder.id, vectors[0]!.length);
          this.#writeMeta({
            citeflowStore: 1,
            embedder: o.embedder.id,
            dimensions: vectors[0]!.length,
            chunker: o.chunkerName,
            passages: this.table ? await this.table.countRows() : 0,
            incomplete: true,
            updatedAt: new Date().toISOString(),
          });
          announced = true;
        }
        const rows: Row[] = batch.map((p, i) => ({
          id: p.id,
          doc_id: parsePassageId(p.id).docId,
          chunk: parsePassageId(p.id).chunk,
          title: p.title,
          text: p.text,
          search_text: indexText(p),
          metadata: JSON.stringify(p.metadata),
          vector: vectors[i]!,
        }));
        if (this.table) await this.table.add(rows as unknown as Record<string, unknown>[]);
        else this.table = await this.db.createTable(TABLE, rows as unknown as Record<string, unknown>[]);
        for (const p of batch) existing.add(p.id);
      },
    });
    const dimensions = embedded || before?.dimensions || 0;
    if (!this.table) throw new Error(`no passages to ingest into ${this.dir}`);
    // Nothing new: leave the index and meta alone, so results cached against this store stay valid.
    if (result.added === 0 && before && !before.incomplete) return result;
    const vectorIndex = await this.#index(o.vectorIndexMinRows ?? VECTOR_INDEX_MIN_ROWS);
    const meta: StoreMeta = {
      citeflowStore: 1,
      embedder: o.embedder.id,
      dimensions,
      chunker: o.chunkerName,
      passages: await this.count(),
      ...(vectorIndex ? { vectorIndex } : {}),
      updatedAt: new Date().toISOString(),
    };
    this.#writeMeta(meta);
    return result;
  }

  async removeDocuments(docIds: string[]): Promise<number> {
    const table = await this.#fresh(true);
    if (!table || docIds.length === 0) return 0;
    const where = `doc_id IN (${docIds.map((id) => `'${id.replaceAll("'", "''")}'`).join(", ")})`;
    const n = await table.countRows(where);
    if (n === 0) return 0;
    await table.delete(where);
    this.cache.clear();
    const meta = await this.meta();
    if (meta) this.#writeMeta({ ...meta, passages: await table.countRows(), updatedAt: new Date().toISOString() });
    return n;
  }

  #writeMeta(meta: StoreMeta): void {
    writeFileAtomic(this.metaPath, JSON.stringify(meta, null, 2) + "\n");
    this.current = meta;
  }

  /**
   * After an ingest: compact the batches into few files, then rebuild every index over all rows —
   * BM25 on title + text, a btree on id, and (from `minRows` passages) an IVF_FLAT vector index.
   * Up to EXACT_MAX_ROWS every partition is probed, so dense search stays exact, only faster.
   */
  async #index(minRows: number): Promise<VectorIndex | undefined> {
    const table = this.table!;
    await table.optimize();
    await table.createIndex("search_text", { config: lancedb.Index.fts({ withPosition: false }), replace: true });
    await table.createIndex("id", { config: lancedb.Index.btree(), replace: true });
    const rows = await table.countRows();
    if (rows < minRows) return undefined;
    const exact = rows <= EXACT_MAX_ROWS;
    const partitions = exact ? Math.ceil(rows / 1024) : Math.round(Math.sqrt(rows));
    await table.createIndex("vector", { config: lancedb.Index.ivfFlat({ distanceType: "cosine", numPartitions: partitions }), replace: true });
    return { type: "ivf_flat", partitions, nprobes: exact ? partitions : Math.max(8, Math.ceil(partitions / 32)) };
  }

  /**
   * The table at the latest version another process or instance finished: an ingest writes the
   * meta file last, so a changed `updatedAt` (or `force`) moves this handle to the newest version.
   * Checking the meta file costs a file read; asking LanceDB for its latest version on every
   * query cost about a millisecond per query.
   */
  #fresh(force = false): Promise<lancedb.Table | undefined> {
    return guarded(this.dir, this.#freshTable(force));
  }

  async #freshTable(force: boolean): Promise<lancedb.Table | undefined> {
    if (!this.table && (await this.db.tableNames()).includes(TABLE)) this.table = await this.db.openTable(TABLE);
    if (!this.table) return undefined;
    const meta = await this.meta();
    if (force || meta?.updatedAt !== this.current?.updatedAt) {
      await this.table.checkoutLatest();
      this.cache.clear();
    }
    this.current = meta;
    return this.table;
  }

  async #need(): Promise<lancedb.Table> {
    const table = await this.#fresh();
    if (!table) throw new Error(`store ${this.dir} is empty: ingest a corpus first (citeflow ingest …)`);
    return table;
  }

  /** BM25 over title + text; the score is kept as `bm25`. */
  async lexical(query: string, k: number): Promise<Passage[]> {
    const rows = await guarded(this.dir, (await this.#need()).search(query, "fts", "search_text").select(["id", "title", "text", "metadata", "_score"]).limit(k).toArray());
    return rows.map((r) => toPassage(r, { bm25: Number(r._score) }));
  }

  /** A deterministic sample of `n` papers (their first passage), for synthetic data. Reads every first passage of the store. */
  async sample(n: number, o: SampleOptions = {}): Promise<Passage[]> {
    const rows = await guarded(this.dir, (await this.#need()).query().where("chunk = 0").select(["id", "title", "text", "metadata"]).toArray());
    return sampleOf(
      rows.map((r) => toPassage(r, {})),
      n,
      o,
    );
  }

  /** Ids and BM25 scores; each hit's `ref` is its row id, for reading it without a lookup. */
  async lexicalIds(query: string, k: number): Promise<ScoredId[]> {
    const rows = await guarded(this.dir, (await this.#need()).search(query, "fts", "search_text").select(["id", "_score"]).withRowId().limit(k).toArray());
    return rows.map((r) => ({ id: String(r.id), score: Number(r._score), ref: r._rowid as bigint }));
  }

  async denseIds(vector: number[], k: number): Promise<ScoredId[]> {
    const rows = await guarded(this.dir, (await this.#vectorQuery(vector)).select(["id", "_distance"]).withRowId().limit(k).toArray());
    return rows.map((r) => ({ id: String(r.id), score: 1 - Number(r._distance), ref: r._rowid as bigint }));
  }

  /**
   * Reads hits from the passage cache, else by row id when they carry one (checked against the id:
   * a compaction may have moved rows), else by id. Each call gets its own copies.
   */
  async passages(hits: Array<Pick<ScoredId, "id" | "ref">>): Promise<Map<string, Passage>> {
    const table = await this.#need();
    const found = new Map<string, Passage>();
    for (const h of hits) {
      const cached = this.cache.get(h.id);
      if (cached) found.set(h.id, cached);
    }
    const wanted = new Set(hits.filter((h) => !found.has(h.id)).map((h) => h.id));
    const rowIds = hits.flatMap((h) => (wanted.has(h.id) && typeof h.ref === "bigint" ? [h.ref] : []));
    if (rowIds.length)
      try {
        for (const r of await table.takeRowIds(rowIds).select(["id", "title", "text", "metadata"]).toArray()) if (wanted.has(String(r.id))) found.set(String(r.id), toPassage(r, {}));
      } catch {
        /* row ids from an older version: read by id below */
      }
    const missing = [...wanted].filter((id) => !found.has(id));
    if (missing.length) {
      const list = missing.map((id) => `'${id.replaceAll("'", "''")}'`).join(", ");
      for (const r of await guarded(this.dir, table.query().where(`id IN (${list})`).select(["id", "title", "text", "metadata"]).toArray())) found.set(String(r.id), toPassage(r, {}));
    }
    const out = new Map<string, Passage>();
    for (const [id, p] of found) {
      this.cache.delete(id);
      if (this.cacheSize > 0) this.cache.set(id, p);
      out.set(id, { ...p, metadata: { ...p.metadata }, scores: {} });
    }
    for (const id of this.cache.keys()) {
      if (this.cache.size <= this.cacheSize) break;
      this.cache.delete(id);
    }
    return out;
  }

  /** A cosine search over the vectors, probing as many index partitions as the store's meta says. */
  async #vectorQuery(vector: number[]): Promise<lancedb.VectorQuery> {
    const q = (await this.#need()).vectorSearch(vector).distanceType("cosine");
    const meta = this.current;
    checkDimensions(this.dir, meta, vector);
    return meta?.vectorIndex ? q.nprobes(meta.vectorIndex.nprobes) : q;
  }

  /** Cosine similarity to the query vector, kept as `dense`. */
  async dense(vector: number[], k: number): Promise<Passage[]> {
    const rows = await guarded(this.dir, (await this.#vectorQuery(vector)).select(["id", "title", "text", "metadata", "_distance"]).limit(k).toArray());
    return rows.map((r) => toPassage(r, { dense: 1 - Number(r._distance) }));
  }
}

function toPassage(r: Record<string, unknown>, scores: Record<string, number>): Passage {
  return { id: String(r.id), title: String(r.title), text: String(r.text), metadata: JSON.parse(String(r.metadata)), scores };
}

/** LanceDB's own errors in the user's terms: which store, LanceDB's first cause without its Rust source paths, and what to do. */
export function lanceError(dir: string, e: unknown): unknown {
  const message = e instanceof Error ? e.message : String(e);
  if (!/lance ?error|could not be loaded|Dataset at path/i.test(message)) return e;
  const first = message
    .split(/\s+Caused by:/)[0]!
    .replace(/,?\s*\/\S+\.rs:\d+:\d+/g, "")
    .replace(/^lance error:\s*/i, "")
    .trim();
  return new Error(`store ${dir} could not be read or written (LanceDB: ${first}); if its folder was changed by hand or its disk filled, ingest the corpus again into a new folder`, { cause: e });
}

async function guarded<T>(dir: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (e) {
    throw lanceError(dir, e);
  }
}
