import { getDocument, type PDFDocumentProxy } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { TextItem } from "pdfjs-dist/types/src/display/api.js";
import { layOut, type LaidOut, type PageRuns } from "./layout.js";

/** Why a PDF gives no text, in words a user can act on. */
export class PdfError extends Error {
  constructor(
    readonly reason: "encrypted" | "no-text-layer" | "broken" | "too-long",
    message: string,
  ) {
    super(message);
  }
}

export interface PdfText extends LaidOut {
  pageCount: number;
  title?: string;
  authors?: string[];
  year?: number;
  /** Pages with no text at all (scanned, or figures only). */
  pagesWithoutText: number[];
}

/** Opens a PDF with pdf.js; no fonts are loaded and no script is evaluated: only the text is wanted. */
/** The most pages Citeflow reads from one PDF (a long book has about 1,500): a file claiming more is refused before any page is read. */
export const PDF_MAX_PAGES = 5_000;

export async function openPdf(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  const pdf = await open(bytes);
  if (pdf.numPages > PDF_MAX_PAGES) {
    await pdf.destroy();
    throw new PdfError("too-long", `${pdf.numPages} pages; Citeflow reads PDFs of up to ${PDF_MAX_PAGES} pages: split it, or ingest its chapters`);
  }
  return pdf;
}

async function open(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  try {
    return await getDocument({ data: bytes, verbosity: 0, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: false }).promise;
  } catch (e) {
    const name = (e as Error).name;
    if (name === "PasswordException") throw new PdfError("encrypted", "encrypted with a password: save a copy without one to ingest it");
    throw new PdfError("broken", `not a readable PDF (${(e as Error).message}): the file may be cut short or not a PDF`);
  }
}

/** The text runs of every page. */
export async function pageRuns(pdf: PDFDocumentProxy, onPage?: (page: number, pages: number) => void): Promise<PageRuns[]> {
  const pages: PageRuns[] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    let page;
    try {
      page = await pdf.getPage(n);
    } catch (e) {
      throw new PdfError("broken", `page ${n} of ${pdf.numPages} cannot be read (${(e as Error).message}): the file may be cut short`);
    }
    const [x0, y0, x1, y1] = page.view as [number, number, number, number];
    const content = await page.getTextContent();
    const runs = (content.items as TextItem[])
      .filter((i) => typeof i.str === "string")
      .map((i) => ({ str: i.str, x: i.transform[4]! - x0, y: i.transform[5]! - y0, width: i.width, size: Math.hypot(i.transform[2]!, i.transform[3]!) || i.height }));
    pages.push({ page: n, width: x1 - x0, height: y1 - y0, runs });
    page.cleanup();
    onPage?.(n, pdf.numPages);
  }
  return pages;
}

const YEAR = /^D:(\d{4})/;

/**
 * A PDF's text in reading order with its pages, reference list and metadata (title, authors and
 * year from the document's info dictionary when it has them). Throws `PdfError` for an encrypted,
 * broken or text-less file.
 */
export async function extractPdf(bytes: Uint8Array, onPage?: (page: number, pages: number) => void): Promise<PdfText> {
  const pdf = await openPdf(bytes);
  try {
    return await textOf(pdf, onPage);
  } finally {
    await pdf.destroy();
  }
}

/** `extractPdf` on a document already open (the caller destroys it). */
export async function textOf(pdf: PDFDocumentProxy, onPage?: (page: number, pages: number) => void): Promise<PdfText> {
  const pages = await pageRuns(pdf, onPage);
  const pagesWithoutText = pages.filter((p) => p.runs.every((r) => r.str.trim() === "")).map((p) => p.page);
  if (pagesWithoutText.length === pages.length)
    throw new PdfError("no-text-layer", `no text layer on any of its ${pages.length} page(s): a scan or images only; run OCR on it (e.g. ocrmypdf) and ingest the result`);
  const laid = layOut(pages);
  const info = ((await pdf.getMetadata().catch(() => undefined))?.info ?? {}) as Record<string, unknown>;
  const title = typeof info.Title === "string" && usefulTitle(info.Title) ? info.Title.trim() : firstPageTitle(pages[0]!);
  const authors = typeof info.Author === "string" && info.Author.trim() ? splitAuthors(info.Author) : undefined;
  const year = Number(YEAR.exec(typeof info.CreationDate === "string" ? info.CreationDate : "")?.[1]) || undefined;
  return { ...laid, pageCount: pages.length, pagesWithoutText, ...(title ? { title } : {}), ...(authors ? { authors } : {}), ...(year ? { year } : {}) };
}

/** Word processors put the file name or nothing useful in the title field. */
function usefulTitle(t: string): boolean {
  const s = t.trim();
  return s.length > 3 && !/^(untitled|microsoft word - |.*\.(docx?|tex|pdf|dvi)$)/i.test(s);
}

/** The biggest text in the top half of the first page, when it is title-like. */
function firstPageTitle(p: PageRuns): string | undefined {
  const top = p.runs.filter((r) => r.str.trim() && r.y > p.height / 2);
  if (top.length === 0) return undefined;
  const size = Math.max(...top.map((r) => r.size));
  const body = top.map((r) => r.size).sort((a, b) => a - b)[Math.floor(top.length / 2)]!;
  if (size < body * 1.2) return undefined;
  const title = top
    .filter((r) => r.size >= size * 0.95)
    .sort((a, b) => b.y - a.y || a.x - b.x)
    .map((r) => r.str)
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  return title.length > 3 && title.length < 300 ? title.normalize("NFKC") : undefined;
}

function splitAuthors(s: string): string[] {
  return s
    .split(/\s*(?:;|,|\band\b|&)\s*/)
    .map((a) => a.trim())
    .filter(Boolean);
}
