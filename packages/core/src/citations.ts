import { parsePassageId, type Answer, type Passage } from "./values.js";

/**
 * One parser for every citation convention the seed systems use:
 *   [1]  [1][2]  [1, 2]  [1-3]  (numbers into the passage list, 1-based or 0-based)
 *   [PUBMED:123]  (PUBMED:123)  (a document id; also matches passages whose doc id is "pubmed:123")
 * Each marker maps to the id of a passage the generator was given; anything else is kept on the
 * answer as an invalid (hallucinated) citation — never dropped silently.
 */
export interface CitationOptions {
  /** 1: [1] is the first passage (CORE-GPT, Verif.ai); 0: [0] is (OpenScholar). Default 1. */
  base?: 0 | 1;
}

export interface CitationMention {
  /** The marker as it maps: "1", "PUBMED:123". */
  marker: string;
  /** Offset of the bracket group in the text. */
  index: number;
  /** Passage id, or undefined when the marker points outside what the generator was given. */
  passageId?: string;
}

const NUMERIC_GROUP = /\[(\s*\d+\s*(?:(?:,|-|–)\s*\d+\s*)*)\]/g;
const DOC_GROUP = /[[(]\s*((?:PUBMED|PMID|DOI|ARXIV|S2|CORE)\s*:\s*[^\])\s,;]+(?:\s*[,;]\s*(?:PUBMED|PMID|DOI|ARXIV|S2|CORE)\s*:\s*[^\])\s,;]+)*)\s*[\])]/gi;

/**
 * A bracketed group of years ("[2010]", "[2009, 2010]", "[1998–2004]": every number 1000–2999) is a
 * date the text gives, not a citation: no passage list runs that long, so it is neither linked nor
 * counted as a hallucinated citation.
 */
const yearsOnly = (group: string) => (group.match(/\d+/g) ?? []).every((n) => n.length === 4 && Number(n) >= 1000 && Number(n) < 3000);

/** The numeric citation groups of a text, years left out. */
const numericGroups = (text: string) => [...text.matchAll(NUMERIC_GROUP)].filter((m) => !yearsOnly(m[1]!));

export function findCitations(text: string, passages: Pick<Passage, "id">[], options: CitationOptions = {}): CitationMention[] {
  const base = options.base ?? 1;
  const out: CitationMention[] = [];
  for (const m of numericGroups(text)) {
    for (const part of m[1]!.split(",")) {
      const range = /^\s*(\d+)\s*(?:-|–)\s*(\d+)\s*$/.exec(part);
      const numbers: number[] = [];
      if (range) {
        const [a, b] = [Number(range[1]), Number(range[2])];
        // A reversed or huge range is a typo, not 10,000 citations: keep its ends only.
        if (b >= a && b - a <= 50) for (let n = a; n <= b; n++) numbers.push(n);
        else numbers.push(a, b);
      } else numbers.push(Number(part.trim()));
      for (const n of numbers) {
        const p = passages[n - base];
        out.push({ marker: String(n), index: m.index, ...(p ? { passageId: p.id } : {}) });
      }
    }
  }
  for (const m of text.matchAll(DOC_GROUP)) {
    for (const part of m[1]!.split(/[,;]/)) {
      const [kind, value] = part.split(":").map((s) => s.trim());
      const marker = `${kind!.toUpperCase()}:${value}`;
      const wanted = new Set([value!.toLowerCase(), `${kind!.toLowerCase()}:${value!.toLowerCase()}`]);
      if (kind!.toUpperCase() === "PMID") wanted.add(`pubmed:${value!.toLowerCase()}`);
      const p = passages.find((x) => wanted.has(parsePassageId(x.id).docId.toLowerCase()));
      out.push({ marker, index: m.index, ...(p ? { passageId: p.id } : {}) });
    }
  }
  return out.sort((a, b) => a.index - b.index);
}

/** A citation group as written: its span in the text, and each marker written in it with its own span. */
export interface CitationGroup {
  start: number;
  end: number;
  written: Array<{ marker: string; start: number; end: number }>;
}

/**
 * Where the parser finds citations in a text (the same two patterns as `findCitations`): views link
 * markers only there, so the "2" of "2007" or "n = 205" is never taken for [2].
 */
export function citationGroups(text: string): CitationGroup[] {
  const groups: CitationGroup[] = [];
  for (const m of numericGroups(text)) {
    const start = m.index;
    const written = [...m[0].matchAll(/\d+/g)].map((n) => ({ marker: n[0], start: start + n.index, end: start + n.index + n[0].length }));
    groups.push({ start, end: start + m[0].length, written });
  }
  for (const m of text.matchAll(DOC_GROUP)) {
    const start = m.index;
    const written = [...m[0].matchAll(/(PUBMED|PMID|DOI|ARXIV|S2|CORE)\s*:\s*([^\])\s,;]+)/gi)].map((d) => ({
      marker: `${d[1]!.toUpperCase()}:${d[2]}`,
      start: start + d.index,
      end: start + d.index + d[0].length,
    }));
    groups.push({ start, end: start + m[0].length, written });
  }
  return groups.sort((a, b) => a.start - b.start);
}

/**
 * The answer that cites nothing: the papers given do not answer the question. Citeflow's answer
 * prompts ask for it ("If the papers do not answer the question, say so"), gold answers say it when
 * no passage holds a rationale, and a grammar that requires a citation still allows it.
 */
export const NO_ANSWER = "The papers do not answer the question.";

/**
 * How an answer that quotes the papers opens (gold answers, and generate.answer's quoted answers):
 * it shares "The papers" with NO_ANSWER, so the choice to cite or not is one token.
 */
export const QUOTE_OPENING = "The papers report:";

/** A sentence's words as an answer quotes them: trimmed, line breaks as spaces, without its final stop. */
export function quotedWords(sentence: string): string {
  return sentence
    .trim()
    .replace(/\s*\n\s*/g, " ")
    .replace(/[.!?]+$/, "");
}

/** A passage sentence quoted as a cited statement: its words, then its passage's marker before the full stop ("X raises Y [2]."). */
export function quoteStatement(sentence: string, marker: number): string {
  return `${quotedWords(sentence)} [${marker}].`;
}

/** Build an Answer: its citation map, the passages it was allowed to cite, and the invalid ones. */
export function toAnswer(text: string, passages: Pick<Passage, "id">[], options: CitationOptions = {}): Answer {
  const citations: Record<string, string> = {};
  const invalid: Answer["invalidCitations"] = [];
  const seenInvalid = new Set<string>();
  for (const c of findCitations(text, passages, options)) {
    if (c.passageId) citations[c.marker] = c.passageId;
    else if (!seenInvalid.has(c.marker)) {
      seenInvalid.add(c.marker);
      invalid.push({ marker: c.marker, target: c.marker });
    }
  }
  return { text, citations, allowed: passages.map((p) => p.id), invalidCitations: invalid };
}
