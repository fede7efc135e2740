import { defineNode, type Services } from "@citeflow/core";
import { DEFAULT_MODELS } from "@citeflow/models";
import { indexText } from "@citeflow/retrieval";
import { z } from "zod";
import { modelParams } from "../shared/params.js";
import { queryInputs, queryText } from "../shared/query.js";

/**
 * Whether this node keeps the retriever's order: no model was chosen (param, $CITEFLOW_RERANK_MODEL)
 * and the default one cannot be had. A reranker you name that is missing stays an error.
 */
function retrieverOrder(p: { model: string; modelsDir: string }, s: Services): boolean {
  const id = s.modelId("reranker", p.model);
  return p.model === "" && id === DEFAULT_MODELS.reranker && !s.rerankerInstalled(id, p.modelsDir);
}

export const rerankCrossEncoder = defineNode({
  type: "rerank.cross-encoder",
  version: 1,
  title: "Cross-encoder rerank",
  family: "rerank",
  description:
    "Scores each (query, passage) pair with a cross-encoder and sorts by it; the score is kept as `rerank`. When no model is chosen and the default one is not installed (offline), the passages keep the retriever's order, and the node says so: the baseline, not a silent stand-in.",
  inputs: { ...queryInputs, passages: { type: "Passage[]" } },
  outputs: { passages: { type: "Passage[]", description: "Sorted by `rerank`, best first" } },
  params: z.object({
    model: z.string().default("").describe(`Cross-encoder model id (Hugging Face ONNX layout); empty: $CITEFLOW_RERANK_MODEL, else ${DEFAULT_MODELS.reranker}`),
    ...modelParams,
    topN: z.number().int().positive().optional().describe("Keep only the N best after reranking"),
  }),
  fingerprint: (p, s) => ({ id: s.modelId("reranker", p.model), baseline: retrieverOrder(p, s) }),
  async run(inputs, params, ctx) {
    const q = queryText(inputs, "rerank.cross-encoder");
    const passages = inputs.passages;
    const id = ctx.services.modelId("reranker", params.model);
    if (retrieverOrder(params, ctx.services)) {
      ctx.log("warn", `no reranker installed (${id} is not in the models folders and downloads are off): the passages keep the retriever's order`);
      return { passages: params.topN ? passages.slice(0, params.topN) : passages };
    }
    const model = await ctx.services.reranker({ id, modelsDir: params.modelsDir, dtype: params.dtype });
    const scores = await ctx.span("model", async (s) => {
      s.set("model", id);
      s.set("pairs", passages.length);
      return model.score(q, passages.map(indexText), { signal: ctx.signal });
    });
    const ranked = passages.map((p, i) => ({ ...p, scores: { ...p.scores, rerank: scores[i]! } })).sort((a, b) => b.scores.rerank - a.scores.rerank);
    return { passages: params.topN ? ranked.slice(0, params.topN) : ranked };
  },
});
