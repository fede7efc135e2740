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
    if (stored === undefined) continue;
    if (stored !== e.sha256) plan.changed.push(e.docId);
    else if (!incomplete) plan.unchanged.add(e.docId);
  }
  return plan;
}
