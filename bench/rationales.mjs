// Which sentences an answer cites, against SciFact's rationale sentences for its claim (bench/llm.mjs).
import { splitSentences, statedContent } from "@citeflow/core";

/** A sentence's words, lower-cased, for matching a statement to a rationale sentence. */
const wordsOf = (t) => (t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");

/**
 * Whether an answer's statement is one of these SciFact rationale sentences: its words (reporting frame
 * and markers left out) are the sentence's, or one holds the other (at least 6 words: the two
 * sentence splitters part differently at a few stops).
 */
function isRationale(statement, rationales) {
  const w = wordsOf(statedContent(statement).replace(/\[\d+\]/g, " "));
  return rationales.some((r) => {
    const g = wordsOf(r);
    return w === g || (Math.min(w.split(" ").length, g.split(" ").length) >= 6 && (g.includes(w) || w.includes(g)));
  });
}

/**
 * How many cited statements an answer makes, how many of them are one of the `shown` rationale sentences
 * (those the passages it was given show), how many those are, and how many of them some statement quotes.
 */
export function rationaleCounts(text, shown) {
  const statements = splitSentences(text).filter((x) => /\[\d+\]/.test(x));
  return {
    statements: statements.length,
    rationaleStatements: statements.filter((x) => isRationale(x, shown)).length,
    rationales: shown.length,
    quoted: shown.filter((g) => statements.some((x) => isRationale(x, [g]))).length,
  };
}
