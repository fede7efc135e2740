import { parsePassageId, passageId, type Passage } from "@citeflow/core";

/** Marks where passages of a paper that were not given lie between two that were. */
export const GAP = " … ";

/**
 * How many leading characters of `b` are the end of `a`: the sentences a chunker repeats at a
 * window's start. Only whole words count, so that "This" and "study" at two windows' edges stay
 * "This study", not "Thistudy" (the "s" they share is not a repeat). For windows whose offsets
 * show they do not overlap it is not asked at all.
 */
function overlap(a: string, b: string): number {
  const edge = (s: string, i: number) => i < 0 || i >= s.length || /\s/.test(s[i]!);
  for (let k = Math.min(a.length, b.length); k > 0; k--) if (a.endsWith(b.slice(0, k)) && edge(a, a.length - k - 1) && edge(b, k)) return k;
  return 0;
}

/**
 * One passage per paper, made of all of that paper's passages among those given, in the paper's
 * own order (by chunk number), where the paper first appears (its best passage, when they come
 * ranked). Verif.ai answers from whole abstracts; a store chunked in windows hands it pieces of
 * one, and the piece with the evidence is not always the one that ranked first.
 *
 * The joined passage keeps its first chunk's id (`doc#lowest`), the scores of the paper's first
 * passage given, and its metadata with `chunks` (the chunk numbers joined), `start`/`end` over
 * all of them and, for PDFs, `pageStarts` at their places in the joined text. Text a window
 * repeats from the one before appears once; chunks that were not given are marked by `GAP`.
 */
export function joinPapers(passages: Passage[]): Passage[] {
  const byPaper = new Map<string, Passage[]>();
  for (const p of passages) {
    const doc = parsePassageId(p.id).docId;
    const list = byPaper.get(doc);
    if (list) list.push(p);
    else byPaper.set(doc, [p]);
  }
  return [...byPaper.entries()].map(([doc, given]) => (given.length === 1 ? given[0]! : joinOne(doc, given)));
}

function joinOne(doc: string, given: Passage[]): Passage {
  const first = given[0]!;
  const seen = new Set<number>();
  const parts = given
    .map((p) => ({ p, chunk: parsePassageId(p.id).chunk }))
    .filter(({ chunk }) => (seen.has(chunk) ? false : (seen.add(chunk), true)))
    .sort((a, b) => a.chunk - b.chunk);
  let text = "";
  const pageStarts: Array<[number, number]> = [];
  let lastPage: number | undefined;
  let prev: (typeof parts)[number] | undefined;
  for (const part of parts) {
    const m = part.p.metadata;
    const adjacent = prev !== undefined && part.chunk === prev.chunk + 1;
    // Where both windows say where they lie in the paper, one that starts after the other ends repeats nothing.
    const apart = prev?.p.metadata.end !== undefined && m.start !== undefined && m.start >= prev.p.metadata.end;
    const skip = adjacent && !apart ? overlap(text, part.p.text) : 0;
    const sep = prev === undefined ? "" : adjacent ? (skip > 0 ? "" : " ") : GAP;
    const at = text.length + sep.length;
    text += sep + part.p.text.slice(skip);
    // Pages: where this part's own pages start, moved to its place in the joined text.
    const own: Array<[number, number]> = [...(m.page !== undefined ? [[0, m.page] as [number, number]] : []), ...(m.pageStarts ?? [])];
    for (const [o, page] of own) {
      const where = Math.max(0, o - skip);
      if (page !== lastPage) pageStarts.push([at + where, page]);
      lastPage = page;
    }
    prev = part;
  }
  const starts = parts.map(({ p }) => p.metadata.start).filter((x): x is number => x !== undefined);
  const ends = parts.map(({ p }) => p.metadata.end).filter((x): x is number => x !== undefined);
  const { pageStarts: _ps, page: _pg, ...meta } = first.metadata;
  return {
    id: passageId(doc, parts[0]!.chunk),
    title: first.title,
    text,
    metadata: {
      ...meta,
      chunks: parts.map(({ chunk }) => chunk),
      ...(starts.length === parts.length ? { start: Math.min(...starts) } : {}),
      ...(ends.length === parts.length ? { end: Math.max(...ends) } : {}),
      ...(pageStarts.length > 0 ? { page: pageStarts[0]![1], ...(pageStarts.length > 1 ? { pageStarts } : {}) } : {}),
    },
    scores: first.scores,
  };
}
