import { defineNode, Question } from "@citeflow/core";
import { z } from "zod";

export const inputQuestion = defineNode({
  type: "input.question",
  version: 1,
  title: "Question",
  family: "input",
  description: "The question a run is asked (one graph input of type Question).",
  inputs: {},
  outputs: { question: { type: "Question", description: "The question given to the run" } },
  params: z.object({
    name: z.string().min(1).default("question").describe('Name of the graph input to read (declared in the graph\'s "inputs")'),
  }),
  graphInput: (p) => p.name,
  async run(_inputs, _params, ctx) {
    // The executor checked the graph input against its declared type; parsing gives it that type here.
    return { question: Question.parse(ctx.graphInput) };
  },
});
