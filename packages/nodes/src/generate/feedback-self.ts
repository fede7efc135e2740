import { defineNode } from "@citeflow/core";
import { z } from "zod";
import { promptParam } from "../shared/prompts.js";
import { requestFeedback } from "../shared/feedback.js";
import { chatFor, llmParams, systemParam } from "../shared/llm.js";

/** Its type, also the task it asks its language model (the default adapter goes on the tasks it was trained on). */
const TYPE = "feedback.self";
export const feedbackSelf = defineNode({
  type: TYPE,
  version: 1,
  title: "Self-feedback",
  family: "generate",
  description: "OpenScholar's self-feedback: the LLM reviews its answer and gives up to N items, each with an optional retrieval question. Without an LLM: no feedback, and the trace says so.",
  inputs: { question: { type: "Question" }, answer: { type: "Answer" }, passages: { type: "Passage[]" } },
  outputs: { feedback: { type: "Feedback[]" } },
  params: z.object({
    ...llmParams,
    system: systemParam,
    feedbackPrompt: promptParam("openscholar.feedback.v2", "Feedback prompt over question, answer, passages, maxItems"),
    maxItems: z.number().int().positive().default(3),
    citationBase: z
      .union([z.literal(0), z.literal(1)])
      .default(0)
      .describe("How the prompt numbers references (OpenScholar: 0)"),
  }),
  fingerprint: (p, s) => ({ llm: s.chatIdentity(p, TYPE), prompt: s.promptIdentity(p.feedbackPrompt) }),
  async run(inputs, p, ctx) {
    const chat = await chatFor(ctx, p, TYPE);
    if (!chat) {
      ctx.log("warn", "self-feedback skipped: no LLM configured");
      return { feedback: [] };
    }
    return { feedback: await requestFeedback(ctx, chat, p, inputs.question, inputs.answer, inputs.passages) };
  },
});
