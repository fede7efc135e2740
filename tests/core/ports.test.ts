import { describe, expect, it } from "vitest";
import { Answer, canConnect, docIdOf, NodeRegistry, Passage, parsePassageId, passageId, schemaFor, defineNode, Verdict } from "@citeflow/core";
import { z } from "zod";
import { testRegistry } from "../helpers.js";

describe("port compatibility", () => {
  it.each([
    ["Passage[]", "Passage[]", true],
    ["Passage", "Passage[]", false],
    ["Passage[]", "Passage", false],
    ["Question", "Query", false],
    ["Text", "Any", true],
    ["Passage[]", "Any", true],
    ["Any", "Number", true],
    ["Passage[]", "T[]", true],
    ["Passage", "T[]", false],
    ["T[]", "Claim[]", true],
    ["T[]", "Claim", false],
  ])("%s → %s: %s", (src, dst, ok) => {
    expect(canConnect(src, dst).ok).toBe(ok);
  });

  it("binds a type variable and then holds it", () => {
    const first = canConnect("Passage[]", "T[]");
    expect(first).toEqual({ ok: true, bind: ["T", "Passage"] });
    const second = canConnect("Claim[]", "T[]", { T: "Passage" });
    expect(second).toMatchObject({ ok: false, reason: "Claim[] cannot flow into Passage[]" });
  });

  it("names unknown types", () => {
    expect(canConnect("Passages", "Passage[]")).toEqual({ ok: false, reason: 'unknown value type "Passages"' });
  });
});

describe("value types", () => {
  it("passage ids are docId#chunk", () => {
    expect(passageId(4983, 2)).toBe("4983#2");
    expect(parsePassageId("arxiv:2401.1#3")).toEqual({ docId: "arxiv:2401.1", chunk: 3 });
    expect(() => parsePassageId("4983")).toThrow(/not a passage id/);
    // One rule for the document a passage id names (the exports, synth, gold answers and retrieval eval use it).
    expect(docIdOf("arxiv:2401.1#3")).toBe("arxiv:2401.1");
    expect(docIdOf("a#b#12")).toBe("a#b");
    expect(docIdOf("4983")).toBe("4983");
    expect(docIdOf("doc#intro")).toBe("doc#intro");
    expect(Passage.safeParse({ id: "4983", title: "", text: "", metadata: {}, scores: {} }).success).toBe(false);
  });

  it("a passage keeps every score and extra metadata", () => {
    const p = Passage.parse({ id: "1#0", title: "T", text: "x", metadata: { year: 2020, citationCount: 3, venue: "Nature" }, scores: { bm25: 12.1, dense: 0.8 } });
    expect(p.scores).toEqual({ bm25: 12.1, dense: 0.8 });
    expect(p.metadata.venue).toBe("Nature");
  });

  it("answers default to no invalid citations; verdict labels are closed", () => {
    expect(Answer.parse({ text: "x [1]", citations: { "1": "1#0" }, allowed: ["1#0"] }).invalidCitations).toEqual([]);
    expect(Verdict.safeParse({ claimId: "c", label: "MAYBE", probabilities: {} }).success).toBe(false);
    expect(Verdict.safeParse({ claimId: "c", label: "NO_REFERENCE", probabilities: {} }).success).toBe(true);
  });

  it("schemaFor builds list schemas and leaves variables open", () => {
    expect(schemaFor("Number[]")!.safeParse([1, 2]).success).toBe(true);
    expect(schemaFor("Number[]")!.safeParse([1, "2"]).success).toBe(false);
    expect(schemaFor("T[]")).toBeUndefined();
  });
});

describe("node contract and catalogue", () => {
  const ok = { version: 1, title: "t", family: "f", description: "d", inputs: {}, outputs: { out: { type: "Number" } }, params: z.object({}), run: async () => ({ out: 1 }) };

  it("checks declarations at definition time", () => {
    expect(() => defineNode({ ...ok, type: "Bad Type" })).toThrow(/dotted lower-case/);
    expect(() => defineNode({ ...ok, type: "a.b", version: 0 })).toThrow(/version/);
    expect(() => defineNode({ ...ok, type: "a.b", outputs: { out: { type: "Nonsense" } } })).toThrow(/unknown type "Nonsense"/);
    expect(() => defineNode({ ...ok, type: "a.b", outputs: { out: { type: "Number", many: true } } })).toThrow(/inputs only/);
    expect(() => new NodeRegistry([defineNode({ ...ok, type: "a.b" }), defineNode({ ...ok, type: "a.b" })])).toThrow(/registered twice/);
  });

  it("emits the catalogue as JSON with param JSON Schemas and docs", () => {
    const cat = testRegistry().catalogue();
    const parsed = JSON.parse(JSON.stringify(cat));
    expect(parsed).toEqual(cat);
    const select = cat.nodes.find((n) => n.type === "list.select")!;
    expect(select.inputs.items!.type).toBe("T[]");
    const props = select.params.properties as Record<string, { description?: string; default?: unknown }>;
    expect(props.order!.default).toBe("desc");
    expect(props.sortBy!.description).toMatch(/Dotted path/);
    expect(cat.nodes.find((n) => n.type === "input.question")!.readsGraphInput).toBe(true);
    expect(Object.keys(cat.valueTypes)).toEqual(expect.arrayContaining(["Question", "Passage", "Answer", "Verdict", "DatasetRow"]));
  });
});
