import type { z } from "zod";
import type { PassageMetadata } from "@citeflow/core";

/** A document as read from a corpus, before chunking. */
export interface CorpusDocument {
  docId: string;
  title: string;
  text: string;
  /** Sentences, when the corpus ships them split (SciFact does). */
  sentences?: string[];
  /** Where each page starts in `text` (PDFs): passages get the pages they span. */
  pages?: Array<{ page: number; start: number }>;
  metadata: z.infer<typeof PassageMetadata>;
}

/** A line or record a reader could not use: reported, never silently dropped. */
export interface ReadProblem {
  /** The line or record number, in files of many documents. */
  line?: number;
  /** The file, in folders of documents (PDFs). */
  file?: string;
  message: string;
}

/** "corpus.jsonl:12: message" or "papers/smith.pdf: message". */
export function formatReadProblem(corpus: string, p: ReadProblem): string {
  return `${p.file ?? corpus}${p.line !== undefined ? `:${p.line}` : ""}: ${p.message}`;
}

export interface ReadReport {
  read: number;
  problems: ReadProblem[];
}
