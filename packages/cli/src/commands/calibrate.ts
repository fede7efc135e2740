import { existsSync, statSync } from "node:fs";
import { readRegularFile } from "@citeflow/runstore";
import { basename, join } from "node:path";
import { nliEvidenceStrength, nliSupportScore, type Verdict } from "@citeflow/core";
import { chooseCalibration } from "@citeflow/eval";
import { fileSha256, modelFolder, modelsDirsFromEnv, writeCalibration, type CalibrationFile } from "@citeflow/models";
import { FailureError, UsageError } from "../errors.js";

export interface CalibrateOptions {
  records: string;
  /** The model the records were made with: an NLI model's id, or a judge adapter's (its id or `<base>+<adapter>`). */
  model: string;
  modelsDir?: string;
  /** The accuracy the verdicts given must reach on the records' claims. */
  target: number;
  /** Shown with every verdict: the model, and the claims it was chosen on; default says both. */
  rule?: string;
  /** Print the calibration without writing it. */
  dryRun?: boolean;
  json?: boolean;
}

/** One dev claim's support score, truth and (NLI) evidence strength, from an `eval scifact --binary --out` record. */
function readRecords(file: string) {
  let text;
  try {
    text = readRegularFile(file);
  } catch (e) {
    throw new FailureError(`${file}: ${(e as Error).message}`);
  }
  const items = text.split("\n").flatMap((line, i) => {
    if (!line.trim()) return [];
    const where = `${file}:${i + 1}`;
    let r: { gold?: unknown; score?: unknown; verdicts?: unknown };
    try {
      r = JSON.parse(line);
    } catch (e) {
      throw new FailureError(`${where}: not valid JSON (${(e as Error).message})`);
    }
    if (r.gold !== "true" && r.gold !== "false") throw new FailureError(`${where}: gold must be "true" or "false" (records of citeflow eval scifact --binary --out)`);
    const verdicts = Array.isArray(r.verdicts) ? (r.verdicts as Verdict[]) : [];
    // verify.nli's records carry a sentence verdict per passage read; verify.llm's its log P(true) − log P(false).
    const nli = verdicts.some((v) => typeof v === "object" && v !== null && typeof v.passageId === "string");
    const score = nli ? nliSupportScore(verdicts) : r.score;
    if (typeof score !== "number" || !Number.isFinite(score))
      throw new FailureError(`${where}: no support score (was it run with --binary and a scoring verifier: verify.nli, or verify.llm in-process?)`);
    return [{ score, positive: r.gold === "true", nli, ...(nli ? { evidence: nliEvidenceStrength(verdicts) } : {}) }];
  });
  if (items.length === 0) throw new FailureError(`${file}: no records`);
  if (new Set(items.map((x) => x.nli)).size > 1) throw new FailureError(`${file}: records of both verify.nli and verify.llm: calibrate one verifier's records at a time`);
  return items;
}

const isFile = (path: string) => existsSync(path) && statSync(path).isFile();
const f3 = (x: number | undefined | null) => (x === undefined || x === null ? "–" : x.toFixed(3));
const round = (x: number) => Math.round(x * 1e4) / 1e4;

/**
 * `citeflow calibrate`: chooses a verifier's claim-verdict calibration on dev records (Platt scaling, the cannot-tell
 * band, and for NLI the evidence floor) and writes it into the model's folder as calibration.json (and its line in
 * the folder's SHA256SUMS), where verify.nli and verify.llm read it. Choose it on claims the model never trained on
 * and you will not report on.
 */
export async function calibrateCommand(o: CalibrateOptions): Promise<number> {
  if (!(o.target > 0.5 && o.target < 1)) throw new UsageError("--target: an accuracy between 0.5 and 1 (the verdicts given must be right this often)");
  const items = readRecords(o.records);
  const nli = items[0]!.nli;
  const dirs = o.modelsDir ? [o.modelsDir] : modelsDirsFromEnv(process.env);
  const folder = modelFolder(o.model, dirs);
  if (!folder) throw new FailureError(`model "${o.model}": no installed model or adapter of that name in ${dirs.join(", ")} (a calibration is written into the model's folder)`);
  const isAdapter = !nli && isFile(join(folder, "adapter.gguf"));
  if (nli !== isFile(join(folder, "config.json")) || (!nli && !isAdapter))
    throw new FailureError(
      `${o.records} holds ${nli ? "verify.nli" : "verify.llm"} records, but ${folder} is ${nli ? "not an NLI model's folder (no config.json)" : "not a judge adapter's folder (no adapter.gguf)"}`,
    );
  const choice = chooseCalibration(items, o.target);
  if (!choice)
    throw new FailureError(
      `no cannot-tell band gives verdicts right ${o.target} of the time for a fifth of the ${items.length} claims in ${o.records}: no calibration written (a weaker target, or a better model)`,
    );
  const calibration: CalibrationFile = {
    slope: round(choice.slope),
    intercept: round(choice.intercept),
    band: [round(choice.band[0]), round(choice.band[1])],
    ...(choice.evidenceFloor !== undefined ? { evidenceFloor: round(choice.evidenceFloor) } : {}),
    rule:
      o.rule ??
      `${o.model}, calibrated on ${basename(o.records)} (${items.length} claims; citeflow calibrate, target ${o.target}${choice.evidenceFloor !== undefined ? ", evidence floor at the records' gap" : ""})`,
    chosenOn: {
      records: { file: basename(o.records), sha256: fileSha256(o.records) },
      claims: choice.claims,
      target: o.target,
      given: choice.given,
      accuracy: round(choice.accuracy),
      ...(choice.auc !== undefined ? { auc: round(choice.auc) } : {}),
      ...(choice.evidenceFloor !== undefined ? { belowFloor: choice.belowFloor } : {}),
      at: new Date().toISOString(),
    },
  };
  const path = o.dryRun ? undefined : writeCalibration(folder, calibration);
  if (o.json) process.stdout.write(JSON.stringify({ ...calibration, ...(path ? { written: path } : {}), atCoverage: choice.atCoverage }) + "\n");
  else {
    const lines = [
      ...(choice.evidenceFloor !== undefined
        ? [`evidence floor ${choice.evidenceFloor.toFixed(4)}: ${choice.belowFloor} of ${choice.claims} claims below it (NO_EVIDENCE)`]
        : nli
          ? ["no evidence floor: the records' evidence strengths show no gap of ×3 below their median"]
          : []),
      `fitted on ${choice.fitted} claims, ${choice.positives} true (always "true": ${f3(choice.positives / choice.fitted)}); AUC of the score ${f3(choice.auc)}`,
      `Platt: P(supported) = sigmoid(${calibration.slope} · score + ${calibration.intercept})`,
      `forced choice, most confident first: ${Object.entries(choice.atCoverage)
        .map(([c, a]) => `${c} → ${f3(a)}`)
        .join(" · ")}`,
      `CANNOT_TELL for P(supported) in (${calibration.band[0]}, ${calibration.band[1]}): verdicts for ${choice.given} of ${choice.claims} claims, ${f3(choice.accuracy)} right (target ${o.target})`,
      path ? `written: ${path}` : "not written (--dry-run)",
    ];
    process.stdout.write(lines.join("\n") + "\n");
  }
  return 0;
}
