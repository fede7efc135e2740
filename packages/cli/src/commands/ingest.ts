import { DEFAULT_MODELS, loadEmbedder } from "@citeflow/models";
import { configFromEnv } from "@citeflow/nodes";
import {
  formatReadProblem,
  newTally,
  openPassageStore,
  pdfDocuments,
  openScholarChunker,
  readBeirCorpus,
  readCsvCorpus,
  readJsonlCorpus,
  readPubMedQA,
  readPubMedXml,
  verifaiChunker,
  type CorpusDocument,
  type FieldMap,
  type ReadReport,
} from "@citeflow/retrieval";
import { FailureError, UsageError } from "../errors.js";
import { clearedLine } from "../terminal.js";
import { bibliographyDocuments, zoteroDocuments } from "./ingest-sources.js";

export interface IngestCommandOptions {
  corpus: string;
  store: string;
  format: "scifact" | "beir" | "jsonl" | "csv" | "pubmedqa" | "pubmed-xml" | "pdf" | "csl-json" | "bibtex";
  /** csl-json, bibtex: a folder of PDFs named by entry key. */
  pdfs?: string;
  /** zotero: only this collection (name or key) or tag; where PDFs are kept. */
  collection?: string;
  tag?: string;
  files?: string;
  map?: string;
  chunker: "openscholar" | "verifai";
  words?: number;
  maxTokens?: number;
  embedder?: string;
  modelsDir?: string;
  dtype?: "fp32" | "q8";
  batch?: number;
  limit?: number;
  json?: boolean;
}

function parseFields(spec: string | undefined, format: string): FieldMap {
  if (!spec) throw new UsageError(`--format ${format} needs --map id=…,text=…[,title=…,year=…,citationCount=…,url=…]`);
  const map: Record<string, string> = {};
  for (const part of spec.split(",")) {
    const [k, v] = part.split("=");
    if (!k || !v || !["id", "title", "text", "year", "citationCount", "url"].includes(k)) throw new UsageError(`--map: cannot read "${part}"`);
    map[k] = v;
  }
  if (!map.id || !map.text) throw new UsageError(`--map needs at least id=… and text=…`);
  return map as unknown as FieldMap;
}

function pick<T extends object, K extends keyof T>(o: T, ...keys: K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]])) as Partial<Pick<T, K>>;
}

async function* limited(docs: AsyncGenerator<CorpusDocument>, limit: number | undefined) {
  let n = 0;
  for await (const d of docs) {
    if (limit !== undefined && n++ >= limit) return;
    yield d;
  }
}

/** citeflow ingest: corpus → chunks → embeddings → a LanceDB store with BM25 and vector search. */
export async function ingestCommand(o: IngestCommandOptions): Promise<number> {
  const report: ReadReport = { read: 0, problems: [] };
  const store = await openPassageStore(o.store, process.env);
  const tally = newTally();
  const zotero = /^zotero:(.+)$/.exec(o.corpus)?.[1];
  let finished = () => {};
  const readers = {
    zotero: async () => {
      const z = await zoteroDocuments({ library: zotero!, ...pick(o, "collection", "tag", "files") }, store, report, tally);
      finished = z.finished;
      return z.docs;
    },
    // A long PDF says where it is, page by page on a terminal, every 100 pages in a log.
    pdf: () =>
      pdfDocuments(o.corpus, store, report, tally, (file, page, pages) => {
        const line = `ingest: ${file} page ${page} of ${pages}`;
        if (process.stderr.isTTY && !o.json) clearedLine(line);
        else if (page % 100 === 0) process.stderr.write(`${line}\n`);
      }),
    "csl-json": () => bibliographyDocuments(o.corpus, "csl-json", o.pdfs, store, report, tally),
    bibtex: () => bibliographyDocuments(o.corpus, "bibtex", o.pdfs, store, report, tally),
    pubmedqa: () => readPubMedQA(o.corpus, report),
    "pubmed-xml": () => readPubMedXml(o.corpus, report),
    jsonl: () => readJsonlCorpus(o.corpus, parseFields(o.map, "jsonl"), report),
    csv: () => readCsvCorpus(o.corpus, parseFields(o.map, "csv"), report),
    scifact: () => readBeirCorpus(o.corpus, report, "scifact"),
    beir: () => readBeirCorpus(o.corpus, report, "beir"),
  };
  const docs = await readers[zotero ? "zotero" : o.format]();
  const kind = zotero ? "zotero" : o.format;
  const many = kind === "pdf" || kind === "zotero" || kind === "csl-json" || kind === "bibtex";
  const chunker = o.chunker === "verifai" ? verifaiChunker({ maxTokens: o.maxTokens ?? 512 }) : openScholarChunker(o.words ?? 256);
  const chunkerName = o.chunker === "verifai" ? `verifai-${o.maxTokens ?? 512}` : `openscholar-${o.words ?? 256}`;
  const embedderId = o.embedder ?? DEFAULT_MODELS.embedder;
  // Where models are and whether they may be downloaded: the environment read as for every node.
  const { modelsDirs, allowDownloads } = configFromEnv(process.env);
  const embedder = await loadEmbedder(embedderId, { dtype: o.dtype ?? "fp32", modelsDirs: o.modelsDir ? [o.modelsDir] : modelsDirs, allowDownloads });
  const t0 = performance.now();
  const tty = process.stderr.isTTY && !o.json;
  // Every line left out is listed with its number, also when nothing at all could be read.
  const listProblems = () => {
    for (const p of report.problems) process.stderr.write(`${formatReadProblem(o.corpus, p)}\n`);
  };
  let result;
  try {
    result = await store.ingest(limited(docs, o.limit), {
      chunker,
      chunkerName,
      embedder,
      batchSize: o.batch ?? 256,
      onProgress: (p) => {
        const line = `ingest: ${p.documents} documents read, ${p.added} passages added, ${p.skipped} already there`;
        if (tty) clearedLine(line);
        else process.stderr.write(`${line}\n`);
      },
    });
  } catch (e) {
    if (tty) process.stderr.write("\n");
    listProblems();
    if (report.read === 0 && report.problems.length > 0)
      throw new FailureError(
        `no document of ${o.corpus} could be read: all ${report.problems.length} ${kind === "pdf" ? "file(s)" : many ? "entries" : "line(s)"} have a problem (listed above)${o.map ? `; check --map ${o.map}` : ""}`,
      );
    throw e;
  }
  if (tty) process.stderr.write("\n");
  finished();
  const seconds = (performance.now() - t0) / 1000;
  const summary = {
    store: store.location,
    ...result,
    total: await store.count(),
    badLines: report.problems.length,
    seconds: Math.round(seconds * 10) / 10,
    ...(many ? { sources: { ...tally, pagesPerSecond: Math.round((tally.pages / seconds) * 10) / 10 } } : {}),
  };
  listProblems();
  if (o.json) process.stdout.write(JSON.stringify({ ...summary, problems: report.problems }) + "\n");
  else
    process.stdout.write(
      `ingested ${result.documents} documents → ${result.added} new passages (${result.skipped} already there) into ${store.location} in ${summary.seconds} s; ` +
        `${summary.total} passages in the store; embedder ${embedderId}, chunker ${chunkerName}` +
        (tally.libraryUnchanged ? `; the Zotero library is unchanged since version ${tally.libraryVersion}` : "") +
        (many && !tally.libraryUnchanged
          ? `; ${tally.entries} ${kind === "pdf" ? "PDF(s)" : "entries"}: ${tally.pages} PDF pages read, ${tally.unchanged} unchanged since the last ingest, ${tally.replaced} changed and replaced${tally.deleted ? `, ${tally.deleted} deleted in Zotero and removed` : ""}`
          : "") +
        (report.problems.length ? `; ${report.problems.length} ${many ? "problem(s)" : "line(s) left out"}, listed above` : "") +
        "\n",
    );
  return 0;
}
