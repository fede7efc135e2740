import { z } from "zod";

/** Params every node that reads a store shares. */
export const storeParam = z.string().default("").describe("Store folder (from citeflow ingest), or qdrant:<collection> on $QDRANT_URL; empty: the run's store (--store, $CITEFLOW_STORE)");

/** Params every node that runs a local ONNX model shares. */
export const modelParams = {
  modelsDir: z.string().default("").describe("Local models folder; empty: the configured ones ($CITEFLOW_MODELS, then the models home)"),
  dtype: z.enum(["fp32", "q8"]).default("fp32").describe("fp32 (onnx/model.onnx) or q8 (onnx/model_quantized.onnx)"),
};

/** A node's model param: an id, marked with the kind of model it takes, so the editor can offer the installed ones of that kind. */
export function modelParam(kind: "nli" | "reranker", description: string) {
  return z.string().default("").describe(description).meta({ citeflowModelKind: kind });
}
