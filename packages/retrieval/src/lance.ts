import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { parsePassageId, type Passage } from "@citeflow/core";
import type { Embedder } from "@citeflow/models";
import { indexText, type Chunker } from "./chunkers.js";
import type { CorpusDocument } from "./document.js";

const TABLE = "passages";

/** What a store was built with; queries must embed with the same model. */
export interface StoreMeta {
  citeflowStore: 1;
  embedder: string;
  dimensions: number;
  chunker: string;
  passages: number;
  updatedAt: string;
}

export interface IngestOptions {
  chunker: Chunker;
  /** Recorded in the store's meta, e.g. "openscholar-256". */
  chunkerName: string;
  embedder: Embedder;
  /** Passages embedded and written per batch (default 256). Each batch is one atomic write. */
  batchSize?: number;
  onProgress?: (p: { documents: number; added: number; skipped: number }) => void;
  signal?: AbortSignal;
}

export interface IngestResult {
  documents: number;
  passages: number;
  added: number;
  /** Passages already in the store (an earlier, interrupted ingest): not embedded again. */
  skipped: number;
}

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
export class LanceStore {
  private constructor(
    readonly dir: string,
    private readonly db: lancedb.Connection,
    private table: lancedb.Table | undefined,
  ) {}

  static async open(dir: string): Promise<LanceStore> {
    const abs = resolve(dir);
    mkdirSync(abs, { recursive: true });
    // Every read sees the latest committed version, also when another process or instance wrote it.
    const db = await lancedb.connect(abs, { readConsistencyInterval: 0 });
    const table = (await db.tableNames()).includes(TABLE) ? await db.openTable(TABLE) : undefined;
    return new LanceStore(abs, db, table);
  }

  get metaPath(): string {
    return join(this.dir, "citeflow-store.json");
  }

  meta(): StoreMeta | undefined {
    return existsSync(this.metaPath) ? (JSON.parse(readFileSync(this.metaPath, "utf8")) as StoreMeta) : undefined;
  }

  async count(): Promise<number> {
    return this.table ? this.table.countRows() : 0;
  }

  async ingest(docs: AsyncIterable<CorpusDocument> | Iterable<CorpusDocument>, o: IngestOptions): Promise<IngestResult> {
    const before = this.meta();
    if (before && (before.embedder !== o.embedder.id || before.chunker !== o.chunkerName))
      throw new Error(
        `store ${this.dir} was built with embedder "${before.embedder}" and chunker "${before.chunker}"; ` +
          `ingesting with "${o.embedder.id}" / "${o.chunkerName}" would mix them: use another store folder`,
      );
    const existing = new Set<string>();
    if (this.table) for (const r of await this.table.query().select(["id"]).toArray()) existing.add(String(r.id));

    const batchSize = o.batchSize ?? 256;
    const result: IngestResult = { documents: 0, passages: 0, added: 0, skipped: 0 };
    let pending: Passage[] = [];
    let dimensions = before?.dimensions ?? 0;
    const flush = async () => {
      const todo = pending.filter((p) => !existing.has(p.id));
      result.skipped += pending.length - todo.length;
      pending = [];
      if (todo.length === 0) return;
      o.signal?.throwIfAborted();
      const vectors = await o.embedder.embed(todo.map(indexText), o.signal ? { signal: o.signal } : undefined);
      dimensions = vectors[0]!.length;
      const rows: Row[] = todo.map((p, i) => ({
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
      for (const p of todo) existing.add(p.id);
      result.added += todo.length;
      o.onProgress?.({ documents: result.documents, added: result.added, skipped: result.skipped });
    };
    for await (const doc of docs) {
      result.documents++;
      const passages = o.chunker(doc);
      result.passages += passages.length;
      pending.push(...passages);
      if (pending.length >= batchSize) await flush();
    }
    await flush();
    if (!this.table) throw new Error(`no passages to ingest into ${this.dir}`);
    // Nothing new: leave the index and meta alone, so results cached against this store stay valid.
    if (result.added === 0 && before) return result;
    // Rebuild the BM25 index over everything, so new rows are searched like old ones.
    await this.table.createIndex("search_text", { config: lancedb.Index.fts({ withPosition: false }), replace: true });
    const meta: StoreMeta = { citeflowStore: 1, embedder: o.embedder.id, dimensions, chunker: o.chunkerName, passages: await this.count(), updatedAt: new Date().toISOString() };
    writeFileSync(this.metaPath, JSON.stringify(meta, null, 2) + "\n");
    return result;
  }

  async #need(): Promise<lancedb.Table> {
    if (!this.table && (await this.db.tableNames()).includes(TABLE)) this.table = await this.db.openTable(TABLE);
    if (!this.table) throw new Error(`store ${this.dir} is empty: ingest a corpus first (citeflow ingest …)`);
    return this.table;
  }

  /** BM25 over title + text; the score is kept as `bm25`. */
  async lexical(query: string, k: number): Promise<Passage[]> {
    const rows = await (await this.#need()).search(query, "fts", "search_text").select(["id", "title", "text", "metadata", "_score"]).limit(k).toArray();
    return rows.map((r) => toPassage(r, { bm25: Number(r._score) }));
  }

  /**
   * A deterministic sample of `n` papers (their first passage), for synthetic data: ordered by a
   * hash of (seed, id), after the metadata filters. Reads every first passage of the store.
   */
  async sample(n: number, o: { seed?: number; minYear?: number; maxYear?: number; minCitations?: number } = {}): Promise<Passage[]> {
    const rows = await (await this.#need()).query().where("chunk = 0").select(["id", "title", "text", "metadata"]).toArray();
    const keep = rows
      .map((r) => toPassage(r, {}))
      .filter((p) => {
        const m = p.metadata ?? {};
        if (o.minYear !== undefined && !(m.year !== undefined && m.year >= o.minYear)) return false;
        if (o.maxYear !== undefined && !(m.year !== undefined && m.year <= o.maxYear)) return false;
        if (o.minCitations !== undefined && !(m.citationCount !== undefined && m.citationCount >= o.minCitations)) return false;
        return true;
      });
    const rank = (id: string) => createHash("sha256").update(`${o.seed ?? 0}\0${id}`).digest("hex");
    return keep.sort((a, b) => rank(a.id).localeCompare(rank(b.id))).slice(0, n);
  }

  /** Cosine similarity to the query vector, kept as `dense`. */
  async dense(vector: number[], k: number): Promise<Passage[]> {
    const meta = this.meta();
    if (meta && vector.length !== meta.dimensions) throw new Error(`query vector has ${vector.length} dimensions; store ${this.dir} holds ${meta.dimensions} (embedder "${meta.embedder}")`);
    const rows = await (await this.#need()).vectorSearch(vector).distanceType("cosine").select(["id", "title", "text", "metadata", "_distance"]).limit(k).toArray();
    return rows.map((r) => toPassage(r, { dense: 1 - Number(r._distance) }));
  }
}

function toPassage(r: Record<string, unknown>, scores: Record<string, number>): Passage {
  return { id: String(r.id), title: String(r.title), text: String(r.text), metadata: JSON.parse(String(r.metadata)), scores };
}
