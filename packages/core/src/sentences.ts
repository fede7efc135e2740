const ABBREVIATIONS = new Set(["al", "e.g", "i.e", "fig", "figs", "vs", "etc", "dr", "mr", "mrs", "ms", "no", "approx", "ref", "refs", "eq", "cf", "ca", "resp"]);

/**
 * Splits running text into sentences at . ! ? followed by white space and a capital, digit or
 * bracket, except after common abbreviations (et al., e.g., Fig.) and single initials.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  const re = /[.!?]+["')\]]*\s+(?=[A-Z0-9(\["'])/g;
  let start = 0;
  for (const m of text.matchAll(re)) {
    const before = text.slice(start, m.index + 1);
    // The last white-space-delimited token before the stop, without leading brackets or quotes.
    const lastWord = (/(\S+)\.$/.exec(before)?.[1] ?? "").replace(/^[("'\[]+/, "").toLowerCase();
    if (ABBREVIATIONS.has(lastWord) || /^[a-z]$/i.test(lastWord)) continue;
    const end = m.index + m[0].length;
    out.push(text.slice(start, end).trim());
    start = end;
  }
  const rest = text.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}
