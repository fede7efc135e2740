import type { PassageStore } from "../store.js";
import type { PdfFile } from "./reader.js";

export interface PdfIngestPlan {
  /** Files whose content the store holds already: not read again. */
  unchanged: Set<string>;
  /** Documents whose file changed since it was ingested: their passages go before the new text comes in. */
  changed: string[];
}

/**
 * Which PDFs need reading: a file is unchanged when its first passage in the store carries the
 * same content hash. After an interrupted ingest (`incomplete` in the store's meta) every file is
 * read again, and the passages already stored are skipped by id as in every resumed ingest.
 */
export async function planPdfIngest(store: PassageStore, files: PdfFile[]): Promise<PdfIngestPlan> {
  const plan: PdfIngestPlan = { unchanged: new Set(), changed: [] };
  if ((await store.count()) === 0) return plan;
  const incomplete = !!(await store.meta())?.incomplete;
  const first = await store.passages(files.map((f) => ({ id: `${f.docId}#0` })));
  for (const f of files) {
    const stored = first.get(`${f.docId}#0`)?.metadata.sha256;
    if (stored === undefined) continue;
    if (stored !== f.sha256) plan.changed.push(f.docId);
    else if (!incomplete) plan.unchanged.add(f.path);
  }
  return plan;
}
