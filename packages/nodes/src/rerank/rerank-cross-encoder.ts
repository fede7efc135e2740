import { defineNode, type Passage } from "@citeflow/core";
import { DEFAULT_MODELS } from "@citeflow/models";
import { indexText, weightedFusion } from "@citeflow/retrieval";
import { z } from "zod";
import { modelParam, modelParams } from "../shared/params.js";
import { queryInputs, queryText } from "../shared/query.js";

export const rerankCrossEncoder = defineNode({
  type: "rerank.cross-encoder",
  version: 1,
  title: "Rerank",
  family: "rerank",
  description:
    "Scores each (query, passage) pair with a reranker model and sorts by it; the score is kept as `rerank`. The model is a cross-encoder (one pass per pair) or a sentence encoder marked as a reranker (cosine of the two embeddings; Citeflow's trained one). With a lexical weight (the param, else the one the model was made with), the rerank score is fused with the retriever's BM25 score, each divided by its top here, and kept as `reranked`.",
  inputs: { ...queryInputs, passages: { type: "Passage[]" } },
  outputs: { passages: { type: "Passage[]", description: "Sorted by `reranked` when fused with BM25, else by `rerank`; best first" } },
  params: z.object({
    model: modelParam(
      "reranker",
      `Reranker model id (Hugging Face ONNX layout: a cross-encoder, or a sentence encoder marked as a reranker); empty: $CITEFLOW_RERANK_MODEL, else ${DEFAULT_MODELS.reranker}`,
    ),
    ...modelParams,
    topN: z.number().int().positive().optional().describe("Keep only the N best after reranking"),
    lexicalWeight: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe(
        "Weight of the retriever's BM25 score fused with the reranker's (each divided by its top); empty: the weight the model was made with (Citeflow's reranker: 0.5), else 0, the reranker alone",
      ),
  }),
  fingerprint: async (p, s) => ({ id: await s.modelIdentity("reranker", s.modelId("reranker", p.model), p.modelsDir) }),
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
    const scored = passages.map((p, i) => ({ ...p, scores: { ...p.scores, rerank: scores[i]! } }));
    const w = params.lexicalWeight ?? model.lexicalWeight ?? 0;
    if (w > 0 && !passages.some((p) => p.scores.bm25 !== undefined))
      ctx.log("warn", `lexical weight ${w}, but no passage has a BM25 score (retrieve.lexical or retrieve.hybrid give one): the reranker's score alone decides`);
    const ranked = w > 0 ? fused(scored, w) : scored.sort((a, b) => b.scores.rerank - a.scores.rerank);
    return { passages: params.topN ? ranked.slice(0, params.topN) : ranked };
  },
});

/** Rerank and BM25 scores fused by the one fusion rule (`weightedFusion`, each divided by its top), kept as `reranked`. */
function fused(passages: Array<Passage & { scores: { rerank: number } }>, w: number): Passage[] {
  const bare = (key: "bm25" | "rerank") => passages.filter((p) => p.scores[key] !== undefined).map((p) => ({ ...p, scores: { [key]: p.scores[key]! } }));
  const order = weightedFusion(
    [
      { passages: bare("bm25"), score: "bm25" },
      { passages: bare("rerank"), score: "rerank" },
    ],
    [w, 1 - w],
  );
  const byId = new Map(passages.map((p) => [p.id, p]));
  return order.map((f) => ({ ...byId.get(f.id)!, scores: { ...byId.get(f.id)!.scores, reranked: f.scores.fused! } }));
}
