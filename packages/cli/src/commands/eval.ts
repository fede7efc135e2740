import { readFileSync } from "node:fs";
import { loadGraph, mapInOrder, type CompiledGraph, type NodeRegistry, type Verdict } from "@citeflow/core";
import { sciFactLabel } from "@citeflow/datasets";
import { openGraph, type Session } from "@citeflow/host";
import { bestThreshold, docsInOrder, ndcgAt, pairedBootstrap, readQrels, rocAuc, scoreClassification, scoreRetrieval, selectiveScores, type PairedDifference } from "@citeflow/eval";
import { writeFileAtomic } from "@citeflow/runstore";
import { describeModel, modelsDirsFromEnv } from "@citeflow/models";
import { UsageError } from "../errors.js";
import { table } from "../table.js";
import { clearedLine } from "../terminal.js";
import { FailureError } from "../errors.js";
import { readQuestions } from "../questions.js";
import { retrievalGraph, retrieve } from "../retrieval-graph.js";
import { modelLines } from "./run.js";
import { cliSession } from "../services.js";

export interface EvalRetrievalOptions {
  store: string;
  /** Two rerankers (or "none") to compare on the same queries: nDCG@10 of each, B − A and its bootstrap interval. */
  compare?: string[];
  queries: string;
  qrels: string;
  mode: "lexical" | "dense" | "hybrid";
  rerank?: string;
  modelsDir?: string;
  limit?: number;
  json?: boolean;
  /** Queries retrieved at once (default 1): more keep a served embedder or a Qdrant server busy. */
  parallel?: number;
  /** Run store the evaluation's runs are recorded in. */
  runs: string;
}

/** Two systems on the same items: each one's score, B − A and its 95 % paired bootstrap interval; `extra` adds each side's other scores. */
function printComparison(metric: string, a: string, b: string, d: PairedDifference, json?: boolean, extra?: { a: object; b: object }): number {
  if (json)
    process.stdout.write(
      JSON.stringify({
        metric,
        a: { name: a, score: d.a, ...(extra ? { scores: extra.a } : {}) },
        b: { name: b, score: d.b, ...(extra ? { scores: extra.b } : {}) },
        difference: d.difference,
        interval95: [d.low, d.high],
        items: d.items,
        resamples: d.resamples,
      }) + "\n",
    );
  else
    process.stdout.write(
      `${metric} on ${d.items} items:\n  A ${a}: ${d.a.toFixed(3)}\n  B ${b}: ${d.b.toFixed(3)}\n` +
        `  B − A: ${d.difference >= 0 ? "+" : ""}${d.difference.toFixed(3)} (95 % paired bootstrap interval ${d.low.toFixed(3)} to ${d.high.toFixed(3)}, ${d.resamples} resamples)\n`,
    );
  return 0;
}

/**
 * `work` on each item, `parallel` at once, the results in the items' order; on a terminal (and
 * without --json) one line counts them as they finish: "<what>: 3/100 <unit>".
 */
async function counted<T, R>(items: readonly T[], o: { parallel?: number; json?: boolean }, what: string, unit: string, work: (item: T) => Promise<R>): Promise<R[]> {
  const shown = !o.json && process.stderr.isTTY;
  const results = await mapInOrder(items, o.parallel ?? 1, work, (_, i) => {
    if (shown) clearedLine(`${what}: ${i + 1}/${items.length} ${unit}`);
  });
  if (shown) process.stderr.write("\n");
  return results;
}

/** Runs every judged query through the retrieval graph and scores the document rankings. */
export async function evalRetrievalCommand(o: EvalRetrievalOptions, registry: NodeRegistry): Promise<number> {
  const qrels = readQrels(o.qrels);
  const questions = readQuestions(o.queries).filter((q) => qrels.has(q.id));
  if (questions.length === 0) throw new FailureError(`no query in ${o.queries} has a judgement in ${o.qrels}`);
  const todo = o.limit !== undefined ? questions.slice(0, o.limit) : questions;
  const session = cliSession(registry, o.runs, { store: o.store, modelsDir: o.modelsDir });
  const rank = async (rerank: string | undefined) => {
    const g = retrievalGraph({ mode: o.mode, store: o.store, k: 100, ...(o.modelsDir ? { modelsDir: o.modelsDir } : {}), ...(rerank ? { rerank } : {}) }, registry);
    const ranked = await counted(todo, o, `eval${rerank ? ` ${rerank}` : ""}`, "queries", async (q) => docsInOrder((await retrieve(session, g, q)).map((p) => p.id)));
    return new Map(todo.map((q, i) => [q.id, ranked[i]!]));
  };
  if (o.compare) {
    const [a, b] = o.compare;
    const name = (m: string) => (m === "none" ? `${o.mode} alone` : `${o.mode} + rerank ${m}`);
    const ra = await rank(a === "none" ? undefined : a);
    const rb = await rank(b === "none" ? undefined : b);
    const per = (runs: Map<string, string[]>) => todo.map((q) => ndcgAt(runs.get(q.id)!, qrels.get(q.id)!, 10));
    return printComparison("nDCG@10", name(a!), name(b!), pairedBootstrap(per(ra), per(rb)), o.json, { a: scoreRetrieval(ra, qrels), b: scoreRetrieval(rb, qrels) });
  }
  const t0 = performance.now();
  const runs = await rank(o.rerank);
  const scores = scoreRetrieval(runs, qrels);
  const ms = (performance.now() - t0) / todo.length;
  if (o.json) process.stdout.write(JSON.stringify(scores) + "\n");
  else
    process.stdout.write(
      `${o.mode}${o.rerank ? ` + rerank ${o.rerank}` : ""} on ${scores.queries} queries: ` +
        `nDCG@10 ${scores["ndcg@10"].toFixed(3)} · recall@100 ${scores["recall@100"].toFixed(3)} · MRR@10 ${scores["mrr@10"].toFixed(3)} · ${ms.toFixed(1)} ms/query\n`,
    );
  return 0;
}

export interface EvalScifactOptions {
  claims: string;
  /** Two NLI models to compare on the same claims: accuracy of each, B − A and its bootstrap interval. */
  compare?: string[];
  store: string;
  graph?: string;
  k?: number;
  binary?: boolean;
  limit?: number;
  modelsDir?: string;
  /** nli: the NLI model checks the claim against each passage (Verif.ai); llm: the chat model reads the passages and answers true/false (OpenScholar). */
  judge?: "nli" | "llm";
  /** The judge's model (the NLI model, or the chat model for --judge llm); default: the node's default. */
  judgeModel?: string;
  /** --judge llm with an in-process model: verify.llm's threshold on log P(true) − log P(false). */
  threshold?: number;
  /** --judge llm: verify.llm's sentences (each passage cut to the sentences most like the claim). */
  sentences?: number;
  json?: boolean;
  /** Claims verified at once (default 1): more keep a served judge busy. */
  parallel?: number;
  /** Each claim's record (gold label, verdicts, claim verdict and its calibration) as JSON Lines, for choosing a calibration on a dev split. */
  out?: string;
  /** Run store each claim's run is recorded in. */
  runs: string;
}

/** One claim through the verification graph. */
interface ClaimResult {
  id: string;
  gold: string;
  predicted: string;
  score?: number;
  /** The claim-level verdict (verify.nli's claimVerdicts, or verify.llm's verdict), with its calibration when it has one. */
  verdict?: Verdict;
  /** The verifier's verdicts (for verify.nli: one per passage). */
  verdicts: Verdict[];
}

type Label = "SUPPORT" | "CONTRADICT" | "NO_EVIDENCE";

/** SciFact's gold label of a claim as read from its file (`sciFactLabel`); evidence that is not a list of rationale sets counts as none. */
function goldLabel(claim: Record<string, unknown>): Label {
  const evidence = claim.evidence && typeof claim.evidence === "object" ? Object.values(claim.evidence).filter(Array.isArray) : [];
  return sciFactLabel(evidence as Array<Array<{ label?: unknown }>>);
}

/** A claim's verdicts → one label: the most confident SUPPORT or CONTRADICT, else NO_EVIDENCE. */
export function aggregateVerdicts(verdicts: Verdict[]): Label {
  let best: Label = "NO_EVIDENCE";
  let conf = -1;
  for (const v of verdicts)
    if ((v.label === "SUPPORT" || v.label === "CONTRADICT") && (v.probabilities[v.label] ?? 0) > conf) {
      best = v.label;
      conf = v.probabilities[v.label] ?? 0;
    }
  return best;
}

/** log P(SUPPORT) − log P(CONTRADICT) of the verdict most sure of SUPPORT, when the verdicts were scored (verify.llm in-process gives both probabilities); else undefined. */
function supportLogOdds(verdicts: Verdict[]): number | undefined {
  const scored = verdicts.filter((v) => v.probabilities.SUPPORT !== undefined && v.probabilities.CONTRADICT !== undefined);
  if (scored.length === 0 || scored.length < verdicts.length) return undefined;
  const p = Math.min(1 - 1e-12, Math.max(1e-12, ...scored.map((v) => v.probabilities.SUPPORT!)));
  return Math.log(p / (1 - p));
}

/**
 * The built-in SciFact verification graph: hybrid top-k for the claim, the claim as one claim citing
 * what was retrieved, then the judge: the NLI model against each passage, or the chat model reading
 * them (true/false, OpenScholar's protocol).
 */
export function sciFactVerificationGraph(o: { k: number; judge: "nli" | "llm"; modelsDir?: string; model?: string; threshold?: number | undefined; sentences?: number | undefined }) {
  const modelsDir = o.modelsDir ? { modelsDir: o.modelsDir } : {};
  const model = o.model ? { model: o.model } : {};
  const threshold = o.threshold !== undefined ? { threshold: o.threshold } : {};
  const sentences = o.sentences !== undefined ? { sentences: o.sentences } : {};
  return {
    citeflow: 1,
    name: "SciFact open-retrieval verification",
    inputs: { question: { type: "Question" } },
    nodes: [
      { id: "question", type: "input.question", version: 1, params: {} },
      { id: "retrieve", type: "retrieve.hybrid", version: 1, params: { k: o.k, ...modelsDir } },
      { id: "claim", type: "claims.from-question", version: 1, params: {} },
      o.judge === "llm"
        ? { id: "verify", type: "verify.llm", version: 3, params: { ...model, ...threshold, ...sentences } }
        : { id: "verify", type: "verify.nli", version: 2, params: { ...modelsDir, ...model } },
    ],
    edges: [
      { from: "question.question", to: "retrieve.question" },
      { from: "question.question", to: "claim.question" },
      { from: "retrieve.passages", to: "claim.passages" },
      { from: "claim.claims", to: "verify.claims" },
      { from: "retrieve.passages", to: "verify.passages" },
    ],
  };
}

/** Each claim through a verification graph: its gold label and the label its verdicts aggregate to. */
async function verifyClaims(
  graph: CompiledGraph,
  claims: Array<{ id: string; text: string; gold: Label }>,
  o: Pick<EvalScifactOptions, "binary" | "json" | "graph" | "parallel">,
  session: Session,
  label = "",
): Promise<ClaimResult[]> {
  const verifier = [...graph.order].reverse().find((id) => Object.values(graph.nodes.get(id)!.outputTypes).includes("Verdict[]"));
  if (!verifier) throw new FailureError(`graph ${o.graph}: no node outputs Verdict[]`);
  const ports = graph.nodes.get(verifier)!.outputTypes;
  const port = Object.entries(ports).find(([, t]) => t === "Verdict[]")![0];
  const claimPort = "claimVerdicts" in ports ? "claimVerdicts" : undefined;
  return counted(claims, o, `eval scifact${label ? ` ${label}` : ""}`, "claims", async (c) => {
    const result = await session.start(graph, { question: { id: c.id, text: c.text } }, { reuse: false }).result;
    const failed = result.nodes.find((n) => n.status === "error");
    if (failed) throw new FailureError(`claim ${c.id}: ${failed.id}: ${failed.error!.message}`);
    const outputs = result.nodes.find((n) => n.id === verifier)!.outputs!;
    const verdicts = outputs[port] as Verdict[];
    // The claim's own verdict: verify.nli's claim-level one, else the verifier's single verdict for it (verify.llm).
    const verdict = claimPort ? (outputs[claimPort] as Verdict[])[0] : verdicts.length === 1 && !verdicts[0]!.passageId ? verdicts[0] : undefined;
    // The forced choice: the calibrated one where there is a calibration (3-way: NO_EVIDENCE below its evidence floor),
    // else the most confident of the verdicts.
    const predicted = verdict?.calibration ? (!o.binary && verdict.label === "NO_EVIDENCE" ? "NO_EVIDENCE" : verdict.calibration.forced) : aggregateVerdicts(verdicts);
    const score = supportLogOdds(verdicts);
    const pair = o.binary ? { gold: c.gold === "SUPPORT" ? "true" : "false", predicted: predicted === "SUPPORT" ? "true" : "false" } : { gold: c.gold, predicted };
    return { id: c.id, ...pair, ...(score !== undefined ? { score } : {}), ...(verdict ? { verdict } : {}), verdicts };
  });
}

/**
 * Open-retrieval claim verification on SciFact: retrieve for each claim, verify it against what
 * was retrieved (NLI), aggregate to SUPPORT / CONTRADICT / NO_EVIDENCE, and score.
 * `--binary`: only claims with evidence, SUPPORT = true vs everything else = false (OpenScholar's setting).
 */
export async function evalScifactCommand(o: EvalScifactOptions, registry: NodeRegistry): Promise<number> {
  for (const [flag, given] of [
    ["--threshold", o.threshold],
    ["--sentences", o.sentences],
  ] as const)
    if (given !== undefined && (o.graph || o.judge !== "llm")) throw new UsageError(`${flag} sets the built-in graph's verify.llm: it needs --judge llm and no --graph`);
  if (o.graph && o.judgeModel) throw new UsageError("--judge-model sets the built-in graph's judge: with --graph, name the model in the graph (its node's model param) or with CITEFLOW_CHAT_MODEL");
  const session = cliSession(registry, o.runs, { store: o.store, modelsDir: o.modelsDir });
  const raw = readFileSync(o.claims, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l, i) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch (e) {
        throw new FailureError(`${o.claims}:${i + 1}: not valid JSON (${(e as Error).message})`);
      }
    });
  let claims = raw.map((c) => ({ id: String(c.id), text: String(c.claim ?? c.text ?? ""), gold: goldLabel(c) })).filter((c) => c.text);
  if (o.binary) claims = claims.filter((c) => c.gold !== "NO_EVIDENCE");
  if (o.limit !== undefined) claims = claims.slice(0, o.limit);
  const modelsDir = o.modelsDir ? { modelsDir: o.modelsDir } : {};
  if (o.compare) {
    if (o.graph || (o.judge ?? "nli") !== "nli") throw new UsageError("--compare takes two NLI models for the built-in graph: leave out --graph and --judge llm");
    const per = async (model: string) => {
      const doc = sciFactVerificationGraph({ k: o.k ?? 3, judge: "nli", ...modelsDir, model });
      const pairs = await verifyClaims(loadGraph(doc, registry, { source: "built-in SciFact graph" }), claims, o, session, model);
      return pairs.map((p) => (p.gold === p.predicted ? 1 : 0));
    };
    const [a, b] = o.compare;
    const dirs = modelsDirsFromEnv(process.env);
    return printComparison(`SciFact ${o.binary ? "binary" : "3-way"} accuracy`, describeModel(a!, dirs), describeModel(b!, dirs), pairedBootstrap(await per(a!), await per(b!)), o.json);
  }
  // A graph file is opened as every front end opens one: it keeps its folder, where its `file:` prompts are read.
  const graph = o.graph
    ? openGraph(o.graph, registry)
    : loadGraph(
        sciFactVerificationGraph({
          k: o.k ?? 3,
          judge: o.judge ?? "nli",
          ...modelsDir,
          ...(o.judgeModel ? { model: o.judgeModel } : {}),
          threshold: o.threshold,
          sentences: o.sentences,
        }),
        registry,
        { source: "built-in SciFact graph" },
      );
  if (!o.json) for (const line of modelLines(graph, session)) process.stderr.write(line + "\n");
  const pairs = await verifyClaims(graph, claims, o, session);
  if (o.out) writeFileAtomic(o.out, pairs.map((p) => JSON.stringify(p)).join("\n") + "\n");
  const scores = scoreClassification(pairs, o.binary ? ["true", "false"] : ["SUPPORT", "CONTRADICT", "NO_EVIDENCE"]);
  const given = selectiveScores(
    pairs.map((p) => ({ gold: o.binary ? (p.gold === "true" ? "SUPPORT" : "CONTRADICT") : p.gold, ...(p.verdict ? { verdict: p.verdict } : {}) })),
    !o.binary,
  );
  // A scoring judge (verify.llm in-process): the threshold these claims would choose, for a split you do not report on.
  const scored = o.binary && o.judge === "llm" && pairs.length > 0 && pairs.every((p) => p.score !== undefined) ? pairs.map((p) => ({ score: p.score!, positive: p.gold === "true" })) : undefined;
  const best = scored && bestThreshold(scored);
  const auc = scored && rocAuc(scored);
  if (o.json) process.stdout.write(JSON.stringify({ ...scores, ...(best ? { best_threshold: best } : {}), ...(auc !== undefined ? { auc } : {}), ...(given ? { selective: given } : {}) }) + "\n");
  else {
    process.stdout.write(
      `${o.binary ? "Binary (claims with evidence)" : "3-way"} verification of ${o.claims}, judge ${o.judge ?? "nli"}, on ${scores.claims} claims: accuracy ${scores.accuracy.toFixed(3)} · macro-F1 ${scores.macro_f1.toFixed(3)}\n`,
    );
    const labels = Object.keys(scores.confusion);
    process.stdout.write(
      table(
        ["gold \\ predicted", ...labels],
        labels.map((g) => [g, ...labels.map((p) => String(scores.confusion[g]![p]))]),
      ),
    );
    if (given) {
      const f = (x: number | null | undefined) => (x === null || x === undefined ? "–" : x.toFixed(3));
      process.stdout.write(
        `Calibrated verdicts (${given.rule}): given for ${given.given} of ${given.claims} claims (coverage ${f(given.coverage)}), right on ${f(given.accuracy_given)} of them; CANNOT_TELL while P(supported) is between ${f(given.band[0])} and ${f(given.band[1])}` +
          (given.evidence_floor !== undefined
            ? `; NO_EVIDENCE for ${given.no_evidence} (no sentence's SUPPORT or CONTRADICT reaches ${given.evidence_floor}${o.binary ? ", counted as no verdict on true/false claims" : ""})`
            : "") +
          `.\n` +
          `Risk–coverage, the most confident claims first (accuracy of the forced choice on them):\n` +
          table(["coverage", ...Object.keys(given.at_coverage)], [["accuracy", ...Object.values(given.at_coverage).map(f)]]),
      );
    }
    if (auc !== undefined) process.stdout.write(`AUC ${auc.toFixed(3)}: the chance that a true claim scores above a false one, whatever the threshold.\n`);
    if (best)
      process.stdout.write(
        `The threshold on log P(true) − log P(false) that classifies these claims best: ${best.threshold.toFixed(2)} (accuracy ${best.accuracy.toFixed(3)}). Choose it on claims you do not report on, and pass it with --threshold.\n`,
      );
  }
  return 0;
}
