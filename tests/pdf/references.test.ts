import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ServerResponse } from "node:http";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { CorpusDocument } from "@citeflow/retrieval";
import { LanceStore, readBibtex } from "@citeflow/retrieval";
import { json, loopback, type Loopback } from "../models/loopback.js";
import { tempDir } from "../helpers.js";
import { MODELS } from "../scifact.js";
import { plainAbstracts, typesetPaper } from "../../scripts/papers.mjs";

const bin = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));
const KEY = "zotero-test-key-7f3a9c1e5b2d";

function cli(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; summary: any; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, [bin, "ingest", ...args, "--embedder", "static-use-en", "--models-dir", MODELS, "--json"], { env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, summary: stdout ? JSON.parse(stdout) : undefined, stdout, stderr }),
    ),
  );
}

let dir: string;
let docs: CorpusDocument[];
/** One small typeset paper per abstract, by key. */
const pdfs: Record<string, string> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "citeflow-refs-"));
  docs = await plainAbstracts(4);
  for (const [i, key] of ["smith2020", "lee2021"].entries()) pdfs[key] = typesetPaper(join(dir, "tex", key), key, [docs[i]!], []).pdf;
}, 60_000);

let servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

describe("BibTeX and CSL-JSON with their PDFs", () => {
  it("BibTeX: file fields and <key>.pdf find the PDFs, an entry with an abstract only is indexed from it, a broken entry is named by line", async () => {
    const folder = join(dir, "bib");
    mkdirSync(join(folder, "files"), { recursive: true });
    writeFileSync(join(folder, "files", "smith.pdf"), readFileSync(pdfs.smith2020!));
    const lib = join(dir, "pdfs");
    mkdirSync(lib, { recursive: true });
    writeFileSync(join(lib, "lee2021.pdf"), readFileSync(pdfs.lee2021!));
    const bib = join(folder, "refs.bib");
    writeFileSync(
      bib,
      [
        `@string{jt = "Journal of Tests"}`,
        `@article{smith2020, title = {${docs[0]!.title}}, author = {Smith, J{\\"o}rg and van der Berg, Anna}, journal = jt, year = 2020, doi = {10.1000/smith}, file = {Full Text PDF:files/smith.pdf:application/pdf}}`,
        `@article{lee2021, title = {${docs[1]!.title}}, author = {Lee, Min}, year = {2021}}`,
        `@misc{broken, title = {Never closed`,
        `@article{abstractonly, title = {${docs[2]!.title}}, author = {Okafor, Ada}, year = 2019, abstract = {${docs[2]!.text.replaceAll("%", "\\%")}}}`,
        `@article{nothing, title = {A title alone}, year = 2018}`,
      ].join("\n\n") + "\n",
    );
    const store = tempDir();
    const r = await cli([bib, "--format", "bibtex", "--pdfs", lib, "--store", store]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.summary.documents).toBe(3);
    expect(r.summary.problems).toEqual([
      { file: bib, line: 7, message: expect.stringMatching(/^not a readable entry/) },
      { file: `${bib}:11`, message: "no PDF and no abstract: nothing to index, left out" },
    ]);
    const s = await LanceStore.open(store);
    const got = await s.passages([{ id: "smith2020#0" }, { id: "lee2021#0" }, { id: "abstractonly#0" }]);
    expect(got.get("smith2020#0")!.metadata).toMatchObject({
      source: "bibtex",
      authors: ["Jörg Smith", "Anna van der Berg"],
      year: 2020,
      doi: "10.1000/smith",
      page: 1,
      path: join(folder, "files", "smith.pdf"),
    });
    expect(got.get("smith2020#0")!.text).toContain(docs[0]!.text.split(" ").slice(0, 10).join(" "));
    expect(got.get("lee2021#0")!.metadata.path).toBe(join(lib, "lee2021.pdf"));
    expect(got.get("abstractonly#0")!.text).toBe(docs[2]!.text);
    expect(got.get("abstractonly#0")!.metadata.page).toBeUndefined();

    // Unchanged entries are not read again.
    const again = await cli([bib, "--format", "bibtex", "--pdfs", lib, "--store", store]);
    expect(again.summary.sources).toMatchObject({ entries: 4, unchanged: 3, pages: 0 });
    expect(again.summary.added).toBe(0);
  }, 60_000);

  it("BibTeX: a PDF outside the .bib's folder and --pdfs (by path or through a link) or a FIFO is not read, named by line; the entry goes in from its abstract", async () => {
    const folder = join(dir, "confined");
    mkdirSync(folder, { recursive: true });
    const outside = pdfs.smith2020!;
    symlinkSync(outside, join(folder, "linked.pdf"));
    execFileSync("mkfifo", [join(folder, "pipe.pdf")]);
    const bib = join(folder, "refs.bib");
    const entry = (key: string, file: string, i: number) => `@article{${key}, title = {${docs[i]!.title}}, year = 2020, abstract = {${docs[i]!.text.replaceAll("%", "\\%")}}, file = {${file}}}`;
    writeFileSync(bib, [entry("abs", outside, 0), entry("link", "linked.pdf", 1), entry("fifo", "pipe.pdf", 2)].join("\n\n") + "\n");
    const store = tempDir();
    const r = await cli([bib, "--format", "bibtex", "--store", store]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.summary.documents).toBe(3);
    expect(r.summary.problems).toEqual([
      { file: bib, line: 1, message: `${outside} is outside ${folder} (the bibliography's folder): not read; give --pdfs a folder that holds it` },
      { file: bib, line: 3, message: `${join(folder, "linked.pdf")} is outside ${folder} (the bibliography's folder): not read; give --pdfs a folder that holds it` },
      { file: bib, line: 5, message: `${join(folder, "pipe.pdf")} is not a regular file (a FIFO, a device or a folder): not read` },
    ]);
    const s = await LanceStore.open(store);
    expect((await s.passages([{ id: "abs#0" }])).get("abs#0")!.text).toBe(docs[0]!.text);
    // The folder that holds the PDF, given as --pdfs, lets it in.
    const allowed = await cli([bib, "--format", "bibtex", "--pdfs", join(dir, "tex"), "--store", tempDir()]);
    expect(allowed.summary.problems.map((p: { line: number }) => p.line)).toEqual([5]);
  }, 60_000);

  it("BibTeX: an entry nested past what the parser can read is named by line as such; the entry beside it goes in", () => {
    const bib = join(tempDir(), "bomb.bib");
    writeFileSync(bib, `@article{ok, title = {Fine}, year = 2020, abstract = {An abstract.}}\n\n@article{bomb, title = {${"{".repeat(100_000)}x${"}".repeat(100_000)}}}\n`);
    const r = readBibtex(bib);
    expect(r.refs).toHaveLength(1);
    expect(r.problems).toEqual([{ file: bib, line: 3, message: "not a readable entry: its braces or fields are nested too deep to read" }]);
  });

  it("CSL-JSON: items by id, PDFs from the folder, bad items named", async () => {
    const csl = join(dir, "refs.json");
    writeFileSync(
      csl,
      JSON.stringify([
        { id: "lee2021", type: "article-journal", title: docs[1]!.title, author: [{ family: "Lee", given: "Min" }], issued: { "date-parts": [[2021]] }, DOI: "10.1000/lee" },
        { type: "article-journal", title: "No id" },
        "not an item",
      ]),
    );
    const lib = join(dir, "pdfs");
    const r = await cli([csl, "--format", "csl-json", "--pdfs", lib, "--store", tempDir()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.summary.documents).toBe(1);
    expect(r.summary.problems.map((p: { line: number; message: string }) => [p.line, p.message])).toEqual([
      [2, 'item 2: no "id" or "citation-key"'],
      [3, "item 3: not an object"],
    ]);
  }, 60_000);
});

/** Zotero's file storage, where the API redirects attachment downloads: it serves the paper's PDF. */
async function fileStorage() {
  const storage = await loopback((_req, res) => {
    res.writeHead(200, { "content-type": "application/pdf" });
    res.end(readFileSync(pdfs.smith2020!));
  });
  servers.push(storage);
  return storage;
}

/** Zotero's Web API, as far as Citeflow uses it, with its real response shapes and failures. */
async function zoteroServer(storage: Loopback, attachment = "ATT00001") {
  let version = 412;
  /** Item keys deleted at each library version (what GET /deleted?since= reports). */
  const deletions = new Map<number, string[]>();
  const item = (key: string, d: Record<string, unknown>, numChildren = 0) => ({ key, version: 400, library: { type: "user", id: 1 }, meta: { numChildren }, data: { key, version: 400, ...d } });
  const items = [
    item(
      "AAAA1111",
      {
        itemType: "journalArticle",
        title: docs[0]!.title,
        creators: [
          { creatorType: "author", firstName: "Jörg", lastName: "Smith" },
          { creatorType: "editor", name: "Ed Itor" },
        ],
        date: "2020-03-01",
        DOI: "10.1000/smith",
        tags: [{ tag: "epilepsy" }],
        collections: ["COLL0001"],
      },
      1,
    ),
    item(attachment, { itemType: "attachment", parentItem: "AAAA1111", contentType: "application/pdf", linkMode: "imported_file", md5: "abc", filename: "smith.pdf" }),
    item("BBBB2222", {
      itemType: "journalArticle",
      title: docs[2]!.title,
      creators: [{ creatorType: "author", name: "World Health Organization" }],
      date: "May 2019",
      abstractNote: docs[2]!.text,
      collections: ["COLL0001"],
    }),
    item("NOTE0001", { itemType: "note", note: "<p>a note</p>" }),
    item("CCCC3333", { itemType: "book", title: "Nothing to read", date: "2001", collections: [] }),
  ];
  const pages = (list: unknown[], url: URL, res: ServerResponse, extra: Record<string, string> = {}) => {
    // Pages of two, whatever limit was asked: clients must follow the Link header.
    const start = Number(url.searchParams.get("start") ?? 0);
    const next = new URL(url);
    next.searchParams.set("start", String(start + 2));
    const link = start + 2 < list.length ? { link: `<${next}>; rel="next"` } : {};
    json(res, 200, list.slice(start, start + 2), { "total-results": String(list.length), "last-modified-version": String(version), ...link, ...extra });
  };
  let itemRequests = 0;
  const server = await loopback((req, res) => {
    const url = new URL(req.path, `http://${req.headers.host}`);
    const p = url.pathname;
    if (req.headers["zotero-api-key"] !== KEY) return json(res, 403, "Invalid key");
    if (p === "/users/1/deleted") {
      const since = Number(url.searchParams.get("since"));
      if (!url.searchParams.has("since") || !Number.isInteger(since)) return json(res, 400, "'since' must be provided");
      const keys = [...deletions].filter(([v]) => v > since).flatMap(([, k]) => k);
      return json(res, 200, { collections: [], searches: [], items: keys, tags: [], settings: [] }, { "last-modified-version": String(version) });
    }
    if (p === "/users/1/collections") return pages([{ key: "COLL0001", version: 5, data: { key: "COLL0001", name: "Epilepsy", parentCollection: false } }], url, res);
    if (p === "/users/1/items" || p === "/users/1/collections/COLL0001/items") {
      if (req.headers["if-modified-since-version"] === String(version)) {
        res.writeHead(304, { "last-modified-version": String(version) });
        return res.end();
      }
      // The first listing request is rate limited; the next page asks the client to back off.
      if (itemRequests++ === 0) return json(res, 429, "Too many requests", { "retry-after": "1" });
      const list = p.includes("COLL0001") ? items.filter((i) => (i.data as { collections?: string[] }).collections?.includes("COLL0001")) : items;
      return pages(list, url, res, url.searchParams.get("start") === "2" ? { backoff: "1" } : {});
    }
    if (p === "/users/1/items/AAAA1111/children") return pages([items[1]], url, res);
    if (p === `/users/1/items/${attachment}/file`) {
      res.writeHead(302, { location: `${storage.url}/files/ATT00001` });
      return res.end();
    }
    json(res, 404, "Not found");
  });
  servers.push(server);
  /** Deletes an item in the library, as a user emptying it from Zotero's trash: the library version moves on. */
  const remove = (key: string) => {
    items.splice(
      items.findIndex((i) => i.key === key),
      1,
    );
    deletions.set(++version, [key]);
  };
  return Object.assign(server, { remove });
}

describe("Zotero libraries (zotero:users/<id>)", () => {
  it("imports items with metadata and PDFs across pages, retries a 429 (its waits are HttpClient's), sends the key only to Zotero, and an unchanged library costs one request (304)", async () => {
    const storage = await fileStorage();
    const zotero = await zoteroServer(storage);
    const store = tempDir();
    const env = { ZOTERO_API_URL: zotero.url, ZOTERO_API_KEY: KEY };
    const r = await cli(["zotero:users/1", "--store", store], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.summary.documents).toBe(2);
    expect(r.summary.sources).toMatchObject({ entries: 3, libraryVersion: 412, libraryUnchanged: false });
    expect(r.summary.problems).toEqual([{ file: "zotero:users/1 item CCCC3333", message: "no PDF and no abstract: nothing to index, left out" }]);

    // Pages followed by Link; the 429 retried. (How long the client waits on Retry-After and Backoff is
    // HttpClient's, which the Zotero reader uses: tests/retrieval/search-apis.test.ts times it on a fake clock.)
    const listing = zotero.requests.map((q, i) => ({ ...q, i })).filter((q) => q.path.startsWith("/users/1/items?"));
    expect(listing.map((q) => new URL(q.path, "http://x").searchParams.get("start"))).toEqual([null, null, "2", "4"]);
    expect(zotero.requests.every((q) => q.headers["zotero-api-version"] === "3")).toBe(true);
    // The file storage got the redirected download, without the key.
    expect(storage.requests).toHaveLength(1);
    expect(storage.requests[0]!.headers["zotero-api-key"]).toBeUndefined();

    const s = await LanceStore.open(store);
    const got = await s.passages([{ id: "AAAA1111#0" }, { id: "BBBB2222#0" }]);
    expect(got.get("AAAA1111#0")!.metadata).toMatchObject({
      source: "zotero",
      authors: ["Jörg Smith"],
      year: 2020,
      doi: "10.1000/smith",
      tags: ["epilepsy"],
      collections: ["Epilepsy"],
      zoteroKey: "AAAA1111",
      page: 1,
      path: join(store, "zotero-files", "ATT00001.pdf"),
    });
    expect(got.get("BBBB2222#0")!.metadata).toMatchObject({ authors: ["World Health Organization"], year: 2019 });
    expect(got.get("BBBB2222#0")!.text).toBe(docs[2]!.text);
    // The key is nowhere in what the ingest wrote or printed.
    const written = readdirSync(store, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name)).toString("latin1"));
    expect([r.stdout, r.stderr, ...written].some((t) => t.includes(KEY))).toBe(false);

    // Again: the library version is sent; Zotero answers 304; nothing is listed or downloaded.
    const before = zotero.requests.length;
    const again = await cli(["zotero:users/1", "--store", store], env);
    expect(again.summary.sources).toMatchObject({ libraryUnchanged: true, libraryVersion: 412 });
    const asked = zotero.requests.slice(before).filter((q) => q.path.startsWith("/users/1/items"));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.headers["if-modified-since-version"]).toBe("412");
    expect(storage.requests).toHaveLength(1);

    // An item deleted in Zotero leaves the store at the next ingest; the others are not read again.
    zotero.remove("BBBB2222");
    const after = await cli(["zotero:users/1", "--store", store], env);
    expect(after.code, after.stderr).toBe(0);
    expect(after.summary.sources).toMatchObject({ libraryVersion: 413, libraryUnchanged: false, deleted: 1, unchanged: 1 });
    expect(zotero.requests.some((q) => q.path === "/users/1/deleted?since=412")).toBe(true);
    const left = await (await LanceStore.open(store)).passages([{ id: "AAAA1111#0" }, { id: "BBBB2222#0" }]);
    expect([...left.keys()]).toEqual(["AAAA1111#0"]);
    expect(storage.requests).toHaveLength(1);
  }, 60_000);

  it("an attachment key from the server that is a path (../../x) is refused by name: nothing fetched, nothing written outside --files", async () => {
    const storage = await fileStorage();
    const zotero = await zoteroServer(storage, "../../escaped");
    const store = tempDir();
    const files = join(store, "deep", "files");
    const r = await cli(["zotero:users/1", "--store", store, "--files", files], { ZOTERO_API_URL: zotero.url, ZOTERO_API_KEY: KEY });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.stringify(r.summary.problems)).toMatch(/not a Zotero item key/);
    expect(r.summary.documents).toBe(1); // the item with an abstract still goes in
    expect(zotero.requests.some((q) => q.path.includes("escaped"))).toBe(false);
    expect(readdirSync(store, { recursive: true }).some((f) => String(f).includes("escaped"))).toBe(false);
  }, 60_000);

  it("filters by collection name, fetches attachments per item, and names unknown collections and bad keys", async () => {
    const storage = await fileStorage();
    const zotero = await zoteroServer(storage);
    const env = { ZOTERO_API_URL: zotero.url, ZOTERO_API_KEY: KEY };
    const r = await cli(["zotero:users/1", "--collection", "epilepsy", "--store", tempDir()], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.summary.documents).toBe(2);
    expect(zotero.requests.some((q) => q.path.startsWith("/users/1/items/AAAA1111/children"))).toBe(true);

    const unknown = await cli(["zotero:users/1", "--collection", "Oncology", "--store", tempDir()], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no collection "Oncology" (collections: Epilepsy [COLL0001])');
    const badKey = await cli(["zotero:users/1", "--store", tempDir()], { ...env, ZOTERO_API_KEY: "wrong-key-0000000000" });
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toMatch(/Zotero \(.*\/users\/1\/collections.*\): HTTP 403/);
    expect(badKey.stderr).not.toContain("wrong-key-0000000000");
  }, 60_000);
});
