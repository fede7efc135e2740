import stem from "wink-porter2-stemmer";

/**
 * The terms LanceDB's full-text index makes of a text with its default settings (the embedded
 * store's BM25), so that a store that computes BM25 itself (Qdrant's sparse vectors) scores
 * exactly as the embedded one: tantivy's simple tokenizer (runs of letters and digits), tokens of
 * 40 bytes or more dropped, lower case, the Snowball English (Porter2) stemmer, English stop words
 * dropped, then accents folded to ASCII. Checked term for term against LanceDB's scores
 * in tests/retrieval/qdrant.test.ts.
 */
export function ftsTokens(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.match(/[\p{Alphabetic}\p{Nd}\p{Nl}\p{No}]+/gu) ?? []) {
    if (Buffer.byteLength(raw) >= MAX_TOKEN_BYTES) continue;
    const term = stem(raw.toLowerCase());
    if (!STOP_WORDS.has(term)) out.push(foldAscii(term));
  }
  return out;
}

const MAX_TOKEN_BYTES = 40;

/** Accented Latin letters to their base letters (é → e, ß → ss); others unchanged. */
function foldAscii(t: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(t)) return t;
  return t
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/ß/g, "ss")
    .replace(/[æ]/g, "ae")
    .replace(/[œ]/g, "oe")
    .replace(/[ø]/g, "o")
    .replace(/[đð]/g, "d")
    .replace(/[ł]/g, "l")
    .replace(/[þ]/g, "th");
}

/**
 * The English stop words (NLTK's list, as LanceDB uses it: without the contractions, which the
 * tokenizer splits anyway). Checked against the stemmed tokens, as LanceDB does: "does" is stemmed
 * to "doe" first and so is kept.
 */
const STOP_WORDS = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself they them their theirs themselves " +
    "what which who whom this that these those am is are was were be been being have has had having do does did doing a an the and but if or because as until while " +
    "of at by for with about against between into through during before after above below to from up down in out on off over under again further then once here there " +
    "when where why how all any both each few more most other some such no nor not only own same so than too very s t can will just don should now d ll m o re ve y " +
    "ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn"
  ).split(" "),
);
