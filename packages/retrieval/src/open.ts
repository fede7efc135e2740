import { LanceStore } from "./lance.js";
import { QdrantStore, parseQdrantSpec } from "./qdrant.js";
import type { PassageStore } from "./store.js";

/**
 * Opens a store spec: `qdrant:<collection>` (on `env.QDRANT_URL`, with `env.QDRANT_API_KEY`),
 * `qdrant:<url>/collections/<name>`, else a LanceDB folder.
 */
export function openPassageStore(spec: string, env: Record<string, string | undefined>): Promise<PassageStore> {
  return spec.startsWith("qdrant:") ? QdrantStore.open(parseQdrantSpec(spec, env)) : LanceStore.open(spec);
}
