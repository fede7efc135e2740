import fc from "fast-check";
import { describe, expect, it } from "vitest";
// @ts-expect-error: the CLI's built module, tested directly
import { parseOverrides } from "../../packages/cli/dist/commands/run.js";

const parse = parseOverrides as (specs: string[]) => Record<string, Record<string, unknown>> | undefined;

/** `--override` turns user text into object keys: no name may write through a prototype. */
describe("--override parsing", () => {
  it("__proto__, constructor and prototype are plain keys: Object.prototype is untouched", () => {
    const o = parse(['__proto__.to="retrieve"', 'constructor.prototype={"polluted":true}', 'n.__proto__={"x":1}'])!;
    expect(({} as Record<string, unknown>).to).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(o)).toEqual(["__proto__", "constructor", "n"]);
    expect(Object.getOwnPropertyDescriptor(o, "__proto__")!.value).toEqual({ to: "retrieve" });
    expect(Object.keys(o.n!)).toEqual(["__proto__"]);
  });

  it("for any node and port names and JSON values, parses without changing any prototype", () => {
    const name = fc.oneof(fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty"), fc.stringMatching(/^[^.=]{1,12}$/));
    fc.assert(
      fc.property(fc.array(fc.tuple(name, name, fc.jsonValue()), { minLength: 1, maxLength: 5 }), (specs) => {
        const o = parse(specs.map(([n, p, v]) => `${n}.${p}=${JSON.stringify(v)}`))!;
        expect(Object.getPrototypeOf(o)).toBeNull();
        for (const [n, p] of specs) expect(Object.getOwnPropertyDescriptor(Object.getOwnPropertyDescriptor(o, n)!.value, p)).toBeDefined();
        expect(Object.keys(Object.prototype)).toEqual([]);
        expect(({} as Record<string, unknown>).toString).toBe(Object.prototype.toString);
      }),
      { numRuns: 300 },
    );
  });
});
