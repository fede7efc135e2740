import { defineNode } from "@citeflow/core";
import { DEFAULT_MODELS } from "@citeflow/models";
import { indexText } from "@citeflow/retrieval";
import { z } from "zod";
import { modelParams } from "../shared/params.js";
import { queryInputs, queryText } from "../shared/query.js";

export const rerankCrossEncoder = defineNode({
  type: "rerank.cross-encoder",
  version: 1,
  title: "Cross-encoder rerank",
  family: "rerank",
  description: "Scores each (query, passage) pair with a cross-encoder and sorts by it; the score is kept as `rerank`.",
  inputs: { ...queryInputs, passages: { type: "Passage[]" } },
  outputs: { passages: { type: "Passage[]", description: "Sorted by `rerank`, best first" } },
  params: z.object({
    model: z.string().default("").describe(`Cross-encoder model id (Hugging Face ONNX layout); empty: $CITEFLOW_RERANK_MODEL, else ${DEFAULT_MODELS.reranker}`),
    ...modelParams,
    topN: z.number().int().positive().optional().describe("Keep only the N best after reranking"),
  }),
  fingerprint: (p, s) => s.modelId("reranker", p.model),
  async run(inputs, params, ctx) {
    const q = queryText(inputs, "rerank.cross-encoder");
    const passages = inputs.passages;
    const id = ctx.services.modelId("reranker", params.model);
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
