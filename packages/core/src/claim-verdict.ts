import type { Claim, Verdict } from "./values.js";

/**
 * How a verifier's scores become a claim-level verdict it can stand behind: P(supported) =
 * sigmoid(slope · score + intercept) (Platt scaling of the claim's support score), and a band of
 * P(supported) in which it says CANNOT_TELL rather than a label it is not sure of. Chosen on
 * claims no model trained on and no figure is reported on (a dev split).
 */
export interface VerdictCalibration {
  slope: number;
  intercept: number;
  /** P(supported) strictly between these: CANNOT_TELL. */
  band: [number, number];
  /** Which model and which claims it was chosen on, shown with every verdict it gives. */
  rule: string;
  /**
   * NLI models: when no sentence read gives SUPPORT or CONTRADICT even this probability (the claim's evidence strength,
   * `nliEvidenceStrength`), the verdict is NO_EVIDENCE — what it was checked against says nothing the model can read
   * about it — whatever its support score (near 0 then, so its P(supported) is the prior's, not evidence).
   */
  evidenceFloor?: number;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** The verdicts the NLI model scored (both SUPPORT and CONTRADICT probabilities; not NO_REFERENCE). */
const scoredVerdicts = (verdicts: Verdict[]) => verdicts.filter((v) => v.probabilities.SUPPORT !== undefined && v.probabilities.CONTRADICT !== undefined);

/**
 * A claim's support score from its sentence-level NLI verdicts (one per passage it was checked
 * against): the strongest SUPPORT probability less the strongest CONTRADICT probability, in [−1, 1].
 * Undefined when no verdict was scored (nothing it cites was retrieved).
 */
export function nliSupportScore(verdicts: Verdict[]): number | undefined {
  const scored = scoredVerdicts(verdicts);
  if (scored.length === 0) return undefined;
  return Math.max(...scored.map((v) => v.probabilities.SUPPORT!)) - Math.max(...scored.map((v) => v.probabilities.CONTRADICT!));
}

/**
 * A claim's evidence strength: the largest SUPPORT or CONTRADICT probability of any sentence it was checked against,
 * in [0, 1]; undefined when none was scored.
 */
export function nliEvidenceStrength(verdicts: Verdict[]): number | undefined {
  const scored = scoredVerdicts(verdicts);
  if (scored.length === 0) return undefined;
  return Math.max(...scored.map((v) => Math.max(v.probabilities.SUPPORT!, v.probabilities.CONTRADICT!)));
}

/** The caveat a question verdict carries when it cannot tell: what the answer quotes may be true of its passages and still not answer the question. */
export const QUESTION_CAVEAT = "the quoted sentences may not answer the question";

/**
 * A claim-level verdict from its support score through a calibration: SUPPORT or CONTRADICT outside the band,
 * CANNOT_TELL inside it; NO_EVIDENCE before either when its evidence strength is below the calibration's floor.
 */
export function calibratedVerdict(claimId: string, score: number, c: VerdictCalibration, evidence?: number): Verdict {
  const pSupport = sigmoid(c.slope * score + c.intercept);
  const forced = pSupport >= 0.5 ? "SUPPORT" : "CONTRADICT";
  const floor = evidence !== undefined && c.evidenceFloor !== undefined ? { evidence, evidenceFloor: c.evidenceFloor } : undefined;
  const label = floor && floor.evidence < floor.evidenceFloor ? "NO_EVIDENCE" : pSupport >= c.band[1] ? "SUPPORT" : pSupport <= c.band[0] ? "CONTRADICT" : "CANNOT_TELL";
  const confidence = label === "SUPPORT" ? pSupport : label === "CONTRADICT" ? 1 - pSupport : Math.max(pSupport, 1 - pSupport);
  return { claimId, label, probabilities: { SUPPORT: pSupport, CONTRADICT: 1 - pSupport }, calibration: { pSupport, confidence, band: c.band, forced, rule: c.rule, ...floor } };
}

/**
 * Each claim's verdict from its sentence-level NLI verdicts: NO_REFERENCE when nothing it cites
 * could be read; else the calibrated verdict of its support score (NO_EVIDENCE below the calibration's evidence
 * floor), or, without a calibration for
 * the model, the strongest of its verdicts' SUPPORT and CONTRADICT (NO_EVIDENCE when none) with no
 * cannot-tell band.
 */
export function claimVerdicts(claims: Claim[], verdicts: Verdict[], calibration: VerdictCalibration | undefined): Verdict[] {
  return claims.map((claim) => {
    const own = verdicts.filter((v) => v.claimId === claim.id);
    const score = nliSupportScore(own);
    if (score === undefined) return { claimId: claim.id, label: "NO_REFERENCE", probabilities: {} };
    if (calibration) return calibratedVerdict(claim.id, score, calibration, nliEvidenceStrength(own));
    const best = own.reduce<Verdict | undefined>((b, v) => {
      if (v.label !== "SUPPORT" && v.label !== "CONTRADICT") return b;
      return !b || v.probabilities[v.label]! > b.probabilities[b.label]! ? v : b;
    }, undefined);
    return { claimId: claim.id, label: best?.label ?? "NO_EVIDENCE", probabilities: best ? { ...best.probabilities } : {} };
  });
}
