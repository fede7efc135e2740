import { bm25Scores, compileTemplate, defineNode, splitSentences, type Claim, type Passage } from "@citeflow/core";
import { z } from "zod";
import { promptParam } from "../shared/prompts.js";
import { callChat, chatAndPrompt, chatFor, llmParams } from "../shared/llm.js";
import { claimsSchema, quoteParam, readClaims } from "../shared/structured.js";

/** "[2] claim text" lines → claims citing passage 2 (1-based); other lines are ignored. */
export function parseClaimLines(text: string, passages: Passage[], startId = 1): Claim[] {
  const out: Claim[] = [];
  for (const line of text.split("\n")) {
    const m = /^\s*(?:[-*]\s*)?\[(\d+)\]\s*(.+?)\s*$/.exec(line);
    const p = m ? passages[Number(m[1]) - 1] : undefined;
    if (m && p) out.push({ id: `c${startId + out.length}`, text: m[2]!, passageIds: [p.id] });
  }
  return out;
}

/**
 * Claims a model copied from the prompt's own instructions (its example line, say) rather than from
 * a passage: text found in the prompt but in no passage. Small base models do this; such a claim
 * would be cited to a passage that never said it.
 */
export function withoutPromptEchoes(claims: Claim[], prompt: string, passages: Passage[]): Claim[] {
  const inPassages = (t: string) => passages.some((p) => p.text.includes(t) || p.title.includes(t));
  return claims.filter((c) => !(prompt.includes(c.text) && !inPassages(c.text)));
}

/** Offline stand-in, labelled as such: the passage sentence most similar to the question, per passage. */
export function extractiveClaims(question: string, passages: Passage[], startId = 1): Claim[] {
  const out: Claim[] = [];
  for (const p of passages) {
    const sents = splitSentences(p.text);
    const scores = bm25Scores(question, sents);
    const best = scores.reduce((bi, s, i) => (s > scores[bi]! ? i : bi), 0);
    if (sents[best] && scores[best]! > 0) out.push({ id: `c${startId + out.length}`, text: sents[best]!, passageIds: [p.id] });
  }
  return out;
}

/** Its type, also the task it asks its language model (the default adapter goes on the tasks it was trained on). */
const TYPE = "claims.extract";
export const claimsExtract = defineNode({
  type: TYPE,
  version: 3,
  title: "Extract claims",
  family: "generate",
  description: "arXivBot: the claims in the passages that bear on the question, each citing its passage. Without an LLM: the most question-like sentence of each passage (extractive baseline).",
  inputs: { question: { type: "Question" }, passages: { type: "Passage[]" } },
  outputs: { claims: { type: "Claim[]" } },
  params: z.object({ ...llmParams, prompt: promptParam("arxivbot.claims.v1", "Prompt over question and passages"), quote: quoteParam }),
  fingerprint: chatAndPrompt(TYPE),
  async run(inputs, p, ctx) {
    const { question, passages } = inputs;
    const chat = await chatFor(ctx, p, TYPE);
    if (!chat) {
      ctx.log("warn", "no LLM configured: claims are extracted by the extractive baseline");
      return { claims: extractiveClaims(question.text, passages) };
    }
    const prompt = compileTemplate(ctx.services.prompt(p.prompt)).render({ question, passages });
    const r = await callChat(ctx, chat, [{ role: "user", content: prompt }], p, "model", {
      jsonSchema: claimsSchema(passages, p.quote),
    });
    const claims = r.structured !== undefined ? readClaims(r.structured, passages) : parseClaimLines(r.text, passages);
    const kept = withoutPromptEchoes(claims, prompt, passages);
    if (kept.length < claims.length) ctx.log("warn", `${claims.length - kept.length} of ${claims.length} claims copied the prompt's instructions, not a passage: dropped`);
    return { claims: kept };
  },
});
