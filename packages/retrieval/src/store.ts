import { createHash } from "node:crypto";
import type { Passage } from "@citeflow/core";
import type { Embedder } from "@citeflow/models";
import { indexText, type Chunker } from "./chunkers.js";
import type { CorpusDocument } from "./document.js";

/** What a store was built with; queries must embed with the same model. */
export interface StoreMeta {
  citeflowStore: 1;
  embedder: string;
  dimensions: number;
  chunker: string;
  passages: number;
  /** LanceDB: the vector index built at the last ingest, if any, and how many partitions a search probes. */
  vectorIndex?: VectorIndex;
  /** Qdrant: BM25's corpus statistics (passages, their terms, the average length the sparse vectors were weighted with). */
  lexical?: { passages: number; terms: number; weightedWith: number };
  /** Written before an ingest's first batch and dropped when it ends: the last ingest did not finish (re-run it to resume). */
  incomplete?: true;
  updatedAt: string;
}

export interface VectorIndex {
  type: "ivf_flat";
  partitions: number;
  nprobes: number;
}

export interface IngestOptions {
  chunker: Chunker;
  /** Recorded in the store's meta, e.g. "openscholar-256". */
  chunkerName: string;
  embedder: Embedder;
  /** Passages embedded and written per batch (default 256). Each batch is one atomic write. */
  batchSize?: number;
  onProgress?: (p: { documents: number; added: number; skipped: number }) => void;
  /** How many documents the source holds, when the caller knows: recorded with the ingest's progress for whoever searches meanwhile. */
  expectedDocuments?: number;
  signal?: AbortSignal;
  /** LanceDB: build a vector index from this many passages (default 4,096). */
  vectorIndexMinRows?: number;
}

export interface IngestResult {
  documents: number;
  passages: number;
  added: number;
  /** Passages already in the store (an earlier, interrupted ingest): not embedded again. */
  skipped: number;
}

export interface ScoredId {
  id: string;
  score: number;
  /** A store's own handle for reading the hit fast (LanceDB: its row id). */
  ref?: unknown;
}

export interface SampleOptions {
  seed?: number;
  minYear?: number;
  maxYear?: number;
  minCitations?: number;
}

/**
 * A corpus of passages with BM25 and dense search: LanceDB in a folder (the embedded default) or
 * a Qdrant collection. Lexical results carry the score `bm25`, dense ones `dense` (cosine).
 */
export interface PassageStore {
  /** The folder, or the Qdrant collection's URL. */
  readonly location: string;
  meta(): Promise<StoreMeta | undefined>;
  count(): Promise<number>;
  ingest(docs: AsyncIterable<CorpusDocument> | Iterable<CorpusDocument>, o: IngestOptions): Promise<IngestResult>;
  lexical(query: string, k: number): Promise<Passage[]>;
  dense(vector: number[], k: number): Promise<Passage[]>;
  /** Ids and BM25 scores only, best first: for fusing before reading any text. */
  lexicalIds(query: string, k: number): Promise<ScoredId[]>;
  /** Ids and cosine similarities only, best first. */
  denseIds(vector: number[], k: number): Promise<ScoredId[]>;
  /** The passages of these hits (title, text, metadata; no scores), by id; ids not in the store are left out. */
  passages(hits: Array<Pick<ScoredId, "id" | "ref">>): Promise<Map<string, Passage>>;
  /** Deletes every passage of these documents (a changed file being ingested again); returns how many went. */
  removeDocuments(docIds: string[]): Promise<number>;
  /** A deterministic sample of `n` papers (their first passage), after the metadata filters. */
  sample(n: number, o?: SampleOptions): Promise<Passage[]>;
}

/** Refuses to mix embedders or chunkers in one store. */
export function checkCompatible(location: string, before: StoreMeta | undefined, o: IngestOptions): void {
  if (before && (before.embedder !== o.embedder.id || before.chunker !== o.chunkerName))
    throw new Error(
      `store ${location} was built with embedder "${before.embedder}" and chunker "${before.chunker}"; ` +
        `ingesting with "${o.embedder.id}" / "${o.chunkerName}" would mix them: use another store${before.incomplete ? ", or resume with the embedder and chunker it was started with" : ""}`,
    );
}

/**
 * A store with rows but no meta (left by an ingest killed before stores wrote their meta first):
 * its vectors must have the new embedder's dimensions.
 */
export function checkExistingDimensions(location: string, rows: Array<{ vector?: unknown }>, embedder: string, dimensions: number): void {
  const v = rows[0]?.vector as { length?: number } | undefined;
  if (v?.length !== undefined && v.length !== dimensions)
    throw new Error(
      `store ${location} holds ${v.length}-dimensional vectors from an unfinished ingest; embedder "${embedder}" gives ${dimensions}: use another store, or the embedder it was started with`,
    );
}

export function checkDimensions(location: string, meta: StoreMeta | undefined, vector: number[]): void {
  if (meta && vector.length !== meta.dimensions) throw new Error(`query vector has ${vector.length} dimensions; store ${location} holds ${meta.dimensions} (embedder "${meta.embedder}")`);
}

/** First passages after the metadata filters, ordered by a hash of (seed, id): the same sample every time. */
export function sampleOf(firstPassages: Passage[], n: number, o: SampleOptions = {}): Passage[] {
  const keep = firstPassages.filter((p) => {
    const m = p.metadata ?? {};
    if (o.minYear !== undefined && !(m.year !== undefined && m.year >= o.minYear)) return false;
    if (o.maxYear !== undefined && !(m.year !== undefined && m.year <= o.maxYear)) return false;
    if (o.minCitations !== undefined && !(m.citationCount !== undefined && m.citationCount >= o.minCitations)) return false;
    return true;
  });
  const rank = (id: string) =>
    createHash("sha256")
      .update(`${o.seed ?? 0}\0${id}`)
      .digest("hex");
  return keep.sort((a, b) => rank(a.id).localeCompare(rank(b.id))).slice(0, n);
}

/** What a store supplies to the shared ingest loop. */
export interface BatchWriter {
  /** Which of these passages the store holds already (they are not embedded again). */
  known(batch: Passage[]): Promise<Set<string>>;
  /** Writes one batch with its vectors, atomically. */
  write(batch: Passage[], vectors: number[][]): Promise<void>;
}

/**
 * The ingest loop every store shares: chunk each document, gather passages into batches, skip
 * the ones already stored, embed the rest and write them batch by batch, reporting progress.
 * Returns the counts and the vectors' dimensions (0 when nothing was embedded).
 */
export async function ingestBatches(docs: AsyncIterable<CorpusDocument> | Iterable<CorpusDocument>, o: IngestOptions, writer: BatchWriter): Promise<IngestResult & { dimensions: number }> {
  const batchSize = o.batchSize ?? 256;
  const result = { documents: 0, passages: 0, added: 0, skipped: 0, dimensions: 0 };
  let pending: Passage[] = [];
  const flush = async () => {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    const known = await writer.known(batch);
    const todo = batch.filter((p) => !known.has(p.id));
    result.skipped += batch.length - todo.length;
    if (todo.length === 0) return;
    o.signal?.throwIfAborted();
    const vectors = await o.embedder.embed(todo.map(indexText), o.signal ? { signal: o.signal } : undefined);
    result.dimensions = vectors[0]!.length;
    await writer.write(todo, vectors);
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
  return result;
}
