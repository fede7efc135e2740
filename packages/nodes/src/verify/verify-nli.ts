import { bm25Scores, claimVerdicts, defineNode, pageAt, sentenceSpans, type Verdict } from "@citeflow/core";
import { DEFAULT_MODELS, type NliProbabilities } from "@citeflow/models";
import { z } from "zod";
import { calibrationFor } from "../shared/calibration.js";
import { modelParam, modelParams } from "../shared/params.js";

export const verifyNli = defineNode({
  type: "verify.nli",
  version: 2,
  title: "Verify claims (NLI)",
  family: "verify",
  description:
    "Verif.ai's check: each claim against the most similar sentences of each passage it cites → SUPPORT / CONTRADICT / NO_EVIDENCE, or NO_REFERENCE when the cited passage was never retrieved; the closest sentence attached with where it sits in the passage (and its page, for PDFs). Then one verdict per claim, calibrated: SUPPORT or CONTRADICT only when the model is sure enough, else CANNOT_TELL.",
  inputs: { claims: { type: "Claim[]" }, passages: { type: "Passage[]", description: "Everything that was retrieved" } },
  outputs: {
    verdicts: { type: "Verdict[]", description: "One per claim and cited passage" },
    claimVerdicts: {
      type: "Verdict[]",
      description:
        "One per claim: SUPPORT / CONTRADICT from its passages' sentence scores through the model's calibration, CANNOT_TELL inside its band, with the calibrated confidence; NO_REFERENCE when nothing it cites was read",
    },
  },
  params: z.object({
    model: modelParam("nli", `NLI model id (SciFact or MNLI labels); empty: $CITEFLOW_NLI_MODEL, else ${DEFAULT_MODELS.nli}`),
    ...modelParams,
    sentences: z.number().int().positive().default(10).describe("Sentences of each cited passage compared with the claim"),
    band: z
      .tuple([z.number().min(0).max(1), z.number().min(0).max(1)])
      .refine(([lo, hi]) => lo <= hi, "the band's low end must not be above its high end")
      .optional()
      .describe("Claim verdicts: CANNOT_TELL while the calibrated P(supported) is between these; unset: the band chosen on dev for the model"),
  }),
  fingerprint: (p, s) => s.modelId("nli", p.model),
  async run(inputs, p, ctx) {
    const claims = inputs.claims;
    const byId = new Map(inputs.passages.map((x) => [x.id, x]));
    const id = ctx.services.modelId("nli", p.model);
    const model = await ctx.services.nli({ id, modelsDir: p.modelsDir, dtype: p.dtype });
    const verdicts: Verdict[] = [];
    for (const claim of claims) {
      if (claim.passageIds.length === 0) verdicts.push({ claimId: claim.id, label: "NO_REFERENCE", probabilities: {} });
      for (const pid of claim.passageIds) {
        const passage = byId.get(pid);
        if (!passage) {
          verdicts.push({ claimId: claim.id, passageId: pid, label: "NO_REFERENCE", probabilities: {} });
          continue;
        }
        const spans = sentenceSpans(passage.text);
        const sents = spans.map((s) => passage.text.slice(s.start, s.end));
        const sim = bm25Scores(claim.text, sents);
        const top = sents
          .map((s, i) => ({ s, span: spans[i]!, score: sim[i]! }))
          .sort((a, b) => b.score - a.score)
          .slice(0, p.sentences);
        const probs: NliProbabilities[] = await ctx.span("nli", async (span) => {
          span.set("model", model.id);
          span.set("claim", claim.id);
          span.set("passage", pid);
          return model.classify(
            top.map((t) => ({ premise: t.s, hypothesis: claim.text })),
            { signal: ctx.signal },
          );
        });
        // The sentence that most supports or contradicts decides; with neither, NO_EVIDENCE.
        let best = 0;
        let bestStrength = -1;
        probs.forEach((pr, i) => {
          const strength = Math.max(pr.SUPPORT, pr.CONTRADICT);
          if ((pr.SUPPORT > pr.NO_EVIDENCE || pr.CONTRADICT > pr.NO_EVIDENCE) && strength > bestStrength) {
            best = i;
            bestStrength = strength;
          }
        });
        const decided = bestStrength >= 0;
        const chosen = decided ? best : probs.reduce((bi, pr, i) => (pr.NO_EVIDENCE > probs[bi]!.NO_EVIDENCE ? i : bi), 0);
        const pr = probs[chosen];
        const near = top[chosen];
        const page = near ? pageAt(passage, near.span.start) : undefined;
        const label = !pr ? "NO_EVIDENCE" : !decided ? "NO_EVIDENCE" : pr.SUPPORT >= pr.CONTRADICT ? "SUPPORT" : "CONTRADICT";
        verdicts.push({
          claimId: claim.id,
          passageId: pid,
          label,
          probabilities: pr ? { ...pr } : {},
          ...(near
            ? {
                evidence: {
                  sentence: near.s,
                  passageId: pid,
                  score: pr ? Math.max(pr.SUPPORT, pr.CONTRADICT, pr.NO_EVIDENCE) : 0,
                  start: near.span.start,
                  end: near.span.end,
                  ...(page ? { page } : {}),
                },
              }
            : {}),
        });
      }
    }
    return { verdicts, claimVerdicts: claimVerdicts(claims, verdicts, calibrationFor(id, p.band)) };
  },
});
