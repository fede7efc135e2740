import { defineNode } from "@citeflow/core";
import { z } from "zod";
import { storeParam } from "../shared/params.js";
import { queryInputs, queryText } from "../shared/query.js";

export const retrieveLexical = defineNode({
  type: "retrieve.lexical",
  version: 1,
  title: "Lexical retrieval (BM25)",
  family: "retrieve",
  description: "BM25 full-text search over title + text of a store; the score is kept as `bm25`.",
  inputs: queryInputs,
  outputs: { passages: { type: "Passage[]", description: "Best first" } },
  params: z.object({
    store: storeParam,
    k: z.number().int().positive().default(100).describe("How many passages"),
  }),
  fingerprint: (p, services) => services.storeIdentity(p.store),
  async run(inputs, params, ctx) {
    const q = queryText(inputs, "retrieve.lexical");
    const store = await ctx.services.store(params.store);
    return { passages: await ctx.span("bm25", async (s) => (s.set("query", q), store.lexical(q, params.k))) };
  },
});
