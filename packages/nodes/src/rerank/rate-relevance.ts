import { compileTemplate, defineNode, type Passage } from "@citeflow/core";
import { z } from "zod";
import { promptParam } from "../shared/prompts.js";
import { callChat, chatAndPrompt, chatFor, llmParams } from "../shared/llm.js";
import { ratingSchema, readRating } from "../shared/structured.js";

/** The last "Rating: n" line (1–5). */
export function parseRating(text: string): number {
  const m = [...text.matchAll(/rating\**\s*:\s*\**\s*([1-5])\b/gi)].at(-1);
  if (!m) throw new Error(`relevance rating did not parse: expected a final line "Rating: <1-5>", got ${JSON.stringify(text.slice(-120))}`);
  return Number(m[1]);
}

/** Its type, also the task it asks its language model (the default adapter goes on the tasks it was trained on). */
const TYPE = "rate.relevance";
export const rateRelevance = defineNode({
  type: TYPE,
  version: 2,
  title: "Rate relevance (LLM, 1–5)",
  family: "rerank",
  description:
    "OpenScholar's reranker labels: an LLM rates each passage's usefulness for the question from 1 to 5, added as the score `relevance`. Exported as reranker training pairs (4–5 positive, 1–2 negative, 3 dropped). Without an LLM the passages pass through unrated, with a warning.",
  inputs: { question: { type: "Question" }, passages: { type: "Passage[]" } },
  outputs: { passages: { type: "Passage[]", description: "The passages with a `relevance` score (1–5)" } },
  params: z.object({ ...llmParams, maxTokens: z.number().int().positive().default(128), prompt: promptParam("openscholar.relevance.v1", "Rating prompt over question and passage") }),
  fingerprint: chatAndPrompt(TYPE),
  async run(inputs, p, ctx) {
    const { question, passages } = inputs;
    const chat = await chatFor(ctx, p, TYPE);
    if (!chat) {
      ctx.log("warn", "relevance rating skipped: no LLM configured");
      return { passages };
    }
    const template = compileTemplate(ctx.services.prompt(p.prompt));
    const rated: Passage[] = [];
    for (const [i, passage] of passages.entries()) {
      const r = await callChat(ctx, chat, [{ role: "user", content: template.render({ question, passage }) }], p, "rate", { jsonSchema: ratingSchema });
      rated.push({ ...passage, scores: { ...passage.scores, relevance: r.structured !== undefined ? readRating(r.structured) : parseRating(r.text) } });
      ctx.progress(i + 1, passages.length);
    }
    return { passages: rated };
  },
});
