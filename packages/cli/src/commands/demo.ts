import { existsSync } from "node:fs";
import { join } from "node:path";
import type { NodeRegistry } from "@citeflow/core";
import { shippedGraph } from "@citeflow/nodes";
import { RunStore } from "@citeflow/runstore";
import { FailureError } from "../errors.js";
import { runCommand } from "./run.js";
import { runsShow } from "./runs.js";

/**
 * The demo: the shipped example graph over SciFact's 809 training claims, run twice to show the
 * cache, then the stored run and the prompt it produced.
 */
export async function demoCommand(runs: string, registry: NodeRegistry): Promise<number> {
  const data = process.env.CITEFLOW_DATA;
  if (!data) throw new FailureError("the demo reads SciFact from $CITEFLOW_DATA: set it to the data folder (the one holding scifact/claims_train.jsonl)");
  const claims = join(data, "scifact", "claims_train.jsonl");
  if (!existsSync(claims)) throw new FailureError(`no SciFact claims at ${claims} (from $CITEFLOW_DATA)`);
  const graph = shippedGraph("claim-search-prompts.citeflow.json");
  const say = (s: string) => process.stdout.write(s);

  say(`Citeflow demo · graph ${graph}\nquestions: ${claims}\n\n— first run —\n`);
  let code = await runCommand(graph, { questions: claims, questionField: "claim", runs }, registry);
  if (code !== 0) return code;
  say(`\n— same run again: every node comes from the cache —\n`);
  code = await runCommand(graph, { questions: claims, questionField: "claim", runs }, registry);
  if (code !== 0) return code;

  const store = new RunStore(runs);
  const last = store.listRuns()[0]!;
  say("\n");
  runsShow(runs, last.runId, false);
  say(`\nThe prompt node's output:\n\n${store.nodeOutput(last.runId, "prompt", "text") as string}\n`);
  say(`\nNext: citeflow runs list --runs ${runs} · citeflow runs diff <a> <b> --runs ${runs} · citeflow catalogue\n`);
  return 0;
}
