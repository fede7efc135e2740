import type { Passage } from "@citeflow/core";
import { XMLParser } from "fast-xml-parser";
import { HttpClient, type HttpClientOptions } from "./http.js";

export interface ArxivOptions extends Partial<HttpClientOptions> {
  baseUrl?: string;
}

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", isArray: (name) => name === "entry" || name === "link" });
const clean = (s: unknown) =>
  String(s ?? "")
    .replace(/\s+/g, " ")
    .trim();

/** arXiv's Atom API (one request every 3 s, as arXiv asks). */
export class Arxiv {
  readonly #http: HttpClient;
  readonly #base: string;
  constructor(o: ArxivOptions = {}) {
    this.#base = (o.baseUrl ?? "https://export.arxiv.org").replace(/\/$/, "");
    this.#http = new HttpClient({ service: "arXiv", requestsPerSecond: 1 / 3, ...o });
  }

  async search(query: string, o: { limit: number; signal?: AbortSignal }): Promise<Passage[]> {
    const url = `${this.#base}/api/query?${new URLSearchParams({ search_query: `all:${query}`, start: "0", max_results: String(o.limit) })}`;
    const body = await this.#http.get(url, o.signal);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed XML: each field is checked where it is read
    let feed: any;
    try {
      feed = xml.parse(body, true)?.feed;
    } catch (e) {
      throw this.#http.error(url, `malformed XML: ${(e as Error).message}`);
    }
    if (!feed) throw this.#http.error(url, "not an Atom feed");
    return (
      (feed.entry ?? [])
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an Atom entry, as parsed
        .map((e: any) => {
          const id = clean(e.id).replace(/^https?:\/\/arxiv\.org\/abs\//, "");
          const year = Number(clean(e.published).slice(0, 4));
          return { id, title: clean(e.title), text: clean(e.summary), year, url: clean(e.id) };
        })
        .filter((e: { id: string; text: string }) => e.id && e.text)
        .slice(0, o.limit)
        .map((e: { id: string; title: string; text: string; year: number; url: string }, i: number) => ({
          id: `arxiv:${e.id}#0`,
          title: e.title,
          text: e.text,
          metadata: { source: "arxiv", url: e.url, ...(Number.isInteger(e.year) && e.year > 0 ? { year: e.year } : {}) },
          scores: { search: 1 / (i + 1) },
        }))
    );
  }
}
