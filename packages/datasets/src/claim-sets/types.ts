import { createHash } from "node:crypto";

/** Citeflow's NLI labels, as `citeflow export --format nli` writes them. */
export type PairLabel = "SUPPORT" | "NO_EVIDENCE" | "CONTRADICT";

/** One labelled (claim, evidence) pair from a claim-verification set. */
export interface ImportedPair {
  premise: string;
  hypothesis: string;
  label: PairLabel;
  /** The set's own split ("train", "dev", "test"), or the fixed hash split for a set that has none. */
  split: string;
  /** Where the pair came from in the set: its id, or file:line. */
  id: string;
  /** The label as the set writes it. */
  originalLabel: string;
  /** For rows read back from an import or an export: the set they came from (`metadata.source`). */
  source?: string;
}

/** A row that could not be read: where (file:line) and why. */
export interface ImportProblem {
  where: string;
  problem: string;
}

export interface ReadResult {
  pairs: ImportedPair[];
  problems: ImportProblem[];
  /** Rows left out on purpose, by reason (e.g. FEVER's not_entailment): counted on the card. */
  leftOut: Record<string, number>;
}

/** A claim-verification set's reader and what its card says about it. */
export interface ClaimSet {
  kind: string;
  title: string;
  /** The paper and where the set is published. */
  origin: string;
  /** The licence the source states, or "none stated by the source". */
  licence: string;
  /** The set's labels → Citeflow's; null: left out (named in `notes`). */
  labels: Record<string, PairLabel | null>;
  /** How premises are built and which split is which, for the card. */
  notes: string[];
  read(path: string): Promise<ReadResult>;
}

/**
 * The label a set's raw label maps to: a Citeflow label, null when the set's mapping leaves it out,
 * or undefined when the label is outside the mapping (a problem to report).
 */
export function mapLabel(set: Pick<ClaimSet, "labels">, raw: unknown): PairLabel | null | undefined {
  if (typeof raw !== "string") return undefined;
  return Object.hasOwn(set.labels, raw) ? set.labels[raw]! : undefined;
}

/** The fixed split for sets without their own: a tenth held out as "test" by the SHA-256 of a key (the claim), the rest "train". */
export function hashSplit(key: string): "train" | "test" {
  return createHash("sha256").update(key).digest()[0]! % 10 === 0 ? "test" : "train";
}

/** A line of a JSON Lines file, or the problem with it. */
export function jsonLines(text: string, file: string): Array<{ where: string; row?: Record<string, unknown>; problem?: string }> {
  const out: Array<{ where: string; row?: Record<string, unknown>; problem?: string }> = [];
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    const where = `${file}:${i + 1}`;
    try {
      const row = JSON.parse(line) as unknown;
      if (row && typeof row === "object" && !Array.isArray(row)) out.push({ where, row: row as Record<string, unknown> });
      else out.push({ where, problem: "not a JSON object" });
    } catch (e) {
      out.push({ where, problem: `not valid JSON (${(e as Error).message})` });
    }
  });
  return out;
}

/** The JSON objects of a JSON Lines text, each with where it is; a line that is not one goes to `r.problems`. */
export function objectRows(r: ReadResult, text: string, file: string): Array<{ where: string; row: Record<string, unknown> }> {
  return jsonLines(text, file).flatMap((l) => {
    if (l.row) return [{ where: l.where, row: l.row }];
    r.problems.push({ where: l.where, problem: l.problem! });
    return [];
  });
}

/** A non-empty string field, trimmed, or undefined. */
export function text(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}

/** An empty result to fill. */
export const emptyResult = (): ReadResult => ({ pairs: [], problems: [], leftOut: {} });

/** Counts a row left out on purpose. */
export function leaveOut(r: ReadResult, reason: string): void {
  r.leftOut[reason] = (r.leftOut[reason] ?? 0) + 1;
}

/** Reports a label outside the set's mapping. */
export function badLabel(set: Pick<ClaimSet, "labels">, raw: unknown, where: string): ImportProblem {
  return { where, problem: `label ${JSON.stringify(raw)} is not one of ${Object.keys(set.labels).join(", ")}` };
}
