import { LanceStore } from "./lance.js";
import { QdrantStore, parseQdrantSpec } from "./qdrant.js";
import type { PassageStore } from "./store.js";

/** Opens a store spec: `qdrant:<collection>` (on $QDRANT_URL), `qdrant:<url>/collections/<name>`, else a LanceDB folder. */
export function openPassageStore(spec: string): Promise<PassageStore> {
  return spec.startsWith("qdrant:") ? QdrantStore.open(parseQdrantSpec(spec)) : LanceStore.open(spec);
}
