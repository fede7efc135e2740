import type { z } from "zod";
import type { PassageMetadata } from "@citeflow/core";

/** A document as read from a corpus, before chunking. */
export interface CorpusDocument {
  docId: string;
  title: string;
  text: string;
  /** Sentences, when the corpus ships them split (SciFact does). */
  sentences?: string[];
  metadata: z.infer<typeof PassageMetadata>;
}

/** A line or record a reader could not use: reported, never silently dropped. */
export interface ReadProblem {
  line: number;
  message: string;
}

export interface ReadReport {
  read: number;
  problems: ReadProblem[];
}
