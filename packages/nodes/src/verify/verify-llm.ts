import { compileTemplate, defineNode, type Verdict } from "@citeflow/core";
import { z } from "zod";
import { callChat, chatAndPrompt, llmParams, noChatReason } from "../shared/llm.js";
import { promptParam } from "../shared/prompts.js";
import { readTrueFalse, trueFalseSchema } from "../shared/structured.js";

/** The first "true" or "false" in a reply. */
export function parseTrueFalse(text: string): boolean {
  const m = /\b(true|false)\b/i.exec(text);
  if (!m) throw new Error(`true/false judgement did not parse: expected "true" or "false", got ${JSON.stringify(text.slice(0, 120))}`);
  return m[1]!.toLowerCase() === "true";
}

export const verifyLlm = defineNode({
  type: "verify.llm",
  version: 1,
  title: "Verify claims (LLM, true/false)",
  family: "verify",
  description:
    "OpenScholar's SciFact protocol: a language model reads the passages each claim cites (all of them when it cites none) and answers whether the claim is true or false → SUPPORT or CONTRADICT, one verdict per claim.",
  inputs: { claims: { type: "Claim[]" }, passages: { type: "Passage[]" } },
  outputs: { verdicts: { type: "Verdict[]", description: "One per claim" } },
  params: z.object({ ...llmParams, maxTokens: z.number().int().positive().default(8), prompt: promptParam("openscholar.scifact.v1", "Prompt over claim and passages") }),
  fingerprint: chatAndPrompt,
  async run(inputs, p, ctx) {
    const claims = inputs.claims;
    const all = inputs.passages;
    const chat = await ctx.services.chat(p);
    if (!chat) throw new Error(`verify.llm needs a chat model: ${noChatReason(ctx.services, p)}`);
    const template = compileTemplate(ctx.services.prompt(p.prompt));
    const verdicts: Verdict[] = [];
    for (const [i, claim] of claims.entries()) {
      const cited = all.filter((x) => claim.passageIds.includes(x.id));
      const r = await callChat(ctx, chat, [{ role: "user", content: template.render({ claim, passages: cited.length ? cited : all }) }], p, "judge", { jsonSchema: trueFalseSchema });
      const isTrue = r.structured !== undefined ? readTrueFalse(r.structured) : parseTrueFalse(r.text);
      verdicts.push({ claimId: claim.id, label: isTrue ? "SUPPORT" : "CONTRADICT", probabilities: isTrue ? { SUPPORT: 1 } : { CONTRADICT: 1 } });
      ctx.progress(i + 1, claims.length);
    }
    return { verdicts };
  },
});
