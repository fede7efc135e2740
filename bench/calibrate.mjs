// Chooses a verifier's calibration on the dev split, never on the held-out one: Platt scaling of each claim's support
// score (verify.nli: the strongest SUPPORT less the strongest CONTRADICT of its passages' sentences; verify.llm: its
// log P(true) − log P(false)) and the cannot-tell band that gives verdicts for the most dev claims while those verdicts
// are right at least TARGET of the time. For verify.nli, first the evidence floor: claims whose sentences give neither
// SUPPORT nor CONTRADICT any weight (evidence strength, the largest of either probability) are NO_EVIDENCE, not a
// verdict from a support score near 0; the floor is where dev's strengths fall apart (the widest gap, in log terms,
// below their median, when it spans at least a factor of 3), and Platt and the band are then fitted on the claims
// above it. Prints the calibration to paste into packages/nodes/src/shared/calibration.ts,
// and the dev figures it was chosen on.
//
//   node packages/cli/dist/bin.js eval scifact --claims <dev claims> --store <store> --binary --out dev.jsonl [--judge llm]
//   node bench/calibrate.mjs dev.jsonl "<rule: model, and the claims it was chosen on>" [target, default 0.85]
//
// The dev claims: the SciFact training claims in bench/scifact-dev.json (claims with evidence; the model calibrated must
// not have trained on them: `citeflow train nli --leave-out bench/scifact-dev.json`).
import { readFileSync } from "node:fs";
import { nliEvidenceStrength, nliSupportScore } from "@citeflow/core";
import { chooseBand, fitPlatt, riskCoverage, rocAuc } from "@citeflow/eval";

const [file, rule, target = "0.85"] = process.argv.slice(2);
if (!file || !rule) {
  console.error('usage: node bench/calibrate.mjs <eval scifact --binary --out records> "<rule>" [target accuracy]');
  process.exit(2);
}
const records = readFileSync(file, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l));
// The claim's support score: verify.nli's sentence verdicts (one per passage), else the judge's log-odds.
const isNli = (r) => r.verdicts.some((v) => v.passageId);
const scoreOf = (r) => (isNli(r) ? nliSupportScore(r.verdicts) : r.score);
const all = records.map((r) => ({ score: scoreOf(r), positive: r.gold === "true", evidence: isNli(r) ? nliEvidenceStrength(r.verdicts) : undefined }));
if (all.some((x) => x.score === undefined)) throw new Error(`${file}: a claim without a score (was it run with --binary and a scoring verifier?)`);

/** The evidence floor: the geometric middle of the widest gap between sorted log strengths below the median, if it spans ×3. */
function evidenceFloor(strengths) {
  const s = strengths.map((x) => Math.max(x, 1e-6)).sort((a, b) => a - b);
  const below = s.slice(0, Math.ceil(s.length / 2) + 1);
  let best;
  for (let i = 1; i < below.length; i++) {
    const gap = Math.log(below[i]) - Math.log(below[i - 1]);
    if (!best || gap > best.gap) best = { gap, floor: Math.sqrt(below[i] * below[i - 1]) };
  }
  return best && best.gap >= Math.log(3) ? best.floor : undefined;
}
const floor = all.every((x) => x.evidence !== undefined) ? evidenceFloor(all.map((x) => x.evidence)) : undefined;
if (floor !== undefined) {
  const under = all.filter((x) => x.evidence < floor);
  console.log(`evidence floor ${floor.toFixed(4)}: ${under.length} of ${all.length} dev claims below it (NO_EVIDENCE; ${under.filter((x) => x.positive).length} of them true)`);
} else if (all[0]?.evidence !== undefined) console.log("no evidence floor: dev's evidence strengths show no gap of ×3 below their median");
const items = floor === undefined ? all : all.filter((x) => x.evidence >= floor);
const { slope, intercept } = fitPlatt(items);
const p = items.map((x) => ({ pSupport: 1 / (1 + Math.exp(-(slope * x.score + intercept))), positive: x.positive }));
const chosen = chooseBand(p, Number(target), Math.ceil(all.length / 5));
const positives = items.filter((x) => x.positive).length;
console.log(
  `dev: ${items.length} claims${floor === undefined ? "" : " above the floor"}, ${positives} true (always "true": ${(positives / items.length).toFixed(3)}); AUC of the score ${rocAuc(items).toFixed(3)}`,
);
console.log(`Platt: P(supported) = sigmoid(${slope.toFixed(4)} · score + ${intercept.toFixed(4)})`);
const curve = riskCoverage(p.map((x) => ({ confidence: Math.max(x.pSupport, 1 - x.pSupport), correct: x.pSupport >= 0.5 === x.positive })));
console.log("risk–coverage on dev (forced choice, most confident first):");
for (const c of [0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1]) console.log(`  coverage ${c.toFixed(1)}: accuracy ${curve.find((x) => x.coverage >= c - 1e-12).accuracy.toFixed(3)}`);
if (!chosen) {
  console.log(`no band gives verdicts right ${target} of the time for a fifth of the dev claims: no calibration for this verifier`);
  process.exit(1);
}
console.log(
  `band at target ${target}: CANNOT_TELL for P(supported) in (${chosen.band[0].toFixed(4)}, ${chosen.band[1].toFixed(4)}); verdicts for ${(chosen.coverage * items.length).toFixed(0)} of ${all.length} dev claims, right ${chosen.accuracy.toFixed(3)}`,
);
const round = (x) => Math.round(x * 1e4) / 1e4;
console.log(JSON.stringify({ slope: round(slope), intercept: round(intercept), band: chosen.band.map(round), rule, ...(floor === undefined ? {} : { evidenceFloor: round(floor) }) }, null, 2));
