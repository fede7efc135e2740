import { CoreApi } from "@citeflow/retrieval";
import { searchNode } from "../shared/search-node.js";

export const searchCore = searchNode({
  type: "search.core",
  title: "CORE search",
  description: "Search of CORE's open-access research outputs (API v3), as CORE-GPT retrieves its papers.",
  keyOf: "core",
  params: {},
  client: (o) => new CoreApi(o),
  search: (c, q, p, signal) => c.search(q, { limit: p.limit, signal }),
});
