import { compileTemplate, defineNode, toAnswer, type Claim } from "@citeflow/core";
import { EXTRACTIVE_ID } from "@citeflow/models";
import { z } from "zod";
import { promptParam } from "../shared/prompts.js";
import { callChat, chatAndPrompt, chatFor, llmParams } from "../shared/llm.js";

/** Its type, also the task it asks its language model (the default adapter goes on the tasks it was trained on). */
const TYPE = "answer.compose";
export const answerCompose = defineNode({
  type: TYPE,
  version: 1,
  title: "Compose answer from claims",
  family: "generate",
  description: "arXivBot's last step: an answer written from the extracted claims, citing their passages. Without an LLM the claims are listed with their citations (extractive baseline).",
  inputs: { question: { type: "Question" }, claims: { type: "Claim[]" }, passages: { type: "Passage[]" } },
  outputs: { answer: { type: "Answer" } },
  params: z.object({ ...llmParams, prompt: promptParam("arxivbot.answer.v1", "Prompt over question and claims ({{cite}} is a claim's citation)") }),
  fingerprint: chatAndPrompt(TYPE),
  async run(inputs, p, ctx) {
    const { question, passages } = inputs;
    const cite = (c: Claim) =>
      c.passageIds
        .map((id) => `[${passages.findIndex((x) => x.id === id) + 1}]`)
        .filter((m) => m !== "[0]")
        .join("");
    const claims = inputs.claims.map((c) => ({ ...c, cite: cite(c) }));
    const chat = await chatFor(ctx, p, TYPE);
    if (!chat) {
      const text = await ctx.span("extractive", async (s) => {
        s.set("model", EXTRACTIVE_ID);
        return claims.length ? claims.map((c) => `${c.text.replace(/[.!?]+$/, "")} ${c.cite}.`).join(" ") : "The passages found do not answer this question.";
      });
      return { answer: toAnswer(text, passages) };
    }
    const r = await callChat(ctx, chat, [{ role: "user", content: compileTemplate(ctx.services.prompt(p.prompt)).render({ question, claims }) }], p);
    return { answer: toAnswer(r.text.trim(), passages) };
  },
});
