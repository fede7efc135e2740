import { compileTemplate, defineNode } from "@citeflow/core";
import { z } from "zod";

export const textTemplate = defineNode({
  type: "text.template",
  version: 1,
  title: "Text template",
  family: "text",
  description: "Renders a prompt from its inputs with {{var}}, {{#each list}}, {{#if x}} (a Mustache subset).",
  inputs: {
    question: { type: "Question", optional: true },
    query: { type: "Query", optional: true },
    passages: { type: "Passage[]", optional: true },
    answer: { type: "Answer", optional: true },
    feedback: { type: "Feedback[]", optional: true },
    text: { type: "Text", optional: true },
    data: { type: "Any", optional: true, description: "Any other value, as {{data}}" },
  },
  outputs: { text: { type: "Text", description: "The rendered text" } },
  params: z.object({
    template: z
      .string()
      .min(1)
      .superRefine((src, ctx) => {
        try {
          compileTemplate(src);
        } catch (e) {
          ctx.addIssue({ code: "custom", message: (e as Error).message });
        }
      })
      .describe("The template. Inputs are variables ({{question.text}}); in {{#each passages}} use {{@number}}, {{title}}, {{text}}. A missing variable is an error."),
    trim: z.boolean().default(true).describe("Trim white space at both ends of the result"),
  }),
  async run(inputs, params) {
    const scope = Object.fromEntries(Object.entries(inputs).filter(([, v]) => v !== undefined));
    const text = compileTemplate(params.template).render(scope);
    return { text: params.trim ? text.trim() : text };
  },
});
