import { createReadStream, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import type { CorpusDocument, ReadReport } from "./document.js";

/** Field names in a generic JSONL corpus. */
export interface FieldMap {
  id: string;
  title?: string;
  text: string;
  year?: string;
  citationCount?: string;
  url?: string;
}

type Parse = (obj: Record<string, unknown>) => CorpusDocument | string;

/**
 * Streams JSON Lines, one document a line. A bad line (not JSON, a missing field) is counted in
 * `report.problems` with its line number and skipped; the rest of the file is still read.
 */
async function* jsonl(path: string, parse: Parse, report: ReadReport): AsyncGenerator<CorpusDocument> {
  const lines = createInterface({ input: createReadStream(path, "utf8"), crlfDelay: Infinity });
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
    const doc = parse(obj as Record<string, unknown>);
    if (typeof doc === "string") report.problems.push({ line: n, message: doc });
    else {
      report.read++;
      yield doc;
    }
  }
}

const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined);
const int = (v: unknown) => (typeof v === "number" && Number.isInteger(v) ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : undefined);

/** SciFact's corpus.jsonl ({ doc_id, title, abstract: [sentences] }) or BEIR's ({ _id, title, text }). */
export function readBeirCorpus(path: string, report: ReadReport = { read: 0, problems: [] }, source = "scifact"): AsyncGenerator<CorpusDocument> {
  return jsonl(
    path,
    (o) => {
      const docId = str(o.doc_id) ?? str(o._id);
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
    (o) => {
      const docId = str(o[fields.id]);
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
  const data = JSON.parse(readFileSync(path, "utf8")) as Record<string, Record<string, unknown>>;
  let n = 0;
  for (const [pmid, rec] of Object.entries(data)) {
    n++;
    const contexts = rec?.CONTEXTS;
    if (!Array.isArray(contexts) || !contexts.every((c) => typeof c === "string")) {
      report.problems.push({ line: n, message: `record ${pmid}: no CONTEXTS list` });
      continue;
    }
    const year = int(rec.YEAR);
    report.read++;
    yield {
      docId: pmid,
      title: typeof rec.QUESTION === "string" ? rec.QUESTION : "",
      text: (contexts as string[]).join(" "),
      metadata: { source: "pubmedqa", url: `https://pubmed.ncbi.nlm.nih.gov/${pmid}/`, ...(year !== undefined ? { year } : {}) },
    };
  }
}
