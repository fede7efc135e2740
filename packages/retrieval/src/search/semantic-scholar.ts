import type { Passage } from "@citeflow/core";
import { HttpClient, type HttpClientOptions } from "./http.js";

export interface SemanticScholarOptions extends Partial<HttpClientOptions> {
  baseUrl?: string;
  apiKey?: string;
}

interface S2Paper {
  paperId: string;
  title?: string | null;
  abstract?: string | null;
  year?: number | null;
  citationCount?: number | null;
  url?: string | null;
}

/**
 * Semantic Scholar keyword search, as OpenScholar uses it: papers with an abstract, at least
 * `minCitations` citations, sorted by citation count (or kept in relevance order).
 */
export class SemanticScholar {
  readonly #http: HttpClient;
  readonly #base: string;
  constructor(o: SemanticScholarOptions = {}) {
    this.#base = (o.baseUrl ?? "https://api.semanticscholar.org").replace(/\/$/, "");
    this.#http = new HttpClient({ service: "Semantic Scholar", ...o, headers: { ...(o.apiKey ? { "x-api-key": o.apiKey } : {}), ...o.headers } });
  }

  async search(query: string, o: { limit: number; minCitations?: number; sortByCitations?: boolean; signal?: AbortSignal }): Promise<Passage[]> {
    const params = new URLSearchParams({ query, limit: String(Math.min(100, o.limit * 2)), fields: "title,abstract,year,citationCount,url" });
    const url = `${this.#base}/graph/v1/paper/search?${params}`;
    const body = (await this.#http.getJson(url, o.signal)) as { data?: S2Paper[] };
    if (!body || (body.data !== undefined && !Array.isArray(body.data))) throw this.#http.error(url, "unexpected response shape");
    let papers = (body.data ?? []).filter((p) => typeof p.paperId === "string" && p.abstract && (p.citationCount ?? 0) >= (o.minCitations ?? 0));
    if (o.sortByCitations) papers = [...papers].sort((a, b) => (b.citationCount ?? 0) - (a.citationCount ?? 0));
    return papers.slice(0, o.limit).map((p, i) => ({
      id: `s2:${p.paperId}#0`,
      title: p.title ?? "",
      text: p.abstract!,
      metadata: {
        source: "semantic-scholar",
        ...(typeof p.year === "number" ? { year: p.year } : {}),
        ...(typeof p.citationCount === "number" ? { citationCount: p.citationCount } : {}),
        ...(p.url ? { url: p.url } : {}),
      },
      scores: { search: 1 / (i + 1) },
    }));
  }
}
