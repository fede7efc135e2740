import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Answer, Claim, NodeRegistry, Passage, Verdict } from "@citeflow/core";
import { templatePath } from "@citeflow/nodes";
import { RunStore } from "@citeflow/runstore";
import { FailureError } from "../errors.js";
import { ingestCommand } from "./ingest.js";
import { runCommand } from "./run.js";
import { runsShow } from "./runs.js";

const CLAIMS = 3;

/**
 * The demo, offline: index SciFact's 5,183 abstracts (BM25 + the offline static embedder; resumed
 * or skipped when already there), run the hybrid-retrieval graph on SciFact claims twice (the
 * second run comes from the cache), then show the stored run, its passages and the prompt.
 */
export async function demoCommand(runs: string, registry: NodeRegistry): Promise<number> {
  const data = process.env.CITEFLOW_DATA;
  if (!data) throw new FailureError("the demo reads SciFact from $CITEFLOW_DATA: set it to the data folder (the one holding scifact/)");
  if (!process.env.CITEFLOW_MODELS) throw new FailureError("the demo embeds and reranks with the offline models in $CITEFLOW_MODELS (static-use-en, pair-rerank-scifact): set it to that folder");
  const corpus = join(data, "scifact", "corpus.jsonl");
  const claims = join(data, "scifact", "claims_train.jsonl");
  for (const f of [corpus, claims]) if (!existsSync(f)) throw new FailureError(`no ${f} (from $CITEFLOW_DATA)`);
  const say = (s: string) => process.stdout.write(s);
  const store = join(runs, "stores", "scifact-static-use-en");
  const graph = templatePath("verifai");
  // Offline, verification uses the SciFact pair model unless another NLI model is configured.
  process.env.CITEFLOW_NLI_MODEL ||= "pair-nli-scifact";

  say(`Citeflow demo: the Verif.ai template on SciFact (offline models: static-use-en embedder, ${process.env.CITEFLOW_NLI_MODEL} NLI — weak, see the README)\n\n— index SciFact into ${store} —\n`);
  await ingestCommand({ corpus, store, format: "scifact", chunker: "openscholar", embedder: "static-use-en", batch: 512 });
  process.env.CITEFLOW_STORE = store;

  say(`\n— run ${graph}\n  on the first ${CLAIMS} SciFact training claims —\n`);
  const opts = { questions: claims, questionField: "claim", limit: CLAIMS, runs };
  let code = await runCommand(graph, opts, registry);
  if (code !== 0) return code;
  say(`\n— the same runs again: every node comes from the cache —\n`);
  code = await runCommand(graph, opts, registry);
  if (code !== 0) return code;

  const runStore = new RunStore(runs);
  const last = runStore.listRuns()[0]!;
  say("\n");
  runsShow(runs, last.runId, false);
  const top = runStore.nodeOutput(last.runId, "top", "items") as Passage[];
  const answer = runStore.nodeOutput(last.runId, "answer", "answer") as Answer;
  const generator = process.env.CITEFLOW_CHAT_MODEL ? `chat model ${process.env.CITEFLOW_CHAT_MODEL}` : "the extractive baseline (no LLM configured)";
  say(`\nQuestion: ${(runStore.runInput(last.runId, "question") as { text: string }).text}\n`);
  say(`Answer, from ${generator}:\n  ${answer.text}\n`);
  const metrics = runStore.nodeOutput(last.runId, "citations", "metrics") as { precision: number; recall: number; f1: number };
  say(`citation precision ${metrics.precision.toFixed(3)} · recall ${metrics.recall.toFixed(3)} · F1 ${metrics.f1.toFixed(3)} (judge: ${process.env.CITEFLOW_NLI_MODEL})\n`);
  say(`hallucinated citations: ${answer.invalidCitations.length}${answer.invalidCitations.length ? ` (${answer.invalidCitations.map((c) => `[${c.marker}]`).join(" ")})` : ""}\n`);
  const answerClaims = runStore.nodeOutput(last.runId, "claims", "claims") as Claim[];
  const verdicts = runStore.nodeOutput(last.runId, "verify", "verdicts") as Verdict[];
  const colour = process.stdout.isTTY ? { SUPPORT: "\x1b[32m", CONTRADICT: "\x1b[31m", NO_EVIDENCE: "\x1b[33m", NO_REFERENCE: "\x1b[90m" } : undefined;
  say(`\nClaims and verdicts (NLI: ${process.env.CITEFLOW_NLI_MODEL}${process.env.CITEFLOW_NLI_MODEL === "pair-nli-scifact" ? ", weak — it cannot tell SUPPORT from CONTRADICT" : ""}):\n`);
  for (const v of verdicts) {
    const claim = answerClaims.find((c) => c.id === v.claimId)!;
    const label = colour ? `${colour[v.label]}${v.label}\x1b[0m` : v.label;
    say(`  ${claim.id} → ${v.passageId ?? "(no citation)"}: ${label}  ${claim.text}\n${v.evidence ? `      closest: "${v.evidence.sentence}"\n` : ""}`);
  }
  say(`\nThe passages it could cite, with every score they received:\n`);
  top.forEach((p, i) => say(`  [${i + 1}] ${p.id}  ${Object.entries(p.scores).map(([k, v]) => `${k}=${v.toFixed(3)}`).join(" ")}\n      ${p.title}\n`));
  say(`\nNext: citeflow runs list --runs ${runs} · citeflow runs diff <a> <b> --runs ${runs} · citeflow search "<query>" --store ${store} · citeflow catalogue\n`);
  return 0;
}
