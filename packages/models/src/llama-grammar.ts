import { quotedWords } from "@citeflow/core";

// The grammars that hold the in-process model's answers (GBNF, llama.cpp's grammar format), and
// how many tokens an answer held to one can take.

/**
 * At most how many tokens JSON of this schema can take, when every string has a maxLength and
 * every array a maxItems (a token is at least one character); Infinity otherwise. A call with a
 * schema gets at least this many tokens, so a grammar-held answer always closes.
 */
export function jsonTokenBound(schema: unknown): number {
  const s = schema as { type?: string; enum?: unknown[]; const?: unknown; maxLength?: number; maxItems?: number; items?: unknown; properties?: Record<string, unknown> };
  if (s.enum) return Math.max(...s.enum.map((v) => JSON.stringify(v).length)) + 2;
  if (s.const !== undefined) return JSON.stringify(s.const).length + 2;
  switch (s.type) {
    case "string":
      return s.maxLength !== undefined ? s.maxLength + 4 : Infinity;
    case "boolean":
    case "null":
      return 6;
    case "array":
      return s.maxItems !== undefined ? 4 + s.maxItems * (jsonTokenBound(s.items) + 4) : Infinity;
    case "object":
      return 4 + Object.entries(s.properties ?? {}).reduce((sum, [k, v]) => sum + k.length + 8 + jsonTokenBound(v), 0);
    default:
      return Infinity;
  }
}

/** With citations required, the first marker comes within this many characters, on the answer's first line. */
export const CITE_WITHIN = 300;

/** A character in a GBNF character class, escaped unless it is a letter or digit. */
const classChar = (ch: string) => (/^[\p{L}\p{N}]$/u.test(ch) ? ch : `\\u${ch.codePointAt(0)!.toString(16).padStart(4, "0")}`);

/**
 * A GBNF grammar for text whose only bracketed markers are [base]…[base+count-1]; `required`: with
 * at least one of them within CITE_WITHIN characters of the first line (a call gets the tokens to
 * reach it: a token is at least one character), unless the whole answer is `uncited` (the answer
 * that cites nothing, when the prompt allows one). `avoid`, with `required`: the answer cites and
 * does not begin with it (it parts from it at one of its characters, by another one or a marker).
 */
export function citationGrammar(count: number, base: 0 | 1, required = false, uncited?: string, avoid?: string): string {
  const numbers = Array.from({ length: Math.max(count, 1) }, (_, i) => `"${i + base}"`);
  const marker = `"[" (${numbers.join(" | ")}) "]"`;
  if (!required) return `root ::= ([^\\[] | ${marker})*`;
  const cited = `[^\\[\\n]{0,${CITE_WITHIN}} ${marker} ([^\\[] | ${marker})*`;
  if (avoid) {
    const parts = [...avoid].map((ch, i) => `${i ? `${JSON.stringify(avoid.slice(0, i))} ` : ""}(marker tail | [^${classChar(ch)}\\[\\n${i === 0 ? " " : ""}] cited)`);
    return `root ::= " "? (${parts.join(" | ")})\ncited ::= ${cited}\nmarker ::= ${marker}\ntail ::= ([^\\[] | ${marker})*`;
  }
  // A plain-text answer opens with a space after "Answer:"; after the uncited answer, only the blank line that ends it (PLAIN_STOPS) may follow.
  return uncited ? `root ::= " "? ${JSON.stringify(uncited)} "\\n"* | ${cited}` : `root ::= ${cited}`;
}

/** A quoting answer holds at most this many statements (citations.quote): SciFact gives 1 to 4 rationale sentences for 95 of the 100 dev claims with evidence. */
export const QUOTES_MAX = 4;

/** The sentences a passage's text offers a quoting answer: each as quotedWords gives it, once, none empty and none that holds a marker of its own. */
export function quotable(sentences: string[]): string[] {
  return [...new Set(sentences.map(quotedWords))].filter((w) => w && !/\[\d+\]/.test(w));
}

/**
 * A GBNF grammar for a quoting answer (ChatOptions.citations.quote): `opening`, then 1 to QUOTES_MAX
 * statements, each a quotable sentence of a passage with that passage's marker before its full stop;
 * or the whole answer `uncited`. An error when no passage offers a sentence.
 */
export function quoteGrammar(sentences: string[][], base: 0 | 1, opening: string, uncited?: string): string {
  const literal = (t: string) => JSON.stringify(t.replace(/\p{Cc}/gu, " "));
  const rules = sentences.flatMap((ss, i) => {
    const words = quotable(ss);
    return words.length ? [`q${i} ::= (${words.map(literal).join(" | ")}) " [${i + base}]."`] : [];
  });
  if (!rules.length) throw new Error("a quoting answer needs a passage with a sentence to quote; none of the passages has one");
  const names = rules.map((r) => r.slice(0, r.indexOf(" ")));
  const cited = `${opening ? `${literal(opening)} " " ` : ""}stmt (" " stmt){0,${QUOTES_MAX - 1}} "\\n"*`;
  return [`root ::= " "? ${uncited ? `(${literal(uncited)} "\\n"* | ${cited})` : cited}`, `stmt ::= ${names.join(" | ")}`, ...rules].join("\n");
}

/** At most how many tokens a quoting answer takes (a token is at least one character). */
export function quoteTokenBound(sentences: string[][], opening: string): number {
  const longest = Math.max(0, ...sentences.flatMap(quotable).map((w) => w.length));
  return opening.length + 2 + QUOTES_MAX * (longest + 8) + 2;
}
