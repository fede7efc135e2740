import { passageId, splitSentences, type Passage } from "@citeflow/core";
import type { CorpusDocument } from "./document.js";

export type Chunker = (doc: CorpusDocument) => Passage[];

function passage(doc: CorpusDocument, chunk: number, text: string): Passage {
  return { id: passageId(doc.docId, chunk), title: doc.title, text, metadata: { ...doc.metadata }, scores: {} };
}

/**
 * OpenScholar's datastore recipe: consecutive windows of `words` words (default 256). The title
 * travels on every passage and is prepended to the text that is indexed (see `indexText`).
 * Chunk numbers are positions, so ids are stable across re-ingests of the same text.
 */
export function openScholarChunker(words = 256): Chunker {
  if (!Number.isInteger(words) || words < 1) throw new Error(`openScholarChunker: words must be a whole number ≥ 1, got ${words}`);
  return (doc) => {
    const tokens = doc.text.split(/\s+/).filter(Boolean);
    if (tokens.length === 0) return [passage(doc, 0, "")];
    const out: Passage[] = [];
    for (let i = 0; i < tokens.length; i += words) out.push(passage(doc, out.length, tokens.slice(i, i + words).join(" ")));
    return out;
  };
}

export interface VerifaiChunkerOptions {
  /** Longest passage, in tokens (default 512). */
  maxTokens?: number;
  /** Sentences repeated at the start of the next window (default 1). */
  overlapSentences?: number;
  /** Token counter (default: white-space words; pass a tokenizer's count for model tokens). */
  countTokens?: (text: string) => number;
}

/**
 * Verif.ai's recipe: title + abstract as one passage when it fits in `maxTokens`; otherwise
 * windows packed with whole sentences, each window starting with the last `overlapSentences`
 * sentences of the one before.
 */
export function verifaiChunker(options: VerifaiChunkerOptions = {}): Chunker {
  const max = options.maxTokens ?? 512;
  const overlap = options.overlapSentences ?? 1;
  const count = options.countTokens ?? ((t: string) => t.split(/\s+/).filter(Boolean).length);
  return (doc) => {
    if (count(`${doc.title} ${doc.text}`) <= max) return [passage(doc, 0, doc.text)];
    const sentences = doc.sentences ?? splitSentences(doc.text);
    const budget = max - count(doc.title);
    const out: Passage[] = [];
    let i = 0;
    while (i < sentences.length) {
      let j = i;
      let used = 0;
      // Always take at least one sentence, even one longer than the budget.
      while (j < sentences.length && (j === i || used + count(sentences[j]!) <= budget)) used += count(sentences[j++]!);
      out.push(passage(doc, out.length, sentences.slice(i, j).join(" ")));
      if (j >= sentences.length) break;
      i = Math.max(i + 1, j - overlap);
    }
    return out;
  };
}

/** The text a passage is indexed and embedded by: its title, then its text. */
export function indexText(p: Pick<Passage, "title" | "text">): string {
  return p.title ? `${p.title}\n${p.text}` : p.text;
}
