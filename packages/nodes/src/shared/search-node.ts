import { defineNode, type Passage } from "@citeflow/core";
import type { HttpClientOptions } from "@citeflow/retrieval";
import { z } from "zod";
import type { SearchService } from "./config.js";
import { queryInputs, queryText } from "./query.js";

const common = {
  limit: z.number().int().positive().max(100).default(10).describe("How many papers"),
  baseUrl: z
    .string()
    .url()
    .optional()
    .describe("API base URL (default: the public service); another server runs only when you allowed it ($CITEFLOW_ALLOWED_ENDPOINTS, --allow-endpoint, the editor's dialog)"),
  requestsPerSecond: z.number().min(0.01).max(100).optional().describe("Rate limit, 0.01 to 100 (default: the service's published limit)"),
  retries: z.number().int().nonnegative().max(10).default(3).describe("Retries on 429 / 5xx / network errors, with exponential backoff (at most 10)"),
  timeoutMs: z.number().int().min(100).max(600_000).default(30_000).describe("Timeout per attempt, the answer's whole body included (100 ms to 10 minutes)"),
};

type Common = { limit: number; baseUrl?: string | undefined; requestsPerSecond?: number | undefined; retries: number; timeoutMs: number };

interface SearchNodeSpec<E extends z.ZodRawShape, C> {
  type: string;
  title: string;
  description: string;
  /** The service whose API key the configuration holds, if it takes one (graphs never hold keys, nor name them). */
  keyOf?: SearchService;
  params: E;
  client: (o: Partial<HttpClientOptions> & { baseUrl?: string; apiKey?: string }) => C;
  search: (client: C, query: string, params: z.infer<z.ZodObject<E>> & Common, signal: AbortSignal) => Promise<Passage[]>;
}

/** A node that queries an external search API; each of the four lives in its own file. */
export function searchNode<E extends z.ZodRawShape, C>(spec: SearchNodeSpec<E, C>) {
  // One client per configuration, so the rate limit holds across nodes and runs in this process.
  const clients = new Map<string, C>();
  const commonParams = z.object(common);
  const ownParams = z.object(spec.params);
  return defineNode({
    type: spec.type,
    version: 1,
    title: spec.title,
    family: "search",
    description: spec.description,
    inputs: queryInputs,
    outputs: { passages: { type: "Passage[]", description: "One passage per paper (title + abstract); score `search` = 1 / the API's rank" } },
    params: z.object({ ...common, ...spec.params }),
    async run(inputs, params, ctx) {
      // The merged object is opaque to the compiler for a generic service; each part parses as its own type.
      const p = { ...ownParams.parse(params), ...commonParams.parse(params) };
      const q = queryText(inputs, spec.type);
      if (p.baseUrl) ctx.services.requireEndpoint(p.baseUrl, "params.baseUrl");
      const apiKey = spec.keyOf ? ctx.services.apiKey(spec.keyOf, p.baseUrl) : undefined;
      const key = JSON.stringify([spec.type, p.baseUrl, p.requestsPerSecond, p.retries, p.timeoutMs, apiKey]);
      let client = clients.get(key);
      if (!client) {
        client = spec.client({
          ...(p.baseUrl ? { baseUrl: p.baseUrl } : {}),
          ...(apiKey ? { apiKey } : {}),
          ...(p.requestsPerSecond ? { requestsPerSecond: p.requestsPerSecond } : {}),
          retries: p.retries,
          timeoutMs: p.timeoutMs,
        });
        clients.set(key, client);
      }
      const passages = await ctx.span("request", async (s) => {
        s.set("query", q);
        const out = await spec.search(client, q, p, ctx.signal);
        s.set("results", out.length);
        return out;
      });
      return { passages };
    },
  });
}
