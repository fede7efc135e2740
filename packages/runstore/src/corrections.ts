import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { ensureDir } from "./fsutil.js";

/** A user's correction of one output of one run. The run itself is never changed. */
export type Correction =
  | { kind: "verdict"; nodeId: string; claimId: string; passageId?: string; label: "SUPPORT" | "CONTRADICT" | "NO_EVIDENCE" | "NO_REFERENCE"; note?: string }
  | { kind: "answer"; nodeId: string; text: string; note?: string }
  | { kind: "relevance"; nodeId: string; passageId: string; relevant: boolean; note?: string };

export type StoredCorrection = Correction & { id: string; runId: string; at: number };

export const CORRECTION_LABELS = ["SUPPORT", "CONTRADICT", "NO_EVIDENCE", "NO_REFERENCE"] as const;

/** corrections/<runId>.jsonl beside the runs: append-only, one correction a line, later ones win. */
export class CorrectionLog {
  constructor(readonly dir: string) {}

  path(runId: string): string {
    return `${this.dir}/${runId}.jsonl`;
  }

  append(runId: string, c: Correction): StoredCorrection {
    ensureDir(this.dir);
    const stored = { ...c, id: randomBytes(6).toString("hex"), runId, at: Date.now() } as StoredCorrection;
    appendFileSync(this.path(runId), JSON.stringify(stored) + "\n");
    return stored;
  }

  /** Every correction of a run, oldest first; a torn last line (a crash mid-write) is skipped. */
  list(runId: string): StoredCorrection[] {
    if (!existsSync(this.path(runId))) return [];
    const out: StoredCorrection[] = [];
    for (const line of readFileSync(this.path(runId), "utf8").split("\n")) {
      if (!line.trim()) continue;
      try {
        out.push(JSON.parse(line) as StoredCorrection);
      } catch {
        /* torn line */
      }
    }
    return out;
  }
}
