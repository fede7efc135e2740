import type { VerdictCalibration } from "@citeflow/core";

/**
 * The calibrations chosen for shipped verifiers, by model id: Platt scaling of the claim's support
 * score and the cannot-tell band, each chosen on the SciFact dev split (bench/scifact-dev.json,
 * claims no Citeflow model trains on and no figure is reported on) by bench/calibrate.mjs.
 */
const CALIBRATIONS: Record<string, VerdictCalibration> = {};

/** The calibration for a model, with the node's band over the chosen one; undefined for a model none was chosen for. */
export function calibrationFor(modelId: string, band?: [number, number]): VerdictCalibration | undefined {
  const c = CALIBRATIONS[modelId];
  return c && band ? { ...c, band, rule: `${c.rule}; band set on the node` } : c;
}
