import { defineNode, type Services, type SpanHandle } from "@citeflow/core";
import type { PassageStore } from "@citeflow/retrieval";
import { z } from "zod";
import { modelParams, storeParam } from "../shared/params.js";
import { queryInputs, queryText } from "../shared/query.js";

export const denseParams = {
  store: storeParam,
  k: z.number().int().positive().default(100).describe("How many passages"),
  embedder: z.string().default("").describe("Embedding model id; empty: the one the store was built with"),
  ...modelParams,
};

/** The query's vector, from the param's embedder or else the one the store was built with. */
export async function queryVector(services: Services, store: PassageStore, q: string, p: { embedder: string; modelsDir: string; dtype: "fp32" | "q8" }, span: SpanHandle): Promise<number[]> {
  const built = (await store.meta())?.embedder;
  if (p.embedder && built && p.embedder !== built)
    throw new Error(
      `store ${store.location} was built with the embedder "${built}", but this node asks for "${p.embedder}": their vectors do not compare. Clear the "embedder" param, or rebuild the store with citeflow ingest --embedder ${p.embedder}`,
    );
  const id = p.embedder || built;
  if (!id) throw new Error(`store ${store.location} does not say which embedder built it; set the "embedder" param`);
  span.set("model", id);
  const [vector] = await (await services.embedder({ id, modelsDir: p.modelsDir, dtype: p.dtype })).embed([q]);
  return vector!;
}

export async function denseSearch(services: Services, store: PassageStore, q: string, p: { k: number; embedder: string; modelsDir: string; dtype: "fp32" | "q8" }, span: SpanHandle) {
  return store.dense(await queryVector(services, store, q, p, span), p.k);
}

export const retrieveDense = defineNode({
  type: "retrieve.dense",
  version: 1,
  title: "Dense retrieval",
  family: "retrieve",
  description: "Embeds the query and finds the nearest passages by cosine; the score is kept as `dense`.",
  inputs: queryInputs,
  outputs: { passages: { type: "Passage[]", description: "Best first" } },
  params: z.object(denseParams),
  fingerprint: (p, services) => services.storeIdentity(p.store),
  async run(inputs, params, ctx) {
    const q = queryText(inputs, "retrieve.dense");
    const store = await ctx.services.store(params.store);
    return { passages: await ctx.span("dense", async (s) => (s.set("query", q), denseSearch(ctx.services, store, q, params, s))) };
  },
});
