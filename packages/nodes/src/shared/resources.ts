import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { DEFAULT_MODELS, loadEmbedder, loadNli, loadReranker, type Dtype, type Embedder, type NliModel, type Reranker } from "@citeflow/models";
import { openPassageStore, type PassageStore } from "@citeflow/retrieval";
import { z } from "zod";

// Models and stores are loaded once per process and shared by every node and run that asks.
const memo = new Map<string, Promise<unknown>>();
function once<T>(key: string, load: () => Promise<T>): Promise<T> {
  let p = memo.get(key) as Promise<T> | undefined;
  if (!p) {
    p = load();
    memo.set(key, p);
    p.catch(() => memo.delete(key)); // a failed load is retried next time
  }
  return p;
}

/** Params every node that reads a store shares. */
export const storeParam = z.string().default("").describe("Store folder (from citeflow ingest), or qdrant:<collection> on $QDRANT_URL; empty: $CITEFLOW_STORE");

/** A store spec: a LanceDB folder, or `qdrant:<collection>` / `qdrant:<url>/collections/<name>`. */
export function storeSpec(param: string): string {
  const spec = param || process.env.CITEFLOW_STORE || "";
  if (!spec) throw new Error(`no store: set the node's "store" param or $CITEFLOW_STORE to a folder made by citeflow ingest (or qdrant:<collection>)`);
  if (spec.startsWith("qdrant:")) return spec;
  const abs = resolve(spec);
  if (!existsSync(abs)) throw new Error(`store folder ${abs} does not exist: build it with citeflow ingest --store ${spec} …`);
  return abs;
}

export function openStore(param: string): Promise<PassageStore> {
  const spec = storeSpec(param);
  return once(`store:${spec}`, () => openPassageStore(spec));
}

/** What a store's results depend on: where it is and when it was last written. */
export async function storeFingerprint(param: string): Promise<unknown> {
  const store = await openStore(param);
  const meta = await store.meta();
  return { dir: store.location, updatedAt: meta?.updatedAt ?? null, passages: meta?.passages ?? null };
}

export const modelParams = {
  modelsDir: z.string().default("").describe("Local models folder; empty: $CITEFLOW_MODELS"),
  dtype: z.enum(["fp32", "q8"]).default("fp32").describe("fp32 (onnx/model.onnx) or q8 (onnx/model_quantized.onnx)"),
};

function modelOptions(modelsDir: string, dtype: Dtype) {
  return { dtype, ...(modelsDir ? { modelsDirs: [modelsDir] } : {}) };
}

export function embedder(id: string, modelsDir: string, dtype: Dtype): Promise<Embedder> {
  return once(`embedder:${id}:${modelsDir}:${dtype}`, () => loadEmbedder(id, modelOptions(modelsDir, dtype)));
}

export function reranker(id: string, modelsDir: string, dtype: Dtype): Promise<Reranker> {
  return once(`reranker:${id}:${modelsDir}:${dtype}`, () => loadReranker(id, modelOptions(modelsDir, dtype)));
}

export function nliModel(id: string, modelsDir: string, dtype: Dtype): Promise<NliModel> {
  return once(`nli:${id}:${modelsDir}:${dtype}`, () => loadNli(id, modelOptions(modelsDir, dtype)));
}

/** A node's model param, else the environment's choice, else the default for users online. */
export const nliModelId = (param: string) => param || process.env.CITEFLOW_NLI_MODEL || DEFAULT_MODELS.nli;
export const rerankModelId = (param: string) => param || process.env.CITEFLOW_RERANK_MODEL || DEFAULT_MODELS.reranker;
