import { closeSync, createReadStream, openSync, readSync, statSync } from "node:fs";
import { Readable } from "node:stream";
import { text as streamText } from "node:stream/consumers";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import { csvRecords } from "./csv.js";
import type { CorpusDocument, ReadReport } from "./document.js";
import { pubmedDocument, pubmedXmlParser } from "./pubmed-article.js";

/** Field names in a generic JSONL corpus. */
export interface FieldMap {
  id: string;
  title?: string;
  text: string;
  year?: string;
  citationCount?: string;
  url?: string;
}

type Parse = (obj: Record<string, unknown>, line: string) => CorpusDocument | string;

/**
 * A corpus file's text, streamed: gzip (by its magic bytes, whatever the name) is decompressed, a
 * byte-order mark is dropped, and a folder or a FIFO is refused by name (rather than EISDIR or a hang).
 */
export function corpusText(path: string): Readable {
  const st = statSync(path);
  if (st.isDirectory()) throw new Error(`${path} is a folder: give one corpus file (a folder is read only by --format pdf)`);
  if (!st.isFile()) throw new Error(`${path} is ${st.isFIFO() ? "a FIFO" : "not a regular file"}: give a corpus file`);
  const head = Buffer.alloc(2);
  const fd = openSync(path, "r");
  try {
    readSync(fd, head, 0, 2, 0);
  } finally {
    closeSync(fd);
  }
  const raw = createReadStream(path);
  const bytes = head[0] === 0x1f && head[1] === 0x8b ? raw.pipe(createGunzip()) : raw;
  let first = true;
  const text = bytes.setEncoding("utf8") as AsyncIterable<string> & Readable;
  return Readable.from(
    (async function* () {
      for await (const chunk of text) {
        yield first ? chunk.replace(/^\uFEFF/, "") : chunk;
        first = false;
      }
    })(),
  );
}

// eslint-disable-next-line no-control-regex
const CONTROL_CHAR = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * The checks every document of every reader passes before it is chunked: an id, some text, and
 * not an id seen earlier in the file (the first is kept). A document that fails is reported with
 * its line and left out; the rest go in.
 */
function accept(doc: CorpusDocument, line: number, report: ReadReport, seen: Map<string, number>): boolean {
  const why =
    doc.docId.trim() === ""
      ? "empty document id"
      : CONTROL_CHAR.test(doc.docId)
        ? `document id ${JSON.stringify(doc.docId)} holds a control character (a line break, an escape): left out, since an id is shown and stored as written`
        : doc.text.trim() === ""
          ? `document ${doc.docId}: empty text${doc.title.trim() ? " (a title alone is not indexed)" : ""}`
          : seen.has(doc.docId)
            ? `document ${doc.docId}: the same id as line ${seen.get(doc.docId)}; the first is kept`
            : undefined;
  if (why) {
    report.problems.push({ line, message: why });
    return false;
  }
  seen.set(doc.docId, line);
  report.read++;
  return true;
}

/**
 * Streams JSON Lines, one document a line. A bad line (not JSON, a missing field) is counted in
 * `report.problems` with its line number and skipped; the rest of the file is still read.
 */
async function* jsonl(path: string, parse: Parse, report: ReadReport): AsyncGenerator<CorpusDocument> {
  const lines = createInterface({ input: corpusText(path), crlfDelay: Infinity });
  const seen = new Map<string, number>();
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === "") continue;
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch (e) {
      report.problems.push({ line: n, message: `not valid JSON: ${(e as Error).message}` });
      continue;
    }
    if (typeof obj !== "object" || obj === null || Array.isArray(obj)) {
      report.problems.push({ line: n, message: "not a JSON object" });
      continue;
    }
    const doc = parse(obj as Record<string, unknown>, line);
    if (typeof doc === "string") report.problems.push({ line: n, message: doc });
    else if (accept(doc, n, report, seen)) yield doc;
  }
}

const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined);

/**
 * An id field as written: a number beyond 2^53 is read back from the line's own digits, since
 * JSON.parse rounds it (two ids 1 apart would otherwise become one and a false duplicate).
 */
function idText(o: Record<string, unknown>, key: string, line: string): string | undefined {
  const v = o[key];
  if (typeof v !== "number" || Number.isSafeInteger(v)) return str(v);
  const m = new RegExp(`"${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"\\s*:\\s*(-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)`).exec(line);
  return m ? m[1] : str(v);
}
const int = (v: unknown) => (typeof v === "number" && Number.isInteger(v) ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : undefined);

/** SciFact's corpus.jsonl ({ doc_id, title, abstract: [sentences] }) or BEIR's ({ _id, title, text }). */
export function readBeirCorpus(path: string, report: ReadReport = { read: 0, problems: [] }, source = "scifact"): AsyncGenerator<CorpusDocument> {
  return jsonl(
    path,
    (o, line) => {
      const docId = idText(o, "doc_id", line) ?? idText(o, "_id", line);
      if (docId === undefined) return `no "doc_id" or "_id"`;
      const sentences = Array.isArray(o.abstract) && o.abstract.every((s) => typeof s === "string") ? (o.abstract as string[]) : undefined;
      const text = sentences ? sentences.join(" ") : str(o.text);
      if (text === undefined) return `document ${docId}: no "abstract" (list of sentences) or "text"`;
      const meta = typeof o.metadata === "object" && o.metadata !== null ? (o.metadata as Record<string, unknown>) : {};
      const year = int(meta.year);
      const url = str(meta.url);
      return {
        docId,
        title: str(o.title) ?? "",
        text,
        ...(sentences ? { sentences } : {}),
        metadata: { source, ...(year !== undefined ? { year } : {}), ...(url !== undefined ? { url } : {}) },
      };
    },
    report,
  );
}

/** Any JSONL corpus, given which fields hold the id, title, text and metadata. */
export function readJsonlCorpus(path: string, fields: FieldMap, report: ReadReport = { read: 0, problems: [] }, source = "jsonl"): AsyncGenerator<CorpusDocument> {
  return jsonl(
    path,
    (o, line) => {
      const docId = idText(o, fields.id, line);
      if (docId === undefined) return `no id field "${fields.id}"`;
      const text = str(o[fields.text]);
      if (text === undefined) return `document ${docId}: no text field "${fields.text}"`;
      const year = fields.year ? int(o[fields.year]) : undefined;
      const citationCount = fields.citationCount ? int(o[fields.citationCount]) : undefined;
      const url = fields.url ? str(o[fields.url]) : undefined;
      return {
        docId,
        title: (fields.title ? str(o[fields.title]) : undefined) ?? "",
        text,
        metadata: { source, ...(year !== undefined ? { year } : {}), ...(citationCount !== undefined ? { citationCount } : {}), ...(url !== undefined ? { url } : {}) },
      };
    },
    report,
  );
}

/**
 * PubMedQA ({ "<pmid>": { QUESTION, CONTEXTS, YEAR, … } }): one document per PubMed id, its
 * context paragraphs as the text (the conclusion, LONG_ANSWER, is the answer and is left out).
 */
export async function* readPubMedQA(path: string, report: ReadReport = { read: 0, problems: [] }): AsyncGenerator<CorpusDocument> {
  const data = JSON.parse(await streamText(corpusText(path))) as Record<string, Record<string, unknown>>;
  const seen = new Map<string, number>();
  let n = 0;
  for (const [pmid, rec] of Object.entries(data)) {
    n++;
    const contexts = rec?.CONTEXTS;
    if (!Array.isArray(contexts) || !contexts.every((c) => typeof c === "string")) {
      report.problems.push({ line: n, message: `record ${pmid}: no CONTEXTS list` });
      continue;
    }
    const year = int(rec.YEAR);
    const doc: CorpusDocument = {
      docId: pmid,
      title: typeof rec.QUESTION === "string" ? rec.QUESTION : "",
      text: (contexts as string[]).join(" "),
      metadata: { source: "pubmedqa", url: `https://pubmed.ncbi.nlm.nih.gov/${pmid}/`, ...(year !== undefined ? { year } : {}) },
    };
    if (accept(doc, n, report, seen)) yield doc;
  }
}

/** A CSV corpus with a header row; `fields` names the columns to use. */
export async function* readCsvCorpus(path: string, fields: FieldMap, report: ReadReport = { read: 0, problems: [] }, source = "csv"): AsyncGenerator<CorpusDocument> {
  let header: string[] | undefined;
  const seen = new Map<string, number>();
  for await (const rec of csvRecords(corpusText(path))) {
    if (rec.error) {
      report.problems.push({ line: rec.line, message: rec.error });
      continue;
    }
    if (!header) {
      header = rec.fields.map((h) => h.trim());
      for (const [role, col] of Object.entries(fields)) if (col && !header.includes(col)) throw new Error(`${path}: no column "${col}" for ${role} (columns: ${header.join(", ")})`);
      continue;
    }
    if (rec.fields.length !== header.length) {
      report.problems.push({ line: rec.line, message: `${rec.fields.length} fields, the header has ${header.length}` });
      continue;
    }
    const row = Object.fromEntries(header.map((h, i) => [h, rec.fields[i]!]));
    const id = row[fields.id]?.trim();
    const text = row[fields.text]?.trim();
    if (!id) {
      report.problems.push({ line: rec.line, message: `empty id column "${fields.id}"` });
      continue;
    }
    if (!text) {
      report.problems.push({ line: rec.line, message: `document ${id}: empty text column "${fields.text}"` });
      continue;
    }
    const year = fields.year ? int(row[fields.year]?.trim()) : undefined;
    const citationCount = fields.citationCount ? int(row[fields.citationCount]?.trim()) : undefined;
    const url = fields.url ? row[fields.url]?.trim() || undefined : undefined;
    const doc: CorpusDocument = {
      docId: id,
      title: (fields.title ? row[fields.title]?.trim() : undefined) ?? "",
      text,
      metadata: { source, ...(year !== undefined ? { year } : {}), ...(citationCount !== undefined ? { citationCount } : {}), ...(url ? { url } : {}) },
    };
    if (accept(doc, rec.line, report, seen)) yield doc;
  }
}

/**
 * PubMed baseline XML (`.xml` or `.xml.gz`), streamed one <PubmedArticle> at a time so a
 * multi-gigabyte file never sits in memory. Articles without an abstract are reported, not indexed.
 */
export async function* readPubMedXml(path: string, report: ReadReport = { read: 0, problems: [] }): AsyncGenerator<CorpusDocument> {
  const stream = corpusText(path);
  let buffer = "";
  let line = 1; // line of buffer[0]
  const seen = new Map<string, number>();
  const CLOSE = "</PubmedArticle>";
  for await (const chunk of stream as AsyncIterable<string>) {
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf(CLOSE)) >= 0) {
      const startTag = buffer.indexOf("<PubmedArticle>");
      const startAny = startTag >= 0 ? startTag : buffer.indexOf("<PubmedArticle ");
      const articleLine = line + countLines(buffer, 0, Math.max(0, startAny));
      const xml = buffer.slice(Math.max(0, startAny), end + CLOSE.length);
      line += countLines(buffer, 0, end + CLOSE.length);
      buffer = buffer.slice(end + CLOSE.length);
      let art: unknown;
      try {
        art = pubmedXmlParser.parse(xml, true)?.PubmedArticle?.[0];
      } catch (e) {
        report.problems.push({ line: articleLine, message: `malformed article XML: ${(e as Error).message}` });
        continue;
      }
      const doc = pubmedDocument(art);
      if (typeof doc === "string") {
        report.problems.push({ line: articleLine, message: doc });
        continue;
      }
      if (accept(doc, articleLine, report, seen)) yield doc;
    }
  }
}

function countLines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}
