import { defineNode } from "@citeflow/core";
import { z } from "zod";
import { promptParam } from "../shared/prompts.js";
import { editOnce } from "../shared/feedback.js";
import { chatFor, llmParams, systemParam } from "../shared/llm.js";

/** Its type, also the task it asks its language model (the default adapter goes on the tasks it was trained on). */
const TYPE = "refine.edit";
export const refineEdit = defineNode({
  type: TYPE,
  version: 1,
  title: "Edit per feedback",
  family: "generate",
  description:
    "Revises the answer once per feedback item; an edit is kept only if new/old length > minRatio (OpenScholar: 0.9). Without an LLM the answer passes through unchanged, and the trace says so.",
  inputs: { question: { type: "Question" }, answer: { type: "Answer" }, feedback: { type: "Feedback[]" }, passages: { type: "Passage[]" } },
  outputs: { answer: { type: "Answer" } },
  params: z.object({
    ...llmParams,
    maxTokens: z.number().int().positive().default(1024),
    system: systemParam,
    editPrompt: promptParam("openscholar.edit.v2", "Edit prompt over question, answer, feedback, passages"),
    minRatio: z.number().positive().default(0.9).describe("Keep an edit only if new length / old length exceeds this"),
    citationBase: z.union([z.literal(0), z.literal(1)]).default(0),
  }),
  fingerprint: (p, s) => ({ llm: s.chatIdentity(p, TYPE), prompt: s.promptIdentity(p.editPrompt) }),
  async run(inputs, p, ctx) {
    let answer = inputs.answer;
    const items = inputs.feedback;
    const chat = await chatFor(ctx, p, TYPE);
    if (!chat) {
      if (items.length) ctx.log("warn", "edits skipped: no LLM configured");
      return { answer };
    }
    for (const [i, item] of items.entries())
      answer = await ctx.span(`feedback ${i + 1}`, async (s) => {
        s.set("feedback", item);
        const r = await editOnce(ctx, chat, p, inputs.question, answer, item, inputs.passages);
        s.set("kept", r.kept);
        s.set("lengthRatio", r.ratio);
        return r.answer;
      });
    return { answer };
  },
});
