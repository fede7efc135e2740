import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { nliLabelKind } from "./labels.js";

export type ModelKind = "nli" | "reranker" | "embedder";

interface ModelConfig {
  id2label?: Record<string, string>;
  citeflow_reranker?: unknown;
}

/**
 * What a model folder's config.json says it is: Citeflow's reranker (marked `citeflow_reranker`),
 * an NLI model (labels that map onto SUPPORT / NO_EVIDENCE / CONTRADICT), a cross-encoder reranker
 * (a classifier with one label), else a sentence encoder.
 */
export function modelKind(config: ModelConfig): ModelKind {
  if (config.citeflow_reranker) return "reranker";
  const labels = Object.values(config.id2label ?? {});
  if (labels.length >= 3 && nliLabelKind(labels)) return "nli";
  if (labels.length === 1) return "reranker";
  return "embedder";
}

/**
 * The models installed in the given folders (`$CITEFLOW_MODELS`, then the models home), by id
 * (`name` or `org/name`) and kind, first folder first: what a node's `model` field offers.
 */
export function installedModels(dirs: string[]): Array<{ id: string; kind: ModelKind; dir: string }> {
  const out = new Map<string, { id: string; kind: ModelKind; dir: string }>();
  const entries = (d: string) => {
    try {
      return readdirSync(d, { withFileTypes: true }).filter((e) => e.isDirectory() || e.isSymbolicLink());
    } catch {
      return [];
    }
  };
  const config = (path: string): ModelConfig | undefined => {
    try {
      return JSON.parse(readFileSync(join(path, "config.json"), "utf8")) as ModelConfig;
    } catch {
      return undefined;
    }
  };
  for (const dir of dirs)
    for (const e of entries(dir)) {
      const own = config(join(dir, e.name));
      const found = own ? [[e.name, own] as const] : entries(join(dir, e.name)).flatMap((f) => ((c) => (c ? [[`${e.name}/${f.name}`, c] as const] : []))(config(join(dir, e.name, f.name))));
      for (const [id, c] of found) if (!out.has(id)) out.set(id, { id, kind: modelKind(c), dir });
    }
  return [...out.values()].sort((a, b) => a.id.localeCompare(b.id));
}
