import { describe, expect, it } from "vitest";
import { canonicalJson } from "@citeflow/core";

describe("canonicalJson", () => {
  it("sorts keys at every depth and drops undefined members, so equal values give one string", () => {
    const a = canonicalJson({ b: [1, { z: "x", a: undefined, m: null }], a: true });
    expect(a).toBe('{"a":true,"b":[1,{"m":null,"z":"x"}]}');
    expect(canonicalJson({ a: true, b: [1, { m: null, z: "x" }] })).toBe(a);
    expect(canonicalJson([undefined, "q"])).toBe('[null,"q"]');
  });

  it("refuses a value JSON cannot hold, naming where it is", () => {
    expect(() =>
      canonicalJson({
        passages: [
          { id: "p1", scores: { bm25: 1 } },
          { id: "p2", scores: { bm25: Number.NaN } },
        ],
      }),
    ).toThrow("cannot hash NaN at $.passages[1].scores.bm25: only finite numbers are JSON");
    expect(() => canonicalJson({ a: 1, b: { f: () => 1 } })).toThrow("cannot hash a function at $.b.f: values must be plain JSON");
    expect(() => canonicalJson([1, Infinity])).toThrow("cannot hash Infinity at $[1]");
    const loop: Record<string, unknown> = { a: { b: 1 } };
    (loop.a as Record<string, unknown>).self = loop;
    expect(() => canonicalJson(loop)).toThrow("cannot hash the value at $.a.self: it contains itself");
    expect(() => canonicalJson(undefined)).toThrow("cannot hash a undefined at $");
  });
});
