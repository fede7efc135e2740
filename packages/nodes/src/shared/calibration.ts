import type { VerdictCalibration } from "@citeflow/core";
import { z } from "zod";

/**
 * The calibrations chosen for shipped verifiers, by model id: Platt scaling of the claim's support
 * score and the cannot-tell band, each chosen on the SciFact dev split (bench/scifact-dev.json,
 * claims no Citeflow model trains on and no figure is reported on) by bench/calibrate.mjs.
 */
const CALIBRATIONS: Record<string, VerdictCalibration> = {
  // Trained without the dev claims (`citeflow train nli --leave-out bench/scifact-dev.json`, with Check-COVID, COVID-Fact
  // and HealthVer added); chosen with its shipped int8 weights. On 28 of the 100 dev claims no sentence of the top 3
  // passages gives SUPPORT or CONTRADICT even 0.02, on the rest at least 0.11: below the floor between them the verdict
  // is NO_EVIDENCE (their support score is ~0, and the band's edge would otherwise split them by noise). Above it, the
  // claim score's AUC on dev is 0.813; at the judge's target of 0.82 the band gives verdicts for 58 of the 100 dev
  // claims, 0.828 of them right, and CANNOT_TELL for the other 14.
  "citeflow/nli-minilm-scifact": {
    slope: 1.8802,
    intercept: 0.5195,
    band: [0.4802, 0.6655],
    evidenceFloor: 0.0455,
    rule: "Citeflow's NLI model, calibrated on the SciFact dev split (100 claims with evidence, hybrid top 3; bench/calibrate.mjs, target 0.82, evidence floor at dev's gap)",
  },
};

/**
 * The same for Citeflow's judge adapter (verify.llm's default model), on its log P(true) − log P(false). The adapter
 * never trained on the dev claims. Chosen there at a target of 0.82 (a margin on both of the product's aims: verdicts
 * right 4 times in 5, given for half the claims): verdicts for 56 of the 100 dev claims, 0.821 of them right.
 */
export const JUDGE_CALIBRATION: VerdictCalibration = {
  slope: 0.9214,
  intercept: 0.1776,
  band: [0.4847, 0.7753],
  rule: "Citeflow's judge adapter, calibrated on the SciFact dev split (100 claims with evidence, hybrid top 3; bench/calibrate.mjs, target 0.82)",
};

/**
 * A model's calibration with the node's band over the chosen one. A band for a model no calibration was chosen
 * for is refused: it would cut a probability the model does not give.
 */
export function withBand(c: VerdictCalibration | undefined, modelId: string, band?: [number, number]): VerdictCalibration | undefined {
  if (!band) return c;
  if (!c)
    throw new Error(`params.band: no calibration was chosen for model "${modelId}", so there is no calibrated P(supported) to cut; leave band unset (bench/calibrate.mjs chooses one on a dev split)`);
  return { ...c, band, rule: `${c.rule}; band set on the node` };
}

/** The calibration for an NLI model, with the node's band over the chosen one; undefined for a model none was chosen for. */
export function calibrationFor(modelId: string, band?: [number, number]): VerdictCalibration | undefined {
  return withBand(CALIBRATIONS[modelId], modelId, band);
}

/** The cannot-tell band param of a verifying node. */
export const bandParam = z
  .tuple([z.number().min(0).max(1), z.number().min(0).max(1)])
  .refine(([lo, hi]) => lo <= hi, "the band's low end must not be above its high end")
  .optional()
  .describe("Claim verdicts: CANNOT_TELL while the calibrated P(supported) is between these; unset: the band chosen on dev for the model");
