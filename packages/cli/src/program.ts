import { Command, CommanderError, Option } from "commander";
import { existsSync, statSync } from "node:fs";
import type { NodeRegistry } from "@citeflow/core";
import { catalogueCommand } from "./commands/catalogue.js";
import { correctCommand } from "./commands/correct.js";
import { exportCommand } from "./commands/export.js";
import { datasetsImportCommand } from "./commands/datasets.js";
import { synthCommand } from "./commands/synth.js";
import { trainCommand } from "./commands/train.js";
import { demoCommand } from "./commands/demo.js";
import { addEvalCommands } from "./program-eval.js";
import { intArg, runsOption } from "./args.js";
import { ingestCommand } from "./commands/ingest.js";
import { searchCommand } from "./commands/search.js";
import { runCommand } from "./commands/run.js";
import { runsDiff, runsList, runsOutput, runsShow } from "./commands/runs.js";
import { templatesCommand } from "./commands/templates.js";
import { cliServices, cliSession } from "./services.js";
import { validateCommand } from "./commands/validate.js";
import { EXIT, FailureError, UsageError } from "./errors.js";
import { RunStore } from "@citeflow/runstore";
import { openGraph } from "@citeflow/host";
import { findGraph } from "@citeflow/nodes";

/** Folder options: a path that is a file is a usage error; these commands read a folder that must exist. */
const FOLDERS = { store: ["search", "scifact", "retrieval", "run", "synth"], runs: ["export", "list", "show", "output", "diff", "correct"], out: [] as string[] };
/** File options that must name an existing file. */
const FILES = ["questions", "claims", "queries", "qrels", "labels", "corpus", "pairs"];

/** Paths the user gave, checked before a command runs, with the fix in the user's terms. */
function checkPaths(cmd: Command): void {
  const o = cmd.opts() as Record<string, unknown>;
  for (const [flag, mustExist] of Object.entries(FOLDERS)) {
    const v = o[flag];
    if (typeof v !== "string" || v === "" || v.startsWith("qdrant:")) continue;
    if (cmd.options.find((opt) => opt.long === `--${flag}`)?.flags.includes("<file>")) continue; // a file option (eval scifact --out)
    if (existsSync(v) && !statSync(v).isDirectory()) throw new UsageError(`--${flag} ${v}: that is a file; give a folder${mustExist.includes(cmd.name()) ? "" : " (it is created when missing)"}`);
    if (!existsSync(v) && mustExist.includes(cmd.name()))
      throw new FailureError(
        `--${flag} ${v}: no such folder${flag === "runs" ? " (runs are stored where citeflow run --runs or $CITEFLOW_RUNS put them)" : " (build a store with citeflow ingest --store)"}`,
      );
  }
  for (const flag of FILES) {
    const v = o[flag];
    // --question with --questions is a usage error the command itself reports ("not both").
    if (typeof v !== "string" || (flag === "questions" && o.question !== undefined)) continue;
    if (!existsSync(v)) throw new FailureError(`--${flag} ${v}: no such file`);
    if (statSync(v).isDirectory()) throw new UsageError(`--${flag} ${v}: that is a folder; give a file`);
  }
}

/** Build the CLI. `setCode` receives the exit code of the command that ran. */
export function buildProgram(registry: NodeRegistry, setCode: (code: number) => void): Command {
  const program = new Command("citeflow")
    .description("Grounded, cited, verified scientific QA pipelines as inspectable graphs")
    .version("0.1.0")
    .exitOverride()
    .showHelpAfterError()
    .hook("preAction", (_program, cmd) => checkPaths(cmd));

  program
    .command("validate")
    .description("check a graph file; prints each problem with its node and field")
    .argument("<graph>", "a *.citeflow.json file, or a template name")
    .action((graph: string) => {
      // Read here, not opened: validate lists every problem of the file, where opening stops at the first.
      const g = findGraph(graph);
      setCode(validateCommand(g.path, registry, cliServices({ graphDir: g.dir })));
    });

  program
    .command("run")
    .description("run a graph on a question or a question set")
    .argument("<graph>", "a *.citeflow.json file, or a template name (citeflow templates)")
    .option("-q, --question <text>", "one question")
    .option("--questions <file>", "a question set: JSON Lines or a JSON array")
    .option("--question-field <name>", "field holding the question text (default: text, question, claim or query)")
    .option("--limit <n>", "only the first N questions of --questions", intArg("--limit"))
    .addOption(runsOption())
    .option("--to <node>", "run only this node and what it needs")
    .option("--from <node>", "re-run this node and everything downstream; upstream from cache")
    .option("--only <node>", "re-run just this node; its inputs from cache")
    .option("--force", "ignore the cache for every node", false)
    .option("--override <node.port=json>", "replace an output value (JSON, or @file.json); repeatable", (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option("--concurrency <n>", "nodes run at once (default 4)", intArg("--concurrency"))
    .option(
      "--parallel <n>",
      "questions of --questions run at once (default: 1, or 4 — $CITEFLOW_SERVER_CONCURRENCY if set — when every language model the graph calls is served); results still come out in the set's order",
      intArg("--parallel"),
    )
    .option("--store <dir>", "store folder for retrieval nodes that name none (default $CITEFLOW_STORE)")
    .option(
      "--allow-endpoint <url>",
      "let the graph send requests to this server, which you have not configured (no key is sent to it); repeatable",
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option(
      "--allow-models-dir <folder>",
      "let the graph load models from this folder (a node's modelsDir), which is not in $CITEFLOW_MODELS; repeatable",
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option("--json", "print one JSON summary instead of progress", false)
    .action(async (graph: string, opts) => {
      // Looked up and opened once, as every front end opens a graph (the host's openGraph); the command's services read
      // its relative `file:` prompts in its folder.
      const g = openGraph(graph, registry);
      const session = cliSession(registry, opts.runs, {
        ...(g.folder ? { graphDir: g.folder } : {}),
        store: opts.store,
        allowEndpoints: opts.allowEndpoint as string[],
        allowModelsDirs: opts.allowModelsDir as string[],
      });
      setCode(await runCommand(g, opts, session));
    });

  program
    .command("templates")
    .description("the seed pipelines shipped as template graphs")
    .option("--json", "JSON output", false)
    .action((opts) => setCode(templatesCommand(opts.json)));

  program
    .command("ingest")
    .description("read a corpus, chunk it, embed it and index it (BM25 + vectors) into a store folder")
    .argument("<path>", "corpus file; for --format pdf a PDF or a folder of them; zotero:users/<id> or zotero:groups/<id> for a Zotero library")
    .requiredOption("--store <dir>", "store folder (created if missing; re-running resumes), or qdrant:<collection> on $QDRANT_URL")
    .addOption(new Option("--format <format>", "corpus format").choices(["scifact", "beir", "jsonl", "csv", "pubmedqa", "pubmed-xml", "pdf", "csl-json", "bibtex"]).default("scifact"))
    .option("--pdfs <dir>", "csl-json, bibtex: a folder of PDFs named <key>.pdf, for entries without a file field")
    .option("--collection <name>", "zotero: only items in this collection (name or key)")
    .option("--tag <tag>", "zotero: only items with this tag")
    .option("--files <dir>", "zotero: where downloaded PDFs are kept (default <store>/zotero-files)")
    .option("--map <fields>", "for jsonl and csv: id=…,text=…[,title=…,year=…,citationCount=…,url=…] (field or column names)")
    .addOption(new Option("--chunker <name>", "openscholar: 256-word windows; verifai: whole abstract or sentence windows").choices(["openscholar", "verifai"]).default("openscholar"))
    .option("--words <n>", "openscholar window size in words (default 256)", intArg("--words"))
    .option("--max-tokens <n>", "verifai passage size in tokens (default 512)", intArg("--max-tokens"))
    .option("--embedder <id>", "embedding model id (default Xenova/all-MiniLM-L6-v2)")
    .option("--models-dir <dir>", "local models folder (default $CITEFLOW_MODELS)")
    .addOption(new Option("--dtype <dtype>").choices(["fp32", "q8"]).default("fp32"))
    .option("--batch <n>", "passages per batch (default 256)", intArg("--batch"))
    .option("--limit <n>", "ingest only the first N documents", intArg("--limit"))
    .option("--json", "print a JSON summary", false)
    .action(async (path: string, opts) => setCode(await ingestCommand({ ...opts, corpus: path })));

  program
    .command("search")
    .description("query a store: lexical (BM25), dense or hybrid")
    .argument("<query>")
    .requiredOption("--store <dir>", "store folder, or qdrant:<collection>")
    .addOption(new Option("--mode <mode>").choices(["lexical", "dense", "hybrid"]).default("hybrid"))
    .option("-k <n>", "how many passages (default 10)", intArg("-k"))
    .option("--models-dir <dir>", "local models folder (default $CITEFLOW_MODELS)")
    .option("--json", "print the passages as JSON", false)
    .addOption(runsOption())
    .action(async (query: string, opts) => setCode(await searchCommand(query, { ...opts, ...(opts.k ? { k: opts.k } : {}) }, registry)));

  addEvalCommands(program, registry, setCode);

  const runs = program.command("runs").description("read the run store");
  runs
    .command("list")
    .description("runs, newest first")
    .addOption(runsOption())
    .addOption(new Option("--origin <front end>", "only the runs started from this front end").choices(["cli", "editor", "notebook"]))
    .option("--json", "JSON output", false)
    .action((opts) => setCode(runsList(opts.runs, opts.json, opts.origin)));
  runs
    .command("show")
    .description("one run: inputs, and per node status, cache, time and output")
    .argument("<runId>")
    .addOption(runsOption())
    .option("--json", "the whole run record as JSON", false)
    .action((runId: string, opts) => setCode(runsShow(opts.runs, runId, opts.json)));
  runs
    .command("output")
    .description("a node's output value(s) as JSON")
    .argument("<runId>")
    .argument("<node>")
    .argument("[port]")
    .addOption(runsOption())
    .action((runId: string, node: string, port: string | undefined, opts) => setCode(runsOutput(opts.runs, runId, node, port)));
  runs
    .command("diff")
    .description("compare two runs per node: params, outputs, timing")
    .argument("<a>")
    .argument("<b>")
    .addOption(runsOption())
    .option("--json", "JSON output", false)
    .action((a: string, b: string, opts) => setCode(runsDiff(opts.runs, a, b, opts.json)));

  program
    .command("cache")
    .description("manage the node cache")
    .command("clear")
    .description("forget every cached node result (runs are kept)")
    .addOption(runsOption())
    .action((opts) => {
      const n = new RunStore(opts.runs).cache.clear();
      process.stdout.write(`removed ${n} cache entr${n === 1 ? "y" : "ies"} from ${opts.runs}\n`);
      setCode(0);
    });

  program
    .command("catalogue")
    .description("node types with their ports and params")
    .option("--json", "the catalogue as JSON (with param JSON Schemas)", false)
    .action((opts) => setCode(catalogueCommand(registry, opts.json)));

  program
    .command("export")
    .description("training data from the runs in a run store: JSONL files and a dataset card")
    .addOption(runsOption())
    .requiredOption("--format <format>", "sft | sft-completion | openscholar | dpo | dpo-openai | kto | nli | rerank | rerank-scored")
    .requiredOption("--out <dir>", "output folder (train.jsonl, validation.jsonl, README.md)")
    .option("--split <fraction>", "fraction of questions in train (1: no validation file)", "0.9")
    .option("--seed <n>", "seed of the train/validation split", "0")
    .option("--qrels <tsv>", "BEIR qrels for rerank formats (judged by question id)")
    .option(
      "--labels <claims.jsonl>",
      "labelled claims (SciFact's shape): each run whose question id is a claim id gives the claim's gold NLI pairs (nli) and its gold answer (sft and the other answer formats: the rationale sentences the passages hold, each with its passage's marker)",
    )
    .option("--corpus <corpus.jsonl>", "the corpus --labels points into (doc_id, abstract as sentences)")
    .option("--run <ids...>", "only these runs (default: every run in the store)")
    .option("--graph-name <name>", "only runs of graphs with this name")
    .option("--parquet", "also write train.parquet / validation.parquet", false)
    .option("--no-metadata", "strip the metadata back-links (for providers that reject extra keys)")
    .option("--json", "print the counts as JSON", false)
    .action(async (opts) => setCode(await exportCommand(opts)));

  const datasets = program.command("datasets").description("labelled claim-verification sets as Citeflow training and test rows");
  datasets
    .command("import")
    .description(
      "a claim-verification set → Citeflow NLI rows (export --format nli's shape), one file per split of the set (its own test split kept apart), with a card: source, origin, licence, counts per label, rows left out and why",
    )
    .argument("<kind>", "check-covid | healthver | covidfact | nli4ct | climate-fever | fever-rte | pairs (your own JSONL of premise, hypothesis, label)")
    .argument("<path>", "the set's folder (or its file)")
    .requiredOption("--out <dir>", "output folder (<split>.jsonl, README.md, import.json)")
    .option("--licence <text>", "pairs: your set's licence, for the card")
    .option("--json", "print the counts as JSON", false)
    .action(async (kind: string, path: string, opts) => setCode(await datasetsImportCommand(kind, path, opts)));

  program
    .command("train")
    .description(
      "fine-tune a model from a citeflow export folder, on the CPU or CUDA GPUs: nli (a cross-encoder: SUPPORT / NO_EVIDENCE / CONTRADICT) or rerank (a sentence encoder) from any Hugging Face text encoder, written in the Hugging Face ONNX layout (fp32 and int8); lm (a LoRA adapter for a Hugging Face causal LM or the in-process GGUF model, written as a PEFT adapter and, for a GGUF, a llama.cpp adapter); each with a card and sha256 sums",
    )
    .argument("<task>", "nli | rerank | lm | setup (only make the training environment: PyTorch and the field's libraries in a virtual environment)")
    .option("--data <dir>", "a citeflow export --format nli|rerank|sft folder")
    .option("--out <dir>", "the model folder to write (replaced only once the new model is whole)")
    .option(
      "--base <dir|gguf>",
      "nli, rerank: a Hugging Face text-encoder folder (BERT, RoBERTa, DeBERTa-v2/v3, ModernBERT, XLM-R …), default all-MiniLM-L6-v2; lm: a Hugging Face causal-LM folder or a .gguf, default gemma-3-270m-q4_k_m.gguf",
    )
    .option("--gguf <file>", "lm: the GGUF of the Hugging Face base, to write the llama.cpp adapter beside the PEFT one")
    .option("--qlora", "lm on a Hugging Face base and a CUDA GPU: the base in 4-bit (bitsandbytes), LoRA on top", false)
    .option("--heldout <json>", "a held-out split ({ heldout_ids }): rows about those claims are scored, never trained on")
    .option("--claims <jsonl>", "the claims file the held-out ids point into")
    .option("--epochs <n>", "passes over the data (default 2)", intArg("--epochs"))
    .option("--max-steps <n>", "stop after N optimiser steps", intArg("--max-steps"))
    .option("--batch-size <n>", "pairs per step (default 32)", intArg("--batch-size"))
    .option("--max-length <n>", "tokens per pair, longer pairs are cut (default 256)", intArg("--max-length"))
    .option("--lr <rate>", "learning rate (default 4e-5)")
    .option("--seed <n>", "seed (default 13)", (v: string) => Number(v))
    .option("--threads <n>", "CPU threads (default: all)", intArg("--threads"))
    .option("--no-augment", "nli: gold rows only, without the self / clause / flipped-claim augmentations")
    .option(
      "--corpus <jsonl>",
      "nli: also pairs made from this corpus's unlabelled abstracts (sentence or clause → SUPPORT, flipped → CONTRADICT, another sentence → NO_EVIDENCE); abstracts the held-out claims cite are left out",
    )
    .option("--corpus-sentences <n>", "nli: corpus sentences to make pairs from (default 4000)", intArg("--corpus-sentences"))
    .option("--leave-out <split...>", "split files (dev_ids or heldout_ids) whose claims are neither trained on nor scored: the dev split a recipe or calibration is chosen on")
    .option(
      "--add <set...>",
      "nli: other labelled sets trained on beside the export: citeflow datasets import folders (their train.jsonl) or .jsonl files, each =weight (0.5: half its rows, 2: twice); never a test split",
    )
    .option("--curriculum", "nli: train on the --add sets first (one pass), then on the export's pairs for --epochs epochs, one learning-rate schedule over both", false)
    .option("--lora-rank <n>", "lm: the LoRA rank (default 16)", intArg("--lora-rank"))
    .option("--lora-alpha <a>", "lm: the LoRA alpha (default 32)")
    .option("--refusal-share <s>", 'lm: the largest share of training answers that cite nothing ("The papers do not answer the question."), default 0.2')
    .option("--opening-weight <w>", "lm: how many times each of an answer's first 4 tokens (the ones that decide whether it cites) counts in the loss, default 8")
    .option("--lexical-weight <w>", "rerank: the weight of the retriever's BM25 score fused with the reranker's, written into the model's config (default 0.5)")
    .option("--data-licence <text>", "the training data's licence, for the model card")
    .option("--bf16", "train in bfloat16 autocast on the CPU (on a GPU bf16 is the default)", false)
    .option("--fp32", "train in fp32 on a GPU too", false)
    .option("--device <d>", "auto (CUDA when PyTorch sees a GPU, else the CPU), cpu or cuda", "auto")
    .option("--gpus <n>", "data-parallel on N GPUs of this machine (torchrun, one process a GPU)", intArg("--gpus"))
    .option("--processes <n>", "data-parallel in N processes on the CPU (torchrun, gloo)", intArg("--processes"))
    .option("--nodes <n>", "with --gpus: machines in all (run the same command on each, --node-rank 0 … N-1)", intArg("--nodes"))
    .option("--node-rank <r>", "with --nodes: this machine's rank", (v: string) => Number(v))
    .option("--master <host:port>", "with --nodes: the first machine's address, the same on every machine")
    .option("--gradient-checkpointing", "recompute activations in the backward pass (a 7-8 B LoRA on one 24 GB GPU)", false)
    .option("--json", "print the result as JSON", false)
    .action(async (task: string, opts) => setCode(await trainCommand(task, opts)));

  program
    .command("synth")
    .description(
      "OpenScholar-style synthetic training data: sample abstracts, LLM-written questions, the synth-openscholar pipeline, pairwise and rubric filters, exports (needs a language model: see docs/models.md)",
    )
    .requiredOption("--store <dir>", "store to sample abstracts from (also the pipeline's retrieval store)")
    .requiredOption("--n <N>", "abstracts to sample")
    .requiredOption("--out <dir>", "output folder: questions.jsonl, done.jsonl, runs/, one folder per format")
    .option("--seed <n>", "sampling seed", "0")
    .option("--min-year <y>", "only papers from this year on")
    .option("--max-year <y>", "only papers up to this year")
    .option("--min-citations <n>", "only papers cited at least this often")
    .option("--graph <template|file>", "pipeline (Question in, judge.pairwise and judge.rubric inside)", "synth-openscholar")
    .option("--min-organisation <score>", "rubric threshold, 1–5", "4.5")
    .option("--min-factuality <score>", "rubric threshold (factual precision / citation accuracy), 1–5", "4.5")
    .option("--formats <list>", "exports to write", "sft,openscholar,dpo,kto")
    .option("--parallel <n>", "questions written and pipeline runs made at once (default 1); more keep a served model busy, and the files keep the one-at-a-time order", intArg("--parallel"))
    .option("--json", "print the result as JSON", false)
    .action(async (opts) => setCode(await synthCommand(opts, registry)));

  program
    .command("correct")
    .description("record a correction of a run's output (stored beside the run, which is never changed; exports use it)")
    .argument("<runId>")
    .addOption(runsOption())
    .option("--node <id>", "the node whose output is corrected")
    .option("--verdict <claim=LABEL>", "a claim's verdict: SUPPORT, CONTRADICT, NO_EVIDENCE or NO_REFERENCE")
    .option("--passage <id>", "with --verdict: the cited passage, when the claim cites several")
    .option("--answer <text>", "the corrected answer text")
    .option("--answer-file <path>", "the corrected answer, from a file")
    .option("--relevant <passageId>", "judge a passage relevant to the question")
    .option("--irrelevant <passageId>", "judge a passage not relevant")
    .option("--note <text>", "why")
    .option("--list", "list the run's corrections", false)
    .action((runId: string, opts) => setCode(correctCommand(runId, opts)));

  const kernel = program.command("kernel").description("the Citeflow Jupyter kernel (TypeScript cells, Citeflow displays, the citeflow comm)");
  const specOptions = (c: Command) =>
    c
      .option("--user", "into your Jupyter data folder ($JUPYTER_DATA_DIR or ~/.local/share/jupyter; the default)")
      .option("--prefix <dir>", "into <dir>/share/jupyter/kernels (a virtualenv, conda env or /usr/local)")
      .option("--name <name>", "kernel name", "citeflow");
  specOptions(kernel.command("install").description("write the kernelspec so Jupyter lists the Citeflow kernel"))
    .option("--display-name <text>", "name shown in the launcher", "TypeScript (Citeflow)")
    .action(async (opts) => {
      if (opts.user && opts.prefix) throw new UsageError("give --user or --prefix, not both");
      const { installKernelspec } = await import("@citeflow/kernel");
      const dir = installKernelspec({ name: opts.name, displayName: opts.displayName, ...(opts.prefix ? { prefix: opts.prefix } : {}) });
      process.stdout.write(`installed kernelspec "${opts.name}" in ${dir}
`);
      setCode(0);
    });
  kernel
    .command("start")
    .description("run the kernel on a Jupyter connection file (what the kernelspec's argv calls; Jupyter starts it, not you)")
    .requiredOption("-f, --connection-file <file>", "the connection file Jupyter writes ({connection_file})")
    .action(async (opts) => {
      const { main } = await import("@citeflow/kernel");
      await main(["--connection-file", opts.connectionFile]);
    });
  specOptions(kernel.command("uninstall").description("remove the kernelspec")).action(async (opts) => {
    const { uninstallKernelspec } = await import("@citeflow/kernel");
    const dir = uninstallKernelspec({ name: opts.name, ...(opts.prefix ? { prefix: opts.prefix } : {}) });
    if (!dir) throw new FailureError(`no kernelspec "${opts.name}" to remove`);
    process.stdout.write(`removed ${dir}
`);
    setCode(0);
  });

  program
    .command("demo")
    .description("index SciFact, run the Verif.ai template on three SciFact claims and show each run (the SciFact shipped in data/, $CITEFLOW_DATA or a download)")
    .addOption(runsOption())
    .option("--data <dir>", "data folder holding scifact/ (default $CITEFLOW_DATA, else the data shipped with Citeflow; else a download into <runs>/data when CITEFLOW_ALLOW_DOWNLOADS=1)")
    .action(async (opts) => setCode(await demoCommand(opts.runs, registry, opts.data !== undefined ? { data: opts.data } : {})));

  return program;
}

/** Run the CLI on argv; resolves to the exit code. Never calls process.exit itself. */
export async function main(argv: string[], registry: NodeRegistry): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram(registry, (c) => (code = c));
  try {
    await program.parseAsync(argv, { from: "user" });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version are exits with code 0; everything else commander rejects is usage.
      return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (e instanceof UsageError) {
      process.stderr.write(`citeflow: ${e.message}\n`);
      return EXIT.usage;
    }
    const err = e as Error;
    process.stderr.write(`citeflow: ${err.message}\n`);
    if (process.env.CITEFLOW_DEBUG && err.stack) process.stderr.write(err.stack + "\n");
    return EXIT.failure;
  }
}
