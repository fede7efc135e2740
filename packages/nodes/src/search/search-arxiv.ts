import { Arxiv } from "@citeflow/retrieval";
import { searchNode } from "../shared/search-node.js";

export const searchArxiv = searchNode({
  type: "search.arxiv",
  title: "arXiv search",
  description: "arXiv's Atom search API (one request every 3 s by default, as arXiv asks).",
  params: {},
  client: (o) => new Arxiv(o),
  search: (c, q, p, signal) => c.search(q, { limit: p.limit, signal }),
});
