/**
 * The smallest replacement that turns one text into another: the common prefix and suffix are
 * kept. The editor writes an edit to the shared document model this way, so moving a node
 * changes two numbers in the file rather than deleting and re-inserting all of it (which the
 * model's undo history would keep, edit after edit).
 */
export interface TextSpan {
  /** First UTF-16 unit replaced. */
  start: number;
  /** One past the last unit replaced, in the old text. */
  end: number;
  /** What replaces [start, end). */
  text: string;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** Undefined when the texts are equal. Never splits a surrogate pair. */
export function changedSpan(old: string, next: string): TextSpan | undefined {
  if (old === next) return undefined;
  const max = Math.min(old.length, next.length);
  let a = 0;
  while (a < max && old.charCodeAt(a) === next.charCodeAt(a)) a++;
  if (a > 0 && isHigh(old.charCodeAt(a - 1))) a--;
  let b = 0;
  while (b < max - a && old.charCodeAt(old.length - 1 - b) === next.charCodeAt(next.length - 1 - b)) b++;
  if (b > 0 && isLow(old.charCodeAt(old.length - b))) b--;
  return { start: a, end: old.length - b, text: next.slice(a, next.length - b) };
}
