import { defineNode, findCitations, splitSentences, statedContent, type Answer, type Claim } from "@citeflow/core";
import { z } from "zod";

const stripMarkers = (s: string) =>
  s
    .replace(/\s*[[(](?:\s*(?:\d+|(?:PUBMED|PMID|DOI|ARXIV|S2|CORE)\s*:[^\])]+)\s*(?:[,;-–]\s*)?)+[\])]/gi, "")
    .replace(/\s+([.,;:!?])/g, "$1")
    .trim();

export const claimsSplit = defineNode({
  type: "claims.split",
  version: 3,
  title: "Split into claims",
  family: "verify",
  description:
    'Verif.ai\'s claim split: one claim per sentence and cited id; a sentence that cites nothing is a claim of its own with no passage (NO_REFERENCE: nothing it cites can check it), never merged into a cited one; a claim states what its sentence does, without a reporting frame ("The papers report: X" claims X).',
  inputs: { answer: { type: "Answer" } },
  outputs: { claims: { type: "Claim[]" } },
  params: z.object({
    citationBase: z
      .union([z.literal(0), z.literal(1)])
      .default(1)
      .describe("How the answer numbers its citations"),
  }),
  async run(inputs, params) {
    const answer: Answer = inputs.answer;
    // Markers resolve against the passages the generator was allowed to cite, in its order.
    const order = answer.allowed.map((id) => ({ id }));
    const claims: Claim[] = [];
    let from = 0;
    for (const sentence of splitSentences(answer.text)) {
      const start = answer.text.indexOf(sentence, from);
      from = start + sentence.length;
      const text = statedContent(stripMarkers(sentence));
      if (!text) continue;
      const cited = [...new Set(findCitations(sentence, order, { base: params.citationBase }).map((c) => c.passageId ?? `invalid:${c.marker}`))];
      for (const id of cited.length ? cited : [undefined]) claims.push({ id: `c${claims.length + 1}`, text, passageIds: id ? [id] : [], span: [start, from] });
    }
    return { claims };
  },
});
