import { readFileSync } from "node:fs";
import type { CorpusDocument, ReadReport } from "../document.js";
import { PdfError } from "../pdf/extract.js";
import { pdfFileMetadata, pdfText } from "../pdf/reader.js";

/** A library entry (Zotero item, CSL-JSON item, BibTeX entry) and where its full text is. */
export interface Reference {
  /** Zotero item key, CSL id or BibTeX key: the document id. */
  key: string;
  title: string;
  authors: string[];
  year?: number;
  doi?: string;
  url?: string;
  abstract?: string;
  tags?: string[];
  collections?: string[];
  /** Where the entry came from, for messages ("refs.bib:12", "zotero users/1 item ABCD1234"). */
  where: string;
  /** The full text, when the entry has a PDF: a local file, or one fetched on demand (to a local file). */
  pdf?: { path: string } | { fetch: () => Promise<string> };
  /** What identifies this version of the entry: unchanged entries are not read again. */
  hash: string;
  /** Library-specific fields kept in the passages' metadata (e.g. zoteroKey). */
  extra?: Record<string, unknown>;
}

export interface ReferenceReadOptions {
  /** Keys whose documents the store holds already in this version. */
  skip?: Set<string>;
  onPdf?: (ref: Reference, pages: number) => void;
  source: string;
}

/**
 * References as documents: the PDF's body text when there is one (pages kept, so citations point
 * to a page), else the abstract. A PDF that cannot be read is reported and the abstract used when
 * there is one; an entry with neither is reported and left out.
 */
export async function* readReferences(refs: Iterable<Reference> | AsyncIterable<Reference>, report: ReadReport, o: ReferenceReadOptions): AsyncGenerator<CorpusDocument> {
  const seen = new Set<string>();
  for await (const ref of refs) {
    if (seen.has(ref.key)) {
      report.problems.push({ file: ref.where, message: `the key "${ref.key}" again; the first is kept` });
      continue;
    }
    seen.add(ref.key);
    if (o.skip?.has(ref.key)) continue;
    const metadata = {
      source: o.source,
      sha256: ref.hash,
      ...(ref.authors.length ? { authors: ref.authors } : {}),
      ...(ref.year !== undefined ? { year: ref.year } : {}),
      ...(ref.doi ? { doi: ref.doi } : {}),
      ...(ref.url ? { url: ref.url } : ref.doi ? { url: `https://doi.org/${ref.doi}` } : {}),
      ...(ref.tags?.length ? { tags: ref.tags } : {}),
      ...(ref.collections?.length ? { collections: ref.collections } : {}),
      ...(ref.extra ?? {}),
    };
    let pdfProblem: string | undefined;
    if (ref.pdf) {
      try {
        const path = "path" in ref.pdf ? ref.pdf.path : await ref.pdf.fetch();
        const pdf = await pdfText(new Uint8Array(readFileSync(path)), ref.where, report);
        o.onPdf?.(ref, pdf.pageCount);
        if (pdf.text.trim()) {
          report.read++;
          yield {
            docId: ref.key,
            title: ref.title || pdf.title || ref.key,
            text: pdf.text,
            pages: pdf.pages,
            metadata: { ...metadata, ...pdfFileMetadata(path, pdf) },
          };
          continue;
        }
        pdfProblem = `${path}: no body text found`;
      } catch (e) {
        pdfProblem = e instanceof PdfError ? e.message : `its PDF cannot be read: ${(e as Error).message}`;
      }
    }
    if (ref.abstract?.trim()) {
      if (pdfProblem) report.problems.push({ file: ref.where, message: `${pdfProblem}; its abstract is used instead` });
      report.read++;
      yield { docId: ref.key, title: ref.title, text: ref.abstract.trim(), metadata };
      continue;
    }
    report.problems.push({ file: ref.where, message: pdfProblem ? `${pdfProblem}; no abstract either, left out` : "no PDF and no abstract: nothing to index, left out" });
  }
}
