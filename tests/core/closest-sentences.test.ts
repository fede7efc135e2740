import { describe, expect, it } from "vitest";
import { closestSentences } from "@citeflow/core";

describe("closestSentences", () => {
  const text = "Mice were fed a high-fat diet. Vitamin D lowered fracture risk in mice. Bones were scanned weekly. Fracture risk rose without vitamin D supplements. The study ran for a year.";

  it("keeps the n sentences most like the query, in the text's order, marking a gap", () => {
    expect(closestSentences(text, "vitamin D fracture risk", 2)).toBe("Vitamin D lowered fracture risk in mice. … Fracture risk rose without vitamin D supplements.");
    expect(closestSentences(text, "vitamin D fracture risk", 1)).toBe("Vitamin D lowered fracture risk in mice.");
  });

  it("joins adjacent sentences as they stand", () => {
    expect(closestSentences(text, "high-fat diet vitamin lowered", 2)).toBe("Mice were fed a high-fat diet. Vitamin D lowered fracture risk in mice.");
  });

  it("gives the whole text when it has n sentences or fewer; ties go to the earlier sentence", () => {
    expect(closestSentences("One. Two.", "x", 2)).toBe("One. Two.");
    expect(closestSentences(text, "nothing shared", 1)).toBe("Mice were fed a high-fat diet.");
  });
});
