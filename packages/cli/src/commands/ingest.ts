import { DEFAULT_MODELS, loadEmbedder } from "@citeflow/models";
import {
  findPdfs,
  formatReadProblem,
  openPassageStore,
  openScholarChunker,
  planPdfIngest,
  readBeirCorpus,
  readCsvCorpus,
  readJsonlCorpus,
  readPdfs,
  readPubMedQA,
  readPubMedXml,
  verifaiChunker,
  type CorpusDocument,
  type FieldMap,
  type PassageStore,
  type ReadReport,
} from "@citeflow/retrieval";
import { FailureError, UsageError } from "../errors.js";

export interface IngestCommandOptions {
  corpus: string;
  store: string;
  format: "scifact" | "beir" | "jsonl" | "csv" | "pubmedqa" | "pubmed-xml" | "pdf";
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

async function* limited(docs: AsyncGenerator<CorpusDocument>, limit: number | undefined) {
  let n = 0;
  for await (const d of docs) {
    if (limit !== undefined && n++ >= limit) return;
    yield d;
  }
}

/** What a PDF ingest did besides adding passages: files unchanged since the last ingest, files changed and replaced, pages read. */
interface PdfTally {
  files: number;
  unchanged: number;
  replaced: number;
  pages: number;
}

/**
 * A PDF file or folder: files whose content the store holds already are not read again; a file
 * that changed has its old passages removed before its new text goes in.
 */
async function pdfDocuments(path: string, store: PassageStore, report: ReadReport, tally: PdfTally): Promise<AsyncGenerator<CorpusDocument>> {
  let files;
  try {
    files = findPdfs(path);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (files.length === 0) throw new UsageError(`${path}: no .pdf files found`);
  const plan = await planPdfIngest(store, files);
  tally.files = files.length;
  tally.unchanged = plan.unchanged.size;
  if (plan.changed.length) await store.removeDocuments(plan.changed);
  tally.replaced = plan.changed.length;
  return readPdfs(files, report, { skip: plan.unchanged, onFile: (_f, pages) => (tally.pages += pages) });
}

/** citeflow ingest: corpus → chunks → embeddings → a LanceDB store with BM25 and vector search. */
export async function ingestCommand(o: IngestCommandOptions): Promise<number> {
  const report: ReadReport = { read: 0, problems: [] };
  const store = await openPassageStore(o.store);
  const tally: PdfTally = { files: 0, unchanged: 0, replaced: 0, pages: 0 };
  const readers = {
    pdf: () => pdfDocuments(o.corpus, store, report, tally),
    pubmedqa: () => readPubMedQA(o.corpus, report),
    "pubmed-xml": () => readPubMedXml(o.corpus, report),
    jsonl: () => readJsonlCorpus(o.corpus, parseFields(o.map, "jsonl"), report),
    csv: () => readCsvCorpus(o.corpus, parseFields(o.map, "csv"), report),
    scifact: () => readBeirCorpus(o.corpus, report, "scifact"),
    beir: () => readBeirCorpus(o.corpus, report, "beir"),
  };
  const docs = await readers[o.format]();
  const chunker = o.chunker === "verifai" ? verifaiChunker({ maxTokens: o.maxTokens ?? 512 }) : openScholarChunker(o.words ?? 256);
  const chunkerName = o.chunker === "verifai" ? `verifai-${o.maxTokens ?? 512}` : `openscholar-${o.words ?? 256}`;
  const embedderId = o.embedder ?? DEFAULT_MODELS.embedder;
  const embedder = await loadEmbedder(embedderId, { dtype: o.dtype ?? "fp32", ...(o.modelsDir ? { modelsDirs: [o.modelsDir] } : {}) });
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
        process.stderr.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
      },
    });
  } catch (e) {
    if (tty) process.stderr.write("\n");
    listProblems();
    if (report.read === 0 && report.problems.length > 0)
      throw new FailureError(`no document of ${o.corpus} could be read: all ${report.problems.length} ${o.format === "pdf" ? "file(s)" : "line(s)"} have a problem (listed above)${o.map ? `; check --map ${o.map}` : ""}`);
    throw e;
  }
  if (tty) process.stderr.write("\n");
  const seconds = (performance.now() - t0) / 1000;
  const summary = {
    store: store.location,
    ...result,
    total: await store.count(),
    badLines: report.problems.length,
    seconds: Math.round(seconds * 10) / 10,
    ...(o.format === "pdf" ? { pdf: { ...tally, pagesPerSecond: Math.round((tally.pages / seconds) * 10) / 10 } } : {}),
  };
  listProblems();
  if (o.json) process.stdout.write(JSON.stringify({ ...summary, problems: report.problems }) + "\n");
  else
    process.stdout.write(
      `ingested ${result.documents} documents → ${result.added} new passages (${result.skipped} already there) into ${store.location} in ${summary.seconds} s; ` +
        `${summary.total} passages in the store; embedder ${embedderId}, chunker ${chunkerName}` +
        (o.format === "pdf" ? `; ${tally.files} PDF(s): ${tally.pages} pages read, ${tally.unchanged} unchanged since the last ingest, ${tally.replaced} changed and replaced` : "") +
        (report.problems.length ? `; ${report.problems.length} ${o.format === "pdf" ? "problem(s)" : "line(s) left out"}, listed above` : "") +
        "\n",
    );
  return 0;
}
