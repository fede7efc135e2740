import { readFileSync } from "node:fs";
import { QuestionInputError, questionRuns, runMetrics, type CompiledGraph, type QuestionRun, type RunResult } from "@citeflow/core";
import { QuestionSet, type Session } from "@citeflow/host";
import { describeModel } from "@citeflow/models";
import { chatChoices, describeChat, modelParamsOf, questionsAtOnce } from "@citeflow/nodes";
import { FailureError, UsageError } from "../errors.js";
import { fmtMs, ProgressPrinter, SetProgress } from "../progress.js";
import { readQuestions } from "../questions.js";

export interface RunCommandOptions {
  question?: string;
  questions?: string;
  questionField?: string;
  /** Only the first N questions of --questions. */
  limit?: number;
  runs: string;
  to?: string;
  from?: string;
  only?: string;
  force?: boolean;
  json?: boolean;
  concurrency?: number;
  /** Questions of a set run at once (default 1): more keep a served model busy. */
  parallel?: number;
  override?: string[];
}

export interface RunSummary {
  runId: string;
  status: RunResult["status"];
  question?: string;
  /** Citations in the final answer that point outside the passages it was given. */
  hallucinatedCitations?: number;
  /** From an eval.citations node, when the graph has one. */
  citations?: { precision: number; recall: number; f1: number };
  nodes: Array<{ id: string; status: string; cache?: "hit" | "miss"; ms?: number; error?: string }>;
}

/**
 * One line per model the graph's nodes use: each language model (in words: file, adapter and its
 * card, server), each NLI model and reranker (its id and, for Citeflow's trained models, where its card is), as its
 * nodes' model params declare them (`modelParam`).
 */
export function modelLines(graph: CompiledGraph, session: Session): string[] {
  const services = session.services;
  const seen = new Set<string>();
  for (const id of graph.order) {
    const n = graph.nodes.get(id)!;
    for (const m of modelParamsOf(n.def.params, n.params as Record<string, unknown>))
      seen.add(`${m.kind === "nli" ? "NLI" : "reranker"}: ${describeModel(services.modelId(m.kind, m.value), services.config.modelsDirs, services.config.quietUnverifiedModels)}`);
  }
  for (const c of chatChoices(graph, services)) seen.add(`language model: ${describeChat(c, services.config.quietUnverifiedModels)}`);
  return [...seen];
}

/** The language model each node that calls one would use: a node with the chat params (llmParams), unless it is told to write the extractive baseline. */
/** Questions at once when --parallel is not given: the nodes' rule (questionsAtOnce), for the services it runs with. */
export function defaultParallel(graph: CompiledGraph, session: Session): number {
  return questionsAtOnce(graph, session.services);
}

export async function runCommand(graph: CompiledGraph, opts: RunCommandOptions, session: Session): Promise<number> {
  return (await runWithSummaries(graph, opts, session)).code;
}

/** `citeflow run`, also returning one summary per run (a run per question for per-question graphs). */
export async function runWithSummaries(graph: CompiledGraph, opts: RunCommandOptions, session: Session): Promise<{ code: number; summaries: RunSummary[] }> {
  if (opts.question !== undefined && opts.questions !== undefined) throw new UsageError("give --question or --questions, not both");
  for (const w of graph.warnings) process.stderr.write(`warning: node "${w.nodeId}": ${w.message}\n`);
  if (!opts.json) for (const line of modelLines(graph, session)) process.stderr.write(line + "\n");
  const batches = graphInputSets(graph, opts);
  const overrides = parseOverrides(opts.override ?? []);
  const store = session.store;
  const parallel = opts.parallel ?? (batches.length > 1 ? defaultParallel(graph, session) : 1);
  if (!opts.json && opts.parallel === undefined && parallel > 1) process.stderr.write(`questions at once: ${parallel} (every language model here is served; --parallel 1 runs them one at a time)\n`);
  // One question at a time: a line per node as it ends. Several: one line for the set, and a line per run in order.
  const printer = opts.json || parallel > 1 ? undefined : new ProgressPrinter();
  const set = !opts.json && parallel > 1 ? new SetProgress() : undefined;
  const say = (text: string) => (set ? set.line(text) : process.stderr.write(text + "\n"));
  // The host's one question-set loop; this front end follows each run (its node lines) and prints its line in order.
  const questionSet = new QuestionSet<{ summary: RunSummary; ms?: number; error?: string }>(session, graph, batches, {
    parallel,
    request: {
      ...(opts.to !== undefined ? { to: opts.to } : {}),
      ...(opts.from !== undefined ? { from: opts.from } : {}),
      ...(opts.only !== undefined ? { only: opts.only } : {}),
      force: opts.force ?? false,
      ...(overrides ? { overrides } : {}),
      ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
    },
    progress: (now) => set?.show(now.tally.text()),
    follow: async (handle, i) => {
      const label = batches[i]!.label;
      printer?.setLabel(batches.length > 1 ? (label ?? "") : "");
      const forward = (async () => {
        for await (const e of handle.events) printer?.on(e);
      })();
      const result = await handle.result;
      await forward;
      const summary: RunSummary = {
        runId: result.runId,
        status: result.status,
        ...(label !== undefined ? { question: label } : {}),
        nodes: result.nodes.map((n) => ({
          id: n.id,
          status: n.status,
          ...(n.cache ? { cache: n.cache } : {}),
          ...(n.ms !== undefined ? { ms: round(n.ms) } : {}),
          ...(n.error ? { error: n.error.message } : {}),
        })),
      };
      Object.assign(summary, answerQuality(graph, result));
      return { summary, ms: result.ms, ...(result.error ? { error: result.error.message } : {}) };
    },
    inOrder: ({ summary, ms, error }) => {
      if (opts.json) return;
      const hits = summary.nodes.filter((n) => n.cache === "hit").length;
      say(
        `${set && summary.question !== undefined ? `[${summary.question}] ` : ""}run ${summary.runId}: ${summary.status} in ${fmtMs(ms)} (${summary.nodes.length} nodes, ${hits} cached)${error ? ` — ${error}` : ""}`,
      );
      if (summary.hallucinatedCitations !== undefined) say(`hallucinated citations: ${summary.hallucinatedCitations}`);
      if (summary.citations) {
        const c = summary.citations;
        say(`citation precision ${c.precision.toFixed(3)} · recall ${c.recall.toFixed(3)} · F1 ${c.f1.toFixed(3)}`);
      }
    },
  });
  const runs = await questionSet.results;
  set?.end();
  const summaries = runs.map((r) => r.summary);

  const failed = summaries.some((s) => s.status !== "ok");
  if (opts.json) {
    const out = summaries.length === 1 ? summaries[0] : { status: failed ? "error" : "ok", runs: summaries };
    process.stdout.write(JSON.stringify(out) + "\n");
  } else {
    process.stderr.write(`run store: ${store.dir}\nsee a run: citeflow runs show ${summaries[summaries.length - 1]!.runId} --runs ${opts.runs}\n`);
  }
  return { code: failed ? 1 : 0, summaries };
}

/**
 * --question / --questions → one input map per run, by the rule every front end shares
 * (`questionRuns`): a Question input runs the graph once per question, a Question[] input takes
 * the whole set.
 */
function graphInputSets(graph: CompiledGraph, opts: RunCommandOptions): QuestionRun[] {
  const given = opts.question !== undefined ? { question: opts.question } : opts.questions !== undefined ? { questions: readQuestions(opts.questions, opts.questionField).slice(0, opts.limit) } : {};
  try {
    return questionRuns(graph.doc, given);
  } catch (e) {
    if (e instanceof QuestionInputError) throw new UsageError(`${e.message}${opts.question === undefined && opts.questions === undefined ? ' (--question "…" or --questions <file.jsonl>)' : ""}`);
    throw e;
  }
}

/**
 * `--override node.port=<JSON>` or `node.port=@file.json`. The maps have no prototype, so a name
 * such as `__proto__` or `constructor` is only a key (the run then says there is no such node),
 * never a way to write into every object.
 */
export function parseOverrides(specs: string[]): Record<string, Record<string, unknown>> | undefined {
  if (specs.length === 0) return undefined;
  const out: Record<string, Record<string, unknown>> = Object.create(null);
  for (const spec of specs) {
    const m = /^([^.=]+)\.([^=]+)=(.*)$/s.exec(spec);
    if (!m) throw new UsageError(`--override "${spec}": expected node.port=<JSON> or node.port=@file.json`);
    const [, node, port, raw] = m as unknown as [string, string, string, string];
    let text = raw;
    if (raw.startsWith("@")) {
      try {
        text = readFileSync(raw.slice(1), "utf8");
      } catch (e) {
        throw new FailureError(`--override ${node}.${port}: cannot read ${raw.slice(1)}: ${(e as Error).message}`);
      }
    }
    try {
      (out[node] ??= Object.create(null) as Record<string, unknown>)[port] = JSON.parse(text);
    } catch (e) {
      throw new UsageError(`--override ${node}.${port}: not valid JSON: ${(e as Error).message}`);
    }
  }
  return out;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * The summary's quality figures from the run's numbers (core's runMetrics): the hallucinated
 * markers of the last node's answer, and the scores of an eval.citations node.
 */
function answerQuality(graph: CompiledGraph, result: RunResult): Pick<RunSummary, "hallucinatedCitations" | "citations"> {
  const done = result.nodes.filter((n) => n.status === "done");
  const m = runMetrics(done.map((n) => ({ id: n.id, output: (port: string) => n.outputs?.[port] })));
  const out: Pick<RunSummary, "hallucinatedCitations" | "citations"> = {};
  const last = done.filter((n) => m[`${n.id}.hallucinatedCitations`] !== undefined).at(-1);
  if (last) out.hallucinatedCitations = m[`${last.id}.hallucinatedCitations`]!;
  const scorer = done.find((n) => graph.nodes.get(n.id)!.def.type === "eval.citations");
  if (scorer) out.citations = { precision: m[`${scorer.id}.precision`]!, recall: m[`${scorer.id}.recall`]!, f1: m[`${scorer.id}.f1`]! };
  return out;
}
