import { defineNode } from "@citeflow/core";
import { hybridSearch, QdrantStore } from "@citeflow/retrieval";
import { z } from "zod";
import { denseParams, queryVector } from "./retrieve-dense.js";
import { queryInputs, queryText } from "../shared/query.js";

export const retrieveHybrid = defineNode({
  type: "retrieve.hybrid",
  version: 1,
  title: "Hybrid retrieval",
  family: "retrieve",
  description: "BM25 + dense, fused as Verif.ai does (each list ÷ its top score, 0.7·lexical + 0.3·dense), or by min-max or RRF; on a Qdrant store also fused by the server (qdrant-rrf, qdrant-dbsf).",
  inputs: queryInputs,
  outputs: { passages: { type: "Passage[]", description: "Best first, by `fused` (or `rrf`)" } },
  params: z
    .object({
      ...denseParams,
      candidates: z.number().int().positive().default(100).describe("Passages taken from each retriever before fusing"),
      fusion: z
        .enum(["verifai", "minmax", "rrf", "qdrant-rrf", "qdrant-dbsf"])
        .default("verifai")
        .describe("verifai: divide by top score; minmax: min-max; rrf: reciprocal rank; qdrant-rrf / qdrant-dbsf: fused by a Qdrant server (its fused score only)"),
      lexicalWeight: z.number().min(0).max(1).default(0.7),
      denseWeight: z.number().min(0).max(1).default(0.3),
      rrfK: z.number().positive().default(60).describe("k in 1 / (k + rank)"),
    })
    .refine((p) => p.lexicalWeight + p.denseWeight <= 1 + 1e-9, { message: "lexicalWeight + denseWeight must not exceed 1", path: ["denseWeight"] }),
  fingerprint: (p, services) => services.storeIdentity(p.store),
  async run(inputs, params, ctx) {
    const q = queryText(inputs, "retrieve.hybrid");
    const store = await ctx.services.store(params.store);
    const vector = await ctx.span("embed", (s) => queryVector(ctx.services, store, q, params, s));
    const { fusion } = params;
    if (fusion === "qdrant-rrf" || fusion === "qdrant-dbsf") {
      if (!(store instanceof QdrantStore)) throw new Error(`fusion "${fusion}" needs a Qdrant store (qdrant:<collection>); store ${store.location} is LanceDB`);
      const server = fusion === "qdrant-rrf" ? "rrf" : "dbsf";
      return { passages: await ctx.span("search", () => store.fused(q, vector, params.k, { fusion: server, candidates: params.candidates })) };
    }
    const passages = await ctx.span("search", () =>
      hybridSearch(store, q, vector, { k: params.k, candidates: params.candidates, fusion, weights: [params.lexicalWeight, params.denseWeight], rrfK: params.rrfK }),
    );
    return { passages };
  },
});
