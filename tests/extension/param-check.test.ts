/** The param form checks a number as it is typed, against the schema the kernel's catalogue gives (the run's own rules). */
import { describe, expect, it } from "vitest";
import { createRegistry } from "@citeflow/nodes";
import { numberProblem, type NumberSchema } from "../../extension/lib/param-check.js";

const catalogue = createRegistry().catalogue();
const param = (type: string, name: string) => {
  const node = catalogue.nodes.find((n) => n.type === type)!;
  return (node.params as { properties: Record<string, NumberSchema & { type?: string }> }).properties[name]!;
};

describe("numberProblem", () => {
  it("names the rule a typed number breaks, for the catalogue's own schemas", () => {
    const limit = param("list.select", "limit");
    expect(numberProblem(limit, "integer", -3)).toMatch(/^must be (at least|more than) /);
    expect(numberProblem(limit, "integer", 2.5)).toBe("must be a whole number");
    expect(numberProblem(limit, "integer", 3)).toBeUndefined();
    const temperature = param("generate.answer", "temperature");
    expect(numberProblem(temperature, "number", 2.5)).toBe("must be at most 2");
    expect(numberProblem(temperature, "number", 0.7)).toBeUndefined();
  });

  it("says nothing of an empty field (the default applies) and refuses what is not finite", () => {
    expect(numberProblem({ minimum: 0 }, "number", undefined)).toBeUndefined();
    expect(numberProblem({}, "number", Number.NaN)).toBe("must be a number");
    expect(numberProblem({ exclusiveMaximum: 1 }, "number", 1)).toBe("must be less than 1");
  });
});
