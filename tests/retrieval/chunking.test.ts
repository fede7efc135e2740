import { describe, expect, it } from "vitest";
import { pageAt, type Passage } from "@citeflow/core";
import { indexText, joinPapers, openScholarChunker, splitSentences, verifaiChunker, type CorpusDocument } from "@citeflow/retrieval";

const doc = (text: string, sentences?: string[]): CorpusDocument => ({ docId: "42", title: "A Title", text, metadata: { source: "t" }, ...(sentences ? { sentences } : {}) });
const words = (n: number, prefix = "w") => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(" ");

describe("sentence splitting", () => {
  it("splits at sentence ends but not after abbreviations, initials or decimals", () => {
    expect(splitSentences("Smith et al. found 3.5 mg/L. Fig. 2 shows it, e.g. in mice. Results (n = 4) held! Did they? Yes.")).toEqual([
      "Smith et al. found 3.5 mg/L.",
      "Fig. 2 shows it, e.g. in mice.",
      "Results (n = 4) held!",
      "Did they?",
      "Yes.",
    ]);
    expect(splitSentences("J. K. Rowling wrote it. Then more.")).toEqual(["J. K. Rowling wrote it.", "Then more."]);
  });
});

describe("OpenScholar chunker", () => {
  it("cuts 256-word windows with stable ids and the title on each", () => {
    const ps = openScholarChunker()(doc(words(600)));
    expect(ps.map((p) => p.id)).toEqual(["42#0", "42#1", "42#2"]);
    expect(ps.map((p) => p.text.split(" ").length)).toEqual([256, 256, 88]);
    expect(ps.every((p) => p.title === "A Title")).toBe(true);
    expect(indexText(ps[0]!).startsWith("A Title\nw0 w1")).toBe(true);
    expect(openScholarChunker()(doc(words(600)))).toEqual(ps);
  });
});

describe("Verif.ai chunker", () => {
  it("keeps title + abstract whole when it fits", () => {
    const ps = verifaiChunker()(doc("Short abstract. Two sentences."));
    expect(ps).toEqual([expect.objectContaining({ id: "42#0", text: "Short abstract. Two sentences." })]);
  });

  it("packs whole sentences into windows with overlap when it does not", () => {
    const sentences = Array.from({ length: 6 }, (_, i) => words(10, `s${i}_`) + ".");
    const ps = verifaiChunker({ maxTokens: 32, overlapSentences: 1 })(doc(sentences.join(" "), sentences));
    // Budget 32 − 2 title words = 30: three 10-word sentences a window, one repeated.
    expect(ps.map((p) => p.text.split(" ").length)).toEqual([30, 30, 20]);
    expect(ps[1]!.text.startsWith("s2_0")).toBe(true);
    expect(ps[2]!.text.startsWith("s4_0")).toBe(true);
    expect(ps.map((p) => p.id)).toEqual(["42#0", "42#1", "42#2"]);
  });

  it("a sentence longer than the budget becomes its own window", () => {
    const sentences = [words(50, "long") + ".", "Short one."];
    const ps = verifaiChunker({ maxTokens: 20, overlapSentences: 0 })(doc(sentences.join(" "), sentences));
    expect(ps.map((p) => p.text.split(" ").length)).toEqual([50, 2]);
  });
});

describe("one passage per paper (filter.join-paper)", () => {
  const ranked = (ps: Passage[], order: number[]) => order.map((i, rank) => ({ ...ps[i]!, scores: { fused: 1 - rank / 10 } }));
  const other: Passage = { id: "7#0", title: "Other", text: "Another paper.", metadata: {}, scores: { fused: 0.95 } };

  it("joins a paper's windows in its own order, where its best one ranked, with that one's scores", () => {
    const ps = openScholarChunker()(doc(words(600)));
    const out = joinPapers([...ranked(ps, [2]), other, ...ranked(ps, [0, 1])]);
    expect(out.map((p) => p.id)).toEqual(["42#0", "7#0"]);
    expect(out[0]!.text).toBe(words(600));
    expect(out[0]!.scores).toEqual({ fused: 1 });
    expect(out[0]!.metadata).toMatchObject({ chunks: [0, 1, 2], start: 0, end: doc(words(600)).text.length, source: "t" });
    expect(out[1]).toBe(other);
  });

  it("text a window repeats from the one before appears once; a window not given is marked", () => {
    const sentences = Array.from({ length: 6 }, (_, i) => words(10, `s${i}_`) + ".");
    const ps = verifaiChunker({ maxTokens: 32, overlapSentences: 1 })(doc(sentences.join(" "), sentences));
    expect(joinPapers(ranked(ps, [1, 2, 0]))[0]!.text).toBe(sentences.join(" "));
    const gapped = joinPapers(ranked(ps, [2, 0]))[0]!;
    expect(gapped.text).toBe(`${sentences.slice(0, 3).join(" ")} … ${sentences.slice(4).join(" ")}`);
    expect(gapped.metadata.chunks).toEqual([0, 2]);
  });

  it("windows that share letters but repeat no word join with a space: 'This' + 'study' stays 'This study'", () => {
    // OpenScholar's windows do not overlap. The first window ends on "This" and the next starts with "study";
    // read as a one-letter repeat ("s"), they joined as "Thistudy" (SciFact 13734012, in the demo).
    for (const [end, start] of [
      ["This", "study"],
      ["the", "effect"],
      ["w1", "w1"],
    ]) {
      const text = `${words(255)} ${end} ${start} corroborates it.`;
      const ps = openScholarChunker()(doc(text));
      expect(ps.map((p) => p.text.split(" ").at(-1))).toEqual([end, "it."]);
      expect(joinPapers(ranked(ps, [0, 1]))[0]!.text).toBe(text);
    }
    // Without offsets (a store written by another tool), only a whole-word repeat is taken for one.
    const bare = (p: Passage): Passage => ({ ...p, metadata: { source: "t" } });
    const ps = openScholarChunker()(doc(`${words(255)} This study corroborates it.`));
    expect(joinPapers(ranked(ps, [0, 1]).map(bare))[0]!.text).toBe(`${words(255)} This study corroborates it.`);
  });

  it("a PDF's pages stay where they were in the joined text", () => {
    const text = words(600);
    const pages = [
      { page: 1, start: 0 },
      { page: 2, start: text.indexOf("w300 ") },
      { page: 3, start: text.indexOf("w550 ") },
    ];
    const ps = openScholarChunker()({ ...doc(text), pages });
    const joined = joinPapers(ranked(ps, [1, 0, 2]))[0]!;
    for (const [word, page] of [
      ["w10 ", 1],
      ["w299 ", 1],
      ["w300 ", 2],
      ["w512 ", 2],
      ["w551 ", 3],
    ] as const)
      expect(pageAt(joined, joined.text.indexOf(word))).toBe(page);
  });
});
