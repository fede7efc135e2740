import { bm25Scores, defineNode, findCitations, splitSentences, toAnswer } from "@citeflow/core";
import { z } from "zod";

export const citePosthoc = defineNode({
  type: "cite.posthoc",
  version: 1,
  title: "Post-hoc citations",
  family: "cite",
  description: "OpenScholar's last step: per paragraph, a sentence without a citation gets one to the passage it matches best (BM25), when the match is strong enough. Never deletes text.",
  inputs: { answer: { type: "Answer" }, passages: { type: "Passage[]", description: "The passages the markers number, in order" } },
  outputs: { answer: { type: "Answer" } },
  params: z.object({
    minScore: z.number().nonnegative().default(2).describe("Least BM25 score between a sentence and a passage to add a citation"),
    minLength: z.number().int().nonnegative().default(50).describe("Sentences shorter than this (characters) are left alone"),
    citationBase: z.union([z.literal(0), z.literal(1)]).default(0),
  }),
  async run(inputs, p, ctx) {
    const { answer, passages } = inputs;
    let added = 0;
    const paragraphs = answer.text.split(/(\n\s*\n)/);
    const out = paragraphs.map((para) => {
      if (/^\n\s*\n$/.test(para)) return para;
      let result = para;
      for (const sentence of splitSentences(para)) {
        if (sentence.length < p.minLength || findCitations(sentence, passages, { base: p.citationBase }).length > 0) continue;
        const scores = bm25Scores(
          sentence,
          passages.map((x) => `${x.title} ${x.text}`),
        );
        const best = scores.reduce((bi, s, i) => (s > scores[bi]! ? i : bi), 0);
        if (!(scores[best]! >= p.minScore)) continue;
        const marker = ` [${best + p.citationBase}]`;
        const m = /([.!?]+["')\]]*)$/.exec(sentence);
        const cited = m ? sentence.slice(0, m.index) + marker + m[1] : sentence + marker;
        result = result.replace(sentence, cited);
        added++;
      }
      return result;
    });
    ctx.log("info", `added ${added} citation(s)`);
    return { answer: toAnswer(out.join(""), passages, { base: p.citationBase }) };
  },
});
