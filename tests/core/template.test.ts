import { describe, expect, it } from "vitest";
import { compileTemplate, renderTemplate, TEMPLATE_LIMITS, TemplateError } from "@citeflow/core";

const passages = [
  { id: "1#0", title: "Aspirin", text: "Aspirin lowers stroke risk." },
  { id: "2#0", title: "Coffee", text: "Coffee is fine." },
];

describe("templates", () => {
  it("inserts values, iterates with numbering, and tests conditions", () => {
    const t = "Q: {{question.text}}\n{{#each passages}}[{{@number}}] {{title}}: {{text}}{{#unless @last}}\n{{/unless}}{{/each}}{{#if feedback}} F{{else}} none{{/if}}";
    expect(renderTemplate(t, { question: { text: "Does aspirin help?" }, passages, feedback: [] })).toBe(
      "Q: Does aspirin help?\n[1] Aspirin: Aspirin lowers stroke risk.\n[2] Coffee: Coffee is fine. none",
    );
  });

  it("reaches outer scope from inside a loop, and renders non-strings as JSON", () => {
    expect(renderTemplate("{{#each xs}}{{this}}{{sep}}{{/each}}{{obj}}", { xs: [1, 2], sep: ",", obj: { a: 1 } })).toBe('1,2,{"a":1}');
    expect(renderTemplate("{{#each xs}}{{@index}}{{/each}}", { xs: ["a", "b", "c"] })).toBe("012");
  });

  it("a missing variable is an error naming it and its line", () => {
    expect(() => renderTemplate("line one\n{{question.txt}}", { question: { text: "q" } })).toThrow('template variable "question.txt" is undefined (template line 2)');
    expect(() => renderTemplate("{{#each nope}}{{/each}}", {})).toThrow(/template list "nope" is undefined/);
  });

  it("rejects malformed templates at compile time", () => {
    expect(() => compileTemplate("{{#each xs}}")).toThrow(TemplateError);
    expect(() => compileTemplate("{{/if}}")).toThrow(/closes nothing/);
    expect(() => compileTemplate("{{#if a}}{{/each}}")).toThrow(/expected \{\{\/if\}\}/);
    expect(() => compileTemplate("{{#with a}}{{/with}}")).toThrow(/unknown block/);
    expect(() => compileTemplate("{{else}}")).toThrow(/outside/);
  });

  it("lists the variables a template uses", () => {
    expect(compileTemplate("{{question.text}} {{#each passages}}{{title}}{{/each}}").variables.sort()).toEqual(["passages", "question", "title"]);
  });

  it("never evaluates code or reaches prototypes", () => {
    expect(() => renderTemplate("{{constructor}}", {})).toThrow(/undefined/);
    expect(() => renderTemplate("{{a.__proto__}}", { a: {} })).toThrow(/undefined/);
  });

  it("bounded work: parsing a large template is linear, and size, nesting and rendering have limits with clear errors", () => {
    // 150,000 tags on as many lines: counting lines from the start at every tag ran past the test's time limit.
    expect(compileTemplate("{{x}}\n".repeat(150_000)).variables).toEqual(["x"]);
    expect(() => compileTemplate("x".repeat(TEMPLATE_LIMITS.sourceChars + 1))).toThrow(/characters; the limit is/);
    const deep = (n: number) => "{{#each a}}".repeat(n) + "." + "{{/each}}".repeat(n);
    expect(() => compileTemplate(deep(TEMPLATE_LIMITS.nesting + 1))).toThrow(/nested 17 deep; the limit is 16/);
    const a = Array.from({ length: 10 }, (_, i) => i);
    // 10^16 iterations: a hang before the limits.
    expect(() => renderTemplate(deep(16), { a })).toThrow(/rendered text passed|more than \d+ steps/);
    expect(() =>
      renderTemplate("{{#each a}}{{#each a}}{{#each a}}{{#each a}}{{#each a}}{{#each a}}{{/each}}{{/each}}{{/each}}{{/each}}{{/each}}{{/each}}", { a: Array.from({ length: 20 }, () => 0) }),
    ).toThrow(/more than \d+ steps/);
    expect(renderTemplate(deep(3), { a: [1, 2] })).toBe("........");
  });
});
