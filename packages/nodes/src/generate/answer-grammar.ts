import { quotedWords } from "@citeflow/core";
import type { ChatMessage, ChatModel, Grammar } from "@citeflow/models";

// What generate.answer asks of an in-process model's answer, as grammars (GBNF, llama.cpp's format) the model is held to:
// the policy is the node's, the model only follows the grammar it is given.

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
  // A plain-text answer opens with a space after "Answer:"; after the uncited answer, only the blank line that ends it may follow.
  return uncited ? `root ::= " "? ${JSON.stringify(uncited)} "\\n"* | ${cited}` : `root ::= ${cited}`;
}

/** A quoting answer holds at most this many statements: SciFact gives 1 to 4 rationale sentences for 95 of the 100 dev claims with evidence. */
export const QUOTES_MAX = 4;

/** The sentences a passage's text offers a quoting answer: each as quotedWords gives it, once, none empty and none that holds a marker of its own. */
export function quotable(sentences: string[]): string[] {
  return [...new Set(sentences.map(quotedWords))].filter((w) => w && !/\[\d+\]/.test(w));
}

/**
 * A GBNF grammar for a quoting answer: `opening`, then 1 to QUOTES_MAX statements, each a quotable
 * sentence of a passage with that passage's marker before its full stop; or the whole answer
 * `uncited`. An error when no passage offers a sentence.
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

/** What an answer is held to: markers of `count` passages from `base`; `required`, at least one; `quote`, the passages' sentences; `uncited`, the one answer that cites nothing; `avoid`, a beginning a citing answer may not take. */
export interface AnswerRule {
  count: number;
  base: 0 | 1;
  required?: boolean;
  uncited?: string;
  avoid?: string;
  quote?: { sentences: string[][]; opening: string };
}

/** What a rule holds an answer to, in words (traced on the call). */
export function describeRule(r: AnswerRule): string {
  const what = r.quote ? "quotes of the passages' sentences, each with its passage's marker" : `markers [${r.base}]…[${r.base + r.count - 1}] only`;
  const more = [
    ...(r.required && !r.quote ? [`at least one within the first line's ${CITE_WITHIN} characters`] : []),
    ...(r.avoid ? [`not beginning "${r.avoid}"`] : []),
    ...(r.uncited ? [`or "${r.uncited}"`] : []),
  ];
  return [what, ...more].join("; ");
}

/** The grammar an answer rule makes, with the tokens an answer it allows takes at most. */
export function answerGrammar(r: AnswerRule): Grammar {
  if (r.quote) return { gbnf: quoteGrammar(r.quote.sentences, r.base, r.quote.opening, r.uncited), tokenBound: quoteTokenBound(r.quote.sentences, r.quote.opening) };
  return {
    gbnf: citationGrammar(r.count, r.base, r.required, r.uncited, r.avoid),
    key: `cite:${r.count}:${r.base}:${r.required === true}:${r.uncited ?? ""}:${r.avoid ?? ""}`,
    ...(r.required ? { tokenBound: CITE_WITHIN + 8 } : {}),
  };
}

/**
 * Where a citing answer parts from the refusal (`scored`: the refusal's tokens after the prompt, each with its
 * log-probability): at its least likely token (" do" in "The papers do not answer"), the text up to that token's first
 * letter, which a citing answer may not begin with.
 */
export function refusalParting(scored: Array<{ text: string; logprob: number }>): string {
  const choice = scored.reduce((at, t, i) => (t.logprob < scored[at]!.logprob ? i : at), 0);
  const before = scored
    .slice(0, choice)
    .map((t) => t.text)
    .join("");
  const token = scored[choice]!.text;
  return (before + token.slice(0, token.length - token.trimStart().length + 1)).trimStart();
}

/**
 * The refusal's way for an in-process model (one that scores continuations): its probability of writing `refusal` word
 * for word after these messages (opening with a space or not: both count), and where a citing answer parts from it
 * (refusalParting). generate.answer refuses when the probability is at least its noAnswerAt.
 */
export async function refusalOrCite(chat: ChatModel, messages: ChatMessage[], refusal: string): Promise<{ probability: number; avoid: string; promptTokens: number }> {
  if (!chat.continuations) throw new Error(`${chat.id} does not score continuations (a server's model): it cannot refuse at a threshold`);
  const { scored, promptTokens } = await chat.continuations(messages, [` ${refusal}`, refusal]);
  const probability = scored.reduce((sum, tokens) => sum + Math.exp(tokens.reduce((a, t) => a + t.logprob, 0)), 0);
  return { probability, avoid: refusalParting(scored[0]!), promptTokens };
}
