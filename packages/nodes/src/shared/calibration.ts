import type { VerdictCalibration } from "@citeflow/core";
import { z } from "zod";

/**
 * A model's calibration with the node's band over the chosen one. A band for a model no calibration was chosen
 * for is refused: it would cut a probability the model does not give.
 */
export function withBand(c: VerdictCalibration | undefined, modelId: string, band?: [number, number]): VerdictCalibration | undefined {
  if (!band) return c;
  if (!c)
    throw new Error(
      `params.band: no calibration was chosen for model "${modelId}", so there is no calibrated P(supported) to cut; leave band unset, or choose a calibration on a dev split first (citeflow calibrate)`,
    );
  return { ...c, band, rule: `${c.rule}; band set on the node` };
}

/** The cannot-tell band param of a verifying node. */
export const bandParam = z
  .tuple([z.number().min(0).max(1), z.number().min(0).max(1)])
  .refine(([lo, hi]) => lo <= hi, "the band's low end must not be above its high end")
  .optional()
  .describe("Claim verdicts: CANNOT_TELL while the calibrated P(supported) is between these; unset: the band chosen on dev for the model (its calibration.json)");
