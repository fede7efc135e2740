import { z } from "zod";

/** Params every node that reads a store shares. */
export const storeParam = z.string().default("").describe("Store folder (from citeflow ingest), or qdrant:<collection> on $QDRANT_URL; empty: the run's store (--store, $CITEFLOW_STORE)");

/** Params every node that runs a local ONNX model shares. */
export const modelParams = {
  modelsDir: z.string().default("").describe("Local models folder; empty: the configured ones ($CITEFLOW_MODELS, then the models home)"),
  dtype: z.enum(["fp32", "q8"]).default("fp32").describe("fp32 (onnx/model.onnx) or q8 (onnx/model_quantized.onnx)"),
};

/**
 * A node's model param: an id, marked with the kind of model it takes, so the editor can offer the installed ones of
 * that kind and the CLI can say which models a graph runs (`modelParamsOf`). `when`: the params under which the node
 * uses it (check.sufficiency's reranker only with `judge: reranker`).
 */
export function modelParam(kind: "nli" | "reranker", description: string, when?: Record<string, string>) {
  return z
    .string()
    .default("")
    .describe(description)
    .meta({ citeflowModelKind: kind, ...(when ? { citeflowModelWhen: when } : {}) });
}

/** The models a node with these params uses, read from its model params' marks: the kind, and the param's value ("" = the configured one). */
export function modelParamsOf(params: z.ZodType, values: Record<string, unknown>): Array<{ kind: "nli" | "reranker"; param: string; value: string }> {
  const shape = params instanceof z.ZodObject ? (params.shape as Record<string, z.ZodType>) : {};
  return Object.entries(shape).flatMap(([param, schema]) => {
    const meta = schema.meta() as { citeflowModelKind?: "nli" | "reranker"; citeflowModelWhen?: Record<string, string> } | undefined;
    if (!meta?.citeflowModelKind) return [];
    if (meta.citeflowModelWhen && Object.entries(meta.citeflowModelWhen).some(([k, v]) => values[k] !== v)) return [];
    return [{ kind: meta.citeflowModelKind, param, value: typeof values[param] === "string" ? (values[param] as string) : "" }];
  });
}
