import { PubMed } from "@citeflow/retrieval";
import { searchNode } from "../shared/search-node.js";

export const searchPubmed = searchNode({
  type: "search.pubmed",
  title: "PubMed search",
  description: "PubMed through the NCBI E-utilities (esearch, then efetch for titles and abstracts).",
  keyOf: "pubmed",
  params: {},
  client: (o) => new PubMed(o),
  search: (c, q, p, signal) => c.search(q, { limit: p.limit, signal }),
});
