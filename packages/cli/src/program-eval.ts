import { Option, type Command } from "commander";
import type { NodeRegistry } from "@citeflow/core";
import { calibrateCommand } from "./commands/calibrate.js";
import { evalRetrievalCommand, evalScifactCommand } from "./commands/eval.js";
import { evalNliCommand } from "./commands/eval-nli.js";
import { intArg, numberArg, runsOption, twoModels } from "./args.js";

/** `citeflow eval …` (a pipeline stage measured) and `citeflow calibrate` (a verifier's calibration chosen on eval records). */
export function addEvalCommands(program: Command, registry: NodeRegistry, setCode: (code: number) => void): void {
  const evalCmd = program.command("eval").description("evaluate a pipeline stage");
  evalCmd
    .command("scifact")
    .description("open-retrieval claim verification on SciFact: accuracy, macro-F1, confusion matrix")
    .requiredOption("--claims <file>", "SciFact claims JSONL (claim, evidence)")
    .requiredOption("--store <dir>", "store folder with the SciFact corpus")
    .option("--graph <file>", "a graph with a Question input and a Verdict[] output (default: hybrid top-k → NLI)")
    .option("-k <n>", "passages retrieved per claim by the default graph (default 3)", intArg("-k"))
    .option("--binary", "claims with evidence only: SUPPORT = true, else false (OpenScholar's setting)", false)
    .addOption(
      new Option("--judge <judge>", "nli: the NLI model against each passage (Verif.ai); llm: the chat model reads the passages and answers true/false (OpenScholar's protocol)")
        .choices(["nli", "llm"])
        .default("nli"),
    )
    .option("--judge-model <name>", "the judge's model: an NLI model, or with --judge llm a chat model (a GGUF, <gguf>+<adapter>, or a server's model)")
    .option(
      "--threshold <nats>",
      "--judge llm, in-process: true when log P(true) − log P(false) is above this (default: verify.llm's, chosen on dev claims for the judge's model; 0: the likelier answer); --binary prints the best one for the claims given",
      numberArg("--threshold"),
    )
    .option("--sentences <n>", "--judge llm: each passage cut to its N sentences most like the claim (default: whole passages)", intArg("--sentences"))
    .option("--limit <n>", "only the first N claims", intArg("--limit"))
    .option("--parallel <n>", "claims verified at once (default 1); more keep a served judge busy", intArg("--parallel"))
    .option("--compare <models...>", "two NLI models A B on the same claims: accuracy of each, B − A and its 95 % bootstrap interval")
    .option("--models-dir <dir>", "local models folder (default $CITEFLOW_MODELS)")
    .option("--out <file>", "each claim's record as JSON Lines: gold label, forced choice, the verifier's verdicts, the claim verdict and its calibration")
    .option("--json", 'print { "accuracy", "macro_f1", "confusion", "claims", "selective"? }', false)
    .addOption(runsOption())
    .action(async (opts) => setCode(await evalScifactCommand({ ...opts, ...(opts.k ? { k: opts.k } : {}), ...(opts.compare ? { compare: twoModels(opts.compare) } : {}) }, registry)));
  evalCmd
    .command("nli")
    .description("an NLI model on labelled pairs (export --format nli or datasets import rows): 3-way accuracy, macro-F1, SUPPORT vs CONTRADICT, the confusion matrix, each source's figures")
    .requiredOption("--pairs <file>", 'JSONL of {"premise", "hypothesis", "label"} (Citeflow, SciFact or MNLI label names)')
    .option("--model <name>", "the NLI model (default $CITEFLOW_NLI_MODEL, else Citeflow's)")
    .option("--compare <models...>", "two NLI models A B on the same pairs: each one's figures, B − A and 95 % paired bootstrap intervals")
    .option("--models-dir <dir>", "local models folder (default $CITEFLOW_MODELS)")
    .option("--limit <n>", "only the first N pairs", intArg("--limit"))
    .option("--json", 'print { "accuracy", "macro_f1", "support_vs_contradict", "confusion", "by_source", … }', false)
    .action(async (opts) => setCode(await evalNliCommand({ ...opts, ...(opts.compare ? { compare: twoModels(opts.compare) } : {}) })));
  evalCmd
    .command("retrieval")
    .description("nDCG@10, recall@100 and MRR@10 (BEIR definitions) of a store's retrieval against qrels")
    .requiredOption("--store <dir>", "store folder, or qdrant:<collection>")
    .requiredOption("--queries <file>", "queries: JSONL with id and text (or claim / question / query)")
    .requiredOption("--qrels <file>", "BEIR qrels TSV: query-id, corpus-id, score (header line)")
    .addOption(new Option("--mode <mode>").choices(["lexical", "dense", "hybrid"]).default("hybrid"))
    .option("--rerank <id>", "rerank the top 100 with this cross-encoder")
    .option("--compare <rerankers...>", 'two rerankers A B (or "none") on the same queries: nDCG@10 of each, B − A and its 95 % bootstrap interval')
    .option("--models-dir <dir>", "local models folder (default $CITEFLOW_MODELS)")
    .option("--limit <n>", "evaluate only the first N queries that have judgements", intArg("--limit"))
    .option("--parallel <n>", "queries retrieved at once (default 1); more keep a served embedder or a Qdrant server busy", intArg("--parallel"))
    .option("--json", "print { ndcg@10, recall@100, mrr@10, queries }", false)
    .addOption(runsOption())
    .action(async (opts) => setCode(await evalRetrievalCommand({ ...opts, ...(opts.compare ? { compare: twoModels(opts.compare) } : {}) }, registry)));
  program
    .command("calibrate")
    .description("choose a verifier's claim-verdict calibration (Platt scaling, the cannot-tell band, the evidence floor) on dev records and write it into its model's folder")
    .argument("<records>", "records of citeflow eval scifact --binary --out on dev claims the model never trained on")
    .requiredOption("--model <name>", "the model the records were made with: an NLI model's id, or a judge adapter's (<base>+<adapter> or the adapter's id)")
    .option("--models-dir <dir>", "the models folder it is in (default $CITEFLOW_MODELS, then the models home)")
    .option("--target <accuracy>", "the verdicts given must be right this often on the records' claims", numberArg("--target"), 0.82)
    .option("--rule <text>", "shown with every verdict: the model, and the claims it was chosen on (default says both)")
    .option("--dry-run", "print the calibration without writing it", false)
    .option("--json", "print the calibration as JSON", false)
    .action(async (records: string, opts) => setCode(await calibrateCommand({ records, ...opts })));
}
