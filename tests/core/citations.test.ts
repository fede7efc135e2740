import { describe, expect, it } from "vitest";
import { citationGroups, findCitations, toAnswer } from "@citeflow/core";

const passages = ["10#0", "20#0", "30#1", "pubmed:12345#0", "arxiv:2401.01234v2#0"].map((id) => ({ id }));
const marks = (text: string, base: 0 | 1 = 1) => findCitations(text, passages, { base }).map((c) => [c.marker, c.passageId ?? null]);

describe("citation parser", () => {
  it.each([
    ["Aspirin helps [1].", [["1", "10#0"]]],
    [
      "Both [1][2].",
      [
        ["1", "10#0"],
        ["2", "20#0"],
      ],
    ],
    [
      "Listed [1, 3].",
      [
        ["1", "10#0"],
        ["3", "30#1"],
      ],
    ],
    [
      "Ranged [1-3].",
      [
        ["1", "10#0"],
        ["2", "20#0"],
        ["3", "30#1"],
      ],
    ],
    [
      "En dash [2–3].",
      [
        ["2", "20#0"],
        ["3", "30#1"],
      ],
    ],
    [
      "Mixed [1, 2-3].",
      [
        ["1", "10#0"],
        ["2", "20#0"],
        ["3", "30#1"],
      ],
    ],
    ["Out of range [9].", [["9", null]]],
    ["No citations here.", []],
    ["Not a citation: [a] or [1a] or (1).", []],
  ] as const)("1-based: %s", (text, expected) => {
    expect(marks(text)).toEqual(expected);
  });

  it("0-based, as OpenScholar numbers passages", () => {
    expect(marks("First [0], second [1].", 0)).toEqual([
      ["0", "10#0"],
      ["1", "20#0"],
    ]);
    expect(marks("Too far [5].", 0)).toEqual([["5", null]]);
  });

  it.each([
    ["Shown [PUBMED:12345].", [["PUBMED:12345", "pubmed:12345#0"]]],
    ["Shown (PUBMED:12345).", [["PUBMED:12345", "pubmed:12345#0"]]],
    ["Shown (PMID: 12345).", [["PMID:12345", "pubmed:12345#0"]]],
    [
      "Two (PUBMED:12345, PUBMED:999).",
      [
        ["PUBMED:12345", "pubmed:12345#0"],
        ["PUBMED:999", null],
      ],
    ],
    ["By doc id [PUBMED:20].", [["PUBMED:20", "20#0"]]],
    ["arXiv [ARXIV:2401.01234v2].", [["ARXIV:2401.01234v2", "arxiv:2401.01234v2#0"]]],
  ] as const)("document ids: %s", (text, expected) => {
    expect(marks(text)).toEqual(expected);
  });

  it("keeps text order across conventions", () => {
    expect(marks("A (PUBMED:12345) then [2].").map(([m]) => m)).toEqual(["PUBMED:12345", "2"]);
  });

  it("a reversed or huge range keeps its ends, not thousands of markers", () => {
    expect(marks("[3-1]").map(([m]) => m)).toEqual(["3", "1"]);
    expect(marks("[1-9999]").map(([m]) => m)).toEqual(["1", "9999"]);
  });

  it("builds an Answer: citation map, allowed set, invalid citations flagged once", () => {
    const a = toAnswer("X [1][9]. Y [9] (PUBMED:777).", passages);
    expect(a).toEqual({
      text: "X [1][9]. Y [9] (PUBMED:777).",
      citations: { "1": "10#0" },
      allowed: passages.map((p) => p.id),
      invalidCitations: [
        { marker: "9", target: "9" },
        { marker: "PUBMED:777", target: "PUBMED:777" },
      ],
    });
  });

  it("citationGroups: only what the parser reads as citations, each written marker with its span (never the 2 of 2007)", () => {
    const text = "In 2007, n = 205 patients (95% CI) improved [2]; see [1-3] and [PUBMED:123, DOI:10.1/x].";
    const groups = citationGroups(text);
    const written = groups.flatMap((g) => g.written.map((w) => [w.marker, text.slice(w.start, w.end)]));
    expect(written).toEqual([
      ["2", "2"],
      ["1", "1"],
      ["3", "3"],
      ["PUBMED:123", "PUBMED:123"],
      ["DOI:10.1/x", "DOI:10.1/x"],
    ]);
    expect(groups.map((g) => text.slice(g.start, g.end))).toEqual(["[2]", "[1-3]", "[PUBMED:123, DOI:10.1/x]"]);
    // Every marker the parser maps is a written one or inside a written range.
    expect(findCitations(text, passages).map((c) => c.marker)).toEqual(["2", "1", "2", "3", "PUBMED:123", "DOI:10.1/x"]);
  });

  it("a bracketed year or span of years is a date, not a citation: neither linked nor counted as hallucinated; a large marker that is not a year still is", () => {
    const text = "Cohorts from [2010] and [2009, 2010] to [1998–2004] agree [1]; a marker [25] points nowhere, and neither does [12345].";
    expect(citationGroups(text).map((g) => text.slice(g.start, g.end))).toEqual(["[1]", "[25]", "[12345]"]);
    const a = toAnswer(text, passages);
    expect(a.citations).toEqual({ "1": passages[0]!.id });
    expect(a.invalidCitations.map((c) => c.marker)).toEqual(["25", "12345"]);
  });
});
