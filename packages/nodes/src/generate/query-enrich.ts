import { compileTemplate, defineNode } from "@citeflow/core";
import { z } from "zod";
import { promptParam } from "../shared/prompts.js";
import { callChat, chatAndPrompt, chatFor, llmParams } from "../shared/llm.js";

/** Its type, also the task it asks its language model (the default adapter goes on the tasks it was trained on). */
const TYPE = "query.enrich";
export const queryEnrich = defineNode({
  type: TYPE,
  version: 1,
  title: "Enriched search query",
  family: "generate",
  description: "CORE-GPT's first step: an LLM rewrites the question as a search query with key terms and synonyms. Without an LLM the question itself is the query, and the trace says so.",
  inputs: { question: { type: "Question" } },
  outputs: { query: { type: "Query" } },
  params: z.object({ ...llmParams, maxTokens: z.number().int().positive().default(64), prompt: promptParam("core-gpt.query.v1", "Prompt over question") }),
  fingerprint: chatAndPrompt(TYPE),
  async run(inputs, p, ctx) {
    const question = inputs.question;
    const chat = await chatFor(ctx, p, TYPE);
    if (!chat) {
      ctx.log("warn", "no LLM configured: the question text is used as the query");
      return { query: { text: question.text, questionId: question.id, origin: "question" } };
    }
    const r = await callChat(ctx, chat, [{ role: "user", content: compileTemplate(ctx.services.prompt(p.prompt)).render({ question }) }], p);
    // Models add quotes, labels or a second line; the query is the first line, unquoted.
    const text = r.text
      .trim()
      .split("\n")[0]!
      .replace(/^(search )?query\s*:\s*/i, "")
      .replace(/^["'`]+|["'`]+$/g, "")
      .trim();
    if (!text) throw new Error(`query.enrich: the model returned an empty query (response: ${JSON.stringify(r.text.slice(0, 120))})`);
    return { query: { text, questionId: question.id, origin: "enriched" } };
  },
});
