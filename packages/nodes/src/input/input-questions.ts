import { defineNode, Question } from "@citeflow/core";
import { z } from "zod";

export const inputQuestions = defineNode({
  type: "input.questions",
  version: 1,
  title: "Question set",
  family: "input",
  description: "A list of questions given to the run (one graph input of type Question[]).",
  inputs: {},
  outputs: { questions: { type: "Question[]", description: "The questions, in the order given" } },
  params: z.object({
    name: z.string().min(1).default("questions").describe('Name of the graph input to read (declared in the graph\'s "inputs")'),
    limit: z.number().int().positive().optional().describe("Keep only the first N questions"),
  }),
  graphInput: (p) => p.name,
  async run(_inputs, params, ctx) {
    // The executor checked the graph input against its declared type; parsing gives it that type here.
    const all = z.array(Question).parse(ctx.graphInput);
    return { questions: params.limit === undefined ? all : all.slice(0, params.limit) };
  },
});
