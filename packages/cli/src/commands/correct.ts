import { readFileSync } from "node:fs";
import { RunStore, type Correction } from "@citeflow/runstore";
import { FailureError, UsageError } from "../errors.js";

export interface CorrectCommandOptions {
  runs: string;
  node?: string;
  verdict?: string;
  passage?: string;
  answer?: string;
  answerFile?: string;
  relevant?: string;
  irrelevant?: string;
  note?: string;
  list: boolean;
}

/** citeflow correct: a correction stored beside a run (never changing it), or the run's corrections listed. */
export function correctCommand(runId: string, opts: CorrectCommandOptions): number {
  const store = new RunStore(opts.runs);
  if (opts.list) {
    const list = store.corrections(runId);
    process.stdout.write(list.length ? list.map((c) => JSON.stringify(c)).join("\n") + "\n" : `no corrections for run ${runId}\n`);
    return 0;
  }
  const given = (["verdict", "answer", "answerFile", "relevant", "irrelevant"] as const).filter((k) => opts[k] !== undefined);
  if (given.length !== 1) throw new UsageError("give one of --verdict, --answer, --answer-file, --relevant, --irrelevant (or --list)");
  if (!opts.node) throw new UsageError("--node: which node's output is corrected");
  const note = opts.note !== undefined ? { note: String(opts.note) } : {};
  let correction: Correction;
  if (opts.verdict !== undefined) {
    const m = /^(.+)=([A-Z_]+)$/.exec(opts.verdict);
    if (!m) throw new UsageError(`--verdict ${opts.verdict}: expected <claimId>=<LABEL>`);
    correction = { kind: "verdict", nodeId: opts.node, claimId: m[1]!, label: m[2] as "SUPPORT", ...(opts.passage ? { passageId: opts.passage } : {}), ...note };
  } else if (opts.answer !== undefined || opts.answerFile !== undefined) {
    let text = opts.answer as string | undefined;
    if (opts.answerFile !== undefined) {
      try {
        text = readFileSync(opts.answerFile, "utf8");
      } catch (e) {
        throw new FailureError(`--answer-file: cannot read ${opts.answerFile}: ${(e as Error).message}`);
      }
    }
    correction = { kind: "answer", nodeId: opts.node, text: text!.trim(), ...note };
  } else correction = { kind: "relevance", nodeId: opts.node, passageId: (opts.relevant ?? opts.irrelevant)!, relevant: opts.relevant !== undefined, ...note };
  let stored;
  try {
    stored = store.correct(runId, correction);
  } catch (e) {
    throw new FailureError((e as Error).message);
  }
  process.stdout.write(`recorded correction ${stored.id} (${stored.kind}) for run ${runId}, node "${stored.nodeId}"\n`);
  return 0;
}
