import { describe, expect, it } from "vitest";
import { layOut, type PageRuns } from "@citeflow/retrieval";

/** A page of lines as a typesetter places them: 10 pt text, 12 pt apart; `x` per line for columns. */
function page(n: number, lines: Array<string | [string, number, number]>, width = 600, height = 800): PageRuns {
  return {
    page: n,
    width,
    height,
    runs: lines.map((l, i) => {
      const [str, x, y] = typeof l === "string" ? [l, 72, 700 - i * 12] : l;
      return { str, x, y, width: str.length * 5, size: 10 };
    }),
  };
}

describe("PDF layout", () => {
  it("repairs line-end hyphens the typesetter added and keeps the writer's", () => {
    const t = layOut([
      page(1, [
        "Arthritis is common and tests were",
        "inves-",
        "tigated further in the arthritis-",
        "associated genes, the loss-",
        "of function and E-",
        "cadherin levels with a self-priming",
        "step and self-",
        "primed RNA under-",
        "lie all 14.7-",
        "kilodalton forms.",
      ]),
    ]);
    expect(t.text).toBe(
      "Arthritis is common and tests were investigated further in the arthritis-associated genes, the loss-of function and E-cadherin levels with a self-priming step and self-primed RNA underlie all 14.7-kilodalton forms.",
    );
    expect(t.hyphens).toEqual({ joined: 2, kept: 5 });
  });

  it("reads two columns left then right, below a title across both, without running heads or page numbers", () => {
    const left = (s: string, i: number): [string, number, number] => [s, 72, 600 - i * 12];
    const right = (s: string, i: number): [string, number, number] => [s, 320, 600 - i * 12];
    const body = (n: number) => [
      ["Journal of Examples", 72, 760] as [string, number, number],
      [String(n), 500, 760] as [string, number, number],
      ...(n === 1 ? [["A title that runs across both columns of the page", 150, 680] as [string, number, number]] : []),
      ...["first left line", "second left line", "third left line", "fourth left line"].map((s, i) => left(`${s} p${n}`, i)),
      ...["first right line", "second right line", "third right line", "fourth right line"].map((s, i) => right(`${s} p${n}`, i)),
    ];
    const t = layOut([page(1, body(1)), page(2, body(2))]);
    expect(t.furniture).toEqual(["Journal of Examples", "1", "Journal of Examples", "2"]);
    const words = t.text.split(/\s+/).join(" ");
    expect(words).toBe(
      "A title that runs across both columns of the page first left line p1 second left line p1 third left line p1 fourth left line p1 first right line p1 second right line p1 third right line p1 fourth right line p1 " +
        "first left line p2 second left line p2 third left line p2 fourth left line p2 first right line p2 second right line p2 third right line p2 fourth right line p2",
    );
    expect(t.pages).toEqual([
      { page: 1, start: 0 },
      { page: 2, start: t.text.indexOf("first left line p2") },
    ]);
  });

  it("puts the reference list apart, one entry each", () => {
    const t = layOut([page(1, ["Body text ends here.", "References", "[1] A. Author. A title of a", "paper. Journal, 2001.", "[2] B. Author. Another. 2002."])]);
    expect(t.text).toBe("Body text ends here.");
    expect(t.references).toEqual(["[1] A. Author. A title of a paper. Journal, 2001.", "[2] B. Author. Another. 2002."]);
  });
});
