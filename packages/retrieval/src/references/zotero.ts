import { inside, writeFileAtomic } from "@citeflow/runstore";
import { sha256 } from "../pdf/reader.js";
import { HttpClient, type HttpResponse } from "../search/http.js";
import type { Reference } from "./reference.js";

export interface ZoteroOptions {
  /** "users/<id>" or "groups/<id>"; Zotero 7's local API serves "users/0". */
  library: string;
  /** The API root: Zotero's web API, or http://localhost:23119/api for the desktop app's local API. */
  baseUrl: string;
  /** Sent as Zotero-API-Key; never written anywhere. */
  apiKey?: string;
  /** Only items in this collection (its name or key). */
  collection?: string;
  /** Only items with this tag. */
  tag?: string;
  /** Where downloaded PDFs are kept (passages point to them for "open at page"). */
  files: string;
  /** The library version of the last complete ingest: the listing is asked for only if it changed since. */
  since?: number;
  requestsPerSecond?: number;
  retries?: number;
  backoffMs?: number;
  signal?: AbortSignal;
}

export interface ZoteroLibrary {
  /** The library's version now (Last-Modified-Version). */
  version: number;
  /** Nothing changed since `since` (the server answered 304). */
  unchanged: boolean;
  refs: Reference[];
  /** Keys of the items deleted from the library since `since` (emptied from its trash), to remove from a store. */
  deleted: string[];
  /** Requests made, for the summary. */
  requests: number;
}

interface ZoteroItem {
  key: string;
  version: number;
  meta?: { numChildren?: number };
  data: {
    key: string;
    version: number;
    itemType: string;
    title?: string;
    creators?: Array<{ creatorType?: string; firstName?: string; lastName?: string; name?: string }>;
    abstractNote?: string;
    date?: string;
    DOI?: string;
    url?: string;
    tags?: Array<{ tag: string }>;
    collections?: string[];
    parentItem?: string;
    contentType?: string;
    linkMode?: string;
    md5?: string | null;
    filename?: string;
  };
}

const KEY = /^[A-Z0-9]{8}$/;
const NOT_DOCUMENTS = new Set(["attachment", "note", "annotation"]);

/**
 * Reads a Zotero library through the Zotero Web API (v3), the same JSON Zotero 7's local API
 * serves: items with their metadata, filtered by collection or tag, and their PDF attachments,
 * downloaded on demand. Pages are followed by the Link header; 429 and 5xx are retried with
 * Retry-After and Backoff honoured (each at most 60 s); with `since`, an unchanged library costs one request (304).
 */
export async function zoteroLibrary(o: ZoteroOptions): Promise<ZoteroLibrary> {
  if (!/^(users|groups)\/\d+$/.test(o.library)) throw new Error(`zotero:${o.library}: expected users/<id> or groups/<id> (users/0 for Zotero's local API)`);
  const http = new HttpClient({
    service: "Zotero",
    requestsPerSecond: o.requestsPerSecond ?? 4,
    retries: o.retries ?? 4,
    backoffMs: o.backoffMs ?? 1000,
    // An attachment is a PDF: up to 256 MiB, read within two minutes.
    timeoutMs: 120_000,
    maxBytes: 256 * 2 ** 20,
    headers: { "Zotero-API-Version": "3", ...(o.apiKey ? { "Zotero-API-Key": o.apiKey } : {}) },
  });
  const root = `${o.baseUrl.replace(/\/+$/, "")}/${o.library}`;
  let requests = 0;
  const get = async (url: string, headers: Record<string, string> = {}): Promise<HttpResponse> => {
    requests++;
    return http.request(url, { headers, ...(o.signal ? { signal: o.signal } : {}) });
  };
  const json = (r: HttpResponse, url: string): unknown => {
    try {
      return JSON.parse(new TextDecoder().decode(r.body));
    } catch {
      throw http.error(url, "malformed JSON response");
    }
  };
  /** Every page of a listing; undefined when the first page answers 304. */
  const all = async (first: string, conditional: boolean): Promise<{ items: ZoteroItem[]; version: number } | undefined> => {
    const items: ZoteroItem[] = [];
    let url: string | undefined = first;
    let version = 0;
    while (url) {
      const r = await get(url, conditional && url === first && o.since !== undefined ? { "If-Modified-Since-Version": String(o.since) } : {});
      if (r.status === 304) return undefined;
      version = Number(r.headers.get("last-modified-version")) || version;
      const page = json(r, url);
      if (!Array.isArray(page)) throw http.error(url, "expected a list of items");
      items.push(...(page as ZoteroItem[]));
      url = nextLink(r.headers.get("link"));
      // The key goes with every page: a next page elsewhere is refused, not followed.
      if (url && new URL(url, root).origin !== new URL(root).origin) throw http.error(first, `the next page is on another server (${new URL(url, root).origin}); not followed`);
      if (url) url = new URL(url, root).toString();
    }
    return { items, version };
  };

  const collections = await collectionsOf(o, root, all);
  const filter = `format=json&limit=100${o.tag ? `&tag=${encodeURIComponent(o.tag)}` : ""}`;
  const listing = await all(`${root}${collections.filter ? `/collections/${collections.filter}` : ""}/items?${filter}`, true);
  if (!listing) return { version: o.since!, unchanged: true, refs: [], deleted: [], requests };
  const deleted = o.since === undefined ? [] : await deletedSince(o.since, root, http, get, json);

  const attachments = new Map<string, ZoteroItem[]>();
  const addAttachment = (a: ZoteroItem) => {
    const parent = a.data.parentItem;
    if (parent && a.data.itemType === "attachment") attachments.set(parent, [...(attachments.get(parent) ?? []), a]);
  };
  for (const it of listing.items) addAttachment(it);
  const documents = listing.items.filter((it) => !NOT_DOCUMENTS.has(it.data.itemType));
  // A collection's or tag's listing holds the items, not their attachments: those are asked for per item.
  for (const it of documents)
    if ((it.meta?.numChildren ?? 0) > 0 && !attachments.has(it.key)) for (const child of (await all(`${root}/items/${it.key}/children?format=json&limit=100`, false))!.items) addAttachment(child);

  const refs: Reference[] = documents.map((it) => {
    const d = it.data;
    const pdf = (attachments.get(it.key) ?? []).find((a) => a.data.contentType === "application/pdf" && a.data.linkMode !== "linked_url");
    const year = Number(/\b(1[5-9]\d\d|20\d\d)\b/.exec(d.date ?? "")?.[1]) || undefined;
    const where = `zotero:${o.library} item ${it.key}`;
    return {
      key: it.key,
      title: d.title ?? "",
      authors: (d.creators ?? []).filter((c) => (c.creatorType ?? "author") === "author").map((c) => c.name ?? [c.firstName, c.lastName].filter(Boolean).join(" ")),
      ...(year ? { year } : {}),
      ...(d.DOI ? { doi: d.DOI } : {}),
      ...(d.url ? { url: d.url } : {}),
      ...(d.abstractNote ? { abstract: d.abstractNote } : {}),
      ...(d.tags?.length ? { tags: d.tags.map((t) => t.tag) } : {}),
      ...(d.collections?.length ? { collections: d.collections.map((k) => collections.names.get(k) ?? k) } : {}),
      where,
      ...(pdf ? { pdf: { fetch: () => download(pdf, o.files, root, get) } } : {}),
      hash: sha256(new TextEncoder().encode(`${it.version}:${pdf?.key ?? ""}:${pdf?.data.md5 ?? pdf?.version ?? ""}`)),
      extra: { zoteroKey: it.key, zoteroLibrary: o.library },
    };
  });
  return { version: listing.version, unchanged: false, refs, deleted, requests };
}

/** The keys of items deleted since a library version (`GET <library>/deleted?since=<version>`). */
async function deletedSince(since: number, root: string, http: HttpClient, get: (url: string) => Promise<HttpResponse>, json: (r: HttpResponse, url: string) => unknown): Promise<string[]> {
  const url = `${root}/deleted?since=${since}`;
  const body = json(await get(url), url);
  const items = typeof body === "object" && body !== null && "items" in body ? body.items : undefined;
  if (!Array.isArray(items) || !items.every((k) => typeof k === "string")) throw http.error(url, 'expected { "items": [keys…] }');
  return items;
}

/** The collection to filter by (a key, or a name looked up) and every collection's name. */
async function collectionsOf(
  o: ZoteroOptions,
  root: string,
  all: (url: string, conditional: boolean) => Promise<{ items: ZoteroItem[] } | undefined>,
): Promise<{ filter?: string; names: Map<string, string> }> {
  const list = (await all(`${root}/collections?format=json&limit=100`, false))!.items as unknown as Array<{ key: string; data: { name: string } }>;
  const names = new Map(list.map((c) => [c.key, c.data.name]));
  if (!o.collection) return { names };
  if (KEY.test(o.collection) && names.has(o.collection)) return { filter: o.collection, names };
  const match = list.filter((c) => c.data.name.toLowerCase() === o.collection!.toLowerCase());
  if (match.length === 1) return { filter: match[0]!.key, names };
  if (match.length > 1) throw new Error(`zotero:${o.library}: ${match.length} collections are named "${o.collection}"; give its key (${match.map((c) => c.key).join(", ")})`);
  throw new Error(`zotero:${o.library}: no collection "${o.collection}" (collections: ${list.map((c) => `${c.data.name} [${c.key}]`).join(", ") || "none"})`);
}

/** An attachment's file, saved as <files>/<key>.pdf. */
async function download(a: ZoteroItem, files: string, root: string, get: (url: string) => Promise<HttpResponse>): Promise<string> {
  // The key comes from the server: it names a request and a file only when it is a Zotero key.
  if (!KEY.test(a.key)) throw new Error(`attachment ${JSON.stringify(a.key)}: not a Zotero item key (8 capital letters and digits); nothing fetched or written`);
  const r = await get(`${root}/items/${a.key}/file`);
  const head = new TextDecoder().decode(r.body.subarray(0, 5));
  if (head !== "%PDF-") throw new Error(`attachment ${a.key}${a.data.filename ? ` (${a.data.filename})` : ""}: the file Zotero sent is not a PDF`);
  const path = inside(files, `${a.key}.pdf`);
  writeFileAtomic(path, r.body, files);
  return path;
}

/** The rel="next" URL of a Link header. */
function nextLink(link: string | null): string | undefined {
  for (const part of (link ?? "").split(",")) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return m[1];
  }
  return undefined;
}
