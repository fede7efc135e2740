import type { CorpusDocument, ReadReport } from "./document.js";
import { findPdfs, readPdfs } from "./pdf/reader.js";
import type { PassageStore } from "./store.js";

export interface IngestPlan {
  /** Documents the store holds already in this version: not read again. */
  unchanged: Set<string>;
  /** Documents whose source changed since it was ingested: their passages go before the new text comes in. */
  changed: string[];
}

/**
 * Which documents of a folder or library need reading: one is unchanged when its first passage in
 * the store carries the same content hash (`metadata.sha256`). After an interrupted ingest
 * (`incomplete` in the store's meta) everything is read again, and the passages already stored are
 * skipped by id as in every resumed ingest.
 */
export async function planIngest(store: PassageStore, entries: Array<{ docId: string; sha256: string }>): Promise<IngestPlan> {
  const plan: IngestPlan = { unchanged: new Set(), changed: [] };
  if (entries.length === 0 || (await store.count()) === 0) return plan;
  const incomplete = !!(await store.meta())?.incomplete;
  const first = await store.passages(entries.map((e) => ({ id: `${e.docId}#0` })));
  for (const e of entries) {
    const stored = first.get(`${e.docId}#0`)?.metadata.sha256;
    // Not stored yet, or a file that cannot be read now: neither unchanged nor replaced.
    if (stored === undefined || e.sha256 === "") continue;
    if (stored !== e.sha256) plan.changed.push(e.docId);
    else if (!incomplete) plan.unchanged.add(e.docId);
  }
  return plan;
}

/** What an ingest of files or a library did besides adding passages. */
export interface SourceTally {
  /** Files or library entries found. */
  entries: number;
  /** Unchanged since the last ingest: not read again. */
  unchanged: number;
  /** Changed since the last ingest: old passages removed, new text read. */
  replaced: number;
  /** PDF pages read. */
  pages: number;
  /** Zotero: the library version ingested, and whether the server said nothing changed (304). */
  libraryVersion?: number;
  libraryUnchanged?: boolean;
  /** Zotero: items deleted from the library since the last ingest, whose passages were removed. */
  deleted?: number;
}

export const newTally = (): SourceTally => ({ entries: 0, unchanged: 0, replaced: 0, pages: 0 });

/** Entries whose content the store holds are skipped; changed ones lose their old passages first. */
export async function planSources(store: PassageStore, entries: Array<{ docId: string; sha256: string }>, tally: SourceTally): Promise<Set<string>> {
  const p = await planIngest(store, entries);
  tally.entries = entries.length;
  tally.unchanged = p.unchanged.size;
  if (p.changed.length) await store.removeDocuments(p.changed);
  tally.replaced = p.changed.length;
  return p.unchanged;
}

/** A PDF file or a folder of them. */
export async function pdfDocuments(
  path: string,
  store: PassageStore,
  report: ReadReport,
  tally: SourceTally,
  onPage?: (file: string, page: number, pages: number) => void,
): Promise<AsyncGenerator<CorpusDocument>> {
  const files = findPdfs(path);
  if (files.length === 0) throw new Error(`${path}: no .pdf files found`);
  const skip = await planSources(store, files, tally);
  return readPdfs(files, report, { skip, onFile: (_f, pages) => (tally.pages += pages), ...(onPage ? { onPage: (f, page, pages) => onPage(f.path, page, pages) } : {}) });
}
