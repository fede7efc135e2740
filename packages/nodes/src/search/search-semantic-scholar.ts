import { SemanticScholar } from "@citeflow/retrieval";
import { z } from "zod";
import { searchNode } from "../shared/search-node.js";

export const searchSemanticScholar = searchNode({
  type: "search.semantic-scholar",
  title: "Semantic Scholar search",
  description: "Keyword search on Semantic Scholar, as OpenScholar uses it: abstracts only, a citation floor, sorted by citations.",
  keyOf: "semantic-scholar",
  params: {
    minCitations: z.number().int().nonnegative().default(0).describe("Drop papers with fewer citations"),
    sortByCitations: z.boolean().default(true).describe("Most-cited first (else the API's relevance order)"),
  },
  client: (o) => new SemanticScholar(o),
  search: (c, q, p, signal) => c.search(q, { limit: p.limit, minCitations: p.minCitations, sortByCitations: p.sortByCitations, signal }),
});
