import { bm25Scores, claimVerdicts, defineNode, pageAt, sentenceSpans, type Claim, type Question, type Services, type Verdict, type VerdictCalibration } from "@citeflow/core";
import { DEFAULT_MODELS, type NliModel, type NliProbabilities } from "@citeflow/models";
import { z } from "zod";
import { bandParam, withBand } from "../shared/calibration.js";
import { modelParam, modelParams } from "../shared/params.js";

/** One sentence's label: SUPPORT or CONTRADICT (the likelier of the two) when either is likelier than NO_EVIDENCE, else NO_EVIDENCE. */
const sentenceLabel = (pr: NliProbabilities): "SUPPORT" | "CONTRADICT" | "NO_EVIDENCE" =>
  pr.SUPPORT <= pr.NO_EVIDENCE && pr.CONTRADICT <= pr.NO_EVIDENCE ? "NO_EVIDENCE" : pr.SUPPORT >= pr.CONTRADICT ? "SUPPORT" : "CONTRADICT";

/**
 * The question, read as a claim, against what the answer's cited claims state (each claim's text is a premise): whether
 * the answer supports or contradicts it, through the same calibration as a claim; NO_REFERENCE when nothing is cited.
 * A quote is true of its own passage by construction; this is the verdict that says whether it answers the question.
 */
async function questionVerdict(question: Question, claims: Claim[], model: NliModel, calibration: VerdictCalibration | undefined, signal: AbortSignal): Promise<Verdict> {
  const stated = [...new Set(claims.filter((c) => c.passageIds.length > 0).map((c) => c.text))];
  if (stated.length === 0) return { claimId: question.id, about: "question", label: "NO_REFERENCE", probabilities: {} };
  const probs = await model.classify(
    stated.map((premise) => ({ premise, hypothesis: question.text })),
    { signal },
  );
  const each: Verdict[] = probs.map((pr) => ({ claimId: question.id, label: sentenceLabel(pr), probabilities: { ...pr } }));
  const [v] = claimVerdicts([{ id: question.id, text: question.text, passageIds: [] }], each, calibration);
  // The statement that weighs most either way is its evidence.
  const strongest = probs.reduce((b, pr, i) => (Math.max(pr.SUPPORT, pr.CONTRADICT) > Math.max(probs[b]!.SUPPORT, probs[b]!.CONTRADICT) ? i : b), 0);
  return { ...v!, about: "question", evidence: { sentence: stated[strongest]!, passageId: "answer", score: Math.max(probs[strongest]!.SUPPORT, probs[strongest]!.CONTRADICT) } };
}

/** The calibration the node's model carries (a served one: the installed model it runs), with the node's band over it. */
async function calibration(p: { model: string; modelsDir: string; dtype: "fp32" | "q8"; band?: [number, number] }, s: Services): Promise<VerdictCalibration | undefined> {
  const id = s.modelId("nli", p.model);
  if (p.modelsDir && !s.modelsDirAllowed(p.modelsDir)) return undefined; // refused, with its param named, where the model loads
  return withBand(await s.nliCalibration({ id, modelsDir: p.modelsDir, dtype: p.dtype }), id, p.band);
}

export const verifyNli = defineNode({
  type: "verify.nli",
  version: 2,
  title: "Verify claims (NLI)",
  family: "verify",
  description:
    "Verif.ai's check: each claim against the most similar sentences of each passage it cites → SUPPORT / CONTRADICT / NO_EVIDENCE, or NO_REFERENCE when the cited passage was never retrieved; the closest sentence attached with where it sits in the passage (and its page, for PDFs). Then one verdict per claim, calibrated: SUPPORT or CONTRADICT only when the model is sure enough, else CANNOT_TELL.",
  inputs: {
    claims: { type: "Claim[]" },
    passages: { type: "Passage[]", description: "Everything that was retrieved" },
    question: {
      type: "Question",
      optional: true,
      description: "With it, one more verdict: the question (read as a claim) against what the answer's cited claims state — does the answer judge the question, or only quote its passages?",
    },
  },
  outputs: {
    verdicts: { type: "Verdict[]", description: "One per claim and cited passage" },
    claimVerdicts: {
      type: "Verdict[]",
      description:
        "One per claim: SUPPORT / CONTRADICT from its passages' sentence scores through the model's calibration, CANNOT_TELL inside its band, with the calibrated confidence; NO_REFERENCE when nothing it cites was read",
    },
    questionVerdicts: {
      type: "Verdict[]",
      description: "With a question: one verdict, the question against the answer's cited claims, calibrated the same way (CANNOT_TELL: the quoted sentences may not answer it); empty without one",
    },
  },
  params: z.object({
    model: modelParam("nli", `NLI model id (SciFact or MNLI labels); empty: $CITEFLOW_NLI_MODEL, else ${DEFAULT_MODELS.nli}`),
    ...modelParams,
    sentences: z.number().int().positive().default(10).describe("Sentences of each cited passage compared with the claim"),
    band: bandParam,
  }),
  // The calibration is part of what the node computes: a new one recomputes cached verdicts.
  fingerprint: async (p, s) => {
    const id = s.modelId("nli", p.model);
    return { model: await s.modelIdentity("nli", id, p.modelsDir), calibration: (await calibration(p, s)) ?? null };
  },
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
        const label = !pr || !decided ? "NO_EVIDENCE" : sentenceLabel(pr);
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
    const chosen = await calibration(p, ctx.services);
    const question = inputs.question ? await questionVerdict(inputs.question, claims, model, chosen, ctx.signal) : undefined;
    return { verdicts, claimVerdicts: claimVerdicts(claims, verdicts, chosen), questionVerdicts: question ? [question] : [] };
  },
});
