import type { Passage } from "@citeflow/core";
import { pubmedDocument, pubmedXmlParser } from "../pubmed-article.js";
import { HttpClient, SearchApiError, type HttpClientOptions } from "./http.js";

export interface PubMedOptions extends Partial<HttpClientOptions> {
  baseUrl?: string;
  apiKey?: string;
}

/** PubMed through the NCBI E-utilities: esearch for ids, then efetch for titles and abstracts. */
export class PubMed {
  readonly #http: HttpClient;
  readonly #base: string;
  readonly #key: string | undefined;
  constructor(o: PubMedOptions = {}) {
    this.#base = (o.baseUrl ?? "https://eutils.ncbi.nlm.nih.gov/entrez/eutils").replace(/\/$/, "");
    this.#key = o.apiKey;
    // NCBI allows 3 requests/s without a key, 10 with one.
    this.#http = new HttpClient({ service: "PubMed", requestsPerSecond: o.apiKey ? 10 : 3, ...o, secretParams: ["api_key"] });
  }

  #params(p: Record<string, string>) {
    return new URLSearchParams({ ...p, ...(this.#key ? { api_key: this.#key } : {}) });
  }

  async search(query: string, o: { limit: number; signal?: AbortSignal }): Promise<Passage[]> {
    const searchUrl = `${this.#base}/esearch.fcgi?${this.#params({ db: "pubmed", term: query, retmax: String(o.limit), retmode: "json" })}`;
    const found = (await this.#http.getJson(searchUrl, o.signal)) as { esearchresult?: { idlist?: unknown } };
    const ids = found?.esearchresult?.idlist;
    if (!Array.isArray(ids) || !ids.every((x) => typeof x === "string")) throw new SearchApiError(`PubMed esearch: unexpected response shape (no esearchresult.idlist)`);
    if (ids.length === 0) return [];
    const fetchUrl = `${this.#base}/efetch.fcgi?${this.#params({ db: "pubmed", id: ids.join(","), retmode: "xml" })}`;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed XML: each field is checked where it is read
    let doc: any;
    try {
      doc = pubmedXmlParser.parse(await this.#http.get(fetchUrl, o.signal), true);
    } catch (e) {
      throw new SearchApiError(`PubMed efetch: malformed XML: ${(e as Error).message}`);
    }
    const byId = new Map<string, Passage>();
    for (const a of doc?.PubmedArticleSet?.PubmedArticle ?? []) {
      const d = pubmedDocument(a);
      if (typeof d !== "string") byId.set(d.docId, { id: `pubmed:${d.docId}#0`, title: d.title, text: d.text, metadata: d.metadata, scores: {} });
    }
    // Keep esearch's relevance order.
    return ids.flatMap((id) => byId.get(id) ?? []).map((p, i) => ({ ...p, scores: { search: 1 / (i + 1) } }));
  }
}
