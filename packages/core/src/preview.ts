import type { Passage } from "./values.js";

/**
 * How much of a passage's text a view shows: the inspectors draw no more, and display payloads
 * (notebook outputs) carry no more, so a 1,000-passage output stays small. Stored values, runs
 * and exports keep the whole text.
 */
export const PREVIEW_CHARS = 400;

/** The text as a view shows it: whole when short, else its first PREVIEW_CHARS characters and "…". */
export function previewText(text: string): string {
  return text.length > PREVIEW_CHARS ? text.slice(0, PREVIEW_CHARS) + "…" : text;
}

/** The passage with its text as a view shows it (the same object when nothing is cut). */
export function previewPassage(p: Passage): Passage {
  const text = previewText(p.text);
  return text === p.text ? p : { ...p, text };
}
