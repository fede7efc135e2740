const ABBREVIATIONS = new Set(["al", "e.g", "i.e", "fig", "figs", "vs", "etc", "dr", "mr", "mrs", "ms", "no", "approx", "ref", "refs", "eq", "cf", "ca", "resp"]);

/**
 * Splits running text into sentences at . ! ? followed by white space and a capital, digit or
 * bracket, except after common abbreviations (et al., e.g., Fig.) and single initials.
 */
export function splitSentences(text: string): string[] {
  return sentenceSpans(text).map((s) => text.slice(s.start, s.end));
}

/** Where each sentence of `text` starts and ends (white space around it left out). */
export function sentenceSpans(text: string): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  const push = (from: number, to: number) => {
    while (from < to && /\s/.test(text[from]!)) from++;
    while (to > from && /\s/.test(text[to - 1]!)) to--;
    if (to > from) out.push({ start: from, end: to });
  };
  const re = /[.!?]+["')\]]*\s+(?=[A-Z0-9(["'])/g;
  let start = 0;
  for (const m of text.matchAll(re)) {
    const before = text.slice(start, m.index + 1);
    // The last white-space-delimited token before the stop, without leading brackets or quotes.
    const lastWord = (/(\S+)\.$/.exec(before)?.[1] ?? "").replace(/^[("'[]+/, "").toLowerCase();
    if (ABBREVIATIONS.has(lastWord) || /^[a-z]$/i.test(lastWord)) continue;
    const end = m.index + m[0].length;
    push(start, end);
    start = end;
  }
  push(start, text.length);
  return out;
}

/** A reporting frame before a colon: a short clause ending in a reporting verb ("The papers report:", "The authors found that:"). */
const REPORTING_FRAME =
  /^[A-Z][^:.!?[\]]{0,60}?\b(?:report|reports|reported|show|shows|showed|shown|find|finds|found|state|states|stated|say|says|said|suggest|suggests|suggested|conclude|concludes|concluded|note|notes|noted)(?:\s+that)?\s*:\s+(?=\S)/;

/**
 * What a sentence states, without a reporting frame before a colon: "The papers report: X" states
 * X (and is supported where X is), which an NLI judge reads better than the frame around it.
 * Sentences without such a frame are returned as they are.
 */
export function statedContent(sentence: string): string {
  return sentence.replace(REPORTING_FRAME, "");
}
