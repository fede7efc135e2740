import { compileTemplate, defineNode } from "@citeflow/core";
import { z } from "zod";
import { promptParam } from "../shared/prompts.js";
import { callChat, chatAndPrompt, chatFor, llmParams } from "../shared/llm.js";
import { readRubric, rubricSchema } from "../shared/structured.js";

/** The last "Organisation: n" and "Factuality: n" lines (1–5). */
export function parseRubric(text: string): { organisation: number; factuality: number } {
  const last = (name: string) => [...text.matchAll(new RegExp(`${name}\\**\\s*:\\s*\\**\\s*([1-5](?:\\.\\d+)?)`, "gi"))].at(-1)?.[1];
  const organisation = last("organi[sz]ation");
  const factuality = last("factuality");
  if (!organisation || !factuality) throw new Error(`rubric did not parse: expected final lines "Organisation: <1-5>" and "Factuality: <1-5>", got ${JSON.stringify(text.slice(-160))}`);
  return { organisation: Number(organisation), factuality: Number(factuality) };
}

/** Its type, also the task it asks its language model (the default adapter goes on the tasks it was trained on). */
const TYPE = "judge.rubric";
export const judgeRubric = defineNode({
  type: TYPE,
  version: 2,
  title: "Rubric judge (LLM)",
  family: "eval",
  description:
    "OpenScholar's rubric filter for synthetic data: an LLM scores an answer 1–5 on organisation and on factual precision / citation accuracy. `citeflow synth` keeps answers scoring at least its thresholds (4.5 by default) on both. Without an LLM the scores are null and the decision says it was skipped.",
  inputs: { question: { type: "Question" }, passages: { type: "Passage[]" }, answer: { type: "Answer" } },
  outputs: { scores: { type: "Any", description: "{ organisation, factuality } (1–5), or null without an LLM" } },
  params: z.object({ ...llmParams, maxTokens: z.number().int().positive().default(256), prompt: promptParam("openscholar.rubric.v1", "Prompt over question, passages and answer") }),
  fingerprint: chatAndPrompt(TYPE),
  async run(inputs, p, ctx) {
    const chat = await chatFor(ctx, p, TYPE);
    if (!chat) {
      ctx.log("warn", "rubric judgement skipped: no LLM configured");
      return { scores: null };
    }
    const user = compileTemplate(ctx.services.prompt(p.prompt)).render({ question: inputs.question, passages: inputs.passages, answer: inputs.answer });
    const r = await callChat(ctx, chat, [{ role: "user", content: user }], p, "judge", { jsonSchema: rubricSchema });
    return { scores: r.structured !== undefined ? readRubric(r.structured) : parseRubric(r.text) };
  },
});
