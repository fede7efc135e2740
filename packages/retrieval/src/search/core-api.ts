import type { Passage } from "@citeflow/core";
import { HttpClient, type HttpClientOptions } from "./http.js";

export interface CoreApiOptions extends Partial<HttpClientOptions> {
  baseUrl?: string;
  apiKey?: string;
}

interface CoreWork {
  id: number | string;
  title?: string | null;
  abstract?: string | null;
  yearPublished?: number | null;
  citationCount?: number | null;
  downloadUrl?: string | null;
  doi?: string | null;
}

/** CORE (open-access research outputs) v3 search, as CORE-GPT retrieves papers. */
export class CoreApi {
  readonly #http: HttpClient;
  readonly #base: string;
  constructor(o: CoreApiOptions = {}) {
    this.#base = (o.baseUrl ?? "https://api.core.ac.uk").replace(/\/$/, "");
    this.#http = new HttpClient({ service: "CORE", ...o, headers: { ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}), ...o.headers } });
  }

  async search(query: string, o: { limit: number; signal?: AbortSignal }): Promise<Passage[]> {
    const url = `${this.#base}/v3/search/works?${new URLSearchParams({ q: query, limit: String(o.limit) })}`;
    const body = (await this.#http.getJson(url, o.signal)) as { results?: CoreWork[] };
    if (!body || !Array.isArray(body.results)) throw this.#http.error(url, 'unexpected response shape (no "results" list)');
    return body.results
      .filter((w) => w.id !== undefined && w.abstract)
      .slice(0, o.limit)
      .map((w, i) => ({
        id: `core:${w.id}#0`,
        title: w.title ?? "",
        text: w.abstract!,
        metadata: {
          source: "core",
          ...(typeof w.yearPublished === "number" ? { year: w.yearPublished } : {}),
          ...(typeof w.citationCount === "number" ? { citationCount: w.citationCount } : {}),
          ...(w.downloadUrl ? { url: w.downloadUrl } : w.doi ? { url: `https://doi.org/${w.doi}` } : {}),
        },
        scores: { search: 1 / (i + 1) },
      }));
  }
}
