import { basename, join } from "node:path";
import { QUESTION_CAVEAT, type Answer, type Claim, type NodeRegistry, type Passage, type Verdict } from "@citeflow/core";
import { goldAnswer, readGoldLabels, type GoldLabels } from "@citeflow/datasets";
import { defaultEmbedder, describeModel, OFFLINE_EMBEDDER } from "@citeflow/models";
import { describeChat, templatePath } from "@citeflow/nodes";
import { dataFolder } from "@citeflow/retrieval";
import { RunStore } from "@citeflow/runstore";
import { ingestCommand } from "./ingest.js";
import { cliHost } from "../services.js";
import { runWithSummaries } from "./run.js";
import { sciFactFolder } from "../scifact-data.js";
import { runModelCalls, runsShow } from "./runs.js";
import { control, CONTROL } from "../terminal.js";

const CLAIMS = 3;

/**
 * The demo: index SciFact's 5,183 abstracts (BM25 + all-MiniLM-L6-v2 when `npm run models` has
 * installed it, else the offline static embedder; resumed or skipped when already there), run the
 * Verif.ai template on SciFact claims with the chat model the configuration selects (in-process
 * Gemma 3 270M after `npm run models`) and show each run (which model wrote the answer and how
 * fast, SciFact's own answer for the same passages, citation scores, verdicts, passages), then
 * run them again from the cache. SciFact comes from --data, $CITEFLOW_DATA or the copy shipped
 * with Citeflow (data/), else from a download when CITEFLOW_ALLOW_DOWNLOADS=1.
 */
export async function demoCommand(runs: string, registry: NodeRegistry, o: { data?: string } = {}): Promise<number> {
  const say = (s: string) => process.stdout.write(s);
  const data = o.data !== undefined ? { dir: o.data, from: "--data" } : dataFolder(process.env);
  const scifact = await sciFactFolder({
    ...(data !== undefined ? { data } : {}),
    cache: join(runs, "data"),
    allowDownloads: process.env.CITEFLOW_ALLOW_DOWNLOADS === "1",
    ...(process.env.CITEFLOW_SCIFACT_URL ? { url: process.env.CITEFLOW_SCIFACT_URL } : {}),
    say,
  });
  const corpus = join(scifact, "corpus.jsonl");
  const claims = join(scifact, "claims_train.jsonl");
  const embedder = defaultEmbedder(process.env);
  const store = join(runs, "stores", `scifact-${basename(embedder)}`);
  const graphFile = templatePath("verifai");
  const host = cliHost(registry, { store });
  const graph = host.openGraph(graphFile);
  const services = host.services;
  // Verification uses the configured NLI model: Citeflow's trained one unless $CITEFLOW_NLI_MODEL names another.
  const nli = services.config.models.nli;
  const session = host.session(runs, "cli");
  const generator = describeChat(services.chatChoice({ model: "", baseUrl: "" }, "generate.answer"), services.config.quietUnverifiedModels);
  const embedderNote = embedder === OFFLINE_EMBEDDER ? "static-use-en (offline, weak: run `npm run models` for all-MiniLM-L6-v2)" : embedder;

  say(
    `Citeflow demo: the Verif.ai template on SciFact\n  answers: ${generator}\n  embedder: ${embedderNote}\n  NLI: ${describeModel(nli, services.config.modelsDirs, services.config.quietUnverifiedModels)}\n\n— index SciFact (${corpus}) into ${store} —\n`,
  );
  await ingestCommand({ corpus, store, format: "scifact", chunker: "openscholar", embedder, batch: embedder === OFFLINE_EMBEDDER ? 512 : 64 });

  say(`\n— run ${graphFile}\n  on the first ${CLAIMS} SciFact training claims; answers from ${generator} —\n`);
  const opts = { questions: claims, questionField: "claim", limit: CLAIMS, runs };
  const first = await runWithSummaries(graph, opts, session);
  if (first.code !== 0) return first.code;
  const runStore = new RunStore(runs);
  // SciFact's own answer for the passages each run read, beside the model's: the annotators' evidence sentences, cited.
  let gold: GoldLabels | string;
  try {
    gold = readGoldLabels(claims, corpus);
  } catch (e) {
    gold = (e as Error).message;
  }
  for (const s of first.summaries) showRun(runStore, s.runId, nli, generator, gold, say);

  say(`\n— the same runs again: every node comes from the cache —\n`);
  const again = await runWithSummaries(graph, opts, session);
  if (again.code !== 0) return again.code;
  const hits = again.summaries.map((s) => `${s.nodes.filter((n) => n.cache === "hit").length}/${s.nodes.length}`);
  say(`cached nodes per run: ${hits.join(", ")}\n`);

  // The first run of the last claim: the one in which the models ran, so its calls and their usage are listed.
  const last = first.summaries.at(-1)!.runId;
  say(`\n— the stored run ${last} (first pass) —\n`);
  runsShow(runs, last, false);
  say(`\nNext: citeflow runs list --runs ${runs} · citeflow runs diff <a> <b> --runs ${runs} · citeflow search "<query>" --store ${store} · citeflow catalogue\n`);
  return 0;
}

/** One run of the Verif.ai template: the question, the answer with citations, SciFact's answer (or why not), its scores, the verdicts and the passages. */
function showRun(runStore: RunStore, runId: string, nli: string, generator: string, gold: GoldLabels | string, say: (s: string) => void): void {
  const top = runStore.nodeOutput(runId, "top", "items") as Passage[];
  const answer = runStore.nodeOutput(runId, "answer", "answer") as Answer;
  const question = runStore.runInput(runId, "question") as { id: string; text: string };
  say(`\n━━ Question: ${question.text}\n`);
  const record = runStore.readRun(runId);
  const call = runModelCalls(runStore, record).find((c) => c.node === "answer");
  // A cached answer was written by the model the configuration chooses now: it is part of the cache key.
  const cached = record.nodes.find((n) => n.id === "answer")?.cache === "hit";
  const writer = call
    ? `${call.model}${call.where === "in-process" ? " (in-process)" : ` at ${call.where}`}${call.tokensPerSecond ? `, ${call.completionTokens} tokens at ${call.tokensPerSecond} tokens/s` : ""}`
    : cached
      ? `${generator}; from the cache`
      : "the extractive baseline (not a language model)";
  say(`Answer (${writer}):\n  ${answer.text}\n`);
  const given = answer.allowed.flatMap((id) => top.filter((p) => p.id === id));
  const expected = typeof gold === "string" ? undefined : goldAnswer(gold, question.id, given, 1);
  say(
    expected !== undefined
      ? `SciFact's answer for these passages (its annotators' evidence sentences, cited; what Citeflow's adapter is trained to write):\n  ${expected}\n`
      : `SciFact's answer: not shown (${typeof gold === "string" ? gold : `claim ${question.id} is not among SciFact's labelled claims`})\n`,
  );
  const metrics = runStore.nodeOutput(runId, "citations", "metrics") as { precision: number; recall: number; f1: number };
  say(`citation precision ${metrics.precision.toFixed(3)} · recall ${metrics.recall.toFixed(3)} · F1 ${metrics.f1.toFixed(3)} (judge: ${nli})\n`);
  say(`hallucinated citations: ${answer.invalidCitations.length}${answer.invalidCitations.length ? ` (${answer.invalidCitations.map((c) => `[${c.marker}]`).join(" ")})` : ""}\n`);
  const answerClaims = runStore.nodeOutput(runId, "claims", "claims") as Claim[];
  const verdicts = runStore.nodeOutput(runId, "verify", "verdicts") as Verdict[];
  const colour = process.stdout.isTTY ? ({ SUPPORT: CONTROL.green, CONTRADICT: CONTROL.red, NO_EVIDENCE: CONTROL.yellow, NO_REFERENCE: CONTROL.grey, CANNOT_TELL: CONTROL.grey } as const) : undefined;
  say(`Each statement against the passage it cites (NLI: ${nli}):\n`);
  for (const v of verdicts) {
    const claim = answerClaims.find((c) => c.id === v.claimId)!;
    say(`  ${claim.id} → ${v.passageId ?? "(no citation)"}: `);
    if (colour) control(process.stdout, colour[v.label]);
    say(v.label);
    if (colour) control(process.stdout, CONTROL.reset);
    say(`  ${claim.text}\n${v.evidence ? `      closest: "${v.evidence.sentence}"\n` : ""}`);
  }
  // A quote is true of its own passage by construction: the verdict that matters is the claim against what the answer states.
  const [onQuestion] = (runStore.nodeOutput(runId, "verify", "questionVerdicts") as Verdict[] | undefined) ?? [];
  if (onQuestion) {
    say(`The claim itself against what the answer states: `);
    if (colour) control(process.stdout, colour[onQuestion.label]);
    say(onQuestion.label);
    if (colour) control(process.stdout, CONTROL.reset);
    const c = onQuestion.calibration;
    say(
      (c
        ? ` (calibrated P(supported) ${c.pSupport.toFixed(2)}; CANNOT_TELL between ${c.band[0].toFixed(2)} and ${c.band[1].toFixed(2)}` +
          (c.evidenceFloor !== undefined ? `; NO_EVIDENCE while no statement gives SUPPORT or CONTRADICT ${c.evidenceFloor}` : "") +
          ")"
        : onQuestion.label === "NO_REFERENCE"
          ? " (the answer cites nothing)"
          : " (no calibration for this NLI model)") +
        (onQuestion.label === "CANNOT_TELL" || onQuestion.label === "NO_EVIDENCE" ? `: ${QUESTION_CAVEAT}` : "") +
        "\n",
    );
  }
  say(`The passages it could cite, with every score they received:\n`);
  top.forEach((p, i) =>
    say(
      `  [${i + 1}] ${p.id}  ${Object.entries(p.scores)
        .map(([k, v]) => `${k}=${v.toFixed(3)}`)
        .join(" ")}\n      ${p.title}\n`,
    ),
  );
  say(`stored: run ${runId} in ${runStore.dir}\n`);
}
