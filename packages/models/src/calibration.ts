import { existsSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { VerdictCalibration } from "@citeflow/core";
import { findAdapter, splitAdapter } from "./adapter.js";
import { resolveModel } from "./resolve.js";
import { fileSha256, ModelIntegrityError, readSmallFile, readSums, SUMS_FILE, verifyModelFiles } from "./sums.js";

/**
 * A verifier's claim-verdict calibration lives with the model it was chosen for: `calibration.json`
 * in its folder (an NLI model's, or a judge adapter's beside adapter.gguf), written by
 * `citeflow calibrate` from records on a dev split and listed in the folder's SHA256SUMS, so it is
 * checked where it loads like the weights. A model without one gives uncalibrated verdicts.
 */
export const CALIBRATION_FILE = "calibration.json";

/** What a calibration was chosen on, kept beside it (shown on the model's card). */
export interface CalibrationProvenance {
  /** The records file's name and sha256 (`citeflow eval scifact --binary --out`). */
  records: { file: string; sha256: string };
  claims: number;
  target: number;
  /** Verdicts given on the dev claims at the band, and their accuracy. */
  given: number;
  accuracy: number;
  auc?: number;
  /** Claims under the evidence floor (NO_EVIDENCE on dev). */
  belowFloor?: number;
  at: string;
}

export interface CalibrationFile extends VerdictCalibration {
  chosenOn?: CalibrationProvenance;
}

/** A calibration file is a page of numbers: larger ones are refused unread. */
const MAX_BYTES = 16 * 1024;

const finite = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);
const unit = (x: unknown): x is number => finite(x) && x >= 0 && x <= 1;

/** A calibration read from JSON, checked field by field; an error names the file and the field. */
export function parseCalibration(text: string, file: string): CalibrationFile {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: not JSON (${(e as Error).message})`, { cause: e });
  }
  const bad = (field: string, want: string) => new Error(`${file}: ${field} must be ${want}`);
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error(`${file}: not a JSON object`);
  const c = v as Record<string, unknown>;
  if (!finite(c.slope)) throw bad("slope", "a finite number");
  if (!finite(c.intercept)) throw bad("intercept", "a finite number");
  const band = c.band;
  if (!Array.isArray(band) || band.length !== 2 || !unit(band[0]) || !unit(band[1]) || band[0] > band[1]) throw bad("band", "[low, high] with 0 ≤ low ≤ high ≤ 1");
  if (typeof c.rule !== "string" || c.rule.trim() === "" || c.rule.length > 500) throw bad("rule", "a text of 1 to 500 characters (the model, and the claims it was chosen on)");
  if (c.evidenceFloor !== undefined && !unit(c.evidenceFloor)) throw bad("evidenceFloor", "a number between 0 and 1");
  return {
    slope: c.slope,
    intercept: c.intercept,
    band: [band[0], band[1]],
    rule: c.rule,
    ...(c.evidenceFloor !== undefined ? { evidenceFloor: c.evidenceFloor } : {}),
    ...(c.chosenOn && typeof c.chosenOn === "object" ? { chosenOn: c.chosenOn as CalibrationProvenance } : {}),
  };
}

/** The calibration in a model's folder, checked against its sums; undefined when it has none. */
export function readCalibration(folder: string): CalibrationFile | undefined {
  const path = join(folder, CALIBRATION_FILE);
  if (!existsSync(path)) return undefined;
  verifyModelFiles(folder, [CALIBRATION_FILE], true);
  const { chosenOn: _, ...calibration } = parseCalibration(readSmallFile(path, MAX_BYTES), path);
  return calibration;
}

/**
 * The folder of an installed model a name means, or undefined: `base+adapter` → the adapter's
 * folder; an id → `<models folder>/<id>` (the first that holds it as an ONNX model, else as an
 * adapter); a model only in the download cache or on the hub has no folder here.
 */
export function modelFolder(name: string, modelsDirs: string[]): string | undefined {
  const adapter = splitAdapter(name).adapter;
  if (!adapter)
    try {
      const { localDir } = resolveModel(name, { modelsDirs, allowDownloads: false });
      if (localDir) return join(localDir, name);
    } catch {
      // not an ONNX model here: perhaps an adapter
    }
  const path = findAdapter(adapter ?? name, modelsDirs);
  return path && dirname(path);
}

/**
 * How a model's line says it is calibrated: "; claim verdicts calibrated: <its rule>", "" without a calibration, or why
 * its calibration.json is refused (a changed one is the model's integrity error, thrown).
 */
export function calibrationNote(folder: string): string {
  try {
    const calibration = readCalibration(folder);
    return calibration ? `; claim verdicts calibrated: ${calibration.rule}` : "";
  } catch (e) {
    if (e instanceof ModelIntegrityError) throw e;
    return `; its calibration is refused (${(e as Error).message})`;
  }
}

/** The calibration of the installed model a name means (see modelFolder); undefined for one without. */
export function installedCalibration(name: string, modelsDirs: string[]): VerdictCalibration | undefined {
  const folder = modelFolder(name, modelsDirs);
  return folder ? readCalibration(folder) : undefined;
}

/**
 * What an installed model's results depend on: the sha256 of each of its files that exist
 * (`files`, relative to its folder, and its calibration), so a model retrained or recalibrated
 * under the same id recomputes cached results. Files are hashed once a process (by identity).
 */
export function folderDigest(folder: string, files: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of [...files, CALIBRATION_FILE]) {
    const path = join(folder, f);
    if (existsSync(path)) out[f] = fileSha256(path);
  }
  return out;
}

/** Writes a file whole or not at all: beside it first, then renamed over it. */
function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/**
 * Writes a calibration into a model's folder and, when the folder has sums, its line in SHA256SUMS
 * (the rest of the model is checked first: a calibration is not written onto a damaged model).
 */
export function writeCalibration(folder: string, calibration: CalibrationFile): string {
  const sums = readSums(folder);
  if (sums) for (const [file] of sums) if (file !== CALIBRATION_FILE) verifyModelFiles(folder, [file], true);
  const path = join(folder, CALIBRATION_FILE);
  parseCalibration(JSON.stringify(calibration), path);
  writeAtomic(path, `${JSON.stringify(calibration, null, 2)}\n`);
  if (sums) {
    sums.set(CALIBRATION_FILE, fileSha256(path));
    writeAtomic(join(folder, SUMS_FILE), [...sums].map(([file, sum]) => `${sum}  ${file}\n`).join(""));
  }
  return path;
}
