import { defineNode, type Feedback } from "@citeflow/core";
import { z } from "zod";
import { promptParam } from "../shared/prompts.js";
import { storeParam } from "../shared/params.js";
import { editOnce, requestFeedback } from "../shared/feedback.js";
import { chatFor, llmParams, systemParam } from "../shared/llm.js";

/** Its type, also the task it asks its language model (the default adapter goes on the tasks it was trained on). */
const TYPE = "loop.self-feedback";
export const loopSelfFeedback = defineNode({
  type: TYPE,
  version: 1,
  title: "Self-feedback loop",
  family: "generate",
  description:
    "OpenScholar's loop: up to N feedback items; for each, retrieve when it asks a question, then edit the answer (kept only if new/old length > 0.9). Every item, its retrieval and its edit are child spans. Without an LLM the answer passes through, and the trace says so.",
  inputs: { question: { type: "Question" }, answer: { type: "Answer" }, passages: { type: "Passage[]" } },
  outputs: {
    answer: { type: "Answer", description: "The final answer" },
    passages: { type: "Passage[]", description: "The passages after feedback retrievals (new ones appended)" },
    feedback: { type: "Feedback[]" },
  },
  params: z.object({
    ...llmParams,
    maxTokens: z.number().int().positive().default(1024),
    system: systemParam,
    feedbackPrompt: promptParam("openscholar.feedback.v2", "Feedback prompt"),
    editPrompt: promptParam("openscholar.edit.v2", "Edit prompt"),
    maxItems: z.number().int().positive().default(3),
    minRatio: z.number().positive().default(0.9),
    citationBase: z.union([z.literal(0), z.literal(1)]).default(0),
    store: storeParam,
    k: z.number().int().positive().default(3).describe("Passages added per feedback question (BM25 over the store)"),
  }),
  fingerprint: (p, s) => ({ llm: s.chatIdentity(p, TYPE), prompts: [s.promptIdentity(p.feedbackPrompt), s.promptIdentity(p.editPrompt)] }),
  async run(inputs, p, ctx) {
    const question = inputs.question;
    let answer = inputs.answer;
    let passages = [...inputs.passages];
    const chat = await chatFor(ctx, p, TYPE);
    if (!chat) {
      ctx.log("warn", "self-feedback loop skipped: no LLM configured");
      return { answer, passages, feedback: [] };
    }
    const feedback: Feedback[] = await requestFeedback(ctx, chat, p, question, answer, passages);
    for (const [i, item] of feedback.entries()) {
      answer = await ctx.span(
        `feedback ${i + 1}`,
        async (s) => {
          s.set("feedback", item);
          if (item.question) {
            const found = await ctx.span("retrieve", async (r) => {
              r.set("query", item.question);
              const hits = await (await ctx.services.store(p.store)).lexical(item.question!, p.k);
              const known = new Set(passages.map((x) => x.id));
              const fresh = hits.filter((h) => !known.has(h.id));
              r.set(
                "added",
                fresh.map((h) => h.id),
              );
              return fresh;
            });
            passages = [...passages, ...found];
          }
          const r = await editOnce(ctx, chat, p, question, answer, item, passages);
          s.set("kept", r.kept);
          s.set("lengthRatio", r.ratio);
          // The answer before and after this item, for the inspector's before/after diff.
          s.set("before", answer.text);
          s.set("after", r.answer.text);
          return r.answer;
        },
        { item: i + 1 },
      );
    }
    return { answer, passages, feedback };
  },
});
