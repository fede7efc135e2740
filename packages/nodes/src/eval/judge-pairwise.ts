import { compileTemplate, defineNode } from "@citeflow/core";
import { z } from "zod";
import { promptParam } from "../shared/prompts.js";
import { callChat, chatAndPrompt, chatFor, llmParams } from "../shared/llm.js";
import { pairwiseSchema, readPairwise } from "../shared/structured.js";

/** The last "Better: A|B" line. */
export function parsePairwise(text: string): "a" | "b" {
  const m = [...text.matchAll(/better\**\s*:\s*\**\s*(A|B)\b/gi)].at(-1);
  if (!m) throw new Error(`pairwise judgement did not parse: expected a final line "Better: A" or "Better: B", got ${JSON.stringify(text.slice(-120))}`);
  return m[1]!.toLowerCase() === "a" ? "a" : "b";
}

/** Its type, also the task it asks its language model (the default adapter goes on the tasks it was trained on). */
const TYPE = "judge.pairwise";
export const judgePairwise = defineNode({
  type: TYPE,
  version: 2,
  title: "Pairwise judge (LLM)",
  family: "eval",
  description:
    "OpenScholar's pairwise filter for synthetic data: an LLM compares two answers (e.g. the first draft and the answer after self-feedback) and keeps the better one. Outputs the preferred and the rejected answer; exports use them as preference pairs. Without an LLM, or when the answers are identical, b is preferred and the decision says why.",
  inputs: { question: { type: "Question" }, passages: { type: "Passage[]" }, a: { type: "Answer", description: "e.g. the first draft" }, b: { type: "Answer", description: "e.g. the final answer" } },
  outputs: {
    preferred: { type: "Answer" },
    rejected: { type: "Answer" },
    decision: { type: "Text", description: '"a", "b", "same" or "skipped: no LLM configured"' },
  },
  params: z.object({ ...llmParams, maxTokens: z.number().int().positive().default(256), prompt: promptParam("openscholar.pairwise.v1", "Prompt over question, passages, a and b") }),
  fingerprint: chatAndPrompt(TYPE),
  async run(inputs, p, ctx) {
    const { a, b } = inputs;
    if (a.text.trim() === b.text.trim()) return { preferred: b, rejected: a, decision: "same" };
    const chat = await chatFor(ctx, p, TYPE);
    if (!chat) {
      ctx.log("warn", "pairwise judgement skipped: no LLM configured");
      return { preferred: b, rejected: a, decision: "skipped: no LLM configured" };
    }
    const user = compileTemplate(ctx.services.prompt(p.prompt)).render({ question: inputs.question, passages: inputs.passages, a, b });
    const r = await callChat(ctx, chat, [{ role: "user", content: user }], p, "judge", { jsonSchema: pairwiseSchema });
    const better = r.structured !== undefined ? readPairwise(r.structured) : parsePairwise(r.text);
    return better === "a" ? { preferred: a, rejected: b, decision: "a" } : { preferred: b, rejected: a, decision: "b" };
  },
});
