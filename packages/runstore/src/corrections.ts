import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { randomBytes } from "node:crypto";
import { appendLines, ensureDir, readRegularFile } from "./fsutil.js";

/** A user's correction of one output of one run. The run itself is never changed. */
export type Correction =
  | { kind: "verdict"; nodeId: string; claimId: string; passageId?: string; label: "SUPPORT" | "CONTRADICT" | "NO_EVIDENCE" | "NO_REFERENCE"; note?: string }
  | { kind: "answer"; nodeId: string; text: string; note?: string }
  | { kind: "relevance"; nodeId: string; passageId: string; relevant: boolean; note?: string };

export type StoredCorrection = Correction & { id: string; runId: string; at: number };

export const CORRECTION_LABELS = ["SUPPORT", "CONTRADICT", "NO_EVIDENCE", "NO_REFERENCE"] as const;

/** A corrections line that could not be used: where it is and why. */
export interface CorrectionProblem {
  file: string;
  line: number;
  message: string;
}

const str = (v: unknown) => typeof v === "string";

/** Why a parsed line is not a stored correction, or undefined when it is one. */
function invalid(c: Record<string, unknown>): string | undefined {
  if (!str(c.id) || !str(c.runId) || !str(c.nodeId) || typeof c.at !== "number") return "needs id, runId, nodeId (strings) and at (a number)";
  if (c.note !== undefined && !str(c.note)) return `"note" is not text`;
  if (c.kind === "verdict")
    return str(c.claimId) && CORRECTION_LABELS.includes(c.label as never) && (c.passageId === undefined || str(c.passageId))
      ? undefined
      : `a verdict correction needs claimId and a label (${CORRECTION_LABELS.join(", ")})`;
  if (c.kind === "answer") return str(c.text) && (c.text as string).trim() ? undefined : "an answer correction needs non-empty text";
  if (c.kind === "relevance") return str(c.passageId) && typeof c.relevant === "boolean" ? undefined : "a relevance correction needs passageId and relevant (true or false)";
  return `unknown kind ${JSON.stringify(c.kind)}`;
}

/** corrections/<runId>.jsonl beside the runs: append-only, one correction a line, later ones win. */
export class CorrectionLog {
  constructor(
    readonly dir: string,
    /** Applied to a correction's text and note before it is written (the run store's secrets). */
    private readonly redact: (text: string) => string = (t) => t,
  ) {}

  path(runId: string): string {
    return `${this.dir}/${runId}.jsonl`;
  }

  append(runId: string, c: Correction): StoredCorrection {
    ensureDir(this.dir);
    const stored = JSON.parse(this.redact(JSON.stringify({ ...c, id: randomBytes(6).toString("hex"), runId, at: Date.now() }))) as StoredCorrection;
    appendLines(this.path(runId), JSON.stringify(stored) + "\n", dirname(this.dir));
    return stored;
  }

  /** Every correction of a run, oldest first. */
  list(runId: string): StoredCorrection[] {
    return this.read(runId).corrections;
  }

  /** The corrections of a run, and each line that is not one (a torn write, an edit gone wrong) with its file and line. */
  read(runId: string): { corrections: StoredCorrection[]; problems: CorrectionProblem[] } {
    const file = this.path(runId);
    const corrections: StoredCorrection[] = [];
    const problems: CorrectionProblem[] = [];
    if (!existsSync(file)) return { corrections, problems };
    readRegularFile(file)
      .split("\n")
      .forEach((text, i) => {
        if (!text.trim()) return;
        let c: unknown;
        try {
          c = JSON.parse(text);
        } catch (e) {
          return void problems.push({ file, line: i + 1, message: `not valid JSON: ${(e as Error).message}` });
        }
        const why = typeof c === "object" && c !== null && !Array.isArray(c) ? invalid(c as Record<string, unknown>) : "not a JSON object";
        if (why) problems.push({ file, line: i + 1, message: why });
        else corrections.push(c as StoredCorrection);
      });
    return { corrections, problems };
  }
}
