import type { Passage } from "./values.js";

/**
 * How much of a passage's text a view shows: the inspectors draw no more, and display payloads
 * (notebook outputs) carry no more, so a 1,000-passage output stays small. Stored values, runs
 * and exports keep the whole text.
 */
export const PREVIEW_CHARS = 400;

/**
 * Text shortened to at most `max` characters with "…" — never inside a word: it ends at the last
 * whitespace that fits, and a first word longer than `max` is left out whole. So a credential in
 * the text is either kept whole, where redaction (by shape or by value) finds it, or not at all:
 * shortening never leaves a prefix that no longer looks like a secret.
 */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, Math.max(0, max - 1));
  // The character after the head starts a new word, or the head ends inside one: back to the whitespace before it.
  const end = /\s/.test(text[head.length] ?? " ") ? head.length : head.search(/\s\S*$/);
  return `${end <= 0 ? "" : head.slice(0, end).trimEnd()}…`;
}

/** The text as a view shows it: whole when short, else its first PREVIEW_CHARS characters or fewer (a word is not cut) and "…". */
export function previewText(text: string): string {
  return shorten(text, PREVIEW_CHARS + 1);
}

/** The passage with its text as a view shows it (the same object when nothing is cut). */
export function previewPassage(p: Passage): Passage {
  const text = previewText(p.text);
  return text === p.text ? p : { ...p, text };
}
