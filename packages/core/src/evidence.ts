import type { Passage, Verdict } from "./values.js";

/** Where a verdict's evidence sentence sits in its source: the characters of the document's text, and for a PDF the file. */
export interface EvidenceInDocument {
  start: number;
  end: number;
  /** The PDF, as ingested, and its content hash then. */
  path?: string;
  sha256?: string;
}

/**
 * The evidence sentence's place in its document: its offsets in the passage plus where the passage
 * starts (`metadata.start`). Undefined when either is unknown.
 */
export function evidenceInDocument(e: NonNullable<Verdict["evidence"]>, passage: Pick<Passage, "metadata">): EvidenceInDocument | undefined {
  const at = passage.metadata.start;
  if (e.start === undefined || e.end === undefined || at === undefined) return undefined;
  const { path, sha256 } = passage.metadata;
  return { start: at + e.start, end: at + e.end, ...(typeof path === "string" ? { path } : {}), ...(typeof sha256 === "string" ? { sha256 } : {}) };
}
