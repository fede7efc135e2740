import type { NodeRegistry } from "@citeflow/core";
import { UsageError } from "../errors.js";
import { control, CONTROL } from "../terminal.js";
import { cliHost } from "../services.js";

export interface SynthCommandOptions {
  store: string;
  n: string;
  out: string;
  seed: string;
  minYear?: string;
  maxYear?: string;
  minCitations?: string;
  graph: string;
  minOrganisation: string;
  minFactuality: string;
  formats: string;
  parallel?: number;
  json: boolean;
}

/** citeflow synth: OpenScholar-style synthetic training data, with progress on stderr. */
export async function synthCommand(opts: SynthCommandOptions, registry: NodeRegistry): Promise<number> {
  const num = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const x = Number(v);
    if (!Number.isFinite(x)) throw new UsageError(`--${name} ${v}: give a number`);
    return x;
  };
  const n = num("n", opts.n)!;
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--n ${opts.n}: give a positive integer`);
  const { noChatReason } = await import("@citeflow/nodes");
  const host = cliHost(registry, { store: opts.store });
  const services = host.services;
  const settings = { model: "", baseUrl: "", temperature: 0, maxTokens: 512, repeatPenalty: 1.1, timeoutMs: 120_000, retries: 3 };
  // The questions are written by the base model: no adapter is trained on this task.
  const chat = await services.chat(settings, "synth");
  if (!chat) throw new UsageError(`synth needs a language model: ${noChatReason(services, settings, "synth")}`);
  const { synthesize, FORMATS } = await import("@citeflow/datasets");
  const formats = String(opts.formats)
    .split(",")
    .map((f) => f.trim());
  for (const f of formats) if (!(FORMATS as readonly string[]).includes(f)) throw new UsageError(`--formats: "${f}" is not one of ${FORMATS.join(", ")}`);
  const tty = process.stderr.isTTY;
  let last = "";
  const r = await synthesize({
    store: opts.store,
    n,
    out: opts.out,
    chat,
    services,
    // The pipeline is opened and run as `citeflow run` opens and runs a graph: by the command's host.
    graph: host.openGraph(opts.graph),
    session: (runs) => host.session(runs, "cli"),
    seed: num("seed", opts.seed)!,
    ...(opts.minYear !== undefined ? { minYear: num("min-year", opts.minYear)! } : {}),
    ...(opts.maxYear !== undefined ? { maxYear: num("max-year", opts.maxYear)! } : {}),
    ...(opts.minCitations !== undefined ? { minCitations: num("min-citations", opts.minCitations)! } : {}),
    rubric: { organisation: num("min-organisation", opts.minOrganisation)!, factuality: num("min-factuality", opts.minFactuality)! },
    formats: formats as never,
    ...(opts.parallel !== undefined ? { parallel: opts.parallel } : {}),
    onProgress: (stage, done, total) => {
      const width = 30;
      const bar = "█".repeat(Math.round((done / total) * width)).padEnd(width, "░");
      const text = `${stage.padEnd(9)} ${bar} ${done}/${total}`;
      if (tty) {
        control(process.stderr, CONTROL.returnToStart);
        process.stderr.write(`${text}${done === total ? "\n" : ""}`);
      } else if (done === total || text.split(" ")[0] !== last) process.stderr.write(`${text}\n`);
      last = stage;
    },
  });
  if (opts.json) process.stdout.write(JSON.stringify(r) + "\n");
  else {
    process.stdout.write(
      `${r.abstracts} abstracts → ${r.questions} questions → ${r.runs.ok} finished runs (${r.runs.resumed} from an earlier invocation)${r.runs.failed.length ? `; ${r.runs.failed.length} failed: ${r.runs.failed.join("; ")}` : ""}\n`,
    );
    process.stdout.write(`tokens: ${r.tokens.prompt} prompt + ${r.tokens.completion} completion in ${r.tokens.calls} model calls\n`);
    for (const [f, e] of Object.entries(r.exports))
      process.stdout.write(
        `${f}: ${Object.entries(e.files)
          .map(([file, c]) => `${file} ${c}`)
          .join(", ")}${e.rubricDropped ? ` (rubric dropped ${e.rubricDropped} answers)` : ""} → ${opts.out}/${f}/\n`,
      );
  }
  return r.runs.failed.length ? 1 : 0;
}
