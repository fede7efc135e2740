/** Calibration of a verifier's scores: Platt scaling, the cannot-tell band, and the risk–coverage curve. */
import { rocAuc } from "./classification.js";

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * Platt scaling: slope and intercept of P(positive) = sigmoid(slope · score + intercept), fitted by
 * Newton's method on the log-loss with Platt's smoothed targets (so separable data stays finite).
 */
export function fitPlatt(items: Array<{ score: number; positive: boolean }>): { slope: number; intercept: number } {
  if (items.length === 0) throw new Error("no scored items to calibrate on");
  const pos = items.filter((x) => x.positive).length;
  const neg = items.length - pos;
  const hi = (pos + 1) / (pos + 2);
  const lo = 1 / (neg + 2);
  let a = 0;
  let b = Math.log((pos + 1) / (neg + 1));
  for (let iter = 0; iter < 100; iter++) {
    let ga = 0;
    let gb = 0;
    let haa = 1e-9;
    let hab = 0;
    let hbb = 1e-9;
    for (const x of items) {
      const p = sigmoid(a * x.score + b);
      const d = p - (x.positive ? hi : lo);
      const w = p * (1 - p);
      ga += d * x.score;
      gb += d;
      haa += w * x.score * x.score;
      hab += w * x.score;
      hbb += w;
    }
    const det = haa * hbb - hab * hab;
    if (Math.abs(det) < 1e-15) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a -= da;
    b -= db;
    if (Math.abs(da) + Math.abs(db) < 1e-10) break;
  }
  return { slope: a, intercept: b };
}

/** One point of a risk–coverage curve: the verdicts given at a confidence cut, and how many were right. */
export interface CoveragePoint {
  /** Confidence at or above which a verdict is given. */
  confidence: number;
  given: number;
  coverage: number;
  /** Accuracy of the verdicts given (undefined when none is). */
  accuracy: number | undefined;
}

/**
 * The risk–coverage curve: items by confidence, most confident first; at each distinct confidence,
 * the share given a verdict and the accuracy of those verdicts (selective classification).
 */
export function riskCoverage(items: Array<{ confidence: number; correct: boolean }>): CoveragePoint[] {
  const s = [...items].sort((a, b) => b.confidence - a.confidence);
  const out: CoveragePoint[] = [];
  let right = 0;
  s.forEach((x, i) => {
    right += x.correct ? 1 : 0;
    if (i + 1 < s.length && s[i + 1]!.confidence === x.confidence) return;
    out.push({ confidence: x.confidence, given: i + 1, coverage: (i + 1) / s.length, accuracy: right / (i + 1) });
  });
  return out;
}

/** The accuracy at a coverage (the first curve point that reaches it), for a table of fixed coverages. */
export function accuracyAtCoverage(curve: CoveragePoint[], coverage: number): number | undefined {
  return curve.find((p) => p.coverage >= coverage - 1e-12)?.accuracy;
}

/**
 * The cannot-tell band on calibrated P(supported) that gives verdicts for the most items while those
 * verdicts are right at least `target` of the time: SUPPORT at pSupport ≥ high, CONTRADICT at ≤ low.
 * Searched over the items' own probabilities (cuts between neighbours); ties broken toward the
 * narrower band. Choose it on items you do not report on. Undefined when no band reaches the target
 * with at least `minGiven` verdicts.
 */
export function chooseBand(items: Array<{ pSupport: number; positive: boolean }>, target: number, minGiven = 1): { band: [number, number]; coverage: number; accuracy: number } | undefined {
  const ps = [...new Set(items.map((x) => x.pSupport))].sort((a, b) => a - b);
  const cuts = [0, ...ps.slice(0, -1).map((p, i) => (p + ps[i + 1]!) / 2), 1];
  let best: { band: [number, number]; coverage: number; accuracy: number } | undefined;
  for (const low of cuts)
    for (const high of cuts) {
      if (high < low) continue;
      let given = 0;
      let right = 0;
      for (const x of items) {
        if (x.pSupport >= high && x.pSupport > low) {
          given++;
          right += x.positive ? 1 : 0;
        } else if (x.pSupport <= low && x.pSupport < high) {
          given++;
          right += x.positive ? 0 : 1;
        }
      }
      if (given < minGiven || right / given < target) continue;
      const coverage = given / items.length;
      if (!best || coverage > best.coverage || (coverage === best.coverage && high - low < best.band[1] - best.band[0])) best = { band: [low, high], coverage, accuracy: right / given };
    }
  return best;
}

/** What a calibrated verifier gave on a set of claims: the verdicts outside its band, how many were right, and its risk–coverage. */
export interface SelectiveScores {
  /** Claims given a verdict: SUPPORT or CONTRADICT outside the cannot-tell band (and NO_EVIDENCE where it counts as one). */
  given: number;
  claims: number;
  coverage: number;
  /** Accuracy of the verdicts given (undefined when none was). */
  accuracy_given: number | undefined;
  /** Claims whose verdict was NO_EVIDENCE (below the evidence floor), whether or not they count as given. */
  no_evidence: number;
  band: [number, number];
  evidence_floor?: number;
  rule: string;
  /** Accuracy of the forced choice on the most confident 10 %, 20 %, … of the claims. */
  at_coverage: Record<string, number | null>;
}

type Calibrated = { label: string; calibration?: { confidence: number; band: [number, number]; forced: string; rule: string; evidenceFloor?: number } };

/**
 * A calibrated verifier's verdicts scored against gold: a verdict is right when its label is the gold one (on a claim
 * without evidence SUPPORT and CONTRADICT are both wrong); CANNOT_TELL is no verdict, and so is NO_EVIDENCE unless
 * `noEvidenceIsVerdict` (3-way gold, where it can be right; on true/false claims it says neither). Undefined unless
 * every claim's verdict carries a calibration.
 */
export function selectiveScores(items: Array<{ gold: string; verdict?: Calibrated }>, noEvidenceIsVerdict = false): SelectiveScores | undefined {
  if (items.length === 0 || items.some((x) => !x.verdict?.calibration)) return undefined;
  const counts = (label: string) => label === "SUPPORT" || label === "CONTRADICT" || (noEvidenceIsVerdict && label === "NO_EVIDENCE");
  const given = items.filter((x) => counts(x.verdict!.label));
  const right = given.filter((x) => x.verdict!.label === x.gold).length;
  const curve = riskCoverage(items.map((x) => ({ confidence: x.verdict!.calibration!.confidence, correct: x.verdict!.calibration!.forced === x.gold })));
  const first = items[0]!.verdict!.calibration!;
  return {
    given: given.length,
    claims: items.length,
    coverage: given.length / items.length,
    accuracy_given: given.length ? right / given.length : undefined,
    no_evidence: items.filter((x) => x.verdict!.label === "NO_EVIDENCE").length,
    band: first.band,
    ...(first.evidenceFloor !== undefined ? { evidence_floor: first.evidenceFloor } : {}),
    rule: first.rule,
    at_coverage: Object.fromEntries([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1].map((c) => [c.toFixed(1), accuracyAtCoverage(curve, c) ?? null])),
  };
}

/**
 * The evidence floor on claims' evidence strengths (the largest SUPPORT or CONTRADICT probability of what was read):
 * the geometric middle of the widest gap between sorted log strengths below the median, when it spans at least ×3 —
 * where claims whose passages say nothing the model can read fall apart from those that say something. Undefined
 * when there is no such gap.
 */
export function evidenceFloor(strengths: number[]): number | undefined {
  const s = strengths.map((x) => Math.max(x, 1e-6)).sort((a, b) => a - b);
  const below = s.slice(0, Math.ceil(s.length / 2) + 1);
  let best: { gap: number; floor: number } | undefined;
  for (let i = 1; i < below.length; i++) {
    const gap = Math.log(below[i]!) - Math.log(below[i - 1]!);
    if (!best || gap > best.gap) best = { gap, floor: Math.sqrt(below[i]! * below[i - 1]!) };
  }
  return best && best.gap >= Math.log(3) ? best.floor : undefined;
}

/** A calibration chosen on dev claims, and the dev figures it was chosen on. */
export interface CalibrationChoice {
  slope: number;
  intercept: number;
  band: [number, number];
  evidenceFloor?: number;
  claims: number;
  /** Claims under the floor: NO_EVIDENCE, left out of the fit. */
  belowFloor: number;
  /** Of the claims fitted on: how many are true, the score's AUC, the verdicts the band gives and how many are right. */
  fitted: number;
  positives: number;
  auc: number | undefined;
  given: number;
  accuracy: number;
  /** Accuracy of the forced choice on the most confident share of the fitted claims. */
  atCoverage: Record<string, number | null>;
}

/**
 * Chooses a verifier's calibration on dev claims (never on the ones reported): the evidence floor when every claim has
 * an evidence strength (NLI; see evidenceFloor), Platt scaling of the support score on the claims above it, and the
 * cannot-tell band that gives verdicts for the most of them while those are right at least `target` of the time, with
 * at least a fifth of all claims given one. Undefined when no band reaches the target.
 */
export function chooseCalibration(all: Array<{ score: number; positive: boolean; evidence?: number }>, target: number): CalibrationChoice | undefined {
  if (all.length === 0) throw new Error("no claims to calibrate on");
  const floor = all.every((x) => x.evidence !== undefined) ? evidenceFloor(all.map((x) => x.evidence!)) : undefined;
  const items = floor === undefined ? all : all.filter((x) => x.evidence! >= floor);
  const { slope, intercept } = fitPlatt(items);
  const p = items.map((x) => ({ pSupport: sigmoid(slope * x.score + intercept), positive: x.positive }));
  const chosen = chooseBand(p, target, Math.ceil(all.length / 5));
  if (!chosen) return undefined;
  const curve = riskCoverage(p.map((x) => ({ confidence: Math.max(x.pSupport, 1 - x.pSupport), correct: x.pSupport >= 0.5 === x.positive })));
  return {
    slope,
    intercept,
    band: chosen.band,
    ...(floor !== undefined ? { evidenceFloor: floor } : {}),
    claims: all.length,
    belowFloor: all.length - items.length,
    fitted: items.length,
    positives: items.filter((x) => x.positive).length,
    auc: rocAuc(items),
    given: Math.round(chosen.coverage * items.length),
    accuracy: chosen.accuracy,
    atCoverage: Object.fromEntries([0.2, 0.4, 0.5, 0.6, 0.8, 1].map((c) => [c.toFixed(1), accuracyAtCoverage(curve, c) ?? null])),
  };
}
