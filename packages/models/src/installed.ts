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
  const add = (id: string, c: ModelConfig | undefined, dir: string) => c && !out.has(id) && out.set(id, { id, kind: modelKind(c), dir });
  for (const dir of dirs)
    for (const e of entries(dir)) {
      const own = config(join(dir, e.name));
      // `name`, or `org/name` one level down.
      if (own) add(e.name, own, dir);
      else for (const f of entries(join(dir, e.name))) add(`${e.name}/${f.name}`, config(join(dir, e.name, f.name)), dir);
    }
  return [...out.values()].sort((a, b) => a.id.localeCompare(b.id));
}
