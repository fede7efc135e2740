import { passageId, sentenceSpans, type Passage } from "@citeflow/core";
import type { CorpusDocument } from "./document.js";

export type Chunker = (doc: CorpusDocument) => Passage[];

/**
 * Passage `chunk` of `doc`: the words of `doc.text` from `start` to `end`, joined by single
 * spaces, with where it sits in the document (`start`, `end`) and, for PDFs, its pages. When the
 * document's white space is single characters (PDF text is), an offset in the passage plus
 * `start` is the same offset in the document.
 */
function passage(doc: CorpusDocument, chunk: number, start: number, end: number): Passage {
  const text = doc.text.slice(start, end).split(/\s+/).filter(Boolean).join(" ");
  return { id: passageId(doc.docId, chunk), title: doc.title, text, metadata: { ...doc.metadata, start, end, ...pagesOf(doc, start, end) }, scores: {} };
}

function pagesOf(doc: CorpusDocument, start: number, end: number): { page?: number; pageStarts?: Array<[number, number]> } {
  if (!doc.pages?.length) return {};
  let first = doc.pages[0]!;
  for (const p of doc.pages) if (p.start <= start) first = p;
  const pageStarts: Array<[number, number]> = [[0, first.page]];
  for (const p of doc.pages) if (p.start > start && p.start < end) pageStarts.push([p.start - start, p.page]);
  return { page: first.page, ...(pageStarts.length > 1 ? { pageStarts } : {}) };
}

/** Where each of the document's sentences sits in its text. */
function sentencesOf(doc: CorpusDocument): Array<{ start: number; end: number }> {
  if (!doc.sentences) return sentenceSpans(doc.text);
  const out: Array<{ start: number; end: number }> = [];
  let from = 0;
  for (const s of doc.sentences) {
    const at = doc.text.indexOf(s, from);
    if (at < 0) return sentenceSpans(doc.text);
    out.push({ start: at, end: at + s.length });
    from = at + s.length;
  }
  return out;
}

/**
 * OpenScholar's datastore recipe: consecutive windows of `words` words (default 256). The title
 * travels on every passage and is prepended to the text that is indexed (see `indexText`).
 * Chunk numbers are positions, so ids are stable across re-ingests of the same text.
 */
export function openScholarChunker(words = 256): Chunker {
  if (!Number.isInteger(words) || words < 1) throw new Error(`openScholarChunker: words must be a whole number ≥ 1, got ${words}`);
  return (doc) => {
    const tokens = [...doc.text.matchAll(/\S+/g)];
    if (tokens.length === 0) return [passage(doc, 0, 0, 0)];
    const out: Passage[] = [];
    for (let i = 0; i < tokens.length; i += words) {
      const last = tokens[Math.min(i + words, tokens.length) - 1]!;
      out.push(passage(doc, out.length, tokens[i]!.index, last.index + last[0].length));
    }
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
    if (count(`${doc.title} ${doc.text}`) <= max) return [passage(doc, 0, 0, doc.text.length)];
    const spans = sentencesOf(doc);
    const sentences = spans.map((s) => doc.text.slice(s.start, s.end));
    const budget = max - count(doc.title);
    const out: Passage[] = [];
    let i = 0;
    while (i < sentences.length) {
      let j = i;
      let used = 0;
      // Always take at least one sentence, even one longer than the budget.
      while (j < sentences.length && (j === i || used + count(sentences[j]!) <= budget)) used += count(sentences[j++]!);
      out.push(passage(doc, out.length, spans[i]!.start, spans[j - 1]!.end));
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
