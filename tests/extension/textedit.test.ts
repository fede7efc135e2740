/** The editor writes each edit to the shared document model as the smallest replacement. */
import { describe, expect, it } from "vitest";
import { changedSpan } from "../../extension/lib/textedit.js";
import { moveNode, saveGraph } from "../../extension/lib/model.js";

const apply = (old: string, s: { start: number; end: number; text: string }) => old.slice(0, s.start) + s.text + old.slice(s.end);

describe("changedSpan", () => {
  it("is undefined for equal texts and keeps the common prefix and suffix", () => {
    expect(changedSpan("abc", "abc")).toBeUndefined();
    expect(changedSpan("x: 120, y: 40", "x: 135, y: 40")).toEqual({ start: 4, end: 6, text: "35" });
    expect(changedSpan("abc", "")).toEqual({ start: 0, end: 3, text: "" });
    expect(changedSpan("", "abc")).toEqual({ start: 0, end: 0, text: "abc" });
    // Repeated characters: the prefix and suffix never overlap.
    expect(changedSpan("aaa", "aaaa")).toEqual({ start: 3, end: 3, text: "a" });
    expect(changedSpan("aaaa", "aa")).toEqual({ start: 2, end: 4, text: "" });
  });

  it("never splits a surrogate pair", () => {
    // 😀 is \ud83d\ude00 and 😁 is \ud83d\ude01: they share the high surrogate.
    const s = changedSpan("a😀b", "a😁b")!;
    expect(s).toEqual({ start: 1, end: 3, text: "😁" });
    // Pairs that share their low surrogate:
    const t = changedSpan("x\ud83d\ude00", "x\ud83e\ude00")!;
    expect(t).toEqual({ start: 1, end: 3, text: "\ud83e\ude00" });
  });

  it("turns any text into any other (random edits)", () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const alphabet = ["a", "b", " ", "\n", "😀", "é"];
    const text = (n: number) => Array.from({ length: n }, () => alphabet[rand(alphabet.length)]).join("");
    for (let i = 0; i < 2000; i++) {
      const old = text(rand(12));
      const next = text(rand(12));
      const s = changedSpan(old, next);
      if (old === next) expect(s).toBeUndefined();
      else {
        expect(apply(old, s!)).toBe(next);
        expect(s!.start).toBeLessThanOrEqual(s!.end);
        // Both kept parts are whole characters.
        expect(old.slice(0, s!.start)).not.toMatch(/[\ud800-\udbff]$/);
        expect(old.slice(s!.end)).not.toMatch(/^[\udc00-\udfff]/);
      }
    }
  });

  it("moving a node in a 100-node file replaces a few characters, not the file", () => {
    const nodes = Array.from({ length: 100 }, (_, i) => ({ id: `n${i}`, type: "list.select", version: 1, params: {}, ui: { x: i * 10, y: 0 } }));
    const doc = { citeflow: 1 as const, name: "g", inputs: {}, nodes, edges: [] };
    const old = saveGraph(doc);
    const next = saveGraph(moveNode(doc, "n50", { x: 777, y: 33 }));
    const s = changedSpan(old, next)!;
    expect(apply(old, s)).toBe(next);
    // From the x to the y value: two short lines of the 100-node file.
    expect(s.end - s.start + s.text.length).toBeLessThan(60);
    expect(old.length).toBeGreaterThan(5000);
  });
});
