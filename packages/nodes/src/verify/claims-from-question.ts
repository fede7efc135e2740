import { defineNode } from "@citeflow/core";
import { z } from "zod";

export const claimsFromQuestion = defineNode({
  type: "claims.from-question",
  version: 1,
  title: "Question as a claim",
  family: "verify",
  description: "For claim verification (SciFact's open setting): the question is the claim, citing every retrieved passage.",
  inputs: { question: { type: "Question" }, passages: { type: "Passage[]" } },
  outputs: { claims: { type: "Claim[]" } },
  params: z.object({}),
  async run(inputs) {
    const q = inputs.question;
    return { claims: [{ id: q.id, text: q.text, passageIds: inputs.passages.map((p) => p.id) }] };
  },
});
