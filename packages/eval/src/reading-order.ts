/** Words for comparing texts: lower case, letters and digits only, split where a word ends. */
export function comparableWords(text: string): string[] {
  return text
    .toLowerCase()
    .normalize("NFKC")
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

export interface ReadingOrderScore {
  /** Words of the source. */
  words: number;
  /** Source words found in the extracted text in the source's order (longest common subsequence). */
  inOrder: number;
  /** Source words missing or out of order: `words - inOrder`. */
  errors: number;
  /** Extracted words that are not in that common sequence (running heads, split or merged words, …). */
  extra: number;
}

/**
 * How well an extractor kept a text's reading order: the longest common subsequence of the
 * source's words and the extracted words. A column read in the wrong place, a lost line, a word
 * split by a hyphen left in ("inves tigation") or two words merged each cost errors.
 * O(n·m) time in 2 rows of memory; meant for papers (thousands of words), not books.
 */
export function readingOrder(source: string, extracted: string): ReadingOrderScore {
  const a = comparableWords(source);
  const b = comparableWords(extracted);
  let prev = new Uint32Array(b.length + 1);
  let row = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) row[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, row[j - 1]!);
    [prev, row] = [row, prev];
  }
  const inOrder = prev[b.length]!;
  return { words: a.length, inOrder, errors: a.length - inOrder, extra: b.length - inOrder };
}
