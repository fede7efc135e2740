/**
 * A PDF's text runs → the document's text in reading order. Pure: pdf.js supplies the runs
 * (`extract.ts`); this decides columns, lines, paragraphs, running heads, hyphenation and where the
 * reference list starts.
 */

/** One text run as pdf.js reports it, in PDF user space (y grows upwards). */
export interface TextRun {
  str: string;
  x: number;
  /** Baseline. */
  y: number;
  width: number;
  /** Font size. */
  size: number;
}

export interface PageRuns {
  /** 1-based. */
  page: number;
  width: number;
  height: number;
  runs: TextRun[];
}

/** A laid-out line: where its text sits in the document's text and on its page. */
export interface PlacedLine {
  page: number;
  start: number;
  end: number;
  /** [x0, y0, x1, y1] in PDF user space. */
  box: [number, number, number, number];
}

export interface LaidOut {
  /** The body: paragraphs joined by "\n", words by one space. Every white-space run is one character. */
  text: string;
  /** Where each page's body text starts in `text`; pages without body text are left out. */
  pages: Array<{ page: number; start: number }>;
  lines: PlacedLine[];
  /** The reference list, one entry each, when a "References" heading was found. */
  references: string[];
  /** Running heads, footers and page numbers left out of the body. */
  furniture: string[];
  /** Line-end hyphens taken out ("inves-" + "tigation") and kept ("arthritis-" + "associated"). */
  hyphens: { joined: number; kept: number };
}

interface Line {
  page: number;
  column: number; // -1 spans the gutter, 0 left, 1 right
  band: number;
  y: number;
  size: number;
  text: string;
  box: [number, number, number, number];
}

const blank = (s: string) => s.trim() === "";

/** Ligatures and full-width forms as letters (NFKC), typographic quotes as ASCII, one space between words. */
const plain = (s: string) =>
  s
    .normalize("NFKC")
    .replace(/[\u2018\u2019\u201B\u2032]/g, "'")
    .replace(/[\u201C\u201D\u201F\u2033]/g, '"')
    .replace(/\s+/g, " ");

/**
 * The x of the gap between two columns, if the page has two: of the points in the middle of the
 * page with a few lines at least on either side (a last page may hold little in one column), the
 * one the fewest runs cross, nearest the centre; none when more than a few runs cross every such point.
 */
function gutter(p: PageRuns): number | undefined {
  const runs = p.runs.filter((r) => !blank(r.str));
  if (runs.length < 8) return undefined;
  const enough = Math.max(3, runs.length * 0.05);
  let best: { x: number; crossing: number } | undefined;
  for (let x = Math.round(p.width * 0.3); x <= p.width * 0.7; x++) {
    let crossing = 0;
    let left = 0;
    let right = 0;
    for (const r of runs) {
      if (r.x + r.width <= x) left++;
      else if (r.x >= x) right++;
      else crossing++;
    }
    if (left < enough || right < enough) continue;
    if (!best || crossing < best.crossing || (crossing === best.crossing && Math.abs(x - p.width / 2) < Math.abs(best.x - p.width / 2))) best = { x, crossing };
  }
  return best && best.crossing <= runs.length * 0.15 ? best.x : undefined;
}

/** Runs → lines in reading order: spanning lines cut the page into bands, each read left column then right. */
function pageLines(p: PageRuns): Line[] {
  const g = gutter(p);
  const columnOf = (r: TextRun) => (g === undefined ? 0 : r.x + r.width <= g + 0.5 ? 0 : r.x >= g - 0.5 ? 1 : -1);
  const groups: Array<{ column: number; y: number; size: number; runs: TextRun[] }> = [];
  for (const r of p.runs) {
    if (r.str === "") continue;
    const column = blank(r.str) ? undefined : columnOf(r);
    // A run joins a line of its column on the same baseline; a blank run joins whichever line it touches.
    const line = groups.find((l) => Math.abs(l.y - r.y) < Math.max(l.size, r.size) * 0.4 && (column === undefined ? l.runs.some((o) => Math.abs(o.x + o.width - r.x) < 1) : l.column === column));
    if (line) line.runs.push(r);
    else if (column !== undefined) groups.push({ column, y: r.y, size: r.size, runs: [r] });
  }
  const spans = groups.filter((l) => l.column === -1).map((l) => l.y);
  const lines: Line[] = groups.map((l) => {
    const runs = l.runs.sort((a, b) => a.x - b.x);
    let text = "";
    let right = -Infinity;
    for (const r of runs) {
      const gap = r.x - right;
      if (text && !text.endsWith(" ") && !r.str.startsWith(" ") && gap > l.size * 0.15) text += " ";
      text += r.str;
      right = Math.max(right, r.x + r.width);
    }
    const solid = runs.filter((r) => !blank(r.str));
    const box: Line["box"] = [Math.min(...solid.map((r) => r.x)), l.y - l.size * 0.25, Math.max(...solid.map((r) => r.x + r.width)), l.y + l.size * 0.85];
    const band = spans.filter((y) => y > l.y + 0.5).length;
    return { page: p.page, column: l.column, band, y: l.y, size: l.size, text: plain(text).replace(/\s+/g, " ").trim(), box };
  });
  // Order: bands top to bottom; in a band, the spanning line first, then the left column, then the right.
  return lines.filter((l) => l.text !== "").sort((a, b) => a.band - b.band || a.column - b.column || b.y - a.y || a.box[0] - b.box[0]);
}

/** A running head without its page number: "Citeflow test corpus 5" and "2 Citeflow test corpus" are the same head. */
const shape = (s: string) => s.toLowerCase().replace(/\d+/g, " ").replace(/\s+/g, " ").trim();
const PAGE_NUMBER = /^(page\s*)?(\d+|[ivxlc]+)(\s*(of|\/)\s*\d+)?$/i;

/** Lines in the top or bottom fifth that are page numbers or recur on other pages: running heads and footers. */
function furnitureOf(pages: PageRuns[], lines: Line[]): Set<Line> {
  const height = new Map(pages.map((p) => [p.page, p.height]));
  const edge = (l: Line) => l.y > height.get(l.page)! * 0.8 || l.y < height.get(l.page)! * 0.2;
  const pagesWith = new Map<string, Set<number>>();
  for (const l of lines) if (edge(l)) (pagesWith.get(shape(l.text)) ?? pagesWith.set(shape(l.text), new Set()).get(shape(l.text))!).add(l.page);
  return new Set(lines.filter((l) => edge(l) && (PAGE_NUMBER.test(l.text) || (pages.length > 1 && shape(l.text) !== "" && pagesWith.get(shape(l.text))!.size >= 2))));
}

const REFERENCES = /^(\d+\.?\s*)?(references|bibliography|literature cited|works cited|references and notes)$/i;
const ENTRY = /^(\[\d+\]|\d+\.\s)/;

/**
 * Whether a line-end hyphen ("inves-" + "tigation") is part of the word: TeX and word processors
 * break words at hyphens they add, and can break a compound only at its own hyphen. The text
 * itself decides: the joined word or the hyphenated one written elsewhere in it; numbers and
 * acronyms keep theirs ("14.7-kilodalton", "PEC-to"), and so do parts too short for TeX to split
 * off; a known first part of other compounds ("self-" of "self-priming") or two words of the text
 * keep it ("arthritis-associated", "low-density"); anything else was a hyphen the typesetter added
 * ("under-" + "lie", "sub-" + "strate").
 */
function keepHyphen(left: string, right: string, words: Vocabulary): boolean | undefined {
  const written = /([A-Za-z0-9.]+)-$/.exec(left.slice(-64))?.[1];
  const b = /^([a-z]+)/.exec(right)?.[1];
  if (!written || !b) return undefined;
  if (/\d$/.test(written) || /[A-Z]{2}$/.test(written)) return true;
  const a = /[a-z]+$/.exec(written.toLowerCase())?.[0] ?? "";
  if (words.all.has(a + b)) return false;
  if (words.all.has(`${a}-${b}`)) return true;
  // TeX leaves at least 2 letters before a hyphen it adds and 3 after ("E-" + "cadherin", "loss-" + "of" are the writer's).
  if (a.length < 2 || b.length < 3) return true;
  return (a.length >= 4 && words.prefixes.has(a)) || (a.length >= 3 && b.length >= 4 && words.all.has(a) && words.all.has(b));
}

interface Vocabulary {
  all: Set<string>;
  /** First parts of the text's hyphenated words ("self" of "self-priming"). */
  prefixes: Set<string>;
}

/** The words inside lines (a line's last word may be a fragment, "inves-", and is left out). */
function vocabularyOf(lines: Line[]): Vocabulary {
  const all = new Set<string>();
  const prefixes = new Set<string>();
  for (const l of lines) {
    const words = l.text.toLowerCase().split(" ");
    if (words.at(-1)!.endsWith("-")) words.pop();
    for (const w of words) {
      const word = w.replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
      if (!word) continue;
      all.add(word);
      const dash = word.indexOf("-");
      if (dash > 0) prefixes.add(word.slice(0, dash));
    }
  }
  return { all, prefixes };
}

/** Every page's runs → the document's body in reading order, its pages, its reference list and what was left out. */
export function layOut(pages: PageRuns[]): LaidOut {
  const all = pages.flatMap(pageLines);
  const furniture = furnitureOf(pages, all);
  const body = all.filter((l) => !furniture.has(l));
  const vocabulary = vocabularyOf(body);
  const bodySize = median(body.map((l) => l.size)) ?? 10;
  const refStart = body.findIndex((l) => REFERENCES.test(l.text));
  const main = refStart >= 0 ? body.slice(0, refStart) : body;
  const references: string[] = [];
  if (refStart >= 0)
    for (const l of body.slice(refStart + 1)) {
      if (ENTRY.test(l.text) || references.length === 0) references.push(l.text);
      else references[references.length - 1] = joinLines(references.at(-1)!, l.text, vocabulary).text;
    }

  const out: LaidOut = { text: "", pages: [], lines: [], references, furniture: [...furniture].map((l) => l.text), hyphens: { joined: 0, kept: 0 } };
  let prev: Line | undefined;
  for (const l of main) {
    const heading = l.size > bodySize * 1.15;
    // Lines across the gutter each open a band of their own; two in a row are still one flow.
    const sameFlow = prev && prev.page === l.page && prev.column === l.column && (l.column === -1 || prev.band === l.band);
    const gap = sameFlow ? prev!.y - l.y : 0;
    // A heading's lines stay together; a heading ends at the body text after it.
    const headingGoesOn = !!prev && heading && sameFlow && Math.abs(prev.size - l.size) < l.size * 0.05 && gap < l.size * 1.6;
    const newParagraph =
      !!prev && !headingGoesOn && (heading || prev.size > bodySize * 1.15 || (sameFlow && gap > Math.max(prev.size, l.size) * 1.6) || (/[.!?:]$/.test(prev.text) && startsIndented(prev, l)));
    if (!prev) out.text = l.text;
    else if (newParagraph) out.text += `\n${l.text}`;
    else {
      const joined = joinLines(out.text, l.text, vocabulary);
      if (joined.hyphen) joined.kept ? out.hyphens.kept++ : out.hyphens.joined++;
      out.text = joined.text;
    }
    const start = out.text.length - l.text.length;
    out.lines.push({ page: l.page, start, end: out.text.length, box: l.box });
    if (out.pages.at(-1)?.page !== l.page) out.pages.push({ page: l.page, start });
    prev = l;
  }
  return out;
}

/** A line whose first run starts right of the previous line's start: an indented first line. */
function startsIndented(prev: Line, l: Line): boolean {
  return prev.column === l.column && l.box[0] > prev.box[0] + l.size * 0.8;
}

/** `before` + the next line: hyphen repaired, else one space. The new line's text ends the result. */
function joinLines(before: string, line: string, vocabulary: Vocabulary): { text: string; hyphen: boolean; kept: boolean } {
  const kept = keepHyphen(before, line, vocabulary);
  if (kept !== undefined) return { text: kept ? `${before}${line}` : `${before.slice(0, -1)}${line}`, hyphen: true, kept };
  return { text: `${before} ${line}`, hyphen: false, kept: false };
}

function median(xs: number[]): number | undefined {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
