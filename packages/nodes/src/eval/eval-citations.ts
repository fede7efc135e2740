import { defineNode } from "@citeflow/core";
import { citationScores, nliEntails } from "@citeflow/eval";
import { DEFAULT_MODELS } from "@citeflow/models";
import { z } from "zod";
import { modelParam, modelParams } from "../shared/params.js";

export const evalCitations = defineNode({
  type: "eval.citations",
  version: 4,
  title: "Citation precision / recall / F1",
  family: "eval",
  description:
    "ALCE-style citation quality with an NLI model as the judge: sentences under 50 characters skipped, uncited sentences inherit the previous citations, at most 3 per sentence, over-citation rule for precision; a sentence is judged by what it states (no markers, no reporting frame), against the cited passages joined and each sentence of each (as verify.nli reads a passage). Also counts hallucinated citations.",
  inputs: { answer: { type: "Answer" }, passages: { type: "Passage[]", description: "The passages the answer could cite (their text is the evidence)" } },
  outputs: { metrics: { type: "Any", description: "{ precision, recall, f1, sentences, citations, hallucinatedCitations }: hallucinatedCitations as a run's answer counts them (core's runMetrics)" } },
  params: z.object({
    model: modelParam("nli", `NLI judge; empty: $CITEFLOW_NLI_MODEL, else ${DEFAULT_MODELS.nli}`),
    ...modelParams,
    citationBase: z.union([z.literal(0), z.literal(1)]).default(1),
  }),
  fingerprint: (p, s) => s.modelIdentity("nli", s.modelId("nli", p.model), p.modelsDir),
  async run(inputs, p, ctx) {
    const answer = inputs.answer;
    const nli = await ctx.services.nli({ id: ctx.services.modelId("nli", p.model), modelsDir: p.modelsDir, dtype: p.dtype });
    const entails = nliEntails((pairs) => nli.classify(pairs, { signal: ctx.signal }));
    const scores = await ctx.span("judge", async (s) => {
      s.set("model", nli.id);
      return citationScores(answer, inputs.passages, entails, { base: p.citationBase });
    });
    return { metrics: { ...scores, hallucinatedCitations: answer.invalidCitations.length } };
  },
});
