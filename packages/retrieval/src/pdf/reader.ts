import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import type { CorpusDocument, ReadReport } from "../document.js";
import { extractPdf, PdfError, type PdfText } from "./extract.js";

/** A PDF found under the folder being ingested, with the id its document gets. */
export interface PdfFile {
  path: string;
  /** The path under the folder, without ".pdf": stable across re-ingests, readable in citations. */
  docId: string;
  sha256: string;
}

/** Every `.pdf` under `path` (or `path` itself), sorted, hidden folders skipped. */
export function findPdfs(path: string): PdfFile[] {
  const abs = resolve(path);
  let stat;
  try {
    stat = statSync(abs);
  } catch {
    throw new Error(`${path}: no such file or folder`);
  }
  const root = stat.isDirectory() ? abs : dirname(abs);
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.name.startsWith(".")) continue;
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.isFile() && /\.pdf$/i.test(e.name)) files.push(join(dir, e.name));
    }
  };
  if (stat.isDirectory()) walk(abs);
  else files.push(abs);
  return files.map((f) => ({
    path: f,
    docId: relative(root, f)
      .replace(/\.pdf$/i, "")
      .split("\\")
      .join("/"),
    sha256: hashOf(f),
  }));
}

/** A file's content hash; "" for a file that cannot be read (the reader then reports why). */
function hashOf(path: string): string {
  try {
    return sha256(readFileSync(path));
  } catch {
    return "";
  }
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * A PDF's text for a document (throws `PdfError` when it has none); pages without text inside it
 * are reported under `file` and left out.
 */
export async function pdfText(bytes: Uint8Array, file: string, report: ReadReport, onPage?: (page: number, pages: number) => void): Promise<PdfText> {
  const pdf = await extractPdf(bytes, onPage);
  if (pdf.pagesWithoutText.length) report.problems.push({ file, message: `page(s) ${pdf.pagesWithoutText.join(", ")} have no text layer and are left out (scanned pages need OCR)` });
  return pdf;
}

/** What a passage of a PDF keeps about its file: where it is (for "open at page"), its pages, its reference list. */
export function pdfFileMetadata(path: string, pdf: PdfText): { path: string; pageCount: number; references?: number } {
  return { path, pageCount: pdf.pageCount, ...(pdf.references.length ? { references: pdf.references.length } : {}) };
}

export interface PdfReadOptions {
  /** Documents to leave out (already in the store with the same content), by id. */
  skip?: Set<string>;
  /** Called after each file with its pages, for progress and throughput. */
  onFile?: (f: PdfFile, pages: number) => void;
  /** Called after each page is read: a long PDF shows its progress page by page. */
  onPage?: (f: PdfFile, page: number, pages: number) => void;
}

/**
 * PDFs as documents: body text in reading order, its pages and the document's metadata. A file
 * that is encrypted, scanned without a text layer, or broken is reported in `report.problems` with
 * its path and the reason, and skipped; the rest go in. Pages without text inside a readable file
 * are reported too, and the file is kept.
 */
export async function* readPdfs(files: PdfFile[], report: ReadReport, o: PdfReadOptions = {}): AsyncGenerator<CorpusDocument> {
  for (const f of files) {
    if (o.skip?.has(f.docId)) continue;
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(readFileSync(f.path));
    } catch (e) {
      report.problems.push({ file: f.path, message: `cannot be read: ${(e as Error).message}` });
      continue;
    }
    if (sha256(bytes) !== f.sha256) {
      report.problems.push({ file: f.path, message: "changed while it was being ingested: run the ingest again" });
      continue;
    }
    let pdf;
    try {
      pdf = await pdfText(bytes, f.path, report, o.onPage && ((page, pages) => o.onPage!(f, page, pages)));
    } catch (e) {
      report.problems.push({ file: f.path, message: e instanceof PdfError ? e.message : `cannot be read: ${(e as Error).message}` });
      continue;
    }
    o.onFile?.(f, pdf.pageCount);
    if (pdf.text.trim() === "") {
      report.problems.push({ file: f.path, message: "no body text found" });
      continue;
    }
    report.read++;
    yield {
      docId: f.docId,
      title: pdf.title ?? basename(f.path).replace(/\.pdf$/i, ""),
      text: pdf.text,
      pages: pdf.pages,
      metadata: {
        source: "pdf",
        sha256: f.sha256,
        ...(pdf.authors ? { authors: pdf.authors } : {}),
        ...(pdf.year ? { year: pdf.year } : {}),
        ...pdfFileMetadata(f.path, pdf),
      },
    };
  }
}
