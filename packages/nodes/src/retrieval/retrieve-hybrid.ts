import { defineNode } from "@citeflow/core";
import { reciprocalRankFusion, weightedFusion } from "@citeflow/retrieval";
import { z } from "zod";
import { openStore, storeFingerprint } from "../resources.js";
import { denseParams, denseSearch } from "./retrieve-dense.js";
import { queryInputs, queryText } from "./query.js";

export const retrieveHybrid = defineNode({
  type: "retrieve.hybrid",
  version: 1,
  title: "Hybrid retrieval",
  family: "retrieve",
  description: "BM25 + dense, fused as Verif.ai does (each list ÷ its top score, 0.7·lexical + 0.3·dense), or by min-max or RRF.",
  inputs: queryInputs,
  outputs: { passages: { type: "Passage[]", description: "Best first, by `fused` (or `rrf`)" } },
  params: z
    .object({
      ...denseParams,
      candidates: z.number().int().positive().default(100).describe("Passages taken from each retriever before fusing"),
      fusion: z.enum(["verifai", "minmax", "rrf"]).default("verifai").describe("verifai: divide by top score; minmax: min-max; rrf: reciprocal rank"),
      lexicalWeight: z.number().min(0).max(1).default(0.7),
      denseWeight: z.number().min(0).max(1).default(0.3),
      rrfK: z.number().positive().default(60).describe("k in 1 / (k + rank)"),
    })
    .refine((p) => p.lexicalWeight + p.denseWeight <= 1 + 1e-9, { message: "lexicalWeight + denseWeight must not exceed 1", path: ["denseWeight"] }),
  fingerprint: (p) => storeFingerprint(p.store),
  async run(inputs, params, ctx) {
    const q = queryText(inputs, "retrieve.hybrid");
    const store = await openStore(params.store);
    const [lexical, dense] = await Promise.all([
      ctx.span("bm25", () => store.lexical(q, params.candidates)),
      ctx.span("dense", () => denseSearch(store, q, { ...params, k: params.candidates })),
    ]);
    const lists = [
      { passages: lexical, score: "bm25" },
      { passages: dense, score: "dense" },
    ];
    const fused =
      params.fusion === "rrf"
        ? reciprocalRankFusion(lists, params.rrfK)
        : weightedFusion(lists, [params.lexicalWeight, params.denseWeight], params.fusion === "verifai" ? "top" : "minmax");
    return { passages: fused.slice(0, params.k) };
  },
});
